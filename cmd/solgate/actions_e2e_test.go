package main

import (
	"context"
	"crypto/sha256"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
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
	bin := testkit.Binary(t)
	ctx := context.Background()
	l, err := localnet.Start(ctx, localnet.Options{SlotMS: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	chain := rpc.New(l.RPC())
	key, _ := executor.NewRandomKeypair()
	if err := l.Fund(ctx, key.PublicKey().String(), 2*solana.LAMPORTS_PER_SOL); err != nil {
		t.Fatal(err)
	}
	seed := func(s string) solana.PublicKey { h := sha256.Sum256([]byte(s)); return solana.PublicKeyFromBytes(h[:]) }
	tipJar, collector := seed("solgate localnet action tip jar"), seed("solgate localnet action collector")
	// The ledger's origin, spelled as the operator would (the flag takes
	// any spelling and keeps one).
	origin := strings.Replace(l.RPC(), "http://", "HTTP://", 1) + "/"

	tmp := t.TempDir()
	keyFile := filepath.Join(tmp, "id.json")
	if err := key.WriteFile(keyFile); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(testkit.SocketDir(t), "c.sock")
	errLog := filepath.Join(tmp, "stderr")
	console := shellWords(bin, "console", "--rpc", l.RPC(), "--keypair", keyFile, "--socket", socket,
		"--state", filepath.Join(tmp, "state"), "--allow-action-origin", origin,
		"--max-sol-per-tx", "0.25", "--max-sol-per-session", "0.3", "--no-bell") + " 2>>" + shellWords(errLog)
	p := startTmux(t, 180, 50, console)
	pane := testkit.Pane{Server: p.name, Target: p.name, ErrLog: errLog}
	pane.WaitFor(t, 30*time.Second, "QUEUE", "agents: none connected")

	balance := func(pk solana.PublicKey) uint64 {
		t.Helper()
		out, err := chain.GetBalance(ctx, pk, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		return out.Value
	}
	walletStart, jarStart, collectorStart := balance(key.PublicKey()), balance(tipJar), balance(collector)
	a := testkit.StartAgent(t, socket, "actions-agent")
	overreach := map[string]any{"url": l.RPC() + "/api/actions/overreach"}

	// 1. The over-reaching action: pending, and the console shows where the
	// 0.2 SOL goes, beside the server's "Tip 0.001 SOL" marked untrusted.
	ans := a.Call("solana_action", overreach)
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("over-reaching action: %s %v", ans.Text, ans.Structured)
	}
	pane.WaitApprovable(t, 30*time.Second, id)
	pane.WaitFor(t, 30*time.Second, collector.String()+" +0.2 SOL", tipJar.String()+" +0.001 SOL", "0.201005 SOL", `"the action's title: Tip 0.001 SOL" (untrusted`)
	pane.Keys(t, "d")
	pane.WaitFor(t, 30*time.Second, "DENY "+id)
	pane.Keys(t, "Enter")
	st := a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	if st.Status() != "denied" {
		t.Fatalf("after d: %s %v", st.Text, st.Structured)
	}
	if balance(key.PublicKey()) != walletStart || balance(collector) != collectorStart {
		t.Fatal("the denied action moved funds")
	}

	// 2. The honest tip of 0.1 SOL: nothing moves until a, then exactly
	// the previewed effects.
	tip := map[string]any{"url": "solana-action:" + l.RPC() + "/api/actions/tip", "input": map[string]any{"amount": "100000000"}}
	ans = a.Call("solana_action", tip)
	id, _ = ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("tip: %s %v", ans.Text, ans.Structured)
	}
	previewedOut, _ := strconv.ParseUint(ans.Str("sol_out_lamports"), 10, 64)
	pane.WaitApprovable(t, 30*time.Second, id)
	pane.WaitFor(t, 30*time.Second, tipJar.String()+" +0.1 SOL")
	if balance(key.PublicKey()) != walletStart || balance(tipJar) != jarStart {
		t.Fatal("the pending tip moved funds")
	}
	pane.Keys(t, "a")
	st = a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	token, _ := st.Structured["confirm"].(string)
	if st.Status() != "approved" || token == "" {
		t.Fatalf("after a: %s %v", st.Text, st.Structured)
	}
	done := a.Call("solana_action", map[string]any{"url": tip["url"], "input": tip["input"], "confirm": token})
	if done.Status() != "executed" {
		t.Fatalf("execute the tip: %s %v", done.Text, done.Structured)
	}
	if got := balance(tipJar); got != jarStart+100_000_000 {
		t.Fatalf("tip jar %d; want %d + 100000000", got, jarStart)
	}
	if paid := walletStart - balance(key.PublicKey()); previewedOut == 0 || paid != previewedOut {
		t.Fatalf("the wallet paid %d lamports; the preview said %d", paid, previewedOut)
	}

	// 3. The over-reaching action again: 0.201005 SOL no longer fits in the
	// session's 0.3 SOL; denied by the cap, the ledger unchanged.
	walletNow := balance(key.PublicKey())
	ans = a.Call("solana_action", overreach)
	if ans.Status() != "denied" || ans.Str("rule") != "max_sol_per_session" {
		t.Fatalf("over-reaching action under the session cap: %s %v", ans.Text, ans.Structured)
	}
	if balance(key.PublicKey()) != walletNow || balance(collector) != collectorStart {
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
