package authority_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/policy/store"
)

// writeLockHolder holds the database's write lock from a connection of its
// own, as another writer (or a commit stuck on a slow disk) would: the
// console's own commits wait behind it.
type writeLockHolder struct {
	conn *sql.Conn
	db   *sql.DB
	hold atomic.Bool
	once sync.Once
}

func holdWriteLock(t *testing.T, path string) *writeLockHolder {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	h := &writeLockHolder{conn: conn, db: db}
	h.hold.Store(true)
	t.Cleanup(func() { h.release(t, "") })
	return h
}

func (h *writeLockHolder) held() bool { return h.hold.Load() }

// release runs sqlText (if any) inside the held transaction, commits it,
// and lets the console's commits through.
func (h *writeLockHolder) release(t *testing.T, sqlText string) {
	h.once.Do(func() {
		ctx := context.Background()
		if sqlText != "" {
			if _, err := h.conn.ExecContext(ctx, sqlText); err != nil {
				t.Error(err)
			}
		}
		h.hold.Store(false)
		if _, err := h.conn.ExecContext(ctx, "COMMIT"); err != nil {
			t.Error(err)
		}
		h.conn.Close()
		h.db.Close()
	})
}

// addedProposal waits for EventProposalAdded and returns its proposal id.
func addedProposal(t *testing.T, events <-chan authority.Event) string {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == approval.EventProposalAdded && ev.Proposal != nil {
				return ev.Proposal.ID
			}
		case <-deadline:
			t.Fatal("no EventProposalAdded")
		}
	}
}

// auditKindsOf lists the kinds of a proposal's audit entries, in order,
// read back from the database.
func auditKindsOf(t *testing.T, st *store.Store, id string) string {
	t.Helper()
	entries, err := st.Audit()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		if e.ProposalID == id {
			kinds = append(kinds, e.Kind)
		}
	}
	return strings.Join(kinds, ",")
}

