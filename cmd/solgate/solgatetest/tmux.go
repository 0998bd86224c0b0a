package solgatetest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Pane is one tmux pane a test reads and types into as a person would: the
// screen comes from capture-pane, keys go in through send-keys. Server is a
// tmux server of the test's own (tmux -L); empty means the default server.
// ErrLog, if set, is a file holding the program's stderr, shown when a wait
// fails.
type Pane struct {
	Server, Target, ErrLog string
}

// Tmux runs a tmux command against the pane's server.
func (p Pane) Tmux(args ...string) (string, error) {
	if p.Server != "" {
		args = append([]string{"-L", p.Server}, args...)
	}
	out, err := exec.Command("tmux", args...).CombinedOutput()
	return string(out), err
}

// Screen is what the pane shows now.
func (p Pane) Screen() string { return p.capture() }

// Normal is the main screen under a TUI's alternate screen: what the program
// printed before its TUI started.
func (p Pane) Normal() string { return p.capture("-a") }

func (p Pane) capture(extra ...string) string {
	out, err := p.Tmux(append([]string{"capture-pane", "-p", "-t", p.Target}, extra...)...)
	if err != nil {
		return "(capture-pane failed: " + err.Error() + ": " + out + ")"
	}
	return out
}

// Keys types keys into the pane (tmux key names: "a", "Enter", "C-c").
func (p Pane) Keys(t testing.TB, keys ...string) {
	t.Helper()
	if out, err := p.Tmux(append([]string{"send-keys", "-t", p.Target}, keys...)...); err != nil {
		t.Fatalf("send-keys %v: %v %s", keys, err, out)
	}
}

// PID is the pane's process id (the process the pane runs with exec).
func (p Pane) PID(t testing.TB) int {
	t.Helper()
	out, err := p.Tmux("list-panes", "-t", p.Target, "-F", "#{pane_pid}")
	if err != nil {
		t.Fatalf("list-panes: %v %s", err, out)
	}
	var pid int
	fmt.Sscan(strings.TrimSpace(out), &pid)
	return pid
}

// WaitFor polls the screen until it shows every want at once, and returns it.
func (p Pane) WaitFor(t testing.TB, d time.Duration, wants ...string) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := p.Screen()
		missing := ""
		for _, w := range wants {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q within %s; screen:\n%s%s", missing, d, s, p.errText())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// SawAll polls until each want has appeared on some screen, not necessarily
// together: log lines scroll away.
func (p Pane) SawAll(t testing.TB, d time.Duration, wants ...string) {
	t.Helper()
	seen := map[string]bool{}
	deadline := time.Now().Add(d)
	for {
		s := p.Screen()
		all := true
		for _, w := range wants {
			seen[w] = seen[w] || strings.Contains(s, w)
			all = all && seen[w]
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw all of %q (seen %v); last screen:\n%s%s", wants, seen, s, p.errText())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p Pane) errText() string {
	if p.ErrLog == "" {
		return ""
	}
	errs, _ := os.ReadFile(p.ErrLog)
	return "\nstderr:\n" + string(errs)
}
