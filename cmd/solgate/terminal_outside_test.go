package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// Issue 33's terminal from outside, on real processes and real ptys. sudo
// (use_pty) and su -P run the console on a fresh pty of its own while they
// themselves, above it, keep the window the command was typed in. script(1)
// does exactly that here (run as root, like sudo: it opens a new pty for
// the console and keeps the pane's as its own controlling terminal), in a
// pane whose terminal the agent's user owns. The console refuses to start,
// naming the terminal and the process holding it; --check says the same.
func TestConsoleRefusesTheWindowAroundItsOwnPty(t *testing.T) {
	w := startOwnUserWorld(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("requires script(1) on PATH (.ci/run installs bsdutils): %v", err)
	}
	for _, tc := range []struct{ name, flag, want string }{
		{"start", "", "an admitted agent can reach this console's terminal"},
		{"check", "--check", "REFUSED: an admitted agent can reach this console's terminal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "around-" + tc.name
			errLog := filepath.Join(w.root, name+".out")
			args := []string{"setpriv", fmt.Sprintf("--reuid=%d", uidConsole), fmt.Sprintf("--regid=%d", uidConsole), "--clear-groups",
				"env", "-u", "CI", "HOME=" + w.home, "NO_COLOR=1", w.bin, "console", "--rpc", w.ledger.RPC(), "--keypair", w.keyFile,
				"--socket", w.socket(name), "--state", filepath.Join(w.home, "state-"+name), "--allow-recipient", w.recipient.String(),
				"--allow-uid", strconv.Itoa(uidAgent)}
			// The console itself keeps script's pty on its standard output
			// (so only the check can stop it); --check prints its verdict.
			inner := shellJoin(args) + " 2>" + shellQuote(errLog)
			if tc.flag != "" {
				inner = shellJoin(append(args, tc.flag)) + " >" + shellQuote(errLog) + " 2>&1"
			}
			command := fmt.Sprintf(`chown %d "$(tty)" && script -qec %s /dev/null; tmux wait-for -S %s; sleep 60`,
				uidAgent, shellQuote(inner), shellQuote("exited-"+name))
			if out, err := exec.Command("tmux", "-L", w.server, "new-window", "-d", "-t", "own:", "-n", name, command).CombinedOutput(); err != nil {
				t.Fatalf("tmux: %v\n%s", err, out)
			}
			con := &ownConsole{w: w, window: name, errLog: errLog}
			con.refusal(t, 60*time.Second, tc.want, "held by the process", fmt.Sprintf("belongs to uid %d, which --allow-uid admits as an agent", uidAgent))
		})
	}
}

// Started cleanly, the console is later shown on a terminal the agent's
// user owns (here its pane's device handed to that user, as an attach from
// the agent's window would show it there): within a second or so the screen
// hides the 0.095 SOL the agent proposed, says why, and a does not approve;
// when the device is the operator's again, the amount comes back.
func TestConsoleHidesAmountsWhileAnAgentCanReachItsTerminal(t *testing.T) {
	w := startOwnUserWorld(t)
	con := w.startConsoleAs(t, uidConsole, "later", "--allow-uid", strconv.Itoa(uidAgent))
	agent := w.bridgeAs(t, uidAgent, con.socket, "agent-b")
	res := callTool(t, agent, "transfer_sol", map[string]any{"to": w.recipient.String(), "lamports": 95_000_000})
	id := res.Str("proposal_id")
	if res.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose: %+v", res)
	}
	con.waitFor(t, 30*time.Second, id, "0.095")
	out, err := con.pane().Tmux("display-message", "-p", "-t", con.pane().Target, "#{pane_tty}")
	if err != nil {
		t.Fatal(err)
	}
	tty := strings.TrimSpace(out)
	must(t, os.Chown(tty, uidAgent, -1))
	t.Cleanup(func() { os.Chown(tty, 0, -1) })
	start := time.Now()
	s := con.waitFor(t, 30*time.Second, "AN ADMITTED AGENT CAN REACH A TERMINAL SHOWING THIS CONSOLE", tty, fmt.Sprintf("belongs to uid %d", uidAgent))
	t.Logf("hidden %s after the terminal changed hands", time.Since(start).Round(time.Millisecond))
	if strings.Contains(s, "0.095") {
		t.Fatalf("the amount is still on screen:\n%s", s)
	}
	con.keys(t, "a")
	con.keys(t, "y")
	if st := callTool(t, agent, "proposal_status", map[string]any{"proposal_id": id}); st.Status() != "pending" {
		t.Fatalf("after a while exposed: %+v", st)
	}
	must(t, os.Chown(tty, 0, -1))
	con.waitFor(t, 30*time.Second, id, "0.095", "no longer reachable")
	if st := callTool(t, agent, "proposal_status", map[string]any{"proposal_id": id}); st.Status() != "pending" {
		t.Fatalf("after the exposure ended: %+v", st)
	}
}

