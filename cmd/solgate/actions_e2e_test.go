package main

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// TestSolanaActionsThroughTheRealConsole drives solana_action through the
// real binaries: an MCP client on `solgate mcp`, the console in tmux, the
// actions served by the ledger (localnet/actions.mjs). The over-reaching
// action ("Tip 0.001 SOL" that also sends 0.2 SOL) shows its extra outflow
// on the console and is denied by the human; the honest tip executes only
// after a, and the ledger shows exactly the previewed effects; the
// over-reaching one, asked again, is stopped by the session cap; an origin
// not allowed is refused with its reason. The ledger is read back each time.
func TestSolanaActionsThroughTheRealConsole(t *testing.T) {
	w := newConsoleWorld(t, localnet.Options{}, 2*solana.LAMPORTS_PER_SOL)
	seed := func(s string) solana.PublicKey { h := sha256.Sum256([]byte(s)); return solana.PublicKeyFromBytes(h[:]) }
	tipJar, collector := seed("solgate localnet action tip jar"), seed("solgate localnet action collector")
	// The ledger's origin, spelled as the operator would (the flag takes
	// any spelling and keeps one).
	origin := strings.Replace(w.l.RPC(), "http://", "HTTP://", 1) + "/"
	pane, socket := w.startConsole(t, "console", 180, 50, "--allow-action-origin", origin,
		"--max-sol-per-tx", "0.25", "--max-sol-per-session", "0.3")

	walletStart, jarStart, collectorStart := w.balance(t, w.wallet), w.balance(t, tipJar), w.balance(t, collector)
	a := testkit.StartAgent(t, socket, "actions-agent")
	overreach := map[string]any{"url": w.l.RPC() + "/api/actions/overreach"}

	// 1. The over-reaching action: pending, and the console shows where the
	// 0.2 SOL goes, beside the server's "Tip 0.001 SOL" marked untrusted.
	ans := a.Call("solana_action", overreach)
	id := pendingID(t, ans, "over-reaching action")
	pane.WaitApprovable(t, 30*time.Second, id)
	pane.WaitFor(t, 30*time.Second, collector.String()+" +0.2 SOL", tipJar.String()+" +0.001 SOL", "0.201005 SOL", `"the action's title: Tip 0.001 SOL" (untrusted`)
	pane.Keys(t, "d")
	pane.WaitFor(t, 30*time.Second, "DENY "+id)
	pane.Keys(t, "Enter")
	st := a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	if st.Status() != "denied" {
		t.Fatalf("after d: %s %v", st.Text, st.Structured)
	}
	if w.balance(t, w.wallet) != walletStart || w.balance(t, collector) != collectorStart {
		t.Fatal("the denied action moved funds")
	}

	// 2. The honest tip of 0.1 SOL: nothing moves until a, then exactly
	// the previewed effects.
	tip := map[string]any{"url": "solana-action:" + w.l.RPC() + "/api/actions/tip", "input": map[string]any{"amount": "100000000"}}
	ans = a.Call("solana_action", tip)
	id = pendingID(t, ans, "tip")
	previewedOut, _ := strconv.ParseUint(ans.Str("sol_out_lamports"), 10, 64)
	pane.WaitApprovable(t, 30*time.Second, id)
	pane.WaitFor(t, 30*time.Second, tipJar.String()+" +0.1 SOL")
	if w.balance(t, w.wallet) != walletStart || w.balance(t, tipJar) != jarStart {
		t.Fatal("the pending tip moved funds")
	}
	pane.Keys(t, "a")
	token := approvedToken(t, a, id, "after a")
	done := a.Call("solana_action", map[string]any{"url": tip["url"], "input": tip["input"], "confirm": token})
	if done.Status() != "executed" {
		t.Fatalf("execute the tip: %s %v", done.Text, done.Structured)
	}
	if got := w.balance(t, tipJar); got != jarStart+100_000_000 {
		t.Fatalf("tip jar %d; want %d + 100000000", got, jarStart)
	}
	if paid := walletStart - w.balance(t, w.wallet); previewedOut == 0 || paid != previewedOut {
		t.Fatalf("the wallet paid %d lamports; the preview said %d", paid, previewedOut)
	}

	// 3. The over-reaching action again: 0.201005 SOL no longer fits in the
	// session's 0.3 SOL; denied by the cap, the ledger unchanged.
	walletNow := w.balance(t, w.wallet)
	ans = a.Call("solana_action", overreach)
	if ans.Status() != "denied" || ans.Str("rule") != "max_sol_per_session" {
		t.Fatalf("over-reaching action under the session cap: %s %v", ans.Text, ans.Structured)
	}
	if w.balance(t, w.wallet) != walletNow || w.balance(t, collector) != collectorStart {
		t.Fatal("the capped action moved funds")
	}

	// 4. An origin not allowed: refused with its reason, no request made.
	ans = a.Call("solana_action", map[string]any{"url": "https://actions.example.com/api/tip"})
	if ans.Status() != "denied" || ans.Str("rule") != "allow_action_origin" ||
		!strings.Contains(ans.Str("reason"), "https://actions.example.com is not on the action origin allowlist") {
		t.Fatalf("origin not allowed: %s %v", ans.Text, ans.Structured)
	}
	pane.SawAll(t, 30*time.Second, "allow_action_origin")
}
