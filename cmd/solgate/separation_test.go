package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Issue 19's separation, on real processes with real uids (the harness of
// ownuser_test.go): the console as A, the agent as B.

// consoleWindow starts `solgate console` as uid in a new tmux window of the
// world's server, after prelude (shell run as root inside the pane, before
// the console starts: e.g. handing the pane's terminal to the agent), and
// does not wait for anything. color keeps colours on (no NO_COLOR).
func (w *ownUserWorld) consoleWindow(t *testing.T, uid int, name, state, prelude string, color bool, flags ...string) *ownConsole {
	t.Helper()
	return w.consoleWindowThen(t, uid, name, state, prelude, "", color, flags...)
}

// consoleWindowThen is consoleWindow that runs after (as root, in the same
// pane, with the same terminal) once the console exited.
func (w *ownUserWorld) consoleWindowThen(t *testing.T, uid int, name, state, prelude, after string, color bool, flags ...string) *ownConsole {
	t.Helper()
	c := &ownConsole{w: w, window: name, socket: w.socket(name), errLog: filepath.Join(w.root, name+".stderr")}
	// CI in the environment makes termenv treat the pane as no terminal and
	// drop colours; the console's own terminal decides here.
	env := []string{"env", "-u", "CI", "HOME=" + w.home}
	if !color {
		env = append(env, "NO_COLOR=1")
	}
	args := append([]string{"setpriv", fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", uid), "--clear-groups"}, env...)
	args = append(args, w.bin, "console", "--rpc", w.ledger.RPC(), "--keypair", w.keyFile, "--socket", c.socket,
		"--state", state, "--allow-recipient", w.recipient.String())
	args = append(args, flags...)
	command := "exec " + shellJoin(args) + " 2>" + shellQuote(c.errLog)
	if after != "" {
		command = shellJoin(args) + " 2>" + shellQuote(c.errLog) + "; " + after
	}
	if prelude != "" {
		command = prelude + " && " + command
	}
	tmuxArgs := []string{"-L", w.server, "new-window", "-d", "-t", "own:", "-n", name, command}
	if out, err := exec.Command("tmux", tmuxArgs...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	return c
}

// exited is the tmux wait-for channel the pane of a console started with
// consoleExits signals once the console has exited.
func (c *ownConsole) exited() string { return "exited-" + c.window }

// consoleExits starts the console as consoleWindowThen does, and signals
// exited() when it is gone (then runs after, if any).
func (w *ownUserWorld) consoleExits(t *testing.T, uid int, name, state, prelude, after string, flags ...string) *ownConsole {
	t.Helper()
	then := "tmux wait-for -S " + shellQuote("exited-"+name)
	if after != "" {
		then += "; " + after
	}
	return w.consoleWindowThen(t, uid, name, state, prelude, then, false, flags...)
}

// waitExit waits (an event: tmux wait-for) until the console has exited.
func (c *ownConsole) waitExit(t *testing.T, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "tmux", "-L", c.w.server, "wait-for", c.exited()).CombinedOutput(); err != nil {
		t.Fatalf("the console did not exit within %s: %v %s\nscreen:\n%s", d, err, out, c.screen())
	}
}

// refusal waits until the console has exited and checks that its stderr
// holds every want (it refused to start); it returns the stderr.
func (c *ownConsole) refusal(t *testing.T, d time.Duration, wants ...string) string {
	t.Helper()
	c.waitExit(t, d)
	raw, _ := os.ReadFile(c.errLog)
	for _, w := range wants {
		if !strings.Contains(string(raw), w) {
			t.Fatalf("the console's stderr does not say %q:\n%s", w, raw)
		}
	}
	return string(raw)
}

// runAs runs solgate as uid without a terminal and returns its output and
// exit code.
func (w *ownUserWorld) runAs(t *testing.T, uid int, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("setpriv", append([]string{fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", uid), "--clear-groups", w.bin}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "HOME="+w.home)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// The agent's user owns the console's pty (the README's old recipe: the agent
// runs as the operator's desktop user, whose window the console is in): it
// could repaint amounts and read keys, so the console refuses to start and
// names the fix. With --allow-shared-terminal it starts, and a red warning
// heads the screen.
func TestConsoleRefusesATerminalTheAgentOwns(t *testing.T) {
	w := startOwnUserWorld(t)
	giveTTY := fmt.Sprintf(`chown %d "$(tty)"`, uidAgent)
	con := w.consoleExits(t, uidConsole, "shared", filepath.Join(w.home, "state-shared"), giveTTY, "", "--allow-uid", strconv.Itoa(uidAgent))
	errText := con.refusal(t, 30*time.Second,
		"an admitted agent can reach this console's terminal",
		fmt.Sprintf("belongs to uid %d, which --allow-uid admits as an agent", uidAgent),
		"Fix: run the console in a terminal of your own", "sudo -u agent claude", "--allow-shared-terminal")
	if strings.Contains(con.screen(), "QUEUE") {
		t.Fatalf("the console started anyway:\n%s", con.screen())
	}
	t.Logf("refusal: %s", strings.TrimSpace(errText))
	// --check in such a terminal says the same before anything starts.
	check := w.consoleWindowThen(t, uidConsole, "check", filepath.Join(w.home, "state-check"), giveTTY, "sleep 60", false,
		"--allow-uid", strconv.Itoa(uidAgent), "--check")
	check.waitFor(t, 30*time.Second, "REFUSED: an admitted agent can reach this console's terminal", fmt.Sprintf("belongs to uid %d", uidAgent))

	// The same terminal with the override: it starts, warning in red.
	con = w.consoleWindow(t, uidConsole, "override", filepath.Join(w.home, "state-override"), giveTTY, true,
		"--allow-uid", strconv.Itoa(uidAgent), "--allow-shared-terminal")
	const warn = "⚠ --allow-shared-terminal: an admitted agent can read and type into this console's terminal"
	con.waitFor(t, 30*time.Second, "QUEUE", warn)
	styled, err := con.pane().Tmux("capture-pane", "-p", "-e", "-t", con.pane().Target)
	if err != nil {
		t.Fatal(err)
	}
	// The header's warning line (the first: the log repeats it below)
	// carries the red foreground (SGR 31, or 91 bright).
	var line string
	for _, l := range strings.Split(styled, "\n") {
		if strings.Contains(l, "--allow-shared-terminal") {
			line = l
			break
		}
	}
	if !regexp.MustCompile(`\x1b\[(?:[0-9]+;)*(?:31|91)(?:;[0-9]+)*m[^\x1b]*⚠ --allow-shared-terminal`).MatchString(line) {
		t.Fatalf("the warning line is not red: %q", line)
	}
}

// A second console on a state directory in use refuses to start, whatever
// its socket, naming the first one's pid.
func TestSecondConsoleOnOneStateRefuses(t *testing.T) {
	w := startOwnUserWorld(t)
	state := filepath.Join(w.home, "state-one")
	first := w.consoleWindow(t, uidConsole, "first", state, "", false)
	first.waitFor(t, 30*time.Second, "SOLGATE", "QUEUE")
	second := w.consoleExits(t, uidConsole, "second", state, "", "")
	second.refusal(t, 30*time.Second, fmt.Sprintf("another solgate console (pid %d) is using state directory %s", first.pid(t), state))
}

// Files the console trusts, each owned or writable by the agent's user:
// refused at start and named by --check.
func TestConsoleRefusesFilesTheAgentCanWrite(t *testing.T) {
	w := startOwnUserWorld(t)
	state := filepath.Join(w.home, "state-files")
	base := []string{"console", "--rpc", w.ledger.RPC(), "--keypair", w.keyFile, "--state", state,
		"--socket", w.socket("files"), "--allow-uid", strconv.Itoa(uidAgent)}
	// The operator's directory the agent's user can write into (its own home,
	// in the old recipe).
	agentDir := filepath.Join(w.root, "agent-home")
	must(t, os.Mkdir(agentDir, 0o755))
	must(t, os.Chown(agentDir, uidAgent, uidAgent))

	cfg := filepath.Join(agentDir, "policy.toml")
	must(t, os.WriteFile(cfg, []byte("notify_command = \"cp "+w.keyFile+" /tmp/stolen\"\nmax_sol_per_tx = 0.5\n"), 0o644))
	must(t, os.Chown(cfg, uidAgent, uidAgent))

	link := filepath.Join(w.home, "logs")
	must(t, os.Mkdir(link, 0o700))
	must(t, os.Chown(link, uidConsole, uidConsole))
	symlog := filepath.Join(link, "console.log")
	must(t, os.Symlink(w.keyFile, symlog))
	must(t, os.Lchown(symlog, uidConsole, uidConsole))

	prog := filepath.Join(w.root, "page-me")
	must(t, os.WriteFile(prog, []byte("#!/bin/sh\nexit 0\n"), 0o700))
	must(t, os.Chmod(prog, 0o775)) // past the umask
	must(t, os.Chown(prog, uidConsole, uidConsole))

	// The agent's script, and the operator's notify program under a
	// directory the agent's user can rename (issue 33: renamed after start,
	// it ran the agent's script as the console's user).
	agentScript := filepath.Join(agentDir, "AGENT.sh")
	must(t, os.WriteFile(agentScript, []byte("#!/bin/sh\ncp "+w.keyFile+" /tmp/stolen\n"), 0o755))
	must(t, os.Chown(agentScript, uidAgent, uidAgent))
	opBin := filepath.Join(agentDir, "op-bin")
	must(t, os.Mkdir(opBin, 0o755))
	must(t, os.Chown(opBin, uidConsole, uidConsole))
	opProg := filepath.Join(opBin, "page-me")
	must(t, os.WriteFile(opProg, []byte("#!/bin/sh\nexit 0\n"), 0o700))
	must(t, os.Chown(opProg, uidConsole, uidConsole))
	const shellFix = "Fix: put what you want run in a script of your own"

	keyBefore, _ := os.ReadFile(w.keyFile)
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"agent-owned config", []string{"--config", cfg}, fmt.Sprintf("--config %s belongs to uid %d, not to the console's user (uid %d) or root", cfg, uidAgent, uidConsole)},
		{"log-file symlink", []string{"--log-file", symlog}, "--log-file " + symlog + " is a symbolic link"},
		{"group-writable notify program", []string{"--notify-command", prog + " --now"}, "--notify-command: the program " + prog + " is writable by group or others (mode 0775)"},
		{"notify program under the agent's directory", []string{"--notify-command", opProg}, fmt.Sprintf("--notify-command: the program: the directory %s belongs to uid %d", agentDir, uidAgent)},
		{"sh AGENT.sh", []string{"--notify-command", "sh " + agentScript}, shellFix},
		{". AGENT.sh", []string{"--notify-command", ". " + agentScript}, shellFix},
		{"cd D && ./x", []string{"--notify-command", "cd " + agentDir + " && ./AGENT.sh"}, shellFix},
		{"true; AGENT.sh", []string{"--notify-command", "true; " + agentScript}, shellFix},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := w.runAs(t, uidConsole, append(append([]string{}, base...), tc.flags...)...)
			if code == 0 || !strings.Contains(out, tc.want) {
				t.Fatalf("start: exit %d, want %q:\n%s", code, tc.want, out)
			}
			out, code = w.runAs(t, uidConsole, append(append([]string{}, base...), append(tc.flags, "--check")...)...)
			if code == 0 || !strings.Contains(out, tc.want) {
				t.Fatalf("--check: exit %d, want %q:\n%s", code, tc.want, out)
			}
		})
	}
	if after, _ := os.ReadFile(w.keyFile); string(after) != string(keyBefore) {
		t.Fatal("the key file changed")
	}
	// The control: the same files made the console user's own pass --check.
	must(t, os.Chown(cfg, uidConsole, uidConsole))
	must(t, os.Rename(cfg, filepath.Join(w.home, "policy.toml")))
	must(t, os.Chmod(prog, 0o755))
	out, code := w.runAs(t, uidConsole, append(append([]string{}, base...), "--check", "--config", filepath.Join(w.home, "policy.toml"),
		"--log-file", filepath.Join(link, "own.log"), "--notify-command", prog+" --now")...)
	if code != 0 || !strings.Contains(out, "ok: the console would start") {
		t.Fatalf("--check with the console user's own files: exit %d\n%s", code, out)
	}
}

// A pty is created 0620 group tty, so `write` lets any user put text on it.
// The console closes its own terminal to others while it runs (as `mesg n`)
// and gives the mode back when it exits.
func TestConsoleClosesItsTerminalToOthers(t *testing.T) {
	w := startOwnUserWorld(t)
	giveTTY := fmt.Sprintf(`chown %d "$(tty)" && chmod 620 "$(tty)"`, uidConsole)
	con := w.consoleExits(t, uidConsole, "mesg", filepath.Join(w.home, "state-mesg"), giveTTY,
		`sleep 60`)
	con.waitFor(t, 30*time.Second, "SOLGATE", "QUEUE")
	out, err := con.pane().Tmux("display-message", "-p", "-t", con.pane().Target, "#{pane_tty}")
	if err != nil {
		t.Fatal(err)
	}
	tty := strings.TrimSpace(out)
	fi, err := os.Stat(tty)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("the console's terminal %s is %04o while it runs, want 0600", tty, fi.Mode().Perm())
	}
	con.keys(t, "q")
	con.waitExit(t, 10*time.Second)
	// The pane's shell still holds the terminal (sleep 60 runs in it).
	if fi, err = os.Stat(tty); err != nil || fi.Mode().Perm() != 0o620 {
		t.Fatalf("after the console quit its terminal is %v (%v), want 0620 back", fi.Mode().Perm(), err)
	}
}
