package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// TestRunbookTrialUnderAGrant is the runbook's autonomous run through the
// real binaries: an agent (an MCP client driving `solgate mcp`) brings a
// savings wallet up in 0.05 SOL steps. The human presses A on the first
// proposal and Enter on the form's defaults (9 more within 10 minutes); the
// nine others execute with no key pressed; the eleventh is denied by the
// session cap, not by the grant, and the retry breaker stops the repeats.
// One covered call on the way fails before landing (the RPC is down when it
// executes): it gives its call back, so nine still land under the grant.
// The ledger, read back, shows exactly 0.5 SOL at savings and the wallet
// down by that plus the fees of the ten transactions. A restarted console
// has no grant: the same bridge process's next proposal waits.
//
// The ledger runs at its default, mainnet's pace: 400 ms slots, where ten
// identical transfers in a row are built on few blockhashes and only bytes
// of their own (the memo naming each proposal) let each one land.
func TestRunbookTrialUnderAGrant(t *testing.T) {
	w := newConsoleWorld(t, localnet.Options{}, 10*solana.LAMPORTS_PER_SOL)
	savingsKey, _ := executor.NewRandomKeypair()
	savings := savingsKey.PublicKey()
	console, socket, errLog := w.consoleCommand(t, "console", "--allow-recipient", savings.String(),
		"--max-sol-per-tx", "0.06", "--max-sol-per-session", "0.501")
	// The console runs twice in the one pane: the second time is the restart.
	pane := openConsole(t, 160, 45, console+"; echo CONSOLE-RESTART; exec "+console, errLog)

	walletBefore := w.balance(t, w.wallet)

	a := testkit.StartAgent(t, socket, "runbook-agent")
	const step = 50_000_000 // 0.05 SOL
	args := map[string]any{"to": savings.String(), "lamports": step}
	proposeOne := func(n int) string {
		t.Helper()
		return pendingID(t, a.Call("transfer_sol", args), fmt.Sprintf("transfer %d", n))
	}
	var sigs []string
	execute := func(n int, id string) {
		t.Helper()
		token := approvedToken(t, a, id, fmt.Sprintf("transfer %d", n))
		done := a.Call("transfer_sol", map[string]any{"to": savings.String(), "lamports": step, "confirm": token})
		sig, _ := done.Structured["signature"].(string)
		if done.Status() != "executed" || sig == "" {
			t.Fatalf("transfer %d: execute: %s %v", n, done.Text, done.Structured)
		}
		sigs = append(sigs, sig)
	}

	// 1. The first proposal waits for the human, who presses A once the
	// grace period of its arrival is over, then Enter on the defaults.
	first := proposeOne(1)
	pane.WaitFor(t, 30*time.Second, first, "a approve")
	waitGone(t, pane, 30*time.Second, "a waits: just selected")
	pane.Keys(t, "A")
	pane.WaitFor(t, 30*time.Second, "AND GRANT MORE LIKE IT", "further calls like it: 9", "for minutes: 10")
	pane.Keys(t, "Enter")
	pane.WaitFor(t, 30*time.Second, "GRANTS (l lists, x ends all): #1 runbook-agent 1.0")
	execute(1, first)

	// 2. Nine more, no key pressed: each is approved by the grant at once.
	for n := 2; n <= 10; n++ {
		if n == 6 {
			failCovered(t, w, a, pane, proposeOne(n), args)
		}
		execute(n, proposeOne(n))
		if n == 5 || n == 6 {
			// The agent sees its grant, and how much of it is used: the
			// failed call is not counted.
			ss := a.Call("get_spend_status", nil)
			if !strings.Contains(ss.Text, "grant #1: transfer_sol to "+savings.String()) || !strings.Contains(ss.Text, fmt.Sprintf("%d/9 calls used", n-1)) {
				t.Errorf("get_spend_status after transfer %d:\n%s", n, ss.Text)
			}
		}
	}
	pane.SawAll(t, 30*time.Second, "by grant #1", "grant #1 ended: all its calls were used (9/9 calls used)")

	// 3. The eleventh: denied by the session cap, with its reason; the
	// retries are stopped by the breaker.
	ans := a.Call("transfer_sol", args)
	if ans.Status() != "denied" || ans.Structured["rule"] != "max_sol_per_session" || !strings.Contains(ans.Text, "session") {
		t.Fatalf("eleventh transfer: %s %v", ans.Text, ans.Structured)
	}
	stopped := false
	for i := 0; i < 8 && !stopped; i++ {
		again := a.Call("transfer_sol", args)
		if again.Status() != "denied" {
			t.Fatalf("retry %d: %s %v", i, again.Text, again.Structured)
		}
		stopped = again.Structured["retryable"] == false
	}
	if !stopped {
		t.Error("the retry breaker never answered retryable: false")
	}

	// 4. The ledger: exactly 0.5 SOL at savings; the wallet down by that
	// plus the fees the ledger charged for the ten transactions.
	if got := w.balance(t, savings); got != 10*step {
		t.Errorf("savings received %d lamports, want exactly %d", got, 10*step)
	}
	var fees uint64
	for _, s := range sigs {
		tx, err := w.chain.GetTransaction(context.Background(), solana.MustSignatureFromBase58(s), &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil || tx.Meta == nil {
			t.Fatalf("getTransaction %s: %v", s, err)
		}
		fees += tx.Meta.Fee
	}
	if len(sigs) != 10 || fees == 0 {
		t.Fatalf("%d signatures, fees %d", len(sigs), fees)
	}
	if got := walletBefore - w.balance(t, w.wallet); got != 10*step+fees {
		t.Errorf("wallet down %d, want %d (0.5 SOL + %d of fees)", got, 10*step+fees, fees)
	}

	// The audit trail, read by the real binary: the grant's terms, and
	// decisions made by it.
	trail, err := exec.Command(w.bin, "audit", "--state", w.statePath("console"), "--json").CombinedOutput()
	if err != nil {
		t.Fatalf("solgate audit: %v\n%s", err, trail)
	}
	// Ten decisions by the grant: nine landed, and the one that failed
	// before landing.
	if n := strings.Count(string(trail), `"decided_by":"grant #1"`); n != 10 || !strings.Contains(string(trail), `"kind":"grant_made"`) {
		t.Errorf("audit trail: %d decisions by grant #1 (want 10), grant_made %v", n, strings.Contains(string(trail), `"kind":"grant_made"`))
	}

	// 5. Restart: quit, and the pane starts the console again. The same
	// bridge process proposing the same transfer waits for the human.
	pane.Keys(t, "q")
	waitUntil(t, 30*time.Second, "the console to start again", func() bool {
		return strings.Contains(pane.Normal()+pane.Screen(), "CONSOLE-RESTART") && strings.Contains(pane.Screen(), "QUEUE")
	}, pane)
	pane.WaitFor(t, 30*time.Second, "QUEUE", "console open")
	after := proposeOne(11)
	if st := a.Call("proposal_status", map[string]any{"proposal_id": after}); st.Status() != "pending" {
		t.Fatalf("after the restart the same process's proposal was %s: %s", st.Status(), st.Text)
	}
	screen := pane.WaitFor(t, 30*time.Second, after)
	if strings.Contains(screen, "GRANTS (") {
		t.Errorf("a grant is shown after the restart:\n%s", screen)
	}
	if ss := a.Call("get_spend_status", nil); !strings.Contains(ss.Text, "Standing grants: none for you") {
		t.Errorf("get_spend_status after the restart: %s", ss.Text)
	}
}

// failCovered executes covered proposal id while the ledger's RPC refuses
// every call, so it fails before anything is signed; the console says the
// grant has its call back, and nothing reached the chain.
func failCovered(t *testing.T, w *consoleWorld, a *testkit.Agent, pane testkit.Pane, id string, args map[string]any) {
	t.Helper()
	token := approvedToken(t, a, id, "the call that fails")
	if err := w.l.FailNextCalls(context.Background(), 1_000_000); err != nil {
		t.Fatal(err)
	}
	confirmed := map[string]any{"confirm": token}
	for k, v := range args {
		confirmed[k] = v
	}
	done := a.Call("transfer_sol", confirmed)
	if err := w.l.FailNextCalls(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if done.Status() != "failed" || !strings.Contains(done.Text, "nothing was signed or sent") {
		t.Fatalf("the covered call with the RPC down: %s %v", done.Text, done.Structured)
	}
	pane.SawAll(t, 30*time.Second, "grant #1 has its call back: "+id)
}
