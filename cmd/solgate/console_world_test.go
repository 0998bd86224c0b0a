package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// consoleWorld is what every end-to-end test of the real binaries starts
// from: a ledger, a wallet funded on it with its keyfile written, and a
// temporary directory for the consoles' state and stderr. Each test then
// opens the console (or two) with its own flags.
type consoleWorld struct {
	bin     string
	l       *localnet.Ledger
	chain   *rpc.Client
	key     *executor.Keypair
	wallet  solana.PublicKey
	tmp     string
	keyFile string
}

// newConsoleWorld starts a ledger with opts and funds a new wallet with
// lamports.
func newConsoleWorld(t *testing.T, opts localnet.Options, lamports uint64) *consoleWorld {
	t.Helper()
	bin := testkit.Binary(t)
	ctx := context.Background()
	l, err := localnet.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	key, _ := executor.NewRandomKeypair()
	testkit.Fund(t, l, key.PublicKey(), lamports)
	tmp := t.TempDir()
	keyFile := filepath.Join(tmp, "id.json")
	if err := key.WriteFile(keyFile); err != nil {
		t.Fatal(err)
	}
	return &consoleWorld{bin: bin, l: l, chain: rpc.New(l.RPC()), key: key, wallet: key.PublicKey(), tmp: tmp, keyFile: keyFile}
}

// mintToWallet gives the wallet amount base units of the ledger's mint.
func (w *consoleWorld) mintToWallet(t *testing.T, mint string, amount uint64) {
	t.Helper()
	if _, err := w.l.MintTo(context.Background(), mint, w.wallet.String(), amount); err != nil {
		t.Fatal(err)
	}
}

// consoleCommand is the shell command that runs the console on this
// world's ledger and wallet with flags; name keeps two consoles' socket,
// state and stderr apart. It returns the command, the socket and the
// stderr file.
func (w *consoleWorld) consoleCommand(t *testing.T, name string, flags ...string) (command, socket, errLog string) {
	t.Helper()
	socket = filepath.Join(testkit.SocketDir(t), name+".sock")
	errLog = filepath.Join(w.tmp, name+".stderr")
	args := append([]string{w.bin, "console", "--rpc", w.l.RPC(), "--keypair", w.keyFile, "--socket", socket,
		"--state", w.statePath(name)}, flags...)
	return shellWords(append(args, "--no-bell")...) + " 2>>" + shellWords(errLog), socket, errLog
}

// statePath is the state directory of the console called name.
func (w *consoleWorld) statePath(name string) string { return filepath.Join(w.tmp, name) }

// openConsole runs command in a cols×rows tmux pane and waits for the
// console's empty queue.
func openConsole(t *testing.T, cols, rows int, command, errLog string) testkit.Pane {
	t.Helper()
	p := startTmux(t, cols, rows, command)
	pane := testkit.Pane{Server: p.name, Target: p.name, ErrLog: errLog}
	pane.WaitFor(t, 30*time.Second, "QUEUE", "agents: none connected")
	return pane
}

// startConsole opens the console called name with flags in a cols×rows
// pane, and returns the pane and the console's socket.
func (w *consoleWorld) startConsole(t *testing.T, name string, cols, rows int, flags ...string) (testkit.Pane, string) {
	t.Helper()
	command, socket, errLog := w.consoleCommand(t, name, flags...)
	return openConsole(t, cols, rows, command, errLog), socket
}

// balance reads pk's lamports back from the ledger.
func (w *consoleWorld) balance(t *testing.T, pk solana.PublicKey) uint64 {
	t.Helper()
	return testkit.Balance(t, w.chain, pk)
}

// tokens reads back the base units of mint that owner holds.
func (w *consoleWorld) tokens(t *testing.T, owner solana.PublicKey, mint string) uint64 {
	t.Helper()
	n, _ := testkit.OwnerTokens(t, w.chain, owner, mint)
	return n
}

// pendingID is the proposal id of an answer that must be waiting for the
// human; what names the call in the failure.
func pendingID(t *testing.T, ans testkit.Answer, what string) string {
	t.Helper()
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("%s: propose: %s %v", what, ans.Text, ans.Structured)
	}
	return id
}

// approvedToken waits on proposal_status until id is decided, requires it
// approved, and returns its confirm token; what names the call in the
// failure.
func approvedToken(t *testing.T, a *testkit.Agent, id, what string) string {
	t.Helper()
	st := a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	token, _ := st.Structured["confirm"].(string)
	if st.Status() != "approved" || token == "" {
		t.Fatalf("%s: proposal_status: %s %v", what, st.Text, st.Structured)
	}
	return token
}

// waitGone polls the screen until it no longer shows text.
func waitGone(t *testing.T, pane testkit.Pane, d time.Duration, text string) {
	t.Helper()
	waitUntil(t, d, "the screen to stop showing "+text, func() bool { return !strings.Contains(pane.Screen(), text) }, pane)
}

// waitUntil polls what the test can see (a screen) until ok holds.
func waitUntil(t *testing.T, d time.Duration, what string, ok func() bool, pane testkit.Pane) {
	t.Helper()
	testkit.Eventually(t, d, what, ok, func() string {
		errs, _ := os.ReadFile(pane.ErrLog)
		return fmt.Sprintf("screen:\n%s\nmain screen:\n%s\nstderr:\n%s", pane.Screen(), pane.Normal(), errs)
	})
}
