package authority_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// shiftClock is the hub's clock: real time plus an offset a test moves, so
// a grant's expiry can be passed without waiting ten minutes.
type shiftClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *shiftClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *shiftClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// propose makes the agent propose a transfer and returns the proposal id.
func propose(t *testing.T, a *testkit.Agent, to solana.PublicKey, lamports uint64) string {
	t.Helper()
	ans := a.Call("transfer_sol", map[string]any{"to": to.String(), "lamports": lamports})
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.IsError || ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose %d to %s: %+v", lamports, to, ans)
	}
	return id
}

// runApproved collects the token with proposal_status, as an agent does,
// and executes; it fails unless the transfer executed.
func runApproved(t *testing.T, a *testkit.Agent, id string, to solana.PublicKey, lamports uint64) {
	t.Helper()
	st := a.Call("proposal_status", map[string]any{"proposal_id": id})
	token, _ := st.Structured["confirm"].(string)
	if st.Status() != "approved" || token == "" {
		t.Fatalf("proposal_status %s: %+v", id, st)
	}
	done := a.Call("transfer_sol", map[string]any{"to": to.String(), "lamports": lamports, "confirm": token})
	if done.IsError || done.Status() != "executed" {
		t.Fatalf("execute %s: %+v", id, done)
	}
}

// stillPending asserts the hub holds id undecided: no grant approved it.
func stillPending(t *testing.T, h *authority.Hub, id, why string) *authority.Proposal {
	t.Helper()
	p, ok := h.Proposal(id)
	if !ok || p.Status != approval.StatusPending || p.Grant != 0 {
		t.Fatalf("%s: proposal %s found %v, %+v, want pending and untouched by any grant", why, id, ok, statusLine(p))
	}
	return p
}

