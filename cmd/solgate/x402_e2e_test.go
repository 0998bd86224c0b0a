package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// Paying an x402 API through the real binaries: an MCP client driving
// `solgate mcp` calls x402_fetch on the localnet paid API (built with the
// official @x402 packages); the console in a real terminal shows the
// payment's terms; the human presses a; the paid body arrives and the ledger
// shows exactly 0.001 moved from the wallet's token account to the
// merchant's, the fee paid by the facilitator. Then A with a grant of 10 on
// the next one: nine more pay without a key, and the per-mint session cap
// (0.011) stops the call that would pass it, with a call left on the grant.
func TestX402PaidAPIThroughTheConsole(t *testing.T) {
	// The default (mainnet's) pace: a blockhash lives 60 s, so a machine
	// under load cannot age a payment out before the facilitator checks it.
	w := newConsoleWorld(t, localnet.Options{PaidAPI: true}, solana.LAMPORTS_PER_SOL)
	api := w.l.PaidAPI()
	w.mintToWallet(t, api.Mint, 1_000_000)
	pane, socket := w.startConsole(t, "console", 160, 50, "--allow-x402-origin", api.URL,
		"--max-token-per-tx", api.Mint+"=0.001", "--max-token-per-session", api.Mint+"=0.011")

	merchant, facilitator, wallet := solana.MustPublicKeyFromBase58(api.Merchant), solana.MustPublicKeyFromBase58(api.Facilitator), w.wallet
	balance := func(pk solana.PublicKey) uint64 { t.Helper(); return w.balance(t, pk) }
	tokens := func(owner solana.PublicKey) uint64 { t.Helper(); return w.tokens(t, owner, api.Mint) }
	walletSOL, facSOL := balance(wallet), balance(facilitator)

	a := testkit.StartAgent(t, socket, "x402-agent")
	args := map[string]any{"url": api.URL + "/paid", "max_amount": 1000}
	propose := func(n int) string {
		t.Helper()
		return pendingID(t, a.Call("x402_fetch", args), fmt.Sprintf("call %d", n))
	}
	pay := func(n int, id string) {
		t.Helper()
		token := approvedToken(t, a, id, fmt.Sprintf("call %d", n))
		done := a.Call("x402_fetch", map[string]any{"url": args["url"], "max_amount": 1000, "confirm": token})
		if done.Status() != "executed" || !strings.Contains(done.Text, "the paid answer") || done.Structured["http_status"] != float64(200) {
			t.Fatalf("call %d: execute: %s %v", n, done.Text, done.Structured)
		}
	}

	// 1. The first payment waits for the human: the console shows the
	// origin, payTo, the facilitator and the per-mint caps it counts
	// against. The ledger has not moved.
	first := propose(1)
	pane.WaitFor(t, 30*time.Second, first, "a approve")
	screen := pane.WaitFor(t, 30*time.Second, "Origin", api.URL, "Pay to", "Fee payer", "per session 0.011")
	if !strings.Contains(screen, "0.001") {
		t.Errorf("the queue does not show 0.001:\n%s", screen)
	}
	if tokens(merchant) != 0 {
		t.Fatal("a proposal moved funds")
	}
	waitGone(t, pane, 30*time.Second, "a waits: just selected")
	pane.Keys(t, "a")
	pay(1, first)
	if got := tokens(wallet); got != 999_000 {
		t.Fatalf("wallet holds %d after one payment, want 999000", got)
	}
	if got := tokens(merchant); got != 1000 {
		t.Fatalf("merchant holds %d after one payment, want 1000", got)
	}
	if got := balance(wallet); got != walletSOL {
		t.Fatalf("wallet SOL %d → %d: the facilitator should pay the fee", walletSOL, got)
	}
	if got := balance(facilitator); got >= facSOL {
		t.Fatalf("facilitator SOL %d → %d: it paid no fee", facSOL, got)
	}

	// 2. A grant of 10 on the next one: the form's SOL ceiling defaults to
	// 0 (an x402 payment spends no SOL); the count is typed.
	second := propose(2)
	pane.WaitFor(t, 30*time.Second, second)
	waitGone(t, pane, 30*time.Second, "a waits: just selected")
	pane.Keys(t, "A")
	// The form states the bound in the asset's units, not as "0 SOL".
	pane.WaitFor(t, 30*time.Second, "AND GRANT MORE LIKE IT", "further calls like it: 9", "Bound: 9 calls × at most 0.001 ", "no SOL")
	pane.Keys(t, "BSpace", "1", "0")
	pane.WaitFor(t, 30*time.Second, "Bound: 10 calls × at most 0.001 ")
	pane.Keys(t, "Enter")
	pane.WaitFor(t, 30*time.Second, "GRANTS (l lists, x ends all): #1 x402-agent 1.0", "0/10 calls × at most 0.001 ")
	pay(2, second)
	// Nine more, no key pressed.
	for n := 3; n <= 11; n++ {
		pay(n, propose(n))
	}
	if got := tokens(merchant); got != 11_000 {
		t.Fatalf("merchant holds %d after eleven payments, want 11000", got)
	}
	// The twelfth would pass the per-mint session cap (0.011): denied,
	// though the grant has a call left.
	over := a.Call("x402_fetch", args)
	if over.Status() != "denied" || over.Structured["rule"] != "max_token_per_session" {
		t.Fatalf("twelfth: %s %v", over.Text, over.Structured)
	}
	if got := tokens(wallet); got != 989_000 {
		t.Fatalf("wallet holds %d, want 989000", got)
	}
	if got := balance(wallet); got != walletSOL {
		t.Fatalf("wallet SOL %d → %d after eleven payments", walletSOL, got)
	}
	pane.SawAll(t, 30*time.Second, "by grant #1")
	// The grants list (l) says the same, in the asset's units.
	pane.Keys(t, "l")
	pane.WaitFor(t, 30*time.Second, "Enter ends the chosen grant", "> #1 x402-agent 1.0", "9/10 calls × at most 0.001 ", "no SOL")
	pane.Keys(t, "Escape")
	waitGone(t, pane, 30*time.Second, "Enter ends the chosen grant")
}