// Issue 33's later attach, as it happened: the console runs cleanly in a
// tmux server of the console's own user; then `tmux attach` as that user
// from a window the agent's user owns (`su console -c 'tmux attach'`) shows
// the console there. The console asks its own tmux server for its clients:
// within a second or so it hides the amount and says which terminal; once
// that client is gone, the amount is back.
func TestConsoleHidesAmountsWhenAttachedFromAnAgentsWindow(t *testing.T) {
	w := startOwnUserWorld(t)
	asConsole := []string{"setpriv", fmt.Sprintf("--reuid=%d", uidConsole), fmt.Sprintf("--regid=%d", uidConsole), "--clear-groups",
		"env", "-u", "CI", "-u", "TMUX", "HOME=" + w.home, "TERM=xterm-256color"}
	sock := filepath.Join(w.home, "tmux.sock")
	name := "attach"
	socket := w.socket(name)
	errLog := filepath.Join(w.home, name+".stderr") // the console's user writes it
	// Inside the console user's tmux already: no setpriv again.
	console := append(append([]string{}, asConsole[4:]...), "NO_COLOR=1", w.bin, "console", "--rpc", w.ledger.RPC(), "--keypair", w.keyFile,
		"--socket", socket, "--state", filepath.Join(w.home, "state-"+name), "--allow-recipient", w.recipient.String(),
		"--allow-uid", strconv.Itoa(uidAgent))
	start := append(append([]string{}, asConsole...), "tmux", "-S", sock, "new-session", "-d", "-s", "c", "-x", "140", "-y", "40",
		shellJoin(console)+" 2>"+shellQuote(errLog))
	if out, err := exec.Command(start[0], start[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("the console user's tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	screen := func() string {
		out, _ := exec.Command("tmux", "-S", sock, "capture-pane", "-p", "-t", "c").CombinedOutput()
		return string(out)
	}
	waitScreen := func(what string, ok func(string) bool) string {
		t.Helper()
		var s string
		testkit.Eventually(t, 30*time.Second, what, func() bool { s = screen(); return ok(s) }, func() string {
			raw, _ := os.ReadFile(errLog)
			return "screen:\n" + s + "\nstderr:\n" + string(raw)
		})
		return s
	}
	waitScreen("the console up", func(s string) bool { return strings.Contains(s, "QUEUE") })
	agent := w.bridgeAs(t, uidAgent, socket, "agent-b")
	res := callTool(t, agent, "transfer_sol", map[string]any{"to": w.recipient.String(), "lamports": 95_000_000})
	id := res.Str("proposal_id")
	if res.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose: %+v", res)
	}
	waitScreen("the proposal shown", func(s string) bool { return strings.Contains(s, id) && strings.Contains(s, "0.095") })

	// The agent's window: a pane of the world's server whose terminal the
	// agent's user owns, where the console's user runs tmux attach.
	attach := append(append([]string{}, asConsole...), "tmux", "-S", sock, "attach", "-t", "c")
	cmd := fmt.Sprintf(`chown %d "$(tty)" && exec %s`, uidAgent, shellJoin(attach))
	if out, err := exec.Command("tmux", "-L", w.server, "new-window", "-d", "-t", "own:", "-n", "agentwin", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	attached := time.Now()
	s := waitScreen("the console hiding its amounts", func(s string) bool {
		return strings.Contains(s, "AN ADMITTED AGENT CAN REACH A TERMINAL SHOWING THIS CONSOLE")
	})
	t.Logf("hidden %s after the attach", time.Since(attached).Round(time.Millisecond))
	if strings.Contains(s, "0.095") || !strings.Contains(s, "a tmux client showing the console") {
		t.Fatalf("while attached from the agent's window:\n%s", s)
	}
	if out, err := exec.Command("tmux", "-L", w.server, "kill-window", "-t", "own:agentwin").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	waitScreen("the amount back after the detach", func(s string) bool { return strings.Contains(s, "0.095") && strings.Contains(s, "no longer reachable") })
	if st := callTool(t, agent, "proposal_status", map[string]any{"proposal_id": id}); st.Status() != "pending" {
		t.Fatalf("after the attach: %+v", st)
	}
}

// The real su -P and sudo (Debian's sudoers sets use_pty), from a window the
// agent's user owns: each opens a fresh pty for the console and keeps the
// agent's window as its own terminal. The console runs as root here (su and
// sudo from root to root ask no password, and the spare uids have no
// account to switch to), with a key and state of root's own, so the
// terminal is the only thing wrong: refused, naming the window su or sudo
// holds.
func TestConsoleRefusesSuAndSudoPtyFromAnAgentsWindow(t *testing.T) {
	w := startOwnUserWorld(t)
	for _, tc := range []struct{ name, tool, wrap string }{
		{"su-pty", "su", "su -P root -s /bin/sh -c %s"},
		{"sudo-use-pty", "sudo", "sudo -u root /bin/sh -c %s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.tool); err != nil {
				t.Fatalf("requires %s on PATH (.ci/run installs it): %v", tc.tool, err)
			}
			rootDir := t.TempDir()
			key := filepath.Join(rootDir, "id.json")
			raw, err := os.ReadFile(w.keyFile)
			must(t, err)
			must(t, os.WriteFile(key, raw, 0o600))
			errLog := filepath.Join(rootDir, tc.name+".stderr")
			args := []string{"env", "-u", "CI", "NO_COLOR=1", w.bin, "console", "--rpc", w.ledger.RPC(), "--keypair", key,
				"--socket", filepath.Join(testkit.SocketDir(t), "s", "console.sock"), "--state", filepath.Join(rootDir, "state"),
				"--allow-recipient", w.recipient.String(), "--allow-uid", strconv.Itoa(uidAgent)}
			inner := shellJoin(args) + " 2>" + shellQuote(errLog)
			command := fmt.Sprintf(`chown %d "$(tty)" && `+tc.wrap+`; tmux wait-for -S %s; sleep 60`,
				uidAgent, shellQuote(inner), shellQuote("exited-"+tc.name))
			if out, err := exec.Command("tmux", "-L", w.server, "new-window", "-d", "-t", "own:", "-n", tc.name, command).CombinedOutput(); err != nil {
				t.Fatalf("tmux: %v\n%s", err, out)
			}
			con := &ownConsole{w: w, window: tc.name, errLog: errLog}
			msg := con.refusal(t, 60*time.Second, "an admitted agent can reach this console's terminal",
				"held by the process", fmt.Sprintf("(%s) above the console, belongs to uid %d, which --allow-uid admits as an agent", tc.tool, uidAgent))
			t.Logf("refusal: %s", strings.TrimSpace(msg))
		})
	}
}