func grantFor(t *testing.T, h *authority.Hub, id string, count int) authority.Grant {
	t.Helper()
	p, _ := h.Proposal(id)
	_, g, err := h.ApproveWithGrant(id, "operator", approval.GrantTerms{Count: count, Ceiling: uint64(count) * p.Spend, For: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A grant covers only its own agent process, its recipient, at most its
// amount, and only until it expires; what it covers is approved through the
// usual path and lands on the ledger, and the agent, the audit trail and the
// proposal all name the grant.
func TestGrantCoversOnlyItsProcessRecipientAmountAndTime(t *testing.T) {
	clock := &shiftClock{}
	other, _ := executor.NewRandomKeypair()
	w := newWorld(t, func(o *authority.Options) {
		o.Now = clock.Now
		// Both recipients are allowed, so only the grant can tell them apart.
		o.Policy.AllowRecipients = append(o.Policy.AllowRecipients, other.PublicKey().String())
	})
	a1 := testkit.StartAgent(t, w.socket, "grant-agent")
	a2 := testkit.StartAgent(t, w.socket, "grant-agent") // same name, another process
	const amount = 50_000_000

	first := propose(t, a1, w.allowed, amount)
	g := grantFor(t, w.authority, first, 3)
	if g.N != 1 || g.Count != 3 || g.MaxAmount != amount || g.Counterparty != w.allowed.String() || !strings.HasPrefix(g.Peer, "uid ") {
		t.Fatalf("grant %+v", g)
	}
	runApproved(t, a1, first, w.allowed, amount)

	// Another process with the very same name: not covered, and told nothing.
	p := stillPending(t, w.authority, propose(t, a2, w.allowed, amount-1), "another process, same name")
	if p.GrantMiss != "" {
		t.Errorf("another process learned of the grant: %q", p.GrantMiss)
	}
	// Another recipient, and a larger amount: not covered, and the console says why.
	p = stillPending(t, w.authority, propose(t, a1, other.PublicKey(), amount), "another recipient")
	if !strings.Contains(p.GrantMiss, "grant #1 does not cover it: it is for "+w.allowed.String()) {
		t.Errorf("another recipient: why %q", p.GrantMiss)
	}
	p = stillPending(t, w.authority, propose(t, a1, w.allowed, amount+1), "a larger amount")
	if !strings.Contains(p.GrantMiss, "more than the 0.05 SOL granted per call") {
		t.Errorf("a larger amount: why %q", p.GrantMiss)
	}
	// The agent learns why too, from proposal_status.
	if st := a1.Call("proposal_status", map[string]any{"proposal_id": p.ID}); !strings.Contains(fmt.Sprint(st.Structured["grant_not_applied"]), "more than the 0.05 SOL granted per call") ||
		!strings.Contains(st.Text, "Your standing grant did not apply") {
		t.Errorf("proposal_status of an uncovered proposal: %s %v", st.Text, st.Structured)
	}

	// A smaller one to the same recipient from the same process: approved
	// at once by the grant, through proposal_status as always.
	covered := propose(t, a1, w.allowed, amount-2)
	got, _ := w.authority.Proposal(covered)
	if got.Status != approval.StatusApproved || got.DecidedBy != "grant #1" || got.Grant != 1 || got.Token == "" {
		t.Fatalf("covered proposal: %+v", got)
	}
	runApproved(t, a1, covered, w.allowed, amount-2)
	if bal := w.balance(t, w.allowed); bal != 2*amount-2 {
		t.Errorf("allowed received %d, want %d", bal, 2*amount-2)
	}
	if d, err := w.store.GetDecision(covered); err != nil || d.DecidedBy != "grant #1" {
		t.Errorf("stored decision %+v %v", d, err)
	}
	entries, err := w.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	var made, decided bool
	for _, e := range entries {
		made = made || e.Kind == "grant_made" && e.ProposalID == first && strings.Contains(string(e.Body), `"count":3`)
		decided = decided || e.Kind == "decision" && e.ProposalID == covered && strings.Contains(string(e.Body), "grant #1")
	}
	if !made || !decided {
		t.Errorf("audit trail: grant_made %v, decision by grant #1 %v", made, decided)
	}

	// The agent sees its grant in get_spend_status; the other process sees none.
	mine := a1.Call("get_spend_status", nil)
	grants, _ := json.Marshal(mine.Structured["grants"])
	if !strings.Contains(string(grants), `"calls_used":1`) || !strings.Contains(mine.Text, "grant #1: transfer_sol to "+w.allowed.String()) {
		t.Errorf("get_spend_status of the grantee: %s\n%s", grants, mine.Text)
	}
	if theirs := a2.Call("get_spend_status", nil); !strings.Contains(theirs.Text, "Standing grants: none for you") {
		t.Errorf("get_spend_status of another process: %s", theirs.Text)
	}

	// After expiry (the hub's clock, moved): not covered.
	clock.Advance(10*time.Minute + time.Second)
	p = stillPending(t, w.authority, propose(t, a1, w.allowed, amount-3), "after expiry")
	if !strings.Contains(p.GrantMiss, "it expired") {
		t.Errorf("after expiry: why %q", p.GrantMiss)
	}
	if gs := w.authority.Grants(); len(gs) != 0 {
		t.Errorf("an expired grant is still listed: %+v", gs)
	}
}

// waitGrantEvent waits for the hub to announce a grant change whose message
// contains want.
func waitGrantEvent(t *testing.T, events <-chan authority.Event, want string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == approval.EventGrantsChanged && strings.Contains(ev.Message, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no grants event with %q", want)
		}
	}
}

// x, a pause and the agent's disconnect each end a grant: what
// it would have covered waits for the human again.
func TestGrantEndsOnRevokePauseAndDisconnect(t *testing.T) {
	w := newWorld(t, nil)
	a := testkit.StartAgent(t, w.socket, "grant-agent")
	amount := uint64(10_000_000)
	next := func() uint64 { amount--; return amount } // each proposal its own arguments

	grantFor(t, w.authority, propose(t, a, w.allowed, next()), 5)
	w.authority.RevokeAll("operator")
	stillPending(t, w.authority, propose(t, a, w.allowed, next()), "after x")
	entries, err := w.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	ended := false
	for _, e := range entries {
		ended = ended || e.Kind == "grant_ended" && strings.Contains(string(e.Body), `"grant":1`) && strings.Contains(string(e.Body), "revoked every token and grant")
	}
	if !ended {
		t.Error("the audit trail has no grant_ended row for grant #1 after x")
	}

	grantFor(t, w.authority, propose(t, a, w.allowed, next()), 5)
	w.authority.SetPaused(true)
	w.authority.SetPaused(false)
	stillPending(t, w.authority, propose(t, a, w.allowed, next()), "after a pause")

	// The same process again: covered, so the grant is live before the restart.
	grantFor(t, w.authority, propose(t, a, w.allowed, next()), 5)
	if p, _ := w.authority.Proposal(propose(t, a, w.allowed, next())); p.DecidedBy != "grant #3" {
		t.Fatalf("a live grant did not cover its agent: %+v", p)
	}

	// Disconnect: the grantee's bridge goes away and its grant ends.
	// (The restart is tested through the real binary: a console that exits
	// takes its connections with it, see cmd/solgate's runbook test.)
	events, cancel := w.authority.Subscribe(256)
	defer cancel()
	b := testkit.StartAgent(t, w.socket, "grant-agent-2")
	grantFor(t, w.authority, propose(t, b, w.allowed, next()), 5)
	if len(w.authority.Grants()) != 2 {
		t.Fatalf("grants %+v", w.authority.Grants())
	}
	// Whichever the console hears first ends it: the presence request's
	// end, or the bridge process's exit (its pidfd).
	b.C.Close()
	waitGrantEvent(t, events, "ended: its agent")
	if gs := w.authority.Grants(); len(gs) != 1 || gs[0].N != 3 {
		t.Fatalf("a disconnected agent's grant lives on: %+v", gs)
	}
}

// bridgeHere serves a real bridge (mcpbridge.Bridge) inside this test
// process and drives it as the MCP client name. To the console its calls
// are this process's, with this process's secret, as a `solgate mcp`
// process's calls are its own; unlike that process, this one lives on when
// the bridge goes away. leave closes the bridge's stdin and returns once
// the bridge has stopped.
func bridgeHere(t *testing.T, socket, name string) (a *testkit.Agent, leave func()) {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	outR, outW := io.Pipe()
	stopped := make(chan error, 1)
	go func() {
		err := mcpbridge.NewBridge(socket, "test").ServeStdio(context.Background(), stdinR, outW, io.Discard)
		outW.Close() // the client's reader ends with the bridge
		stopped <- err
	}()
	a = testkit.AgentOver(t, name, outR, stdinW)
	var once sync.Once
	leave = func() {
		once.Do(func() {
			a.C.Close()
			if err := <-stopped; err != nil {
				t.Errorf("the bridge of %s stopped with %v", name, err)
			}
		})
	}
	t.Cleanup(leave)
	return a, leave
}

// presentBridge starts bridgeHere for name and returns once the hub has
// announced it connected, with the hub's events from before that on.
func presentBridge(t *testing.T, w *world, name string) (a *testkit.Agent, leave func(), events <-chan authority.Event) {
	t.Helper()
	events, cancel := w.authority.Subscribe(256)
	t.Cleanup(cancel)
	a, leave = bridgeHere(t, w.socket, name)
	waitForEvent(t, events, approval.EventAgentConnected, name+" 1.0")
	return a, leave, events
}

// A grant ends when its agent's bridge goes away, by the presence path
// alone. The bridge here runs inside this test process, which lives on: the
// kernel never reports the granted process's exit, so only the end of the
// bridge's presence request can end the grant. The same process then
// serves a new bridge (same pid, start time and secret), whose identical
// call the grant would cover: it gets an ordinary proposal that waits for
// the human (DESIGN.md's standing grants: a grant ends on disconnect, and
// the protocol does not change), nothing more lands on the ledger, and the
// audit trail records the grant's end and why.
func TestGrantEndsWhenItsBridgeGoesAway(t *testing.T) {
	w := newWorld(t, nil)
	const name, amount = "presence-agent", 20_000_000
	// Present before the grant, so that leaving is what ends it.
	one, leave, events := presentBridge(t, w, name)

	first := propose(t, one, w.allowed, amount)
	grantFor(t, w.authority, first, 3)
	runApproved(t, one, first, w.allowed, amount)
	// The control: while the bridge is present, the identical call is covered.
	covered := propose(t, one, w.allowed, amount)
	if p, _ := w.authority.Proposal(covered); p == nil || p.DecidedBy != "grant #1" {
		t.Fatalf("the identical call while the grantee's bridge is present: %s", statusLine(p))
	}
	runApproved(t, one, covered, w.allowed, amount)

	leave()
	// The grants a presence ends are announced before the disconnect.
	var said []string
	timeout := time.After(60 * time.Second)
	for gone := false; !gone; {
		select {
		case ev := <-events:
			if ev.Kind == approval.EventGrantsChanged {
				said = append(said, ev.Message)
			}
			gone = ev.Kind == approval.EventAgentDisconnected && ev.Client == name+" 1.0"
		case <-timeout:
			t.Fatalf("no disconnect of %s within 60 s of its bridge's end", name)
		}
	}
	if !slices.ContainsFunc(said, func(m string) bool { return strings.HasPrefix(m, "grant #1 ended: its agent disconnected") }) {
		t.Errorf("the grantee's bridge left and grant #1 did not end; the console said %q", said)
	}
	if gs := w.authority.Grants(); len(gs) != 0 {
		t.Errorf("grants after the grantee's bridge left: %+v", gs)
	}

	two, _ := bridgeHere(t, w.socket, name)
	again := propose(t, two, w.allowed, amount)
	// As an agent goes on: it asks for the decision, and uses a token if
	// one comes.
	if st := two.Call("proposal_status", map[string]any{"proposal_id": again}); st.Status() != "pending" || st.Str("confirm") != "" {
		t.Errorf("proposal_status of the identical call from a new bridge: %s", st.Text)
		if token := st.Str("confirm"); token != "" {
			two.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount, "confirm": token})
		}
	}
	if got := w.balance(t, w.allowed); got != 2*amount {
		t.Errorf("the recipient holds %d lamports, want %d: only the two calls made while the bridge was present may land", got, 2*amount)
	}
	stillPending(t, w.authority, again, "the identical call from a new bridge of the same process")

	entries, err := w.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	for _, e := range entries {
		if e.Kind == "grant_ended" {
			ends = append(ends, string(e.Body))
		}
	}
	var end struct {
		Grant  int
		Reason string
		Used   int
	}
	if len(ends) != 1 || json.Unmarshal([]byte(ends[0]), &end) != nil || end.Grant != 1 || end.Reason != "its agent disconnected" || end.Used != 1 {
		t.Errorf("grant_ended rows in the audit trail: %q, want one: grant 1, its agent disconnected, 1 call used", ends)
	}
}