// The hostile variants through the real binaries: refused with their
// reasons, nothing signed, the ledger unchanged; and a facilitator that
// never submits: after a, the payment is reserved, then released once the
// ledger has expired its blockhash, and get_spend_status shows it.
func TestX402HostileAndNeverSubmittedThroughTheConsole(t *testing.T) {
	ctx := context.Background()
	// At the default pace a blockhash lives 60 s unless the test expires it.
	w := newConsoleWorld(t, localnet.Options{PaidAPI: true}, solana.LAMPORTS_PER_SOL)
	l, api, wallet := w.l, w.l.PaidAPI(), w.wallet
	w.mintToWallet(t, api.Mint, 1_000_000)
	pane, socket := w.startConsole(t, "console", 160, 50, "--allow-x402-origin", api.URL,
		"--max-token-per-tx", api.Mint+"=0.01", "--max-token-per-session", api.Mint+"=0.1")
	tokens := func() uint64 { t.Helper(); return w.tokens(t, wallet, api.Mint) }
	sends := func() uint64 { t.Helper(); return testkit.Sends(t, w.l) }
	solBefore, sendsBefore := w.balance(t, wallet), sends()

	a := testkit.StartAgent(t, socket, "hostile-agent")
	for _, c := range []struct{ path, rule, want string }{
		{"/hostile/feepayer?wallet=" + wallet.String(), "x402_payment", "as fee payer"},
		{"/hostile/wsol", "x402_payment", "wrapped SOL"},
	} {
		ans := a.Call("x402_fetch", map[string]any{"url": api.URL + c.path})
		if ans.Status() != "denied" || ans.Structured["rule"] != c.rule || !strings.Contains(ans.Text, c.want) {
			t.Errorf("%s: %s %v", c.path, ans.Text, ans.Structured)
		}
	}
	approveAndRun := func(path string) (string, testkit.Answer) {
		t.Helper()
		args := map[string]any{"url": api.URL + path}
		id := pendingID(t, a.Call("x402_fetch", args), path)
		pane.WaitFor(t, 30*time.Second, id, "a approve")
		waitGone(t, pane, 30*time.Second, "a waits: just selected")
		pane.Keys(t, "a")
		return id, a.Call("x402_fetch", map[string]any{"url": args["url"], "confirm": approvedToken(t, a, id, path)})
	}
	// Advertises 0.001, asks more on the retry: refused at execution.
	if _, res := approveAndRun("/hostile/overprice"); res.Status() != "failed" || !strings.Contains(res.Text, "more than the 0.001") || !strings.Contains(res.Text, "nothing was signed or sent") {
		t.Fatalf("overprice: %s %v", res.Text, res.Structured)
	}
	if tokens() != 1_000_000 || sends() != sendsBefore {
		t.Fatalf("the hostile variants moved funds: wallet %d, %d sends", tokens(), sends()-sendsBefore)
	}

	// The facilitator that never submits: reserved while the blockhash lives.
	id, res := approveAndRun("/nosubmit")
	if res.Status() != "submitted" && res.Status() != "executing" {
		t.Fatalf("nosubmit: %s %v", res.Text, res.Structured)
	}
	if ss := a.Call("get_spend_status", nil); !strings.Contains(ss.Text, "Token "+api.Mint+": 0 spent, 1000 reserved") {
		t.Fatalf("while the blockhash lives:\n%s", ss.Text)
	}
	if err := l.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	final := a.Call("proposal_status", map[string]any{"proposal_id": id})
	testkit.Eventually(t, 30*time.Second, "the release after expiry", func() bool {
		final = a.Call("proposal_status", map[string]any{"proposal_id": id})
		return final.Status() == "failed"
	}, func() string { return final.Text })
	if !strings.Contains(final.Text, "never landed") {
		t.Errorf("final: %s", final.Text)
	}
	if ss := a.Call("get_spend_status", nil); !strings.Contains(ss.Text, "Token "+api.Mint+": 0 spent, 0 reserved") {
		t.Fatalf("after the release:\n%s", ss.Text)
	}
	if sol := w.balance(t, wallet); sol != solBefore || tokens() != 1_000_000 {
		t.Fatalf("ledger moved: SOL %d → %d, tokens %d", solBefore, sol, tokens())
	}
	pane.SawAll(t, 30*time.Second, "never landed")
}

