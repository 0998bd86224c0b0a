package tui_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// terminal is a tmux server of our own (-L) running one console in a
// 140x40 window: a real terminal, driven and read like a person would.
type terminal struct {
	t      *testing.T
	server string
	errLog string
	wallet string // the console's wallet, which w shows in full
}

func (term *terminal) pane() testkit.Pane {
	return testkit.Pane{Server: term.server, Target: "console", ErrLog: term.errLog}
}

func (term *terminal) tmux(args ...string) (string, error) { return term.pane().Tmux(args...) }

// screen is what the terminal shows now.
func (term *terminal) screen() string { return term.pane().Screen() }

// waitFor polls the screen until it contains all of want.
func (term *terminal) waitFor(timeout time.Duration, want ...string) string {
	term.t.Helper()
	return term.pane().WaitFor(term.t, timeout, want...)
}

func (term *terminal) keys(keys ...string) {
	term.t.Helper()
	term.pane().Keys(term.t, keys...)
}

// approvable waits until id is the selected row (the marker › on its row)
// and its grace period is over, so that the next a approves id.
func (term *terminal) approvable(id string) {
	term.t.Helper()
	term.pane().WaitApprovable(term.t, 20*time.Second, id)
}

// settled proves that the console has handled every key typed so far: it
// reads keys in order, so once w has shown the full wallet and hidden it
// again, every earlier key has had its effect on the model. Use it only with
// no dialog open (w would be typed into a reason).
//
// F12 (bound to nothing) goes first: Bubble Tea reads runes that arrive
// together as one key, so a w read with an earlier unread rune ("aw") would
// be no key at all and the wallet would never show. An escape sequence is
// never merged with the runes around it.
func (term *terminal) settled() {
	term.t.Helper()
	term.keys("F12", "w")
	term.pane().WaitUntil(term.t, 20*time.Second, "the full wallet (w)", func(s string) bool { return strings.Contains(s, "wallet "+term.wallet) })
	term.keys("w")
	term.pane().WaitUntil(term.t, 20*time.Second, "the wallet hidden again (w)", func(s string) bool { return !strings.Contains(s, "wallet "+term.wallet) })
}

// pid is the console's process id (the pane runs it with exec).
func (term *terminal) pid() int {
	term.t.Helper()
	return term.pane().PID(term.t)
}

// consoleWorld is a ledger, a funded wallet, and a console in tmux.
type consoleWorld struct {
	ledger    *localnet.Ledger
	chain     *rpc.Client
	term      *terminal
	bin       string
	socket    string
	state     string // the console's --state directory
	keyFile   string
	wallet    solana.PublicKey
	recipient solana.PublicKey
}

// consoleSetup varies what startConsoleWith starts; the zero value is the
// usual test ledger with a fresh state directory.
type consoleSetup struct {
	ledger localnet.Options                      // zero: the default (mainnet's pace)
	rpc    func(t *testing.T, url string) string // rewrites the ledger's URL for --rpc; nil: as is
	state  string                                // --state; "" = a fresh directory
	flags  []string                              // extra console flags
	// prepare runs once the ledger and wallet exist, before the console
	// starts, and returns more flags and environment (NAME=value) for it.
	prepare func(t *testing.T, l *localnet.Ledger, wallet solana.PublicKey) (flags, env []string)
	// then is a shell command the pane runs after the console exits; the
	// pane's process is then a shell with the console as its child.
	then string
}

func startConsole(t *testing.T, extraFlags ...string) *consoleWorld {
	t.Helper()
	return startConsoleWith(t, consoleSetup{flags: extraFlags})
}