// A grant the human makes while its agent's bridge is going away is not
// made: the end of the bridge's presence ends the grants that exist, and
// one registered after it would outlive the bridge (until the process
// exits, which here it never does). The bridge leaves between the
// approval and the grant's registration; the proposal stays approved once,
// and an identical call from a new bridge of the same process waits for
// the human.
func TestNoGrantForAnAgentThatLeftWhileItWasMade(t *testing.T) {
	w := newWorld(t, nil)
	const name, amount = "leaving-agent", 20_000_000
	one, leave, events := presentBridge(t, w, name)
	first := propose(t, one, w.allowed, amount)

	authority.SetBeforeGrantMade(w.authority, func(string) {
		leave()
		waitForEvent(t, events, approval.EventAgentDisconnected, name+" 1.0")
	})
	p, _ := w.authority.Proposal(first)
	_, g, err := w.authority.ApproveWithGrant(first, "operator", approval.GrantTerms{Count: 3, Ceiling: 3 * p.Spend, For: 10 * time.Minute})
	authority.SetBeforeGrantMade(w.authority, nil)
	if err == nil || !strings.Contains(err.Error(), "its agent disconnected, so no grant was made") {
		t.Errorf("a grant for an agent whose bridge left while it was made: %+v, %v", g, err)
	}
	if gs := w.authority.Grants(); len(gs) != 0 {
		t.Fatalf("grants after the grantee's bridge left: %+v", gs)
	}
	if p, _ := w.authority.Proposal(first); p == nil || p.Status != approval.StatusApproved {
		t.Errorf("the proposal the grant was asked on: %s, want approved (once)", statusLine(p))
	}

	two, _ := bridgeHere(t, w.socket, name)
	again := propose(t, two, w.allowed, amount)
	stillPending(t, w.authority, again, "the identical call from a new bridge of the same process")
	entries, err := w.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Kind == "grant_made" {
			t.Errorf("the audit trail records a grant made: %s", e.Body)
		}
	}
}

