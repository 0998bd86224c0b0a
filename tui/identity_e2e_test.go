package tui_test

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// Published genesis hashes, spelled out (what `solana genesis-hash` prints
// against mainnet-beta); never taken from the product.
const publishedMainnetGenesis = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"

// A ledger that reports mainnet-beta's real genesis hash, on loopback, is
// mainnet: the MAINNET badge, no write without --allow-mainnet. The state
// directory is then pinned to mainnet-beta (solgate audit says so), and the
// same directory pointed at a ledger with another genesis hash refuses to
// start, naming both hashes and how to use another --state. A node that
// cannot be reached at all keeps the console from starting too.
func TestConsoleOnMainnetGenesisRefusesWritesAndPinsState(t *testing.T) {
	w := startConsoleWith(t, consoleSetup{ledger: localnet.Options{Network: "mainnet-beta"}})
	if w.ledger.GenesisHash() != publishedMainnetGenesis {
		t.Fatalf("the ledger reports genesis %s, want mainnet-beta's %s", w.ledger.GenesisHash(), publishedMainnetGenesis)
	}
	w.term.waitFor(30*time.Second, "MAINNET — real funds", "genesis 5eyk…2N9d")

	a := startAgent(t, w.socket, "mainnet-agent")
	st, text := a.call("transfer_sol", map[string]any{"to": w.recipient.String(), "lamports": 1_000_000})
	if st["status"] != "denied" || st["rule"] != "network" || !strings.Contains(text, "--allow-mainnet") {
		t.Fatalf("a write on mainnet without --allow-mainnet: %v\n%s", st, text)
	}
	w.term.waitFor(30*time.Second, "AUTO-DENIED")
	if got := w.balance(t, w.recipient); got != 0 {
		t.Fatalf("the recipient holds %d lamports", got)
	}
	a.C.Close()
	w.quit(t)

	out, err := exec.Command(w.bin, "audit", "--state", w.state).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "cluster: mainnet-beta (genesis "+publishedMainnetGenesis+")") {
		t.Fatalf("solgate audit (%v) does not name the cluster:\n%s", err, out)
	}

	// The same state directory on another cluster.
	other, _ := testkit.StartLedger(t, localnet.Options{})
	rc, stderr := consoleRefuses(t, w.bin, "--rpc", other.RPC(), "--keypair", w.keyFile, "--state", w.state, "--socket", w.socket+"2")
	t.Logf("refusal on another cluster (exit %d):\n%s", rc, stderr)
	for _, want := range []string{publishedMainnetGenesis, other.GenesisHash(), "--state", "belong to one cluster"} {
		if rc == 0 || !strings.Contains(stderr, want) {
			t.Errorf("console on another cluster: exit %d, stderr lacks %q:\n%s", rc, want, stderr)
		}
	}

	// A node that does not answer: nothing can be identified, nothing starts.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	rc, stderr = consoleRefuses(t, w.bin, "--rpc", dead, "--keypair", w.keyFile, "--state", filepath.Join(t.TempDir(), "fresh"), "--socket", w.socket+"3")
	t.Logf("refusal on a dead node (exit %d):\n%s", rc, stderr)
	if rc == 0 || !strings.Contains(stderr, "could not identify the network") {
		t.Errorf("console on a dead node: exit %d, stderr:\n%s", rc, stderr)
	}
}

