package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// TestRunningConsoleObeysEverySource starts the real console in tmux with
// its settings spread over the three sources, then asks it, through `solgate
// mcp` and its socket as an agent would, what it enforces:
//
//   - SOLGATE_ALLOW_RECIPIENT admits two recipients (a list variable: the
//     kind that used to be dropped) and SOLGATE_DENY_MINT denies a mint;
//   - the TOML file sets the per-transaction cap and the swap API;
//   - a flag sets the session cap over the variable that also sets it.
func TestRunningConsoleObeysEverySource(t *testing.T) {
	bin := testkit.Binary(t)
	l, _ := testkit.StartLedger(t, localnet.Options{})
	keyFile := testkit.FundedWallet(t, l, 10*solana.LAMPORTS_PER_SOL).File
	tmp := t.TempDir()
	sockDir := testkit.SocketDir(t)
	socket := filepath.Join(sockDir, "c.sock")

	r1, _ := executor.NewRandomKeypair()
	r2, _ := executor.NewRandomKeypair()
	stranger, _ := executor.NewRandomKeypair()
	usdc := l.DemoMints().USDC.Mint
	cfg := filepath.Join(tmp, "policy.toml")
	if err := os.WriteFile(cfg, []byte("max_sol_per_tx = 0.02\nswap_api = \""+l.SwapAPI()+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"SOLGATE_RPC=" + l.RPC(), "SOLGATE_KEYPAIR=" + keyFile, "SOLGATE_SOCKET=" + socket,
		"SOLGATE_STATE=" + filepath.Join(tmp, "state"), "SOLGATE_CONFIG=" + cfg,
		"SOLGATE_ALLOW_RECIPIENT=" + r1.PublicKey().String() + "," + r2.PublicKey().String(),
		"SOLGATE_DENY_MINT=" + usdc,
		"SOLGATE_MAX_SOL_PER_SESSION=0.9",
	}
	errLog := filepath.Join(tmp, "stderr")
	command := "exec env " + shellWords(env...) + " " + shellWords(bin, "console", "--max-sol-per-session", "0.5") + " 2>" + shellWords(errLog)
	p := startTmux(t, 140, 40, command)
	testkit.Eventually(t, 30*time.Second, "the console's start", func() bool { return strings.Contains(p.screen(), "QUEUE") }, func() string {
		logged, _ := os.ReadFile(errLog)
		return "screen:\n" + p.screen() + "\nstderr:\n" + string(logged)
	})

	a := testkit.StartAgent(t, socket, "settings-agent")
	caps := a.Call("get_spend_status", nil).Structured
	if caps["max_lamports_per_tx"] != "20000000" || caps["max_lamports_session"] != "500000000" {
		t.Errorf("caps from TOML (0.02 SOL) and flag (0.5 SOL over the variable's 0.9): %v", caps)
	}
	// The second recipient exists only in the comma-separated variable.
	if ans := a.Call("transfer_sol", map[string]any{"to": r2.PublicKey().String(), "lamports": 1_000_000}); ans.Status() != "pending_approval" {
		t.Errorf("transfer to a recipient from SOLGATE_ALLOW_RECIPIENT: %s %v", ans.Text, ans.Structured)
	}
	ans := a.Call("transfer_sol", map[string]any{"to": stranger.PublicKey().String(), "lamports": 1_000_000})
	if ans.Status() != "denied" || ans.Structured["rule"] != "allow_recipient" {
		t.Errorf("transfer to an address on no list: %s %v", ans.Text, ans.Structured)
	}
	ans = a.Call("transfer_sol", map[string]any{"to": r1.PublicKey().String(), "lamports": 30_000_000})
	if ans.Status() != "denied" || ans.Structured["rule"] != "max_sol_per_tx" {
		t.Errorf("transfer above the TOML cap: %s %v", ans.Text, ans.Structured)
	}
	ans = a.Call("swap", map[string]any{"input_mint": l.DemoMints().WSOL, "output_mint": usdc, "amount": 10_000_000, "slippage_bps": 50})
	if ans.Status() != "denied" || ans.Structured["rule"] != "mints" || !strings.Contains(ans.Text, usdc) {
		t.Errorf("swap into a mint from SOLGATE_DENY_MINT: %s %v", ans.Text, ans.Structured)
	}
}

// shellWords quotes each word for sh.
func shellWords(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