func statusLine(p *authority.Proposal) string {
	if p == nil {
		return "<none>"
	}
	return string(p.Status) + " by " + p.DecidedBy + ", grant " + fmt.Sprint(p.Grant)
}

// Two covered proposals arriving together cannot both take a grant's last
// call, and a call that would pass the grant's ceiling waits for the human
// even though its count is not used up.
func TestGrantLastCallAndCeilingAreTakenOnce(t *testing.T) {
	w := newWorld(t, nil)
	a := testkit.StartAgent(t, w.socket, "grant-agent")
	const amount = 20_000_000
	first := propose(t, a, w.allowed, amount)
	p, _ := w.authority.Proposal(first)
	// Three calls, but a ceiling for two of this size.
	if _, _, err := w.authority.ApproveWithGrant(first, "operator", approval.GrantTerms{Count: 3, Ceiling: 2 * p.Spend, For: time.Minute}); err != nil {
		t.Fatal(err)
	}
	// Concurrently: two more, each covered on its own; the ceiling admits both.
	ids := make(chan string, 2)
	var wg sync.WaitGroup
	for i := uint64(1); i <= 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ans, err := a.Try("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount - i}, time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			id, _ := ans.Structured["proposal_id"].(string)
			ids <- id
		}()
	}
	wg.Wait()
	close(ids)
	for id := range ids {
		if got, _ := w.authority.Proposal(id); got == nil || got.DecidedBy != "grant #1" {
			t.Errorf("concurrent covered proposal %s: %s", id, statusLine(got))
		}
	}
	// The third call's count is there, the ceiling is not.
	q := stillPending(t, w.authority, propose(t, a, w.allowed, amount-3), "past the ceiling")
	if !strings.Contains(q.GrantMiss, "of its ceiling left") {
		t.Errorf("past the ceiling: why %q", q.GrantMiss)
	}
	gs := w.authority.Grants()
	if len(gs) != 1 || gs[0].Used != 2 || gs[0].Spent > gs[0].Ceiling {
		t.Fatalf("grant after the run: %+v", gs)
	}
	// And a ceiling above what the session cap leaves is refused outright.
	r := propose(t, a, w.allowed, amount-4)
	if _, _, err := w.authority.ApproveWithGrant(r, "operator", approval.GrantTerms{Count: 3, Ceiling: w.authority.Policy().MaxLamportsPerSession, For: time.Minute}); err == nil || !strings.Contains(err.Error(), "what the session cap leaves") {
		t.Fatalf("a ceiling above the session cap's remainder: %v", err)
	}
	stillPending(t, w.authority, r, "a refused grant")
}

