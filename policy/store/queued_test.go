package store

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// queuedWrites is how many writes wait for the next commit.
func queuedWrites(st *Store) int {
	st.queueMu.Lock()
	defer st.queueMu.Unlock()
	return len(st.queued)
}

// holdCommits takes the writers' lock, as a commit being fsynced holds it;
// the returned func gives it back.
func holdCommits(t *testing.T, st *Store) (release func()) {
	t.Helper()
	st.lockWriters()
	held := true
	release = func() {
		if held {
			held = false
			st.unlockWriters()
		}
	}
	t.Cleanup(release)
	return release
}

// A decision queued after a proposal's insert (the hub shows a proposal
// while its insert is being committed, and the operator may press a key at
// once) is never durable before that insert: while the insert waits for
// its commit, so does the decision, and neither row is in the database;
// afterwards both are, the insert's audit entry first.
func TestDecisionQueuedAfterAnInsertWaitsForIt(t *testing.T) {
	st, dir := openTemp(t)
	release := holdCommits(t, st)

	insert := st.QueueProposal(Proposal{ID: "p1", Client: "c", Tool: "transfer_sol", Fingerprint: "fp", CreatedAt: time.Now()})
	decided := make(chan error, 1)
	go func() {
		decided <- st.RecordDecision(Decision{ProposalID: "p1", DecidedBy: "operator", DecidedAt: time.Now(), Outcome: OutcomeApproved})
	}()
	testkit.Eventually(t, 30*time.Second, "the decision queued behind the insert", func() bool { return queuedWrites(st) == 2 },
		func() string { return fmt.Sprintf("%d queued", queuedWrites(st)) })
	select {
	case err := <-decided:
		t.Fatalf("the decision returned (%v) while its proposal's insert was not committed", err)
	default:
	}
	var n int
	if err := st.DB().QueryRow(`SELECT (SELECT COUNT(*) FROM proposals) + (SELECT COUNT(*) FROM decisions)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows before the commit: %d, %v", n, err)
	}

	release()
	if err := insert.Wait(); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if err := <-decided; err != nil {
		t.Fatalf("decision: %v", err)
	}
	st.Close()
	st2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if p, err := st2.GetProposal("p1"); err != nil || p.Status != OutcomeApproved {
		t.Fatalf("after reopening: %+v, %v", p, err)
	}
	entries, err := st2.Audit()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		if e.ProposalID == "p1" {
			kinds = append(kinds, e.Kind)
		}
	}
	if strings.Join(kinds, ",") != "proposal,decision" {
		t.Fatalf("audit entries of p1, in order: %v; want proposal, decision", kinds)
	}
}

// An insert that fails after the proposal was shown takes any decision
// queued behind it down with it: the decision finds no proposal row, and
// neither leaves a row or an audit entry. The failure is injected in the
// database itself, by a trigger, as a full disk or a constraint would be.
func TestDecisionBehindAFailedInsertFails(t *testing.T) {
	st, _ := openTemp(t)
	if _, err := st.DB().Exec(`CREATE TRIGGER inject_insert_failure BEFORE INSERT ON proposals
		BEGIN SELECT RAISE(ABORT, 'injected store failure'); END`); err != nil {
		t.Fatal(err)
	}
	release := holdCommits(t, st)
	insert := st.QueueProposal(Proposal{ID: "p1", Client: "c", Tool: "transfer_sol", Fingerprint: "fp", CreatedAt: time.Now()})
	decided := make(chan error, 1)
	go func() {
		decided <- st.RecordDecision(Decision{ProposalID: "p1", DecidedBy: "operator", DecidedAt: time.Now(), Outcome: OutcomeApproved})
	}()
	testkit.Eventually(t, 30*time.Second, "the decision queued behind the insert", func() bool { return queuedWrites(st) == 2 },
		func() string { return fmt.Sprintf("%d queued", queuedWrites(st)) })
	release()

	if err := insert.Wait(); err == nil || !strings.Contains(err.Error(), "injected store failure") {
		t.Fatalf("insert: %v, want the injected failure", err)
	}
	// The decisions table's foreign key refuses it (and were that gone,
	// the proposal's status update would find no row).
	if err := <-decided; err == nil || !strings.Contains(err.Error(), "record decision p1") {
		t.Fatalf("decision behind the failed insert: %v, want it refused", err)
	}
	var rows int
	if err := st.DB().QueryRow(`SELECT (SELECT COUNT(*) FROM proposals) + (SELECT COUNT(*) FROM decisions) + (SELECT COUNT(*) FROM audit WHERE proposal_id = 'p1')`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("rows left by the failed insert and its decision: %d, %v", rows, err)
	}
}

// A write's caller does not wait for the audit head file: it returns once
// its commit is durable, while the head file's write is still held (here
// by the test hook); the next write waits for it, and the file then names
// the newest entry.
func TestWriteDoesNotWaitForTheHeadFile(t *testing.T) {
	st, dir := openTemp(t)
	inWrite, release := make(chan struct{}), make(chan struct{})
	beforeHeadWrite = func() { close(inWrite); <-release }
	released := false
	t.Cleanup(func() {
		beforeHeadWrite = nil
		if !released { // a failed test lets the held write go, so Close can finish
			close(release)
		}
	})
	type result struct {
		e   AuditEntry
		err error
	}
	first := make(chan result, 1)
	go func() {
		e, err := st.AppendAudit("note", "", map[string]int{"i": 1})
		first <- result{e, err}
	}()
	<-inWrite
	var r result
	testkit.Eventually(t, 30*time.Second, "the write returned while its head-file write is held", func() bool {
		select {
		case r = <-first:
			return true
		default:
			return false
		}
	}, func() string { return "the write waits for the head file" })
	if r.err != nil {
		t.Fatal(r.err)
	}
	e := r.e
	beforeHeadWrite = nil
	second := make(chan error, 1)
	go func() {
		_, err := st.AppendAudit("note", "", map[string]int{"i": 2})
		second <- err
	}()
	testkit.Eventually(t, 30*time.Second, "the second write queued", func() bool { return queuedWrites(st) == 1 },
		func() string { return fmt.Sprintf("%d queued", queuedWrites(st)) })
	select {
	case err := <-second:
		t.Fatalf("the next write committed (%v) before the head file caught up", err)
	default:
	}
	close(release)
	released = true
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if err := st.HeadFileErr(); err != nil {
		t.Fatal(err)
	}
	if seq, _ := readHead(t, dir); seq != e.Seq+1 {
		t.Fatalf("head file at %d, want %d", seq, e.Seq+1)
	}
}
