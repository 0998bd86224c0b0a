package store

import (
	"fmt"
	"strings"
	"sync"
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

// queueInsertThenDecision queues proposal p1's insert, then its approval
// (as the operator pressing a key at once), and returns when both wait.
func queueInsertThenDecision(t *testing.T, st *Store) (insert *Queued, decided chan error) {
	t.Helper()
	insert = st.QueueProposal(Proposal{ID: "p1", Client: "c", Tool: "transfer_sol", Fingerprint: "fp", CreatedAt: time.Now()})
	decided = make(chan error, 1)
	go func() {
		decided <- st.RecordDecision(Decision{ProposalID: "p1", DecidedBy: "operator", DecidedAt: time.Now(), Outcome: OutcomeApproved})
	}()
	testkit.Eventually(t, 30*time.Second, "the decision queued behind the insert", func() bool { return queuedWrites(st) == 2 },
		func() string { return fmt.Sprintf("%d queued", queuedWrites(st)) })
	return insert, decided
}

// A decision queued after a proposal's insert (the hub shows a proposal
// while its insert is being committed, and the operator may press a key at
// once) is never durable before that insert: while the insert waits for
// its commit, so does the decision, and neither row is in the database;
// afterwards both are, the insert's audit entry first.
func TestDecisionQueuedAfterAnInsertWaitsForIt(t *testing.T) {
	st, dir := openTemp(t)
	release := holdCommits(t, st)

	insert, decided := queueInsertThenDecision(t, st)
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
	insert, decided := queueInsertThenDecision(t, st)
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

// Neither a write's caller nor the next commit waits for the audit head
// file: with the file's write held (here by the test hook), a write
// returns once its commit is durable, and the next write commits too;
// once the file's writer is let go, the file names the newest entry.
func TestWriteDoesNotWaitForTheHeadFile(t *testing.T) {
	st, dir := openTemp(t)
	inWrite, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	beforeHeadWrite = func() { once.Do(func() { close(inWrite) }); <-release }
	released := false
	t.Cleanup(func() {
		if !released { // a failed test lets the held write go, so Close can finish
			close(release)
		}
		_ = st.HeadFileErr() // the head file's writer is done with the hook
		beforeHeadWrite = nil
	})
	var last AuditEntry
	for i := 1; i <= 2; i++ {
		done := make(chan error, 1)
		go func() {
			e, err := st.AppendAudit("note", "", map[string]int{"i": i})
			last = e
			done <- err
		}()
		<-inWrite // the first write's head is being written, and held there
		var err error
		testkit.Eventually(t, 30*time.Second, fmt.Sprintf("write %d returned while the head file's write is held", i), func() bool {
			select {
			case err = <-done:
				return true
			default:
				return false
			}
		}, func() string { return "the write waits for the head file" })
		if err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	released = true
	if err := st.HeadFileErr(); err != nil {
		t.Fatal(err)
	}
	if seq, hash := readHead(t, dir); seq != last.Seq || hash != last.Hash {
		t.Fatalf("head file at %d %s, want the newest entry %d %s", seq, hash, last.Seq, last.Hash)
	}
}