// A grant's last call is claimed before its approval is written: while
// that write is held open, other proposals of the same agent find the grant
// used up and wait for the human.
func TestGrantsLastCallIsTakenOnce(t *testing.T) {
	w := newWorld(t, nil)
	a := testkit.StartAgent(t, w.socket, "grant-agent")
	const amount = 20_000_000
	id0 := propose(t, a, w.allowed, amount)
	p0, _ := w.authority.Proposal(id0)
	// One call, with a ceiling for four: only the count can stop the others.
	if _, _, err := w.authority.ApproveWithGrant(id0, "operator", approval.GrantTerms{Count: 1, Ceiling: 4 * p0.Spend, For: time.Minute}); err != nil {
		t.Fatal(err)
	}

	entered, release := make(chan string, 1), make(chan struct{})
	var holding atomic.Bool
	authority.SetBeforeDecisionWrite(w.authority, func(id string) {
		if holding.CompareAndSwap(false, true) { // only the first write is held
			entered <- id
			<-release
		}
	})
	first := make(chan string, 1)
	go func() {
		ans, err := a.Try("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount - 1}, time.Minute)
		if err != nil {
			t.Error(err)
		}
		id, _ := ans.Structured["proposal_id"].(string)
		first <- id
	}()
	held := <-entered // the grant's approval of that proposal is being written
	for i := uint64(2); i <= 3; i++ {
		p := stillPending(t, w.authority, propose(t, a, w.allowed, amount-i), "while the last call's approval is written")
		if !strings.Contains(p.GrantMiss, "all its calls were used") {
			t.Errorf("why %q", p.GrantMiss)
		}
	}
	close(release)
	if id := <-first; id != held {
		t.Fatalf("held %s, proposed %s", held, id)
	}
	if got, _ := w.authority.Proposal(held); got == nil || got.Grant != 1 {
		t.Fatalf("the held proposal: %s", statusLine(got))
	}
}

// On transfer_token a grant binds the mint and the recipient: the same
// mint to the same owner is covered and lands; another mint, or more per
// call, waits for the human.
func TestGrantOnTokenTransferCoversItsMintAndRecipientOnly(t *testing.T) {
	ctx := context.Background()
	var m1, m2 string
	w := newWorldOn(t, func(o *authority.Options, l *localnet.Ledger) {
		var err error
		if m1, err = l.CreateMint(ctx, 6, ""); err != nil {
			t.Fatal(err)
		}
		if m2, err = l.CreateMint(ctx, 6, ""); err != nil {
			t.Fatal(err)
		}
		o.Policy.MaxTokenPerTx = append(capped(t, m1+"=2.5"), capped(t, m2+"=2.5")...)
	})
	for _, m := range []string{m1, m2} {
		if _, err := w.ledger.MintTo(ctx, m, w.wallet.String(), 10_000_000); err != nil {
			t.Fatal(err)
		}
	}
	a := testkit.StartAgent(t, w.socket, "grant-agent")
	send := func(mint string, amount uint64) map[string]any {
		return map[string]any{"mint": mint, "to": w.allowed.String(), "amount": fmt.Sprint(amount)}
	}
	proposeToken := func(args map[string]any) string {
		t.Helper()
		ans := a.Call("transfer_token", args)
		id, _ := ans.Structured["proposal_id"].(string)
		if ans.Status() != "pending_approval" || id == "" {
			t.Fatalf("propose %v: %+v", args, ans)
		}
		return id
	}
	run := func(id string, args map[string]any) {
		t.Helper()
		st := a.Call("proposal_status", map[string]any{"proposal_id": id})
		token, _ := st.Structured["confirm"].(string)
		if st.Status() != "approved" || token == "" {
			t.Fatalf("proposal_status %s: %+v", id, st)
		}
		args["confirm"] = token
		if done := a.Call("transfer_token", args); done.Status() != "executed" {
			t.Fatalf("execute %s: %+v", id, done)
		}
	}

	first := proposeToken(send(m1, 1_000_000))
	g := grantFor(t, w.authority, first, 3)
	if g.Counterparty != m1+" → "+w.allowed.String() || g.MaxAmount != 1_000_000 {
		t.Fatalf("grant %+v", g)
	}
	run(first, send(m1, 1_000_000))

	covered := proposeToken(send(m1, 900_000))
	if p, _ := w.authority.Proposal(covered); p.DecidedBy != "grant #1" {
		t.Fatalf("the same mint and owner: %s", statusLine(p))
	}
	run(covered, send(m1, 900_000))
	if got, _ := w.ownerTokens(t, w.allowed, m1); got != 1_900_000 {
		t.Errorf("the recipient holds %d of the granted mint, want 1900000", got)
	}
	p := stillPending(t, w.authority, proposeToken(send(m2, 900_000)), "another mint")
	if !strings.Contains(p.GrantMiss, "it is for "+m1) {
		t.Errorf("another mint: why %q", p.GrantMiss)
	}
	stillPending(t, w.authority, proposeToken(send(m1, 1_000_001)), "more per call")
	if got, _ := w.ownerTokens(t, w.allowed, m2); got != 0 {
		t.Errorf("the other mint moved: %d", got)
	}
}

// --no-grants: no grant can be made, and the proposal stays pending.
func TestNoGrantsRefusesAGrant(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) { o.NoGrants = true })
	a := testkit.StartAgent(t, w.socket, "grant-agent")
	id := propose(t, a, w.allowed, 10_000_000)
	p, _ := w.authority.Proposal(id)
	_, _, err := w.authority.ApproveWithGrant(id, "operator", approval.GrantTerms{Count: 1, Ceiling: p.Spend, For: time.Minute})
	if !errors.Is(err, authority.ErrGrantsOff) {
		t.Fatalf("ApproveWithGrant under --no-grants: %v", err)
	}
	stillPending(t, w.authority, id, "--no-grants")
	if gs := w.authority.Grants(); len(gs) != 0 {
		t.Fatalf("grants %+v", gs)
	}
}