func startConsoleWith(t *testing.T, cs consoleSetup) *consoleWorld {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("this end-to-end test requires tmux on PATH")
	}
	bin := testkit.Binary(t)
	l, chain := testkit.StartLedger(t, cs.ledger)
	key := testkit.FundedWallet(t, l, 10*solana.LAMPORTS_PER_SOL)
	recipient := testkit.NewWallet(t)
	keyFile := key.File
	tmp := t.TempDir()
	// Unix socket paths are short (~108 bytes) and the directory must be 0700.
	sockDir := testkit.SocketDir(t)
	socket := filepath.Join(sockDir, "c.sock")
	state := cs.state
	if state == "" {
		state = filepath.Join(tmp, "state")
	}
	rpcURL := l.RPC()
	if cs.rpc != nil {
		rpcURL = cs.rpc(t, rpcURL)
	}

	term := &terminal{t: t, server: fmt.Sprintf("solgate-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), errLog: filepath.Join(tmp, "stderr"), wallet: key.Pub.String()}
	args := []string{bin, "console", "--rpc", rpcURL, "--keypair", keyFile, "--socket", socket,
		"--state", state, "--allow-recipient", recipient.Pub.String()}
	args = append(args, cs.flags...)
	command := "exec " + shellJoin(args) + " 2>" + shellQuote(term.errLog)
	if cs.prepare != nil {
		flags, env := cs.prepare(t, l, key.Pub)
		args = append(args, flags...)
		command = "exec env " + shellJoin(env) + " " + shellJoin(args) + " 2>" + shellQuote(term.errLog)
	}
	if cs.then != "" {
		command = strings.TrimPrefix(command, "exec ") + "; " + cs.then
	}
	if out, err := term.tmux("new-session", "-d", "-s", "console", "-x", "140", "-y", "40", command); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	t.Cleanup(func() { term.tmux("kill-server") })
	term.waitFor(30*time.Second, "SOLGATE", "QUEUE")
	return &consoleWorld{ledger: l, chain: chain, term: term, bin: bin, socket: socket, state: state, keyFile: keyFile,
		wallet: key.Pub, recipient: recipient.Pub}
}

func (w *consoleWorld) balance(t *testing.T, pk solana.PublicKey) uint64 {
	t.Helper()
	out, err := w.chain.GetBalance(context.Background(), pk, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	return out.Value
}

// agent drives a real `solgate mcp` subprocess over stdio, as an AI client would.
type agent struct{ *testkit.Agent }

func startAgent(t *testing.T, socket, name string) agent {
	return agent{testkit.StartAgent(t, socket, name)}
}

// call returns the structured result and the text, as the model sees them.
func (a agent) call(tool string, args map[string]any) (map[string]any, string) {
	ans := a.Call(tool, args)
	return ans.Structured, ans.Text
}

// The whole loop in a real terminal: an agent proposes through `solgate
// mcp`, the proposal appears on the console's screen, a key press approves
// it, the agent collects the token and executes, the ledger moves, and the
// screen says "verified".
func TestConsoleInTmuxApprovesAndExecutes(t *testing.T) {
	w := startConsole(t)
	a := startAgent(t, w.socket, "tmux-agent")
	const amount = 50_000_000
	args := map[string]any{"to": w.recipient.String(), "lamports": amount}

	st, text := a.call("transfer_sol", args)
	id, _ := st["proposal_id"].(string)
	if st["status"] != "pending_approval" || id == "" {
		t.Fatalf("propose: %v\n%s", st, text)
	}
	w.term.waitFor(30*time.Second, id, "tmux-agent 1.0", "0.05 SOL", w.recipient.String())
	if w.balance(t, w.recipient) != 0 {
		t.Fatal("a proposal moved funds")
	}

	// Enter never approves, even after the grace period; then a does.
	w.term.approvable(id)
	w.term.keys("Enter")
	w.term.settled()
	if st, _ := a.call("proposal_status", map[string]any{"proposal_id": id}); st["status"] != "pending" {
		t.Fatalf("Enter changed the proposal: %v", st)
	}
	w.term.keys("a")
	st, text = a.call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	token, _ := st["confirm"].(string)
	if st["status"] != "approved" || token == "" {
		t.Fatalf("after a: %v\n%s\nscreen:\n%s", st, text, w.term.screen())
	}

	args["confirm"] = token
	st, text = a.call("transfer_sol", args)
	if st["status"] != "executed" {
		t.Fatalf("execute: %v\n%s", st, text)
	}
	if got := w.balance(t, w.recipient); got != amount {
		t.Errorf("recipient holds %d lamports, want %d", got, amount)
	}
	screen := w.term.waitFor(30*time.Second, "verified", "EXECUTED")
	sig, _ := st["signature"].(string)
	if sig == "" || !strings.Contains(screen, sig[:4]) {
		t.Errorf("the signature %s is not on screen:\n%s", sig, screen)
	}
	t.Logf("screen after execution:\n%s", screen)

	// The header lists the agent while its bridge runs; when the bridge
	// exits, the console says so and the list empties.
	if !strings.Contains(screen, "agents (1, self-described): tmux-agent 1.0") {
		t.Errorf("the header does not list the connected agent:\n%s", screen)
	}
	a.C.Close()
	w.term.waitFor(30*time.Second, "agents: none connected", "agent tmux-agent 1.0 disconnected")

	// q with nothing pending quits, and the process ends.
	pid := w.term.pid()
	w.term.keys("q")
	testkit.Eventually(t, 30*time.Second, "the console's exit after q", func() bool { return !processAlive(pid) }, w.term.screen)
}

func processAlive(pid int) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// A zombie (state Z) has exited.
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