// With --allow-mainnet, approval on mainnet takes a then y: a alone opens
// the confirmation and approves nothing.
func TestConsoleOnMainnetGenesisApprovesOnlyWithSecondKey(t *testing.T) {
	w := startConsoleWith(t, consoleSetup{ledger: localnet.Options{Network: "mainnet-beta"}, flags: []string{"--allow-mainnet"}})
	w.term.waitFor(30*time.Second, "MAINNET — real funds")
	a := startAgent(t, w.socket, "mainnet-agent")
	const amount = 20_000_000
	args := map[string]any{"to": w.recipient.String(), "lamports": amount}
	st, text := a.call("transfer_sol", args)
	id, _ := st["proposal_id"].(string)
	if st["status"] != "pending_approval" || id == "" {
		t.Fatalf("propose: %v\n%s", st, text)
	}
	w.term.approvable(id)
	w.term.keys("a")
	w.term.waitFor(30*time.Second, "CONFIRM MAINNET APPROVAL", "press y to approve")
	if st, _ := a.call("proposal_status", map[string]any{"proposal_id": id}); st["status"] != "pending" {
		t.Fatalf("a alone changed the proposal on mainnet: %v", st)
	}
	w.term.keys("y")
	st, text = a.call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	token, _ := st["confirm"].(string)
	if st["status"] != "approved" || token == "" {
		t.Fatalf("after a, y: %v\n%s\nscreen:\n%s", st, text, w.term.screen())
	}
	args["confirm"] = token
	if st, text = a.call("transfer_sol", args); st["status"] != "executed" {
		t.Fatalf("execute: %v\n%s", st, text)
	}
	if got := w.balance(t, w.recipient); got != amount {
		t.Errorf("recipient holds %d lamports, want %d", got, amount)
	}
}

// An unrecognised genesis hash behind an RPC URL that is not loopback is an
// UNKNOWN NETWORK: as loud as mainnet, and no write without
// --allow-unknown-network (--allow-mainnet does not open it).
func TestConsoleOnUnknownRemoteNetwork(t *testing.T) {
	w := startConsoleWith(t, consoleSetup{rpc: nonLoopback, flags: []string{"--allow-mainnet"}})
	w.term.waitFor(30*time.Second, "UNKNOWN NETWORK — treat as real funds")
	a := startAgent(t, w.socket, "remote-agent")
	st, text := a.call("transfer_sol", map[string]any{"to": w.recipient.String(), "lamports": 1_000_000})
	if st["status"] != "denied" || st["rule"] != "network" || !strings.Contains(text, "--allow-unknown-network") {
		t.Fatalf("a write on an unknown network: %v\n%s", st, text)
	}
	if got := w.balance(t, w.recipient); got != 0 {
		t.Fatalf("the recipient holds %d lamports", got)
	}
}

// nonLoopback rewrites http://127.0.0.1:PORT to http://0.0.0.0:PORT: Linux
// delivers that connection to this machine, but 0.0.0.0 is not a loopback
// address, so solgate cannot vouch that the cluster is a local test ledger.
func nonLoopback(t *testing.T, loopback string) string {
	u, err := url.Parse(loopback)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "0.0.0.0:" + u.Port()
	return u.String()
}

// quit presses q (nothing pending) and waits for the console to exit.
func (w *consoleWorld) quit(t *testing.T) {
	t.Helper()
	pid := w.term.pid()
	w.term.keys("q")
	testkit.Eventually(t, 30*time.Second, "the console's exit after q", func() bool { return !processAlive(pid) }, w.term.screen)
}

// consoleRefuses runs `solgate console args...` in a terminal of its own (it
// needs one) and returns its exit code and stderr once it has exited.
func consoleRefuses(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	tmp := t.TempDir()
	term := &terminal{t: t, server: fmt.Sprintf("solgate-refuse-%d-%d", os.Getpid(), time.Now().UnixNano()), errLog: filepath.Join(tmp, "stderr")}
	rcFile := filepath.Join(tmp, "rc")
	command := shellJoin(append([]string{bin, "console"}, args...)) + " 2>" + shellQuote(term.errLog) + "; echo $? >" + shellQuote(rcFile) + "; sleep 60"
	if out, err := term.tmux("new-session", "-d", "-s", "console", "-x", "140", "-y", "40", command); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	defer term.tmux("kill-server")
	var raw []byte
	testkit.Eventually(t, 40*time.Second, "the console's exit", func() bool {
		raw, _ = os.ReadFile(rcFile)
		return strings.HasSuffix(string(raw), "\n")
	}, term.screen)
	var rc int
	fmt.Sscan(string(raw), &rc)
	stderr, _ := os.ReadFile(term.errLog)
	return rc, string(stderr)
}