// On swap a grant binds the input and output mints: the same pair, for no
// more input, is covered and lands; another output mint waits.
func TestGrantOnSwapCoversItsPairOnly(t *testing.T) {
	w := newWorld(t, nil)
	a := testkit.StartAgent(t, w.socket, "grant-agent")
	usdc, bait := w.ledger.DemoMints().USDC.Mint, w.ledger.DemoMints().Bait.Mint
	const amount = 50_000_000
	prop := a.Call("swap", swapArgs(w, usdc, amount))
	first, _ := prop.Structured["proposal_id"].(string)
	if prop.Status() != "pending_approval" || first == "" {
		t.Fatalf("propose swap: %+v", prop)
	}
	g := grantFor(t, w.authority, first, 3)
	if g.Tool != "swap" || g.Counterparty != w.ledger.DemoMints().WSOL+" → "+usdc+" at 100 bps slippage" {
		t.Fatalf("grant %+v", g)
	}
	tokBefore := w.tokenBalance(t, usdc)
	ans := a.Call("swap", swapArgs(w, usdc, amount/2))
	covered, _ := ans.Structured["proposal_id"].(string)
	if p, _ := w.authority.Proposal(covered); p == nil || p.DecidedBy != "grant #1" {
		t.Fatalf("the same pair, half the input: %s", statusLine(p))
	}
	st := a.Call("proposal_status", map[string]any{"proposal_id": covered})
	args := swapArgs(w, usdc, amount/2)
	args["confirm"] = st.Structured["confirm"]
	if done := a.Call("swap", args); done.Status() != "executed" {
		t.Fatalf("execute the covered swap: %+v", done)
	}
	if w.tokenBalance(t, usdc) <= tokBefore {
		t.Error("the covered swap brought no tokens")
	}
	// A wider slippage on the same pair is a worse effect: it waits.
	wider := swapArgs(w, usdc, amount/2)
	wider["slippage_bps"] = 200
	ans = a.Call("swap", wider)
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("swap with a wider slippage: %s %v", ans.Text, ans.Structured)
	}
	stillPending(t, w.authority, id, "a wider slippage")
	// The hostile demo token is a real pool on the ledger: a swap into it is
	// proposed (its warnings shown), and the grant does not cover it.
	other := a.Call("swap", swapArgs(w, bait, amount/2))
	id, _ = other.Structured["proposal_id"].(string)
	if other.Status() != "pending_approval" || id == "" {
		t.Fatalf("swap into another mint: %s %v", other.Text, other.Structured)
	}
	if p := stillPending(t, w.authority, id, "another output mint"); !strings.Contains(p.GrantMiss, "it is for") {
		t.Errorf("another output mint: why %q", p.GrantMiss)
	}
}

