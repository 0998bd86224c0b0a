package store

import (
	"errors"
	"strings"
	"testing"
)

// chainRows reads the trail's seqs back from the database, in order.
func chainRows(t *testing.T, st *Store) []int64 {
	t.Helper()
	rows, err := st.DB().Query(`SELECT seq FROM audit ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			t.Fatal(err)
		}
		out = append(out, seq)
	}
	return out
}

func wantChain(t *testing.T, st *Store, n int) {
	t.Helper()
	seqs := chainRows(t, st)
	if len(seqs) != n || (n > 0 && seqs[n-1] != int64(n)) {
		t.Fatalf("audit seqs %v, want 1 to %d", seqs, n)
	}
	if bad, err := st.VerifyAudit(); err != nil {
		t.Fatalf("audit chain broken at %d: %v", bad, err)
	}
}

// The writer keeps the chain's head in memory. A commit that fails after
// its entries were appended (here the head row's move, refused by a
// trigger, as a full disk would) leaves nothing: the next append chains
// onto what the database holds, not onto the entry that was rolled back.
func TestChainHeadAfterAFailedCommit(t *testing.T) {
	st, _ := openTemp(t)
	for range 2 {
		if _, err := st.AppendAudit("note", "", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.DB().Exec(`CREATE TRIGGER inject_head_failure BEFORE UPDATE ON audit_head
		BEGIN SELECT RAISE(ABORT, 'injected commit failure'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendAudit("note", "", map[string]int{"n": 3}); err == nil || !strings.Contains(err.Error(), "injected commit failure") {
		t.Fatalf("append with the head's move refused: %v, want the injected failure", err)
	}
	if _, err := st.DB().Exec(`DROP TRIGGER inject_head_failure`); err != nil {
		t.Fatal(err)
	}
	e, err := st.AppendAudit("note", "", map[string]int{"n": 4})
	if err != nil {
		t.Fatal(err)
	}
	if e.Seq != 3 {
		t.Fatalf("the append after a failed commit got seq %d, want 3", e.Seq)
	}
	wantChain(t, st, 3)
}

// A write that fails on its own, alone in its commit or in a group, takes
// its audit entry with it, and the chain goes on from the entry before.
func TestChainHeadAfterAFailedWrite(t *testing.T) {
	st, _ := openTemp(t)
	if err := st.InsertProposal(Proposal{ID: "p1", Client: "agent", Tool: "transfer_sol", Fingerprint: "fp"}); err != nil {
		t.Fatal(err)
	}
	// Alone: a duplicate insert fails in its statement.
	if err := st.InsertProposal(Proposal{ID: "p1", Client: "agent", Tool: "transfer_sol", Fingerprint: "fp"}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate insert: %v, want ErrDuplicate", err)
	}
	// In a group: the failing write's savepoint is rolled back, the one
	// queued after it commits.
	release := holdCommits(t, st)
	dup := st.QueueProposal(Proposal{ID: "p1", Client: "agent", Tool: "transfer_sol", Fingerprint: "fp"})
	ok := st.QueueProposal(Proposal{ID: "p2", Client: "agent", Tool: "transfer_sol", Fingerprint: "fp"})
	release()
	if err := dup.Wait(); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate insert in a group: %v, want ErrDuplicate", err)
	}
	if err := ok.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordDecision(Decision{ProposalID: "p2", DecidedBy: "operator", Outcome: OutcomeDenied}); err != nil {
		t.Fatal(err)
	}
	wantChain(t, st, 3)
}

// Another process appending to the same trail (a second Store here, opened
// as a tool opens it, without the head file; a second console is refused
// by the state lock, but nothing in the store relies on that) moves the
// head under this writer's copy: the append finds its seq taken, reads the
// head again, and chains onto the other's entries.
func TestChainHeadAfterAnotherWriter(t *testing.T) {
	st, dir := openTemp(t)
	other, err := OpenExisting(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for i, w := range []*Store{st, st, other, other, other, st, other, st} {
		e, err := w.AppendAudit("note", "", map[string]int{"i": i})
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if e.Seq != int64(i+1) {
			t.Fatalf("append %d got seq %d, want %d", i, e.Seq, i+1)
		}
	}
	wantChain(t, st, 8)
}
