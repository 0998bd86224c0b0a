package store

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// Writes that arrive while a commit is in flight share the next commit,
// and each stays a unit of its own: a write that fails (a second decision
// for a proposal) leaves no row and no audit entry, while the writes
// beside it in the same transaction are all there after a reopen.
func TestGroupCommitKeepsEachWriteAlone(t *testing.T) {
	st, dir := openTemp(t)
	const n = 24
	for i := 0; i < n; i++ {
		if err := st.InsertProposal(Proposal{ID: fmt.Sprintf("p%d", i), Client: "c", Tool: "transfer_sol", Fingerprint: "fp", CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 { // these get a second, refused decision below
			if err := st.RecordDecision(Decision{ProposalID: fmt.Sprintf("p%d", i), DecidedBy: "first", DecidedAt: time.Now(), Outcome: OutcomeApproved}); err != nil {
				t.Fatal(err)
			}
		}
	}
	commitsBefore := st.commits.Load()
	entriesBefore, err := st.Audit()
	if err != nil {
		t.Fatal(err)
	}

	// Hold the writers' lock, as a commit in flight does, until every
	// writer is queued behind it: they must then go in one commit.
	st.lockWriters()
	held := true
	defer func() {
		if held {
			st.unlockWriters()
		}
	}()

	// Besides the decisions, executions of proposals that do not exist:
	// each inserts its row, then fails on the proposal's status, so only
	// its savepoint's rollback keeps its row out of the group's commit.
	const ghosts = 4
	errs := make([]error, n)
	ghostErrs := make([]error, ghosts)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = st.RecordDecision(Decision{ProposalID: fmt.Sprintf("p%d", i), DecidedBy: "group", DecidedAt: time.Now(), Outcome: OutcomeDenied, Reason: "r"})
		}()
	}
	for i := 0; i < ghosts; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ghostErrs[i] = st.RecordExecution(Execution{ProposalID: fmt.Sprintf("ghost%d", i), Signature: "sig", Outcome: ExecExecuted, At: time.Now()})
		}()
	}
	// An event, not a sleep: the queue holds every writer.
	queued := func() int {
		st.queueMu.Lock()
		defer st.queueMu.Unlock()
		return len(st.queued)
	}
	testkit.Eventually(t, 30*time.Second, "every writer queued", func() bool { return queued() == n+ghosts },
		func() string { return fmt.Sprintf("%d of %d queued", queued(), n+ghosts) })
	held = false
	st.unlockWriters()
	wg.Wait()

	if got := st.commits.Load() - commitsBefore; got != 1 {
		t.Errorf("%d queued writes took %d commits, want 1", n+ghosts, got)
	}
	for i, err := range ghostErrs {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("execution of ghost%d: %v, want ErrNotFound", i, err)
		}
	}
	okWrites := 0
	for i, err := range errs {
		switch {
		case i%4 == 0 && !errors.Is(err, ErrDuplicate):
			t.Errorf("p%d: second decision: %v, want ErrDuplicate", i, err)
		case i%4 != 0 && err != nil:
			t.Errorf("p%d: decision: %v", i, err)
		case err == nil:
			okWrites++
		}
	}

	st2 := reopen(t, st, dir)
	if bad, err := st2.VerifyAudit(); err != nil {
		t.Fatalf("chain after group commits: entry %d: %v", bad, err)
	}
	entries, err := st2.Audit()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(entries) - len(entriesBefore); got != okWrites {
		t.Errorf("%d audit entries added for %d successful writes", got, okWrites)
	}
	for i := 0; i < n; i++ {
		d, err := st2.GetDecision(fmt.Sprintf("p%d", i))
		want := "group"
		if i%4 == 0 {
			want = "first" // the refused second decision changed nothing
		}
		if err != nil || d.DecidedBy != want {
			t.Errorf("p%d: decision read back %+v (%v), want decided by %q", i, d, err, want)
		}
		p, err := st2.GetProposal(fmt.Sprintf("p%d", i))
		wantStatus := OutcomeDenied
		if i%4 == 0 {
			wantStatus = OutcomeApproved
		}
		if err != nil || p.Status != wantStatus {
			t.Errorf("p%d: status read back %q (%v), want %q", i, p.Status, err, wantStatus)
		}
	}
	var rows int
	if err := st2.DB().QueryRow(`SELECT COUNT(*) FROM executions`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("%d execution rows of failed writes committed with the group (%v), want 0", rows, err)
	}
	if note := st2.HeadFileNote(); note != "" {
		t.Errorf("the head file lagged behind the group's last entry: %s", note)
	}
}

// A proposal and its audit entry are one transaction: both are on disk,
// or (when the write fails) neither.
func TestProposalAndItsAuditEntryCommitTogether(t *testing.T) {
	st, dir := openTemp(t)
	if err := st.InsertProposal(Proposal{ID: "p1", Client: "c", Tool: "transfer_sol", Fingerprint: "fp", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// A second insert of the same id fails inside its transaction, after
	// nothing of it may remain.
	if err := st.InsertProposal(Proposal{ID: "p1", Client: "other", Tool: "transfer_sol", Fingerprint: "fp2", CreatedAt: time.Now()}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second insert: %v, want ErrDuplicate", err)
	}
	st2 := reopen(t, st, dir)
	p, err := st2.GetProposal("p1")
	if err != nil || p.Client != "c" {
		t.Fatalf("proposal read back %+v (%v)", p, err)
	}
	entries, err := st2.Audit()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Kind == "proposal" && e.ProposalID == "p1" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d audit entries for proposal p1, want exactly 1 (its insert's)", n)
	}
}