// A covered call that fails before landing gives its call and its part of
// the ceiling back: only spends that landed use a grant up. The grant of
// one call is still there after the failure, covers the next call, and
// ends only once that one has landed. Once at mainnet's pace with the RPC
// failing before anything is signed, once at a fast pace with every send
// dropped until the blockhash expires (150 blocks: a minute at 400 ms).
func TestGrantCallThatFailsBeforeLandingIsGivenBack(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		ledger     localnet.Options
		fault      func(*world) error
		heal       func(*world) error
		wantReason string
	}{
		{
			name:       "mainnet pace, RPC down before signing",
			ledger:     localnet.Options{}, // the ledger's default: 400 ms slots
			fault:      func(w *world) error { return w.ledger.FailNextCalls(context.Background(), 1_000_000) },
			heal:       func(w *world) error { return w.ledger.FailNextCalls(context.Background(), 0) },
			wantReason: "nothing was signed or sent",
		},
		{
			name:       "fast pace, sends dropped until the blockhash expires",
			ledger:     localnet.Options{SlotMS: localnet.FastSlotMS}, // 150 blocks must pass: 3 s, not a minute
			fault:      func(w *world) error { return w.ledger.DropNextSends(context.Background(), 1_000_000) },
			heal:       func(w *world) error { return w.ledger.DropNextSends(context.Background(), 0) },
			wantReason: "never landed",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorldLedger(t, c.ledger, func(*authority.Options, *localnet.Ledger) {}, nil, host.ListenConfig{})
			a := testkit.StartAgent(t, w.socket, "grant-agent")
			const amount = 40_000_000
			first := propose(t, a, w.allowed, amount)
			grantFor(t, w.authority, first, 1)
			runApproved(t, a, first, w.allowed, amount)

			// The covered call is approved by the grant, then fails
			// before it lands.
			covered := propose(t, a, w.allowed, amount)
			p, _ := w.authority.Proposal(covered)
			if p == nil || p.Status != approval.StatusApproved || p.Grant != 1 {
				t.Fatalf("covered proposal: %s", statusLine(p))
			}
			if gs := w.authority.Grants(); len(gs) != 1 || gs[0].Used != 1 {
				t.Fatalf("grant while its call is open: %+v", gs)
			}
			if err := c.fault(w); err != nil {
				t.Fatal(err)
			}
			ans := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount, "confirm": p.Token})
			if err := c.heal(w); err != nil {
				t.Fatal(err)
			}
			if ans.Status() != "failed" || !strings.Contains(ans.Text, c.wantReason) {
				t.Fatalf("the covered call under the fault: %s %v", ans.Status(), ans.Text)
			}
			if got := w.balance(t, w.allowed); got != amount {
				t.Fatalf("recipient holds %d after the failed call, want %d", got, amount)
			}

			// The grant has its call and its ceiling back.
			gs := w.authority.Grants()
			if len(gs) != 1 || gs[0].Used != 0 || gs[0].Spent != 0 {
				t.Fatalf("grant after a call that never landed: %+v", gs)
			}
			if ss := a.Call("get_spend_status", nil); !strings.Contains(ss.Text, "0/1 calls used, 0/") {
				t.Errorf("get_spend_status after the failed call: %s", ss.Text)
			}

			// So the next call like it is covered, lands, and uses it up.
			again := propose(t, a, w.allowed, amount)
			if got, _ := w.authority.Proposal(again); got == nil || got.DecidedBy != "grant #1" {
				t.Fatalf("the call after the failure: %s", statusLine(got))
			}
			runApproved(t, a, again, w.allowed, amount)
			if got := w.balance(t, w.allowed); got != 2*amount {
				t.Errorf("recipient holds %d, want %d", got, 2*amount)
			}
			if gs := w.authority.Grants(); len(gs) != 0 {
				t.Errorf("a grant whose one call landed is still listed: %+v", gs)
			}
			stillPending(t, w.authority, propose(t, a, w.allowed, amount), "after the grant's call landed")
		})
	}
}