// proposalRows counts a proposal's rows and its decision's in the database.
func proposalRows(t *testing.T, st *store.Store, id string) int {
	t.Helper()
	var rows int
	if err := st.DB().QueryRow(`SELECT (SELECT COUNT(*) FROM proposals WHERE id = ?) + (SELECT COUNT(*) FROM decisions WHERE proposal_id = ?)`, id, id).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

type heldReply struct {
	ans     testkit.Answer
	err     error
	whileDB bool // the answer came while the proposal's record could not be durable
}

type heldDecision struct {
	p       *authority.Proposal
	err     error
	whileDB bool
}

// proposeAndApproveWhileHeld shows a proposal whose insert cannot commit
// (the database's write lock is held), and has the operator approve it at
// once; it returns when that approval has reached the store.
func proposeAndApproveWhileHeld(t *testing.T, w *world) (id string, holder *writeLockHolder, events <-chan authority.Event, answered chan heldReply, approved chan heldDecision) {
	t.Helper()
	events, stop := w.authority.Subscribe(256)
	t.Cleanup(stop)
	a := startAgent(t, w.socket)
	holder = holdWriteLock(t, w.store.Path())

	answered = make(chan heldReply, 1)
	go func() {
		ans, err := a.Try("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 10_000_000}, 60*time.Second)
		answered <- heldReply{ans, err, holder.held()}
	}()
	id = addedProposal(t, events) // on the operator's screen while its insert waits

	entered := make(chan struct{})
	var once sync.Once
	authority.SetBeforeDecisionWrite(w.authority, func(string) { once.Do(func() { close(entered) }) })
	approved = make(chan heldDecision, 1)
	go func() {
		p, err := w.authority.Approve(id, "operator")
		approved <- heldDecision{p, err, holder.held()}
	}()
	<-entered

	if rows := proposalRows(t, w.store, id); rows != 0 {
		t.Fatalf("rows of %s while the write lock is held: %d", id, rows)
	}
	if p, _ := w.authority.Proposal(id); p == nil || p.Status != approval.StatusPending || p.Token != "" {
		t.Fatalf("while its record commits the proposal is %+v; want pending, no token", p)
	}
	// The behaviour under test is an absence over time: for as long as the
	// record cannot be durable, neither the agent nor the operator gets an
	// answer. Half a second is ample for the bridge's hop (about 1 ms).
	select {
	case r := <-answered:
		t.Fatalf("the agent was answered (%s %s) while the proposal's insert could not be durable", r.ans.Status(), r.ans.Text)
	case d := <-approved:
		t.Fatalf("the approval returned (%+v, %v) while the proposal's insert could not be durable", d.p, d.err)
	case <-time.After(500 * time.Millisecond):
	}
	return id, holder, events, answered, approved
}

// The proposal is shown while its insert is being committed, and the
// operator may approve it at once; but neither the agent's pending_approval
// answer nor the approval's token comes before the proposal's row (and the
// decision's) is durable. Rows are read back from the database.
func TestProposalShownBeforeItsRecordButNothingAnsweredBeforeIt(t *testing.T) {
	w := newWorld(t, nil)
	id, holder, _, answered, approved := proposeAndApproveWhileHeld(t, w)
	holder.release(t, "")

	r := <-answered
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.whileDB {
		t.Fatalf("the agent was answered (%s) while the proposal's insert could not be durable", r.ans.Status())
	}
	if r.ans.Status() != "pending_approval" || r.ans.Str("proposal_id") != id {
		t.Fatalf("answer: %+v, want pending_approval for %s", r.ans, id)
	}
	d := <-approved
	if d.whileDB {
		t.Fatal("the approval returned while the proposal's insert could not be durable")
	}
	if d.err != nil || d.p.Token == "" {
		t.Fatalf("approve: %+v, %v", d.p, d.err)
	}
	if p, err := w.store.GetProposal(id); err != nil || p.Status != store.OutcomeApproved {
		t.Fatalf("proposal row: %+v, %v", p, err)
	}
	if dec, err := w.store.GetDecision(id); err != nil || dec.Outcome != store.OutcomeApproved {
		t.Fatalf("decision row: %+v, %v", dec, err)
	}
	if kinds := auditKindsOf(t, w.store, id); kinds != "proposal,decision" {
		t.Fatalf("audit entries of %s in order: %v; want proposal, decision", id, kinds)
	}
}

// A proposal shown while its insert commits, whose insert then fails (the
// failure injected in the database by a trigger, as a full disk would
// fail it): the approval pressed meanwhile issues no token, the proposal
// leaves the queue and the screen as failed, the agent gets a tool error,
// the withdrawal is audited, and the same call later makes a new proposal.
func TestFailedInsertWithdrawsTheShownProposal(t *testing.T) {
	w := newWorld(t, nil)
	id, holder, events, answered, approved := proposeAndApproveWhileHeld(t, w)
	holder.release(t, `CREATE TRIGGER inject_insert_failure BEFORE INSERT ON proposals
		BEGIN SELECT RAISE(ABORT, 'injected store failure'); END`)

	r := <-answered
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.ans.IsError || !strings.Contains(r.ans.Text, "could not record the proposal") || !strings.Contains(r.ans.Text, "injected store failure") {
		t.Fatalf("answer to a proposal whose record failed: %+v", r.ans)
	}
	d := <-approved
	if d.err == nil || d.p != nil {
		t.Fatalf("approval of a proposal whose record failed: %+v, %v; want refused", d.p, d.err)
	}
	deadline := time.After(60 * time.Second)
	for withdrawn := false; !withdrawn; {
		select {
		case ev := <-events:
			withdrawn = ev.Kind == approval.EventProposalExpired && ev.Proposal != nil && ev.Proposal.ID == id && ev.Proposal.Status == approval.StatusFailed
		case <-deadline:
			t.Fatal("no event withdrew the proposal from the screen")
		}
	}
	if p, _ := w.authority.Proposal(id); p == nil || p.Status != approval.StatusFailed || p.Token != "" {
		t.Fatalf("hub holds %+v; want failed, no token", p)
	}
	if rows := proposalRows(t, w.store, id); rows != 0 {
		t.Fatalf("rows of the withdrawn proposal: %d", rows)
	}
	if kinds := auditKindsOf(t, w.store, id); kinds != "proposal_withdrawn" {
		t.Fatalf("audit entries of %s: %v; want proposal_withdrawn", id, kinds)
	}

	if _, err := w.store.DB().Exec(`DROP TRIGGER inject_insert_failure`); err != nil {
		t.Fatal(err)
	}
	again := startAgent(t, w.socket).Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 10_000_000})
	if again.Status() != "pending_approval" || again.Str("proposal_id") == id || again.Str("proposal_id") == "" {
		t.Fatalf("the same call after the withdrawal: %+v; want a new pending proposal", again)
	}
}
