package authority_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// TestDecisionWriteDoesNotHoldTheHub: while an approval's decision is being
// written (held open here, as a slow fsync would), reads and a second
// decision on the same proposal still answer; the read sees it pending, the
// second decider is refused, and once the write finishes the token exists
// and the decision row is in the database.
func TestDecisionWriteDoesNotHoldTheHub(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	ans := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 10_000_000})
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose: %+v", ans)
	}

	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	authority.SetBeforeDecisionWrite(w.authority, func(string) {
		once.Do(func() { close(entered); <-release })
	})
	defer once.Do(func() {}) // a later decision must not block

	type result struct {
		p   *authority.Proposal
		err error
	}
	approved := make(chan result, 1)
	go func() {
		p, err := w.authority.Approve(id, "operator")
		approved <- result{p, err}
	}()
	<-entered

	// Everything below must answer while the write is held open.
	read := make(chan *authority.Proposal, 1)
	go func() {
		p, _ := w.authority.Proposal(id)
		_ = w.authority.Proposals()
		_ = w.authority.Paused()
		read <- p
	}()
	select {
	case p := <-read:
		if p.Status != approval.StatusPending || p.Token != "" {
			t.Errorf("during the write a reader saw %s with token %q; want pending, no token", p.Status, p.Token)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("a read waited behind the decision's store write: the hub lock is held across it")
	}
	if _, err := w.authority.Deny(id, "operator", "second thoughts"); !errors.Is(err, authority.ErrNotPending) {
		t.Errorf("a denial racing the approval: %v, want ErrNotPending", err)
	}
	if st, _ := w.store.GetProposal(id); st.Status != "pending" {
		t.Errorf("store says %q before the decision is written", st.Status)
	}
	close(release)

	r := <-approved
	if r.err != nil || r.p.Status != approval.StatusApproved || r.p.Token == "" {
		t.Fatalf("approve: %+v %v", r.p, r.err)
	}
	if st, err := w.store.GetProposal(id); err != nil || st.Status != string(approval.StatusApproved) {
		t.Fatalf("decision not in the database after approve: %+v %v", st, err)
	}
}

// TestConcurrentDecisionsFirstWins: many operators' approvals and denials
// of one proposal race; exactly one succeeds, the rest are ErrNotPending,
// and the database holds that one decision.
func TestConcurrentDecisionsFirstWins(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	for round := 0; round < 5; round++ {
		ans := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 10_000_000 + round})
		id, _ := ans.Structured["proposal_id"].(string)
		if ans.Status() != "pending_approval" || id == "" {
			t.Fatalf("propose: %+v", ans)
		}
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				if i%2 == 0 {
					_, errs[i] = w.authority.Approve(id, "operator")
				} else {
					_, errs[i] = w.authority.Deny(id, "operator", "no")
				}
			}(i)
		}
		close(start)
		wg.Wait()
		won, winner := 0, -1
		for i, err := range errs {
			switch {
			case err == nil:
				won, winner = won+1, i
			case !errors.Is(err, authority.ErrNotPending):
				t.Errorf("decider %d: %v, want ErrNotPending", i, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d decisions succeeded, want exactly 1 (%v)", round, won, errs)
		}
		want := map[bool]string{true: "approved", false: "denied"}[winner%2 == 0]
		st, err := w.store.GetProposal(id)
		if err != nil || st.Status != want {
			t.Fatalf("round %d: database says %+v (%v), want %s", round, st.Status, err, want)
		}
		p, _ := w.authority.Proposal(id)
		if string(p.Status) != want {
			t.Fatalf("round %d: hub says %s, want %s", round, p.Status, want)
		}
	}
}

// TestReplayDuringTheExecutionDoesNotVoidIt: a replay of a token that the
// legitimate call has just taken, arriving before that call marks the
// proposal executing, is refused as used and leaves the proposal alone; the
// legitimate call executes. (A replay once voided the proposal in that
// window, so none of 16 concurrent callers executed.)
func TestReplayDuringTheExecutionDoesNotVoidIt(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	args := map[string]any{"to": w.allowed.String(), "lamports": 10_000_000}
	ans := a.Call("transfer_sol", args)
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose: %+v", ans)
	}
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	before := w.balance(t, w.allowed)
	replayed := make(chan testkit.Answer, 1)
	var once sync.Once
	authority.SetAfterConsume(w.authority, func(string) {
		once.Do(func() {
			// The replay comes from a second bridge while the first call
			// holds the token and has not yet marked the proposal.
			replayed <- startAgent(t, w.socket).Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 10_000_000, "confirm": p.Token})
		})
	})
	args["confirm"] = p.Token
	done := a.Call("transfer_sol", args)
	if r := <-replayed; r.Status() != "refused" || !strings.Contains(r.Text, "already been used") {
		t.Fatalf("the replay: %+v", r)
	}
	if done.Status() != "executed" {
		t.Fatalf("the legitimate call after a replay in its window: %+v", done)
	}
	if got := w.balance(t, w.allowed); got != before+10_000_000 {
		t.Fatalf("recipient holds %d, want %d", got, before+10_000_000)
	}
}