// payTo pinned through the real binaries. A console started with
// --x402-pin-pay-to and a recipient allowlist without the merchant refuses
// the payment with a reason naming the flag and the payTo: no proposal,
// nothing signed or sent, the ledger unchanged. A second console whose
// allowlist holds the merchant proposes it (the preview says payTo is
// pinned) and, after a, pays it.
func TestX402PinnedPayToThroughTheConsole(t *testing.T) {
	w := newConsoleWorld(t, localnet.Options{PaidAPI: true}, solana.LAMPORTS_PER_SOL)
	api := w.l.PaidAPI()
	wallet, merchant := w.wallet, solana.MustPublicKeyFromBase58(api.Merchant)
	w.mintToWallet(t, api.Mint, 1_000_000)
	tokens := func(owner solana.PublicKey) uint64 { t.Helper(); return w.tokens(t, owner, api.Mint) }
	sends := func() uint64 { t.Helper(); return testkit.Sends(t, w.l) }
	start := func(name, recipient string) (testkit.Pane, string) {
		t.Helper()
		return w.startConsole(t, name, 160, 50, "--allow-x402-origin", api.URL, "--x402-pin-pay-to", "--allow-recipient", recipient,
			"--max-token-per-tx", api.Mint+"=0.001", "--max-token-per-session", api.Mint+"=0.01")
	}
	args := map[string]any{"url": api.URL + "/paid", "max_amount": 1000}

	// 1. Pinned, the merchant not on the list: refused, nothing moves.
	other, _ := executor.NewRandomKeypair()
	_, socket := start("other", other.PublicKey().String())
	sendsBefore := sends()
	a := testkit.StartAgent(t, socket, "pin-agent")
	ans := a.Call("x402_fetch", args)
	if ans.Status() != "denied" || ans.Structured["rule"] != "allow_recipient" ||
		!strings.Contains(ans.Text, "--x402-pin-pay-to") || !strings.Contains(ans.Text, "--allow-recipient "+api.Merchant) {
		t.Fatalf("pinned, merchant not allowed: %s %v", ans.Text, ans.Structured)
	}
	if _, ok := ans.Structured["proposal_id"]; ok {
		t.Fatalf("a refused payment was proposed: %v", ans.Structured)
	}
	if tokens(wallet) != 1_000_000 || tokens(merchant) != 0 || sends() != sendsBefore {
		t.Fatalf("the refused payment moved funds: wallet %d, merchant %d, %d sends", tokens(wallet), tokens(merchant), sends()-sendsBefore)
	}

	// 2. Pinned, the merchant on the list: proposed, shown as pinned, paid.
	pane, socket := start("merchant", api.Merchant)
	b := testkit.StartAgent(t, socket, "pin-agent")
	ans = b.Call("x402_fetch", args)
	id := pendingID(t, ans, "pinned, merchant allowed")
	pane.WaitFor(t, 30*time.Second, id, "Pay to", "pinned: on --allow-recipient")
	waitGone(t, pane, 30*time.Second, "a waits: just selected")
	pane.Keys(t, "a")
	token := approvedToken(t, b, id, "pinned, merchant allowed")
	done := b.Call("x402_fetch", map[string]any{"url": args["url"], "max_amount": 1000, "confirm": token})
	if done.Status() != "executed" || done.Structured["http_status"] != float64(200) {
		t.Fatalf("execute: %s %v", done.Text, done.Structured)
	}
	if tokens(wallet) != 999_000 || tokens(merchant) != 1000 {
		t.Fatalf("after the pinned payment: wallet %d, merchant %d", tokens(wallet), tokens(merchant))
	}
}
