package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
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
	var s, missing string
	if !Poll(d, func() bool {
		s, missing = p.Screen(), ""
		for _, w := range wants {
			if !strings.Contains(s, w) {
				missing = w
				return false
			}
		}
		return true
	}) {
		t.Fatalf("the screen never showed %q within %s; screen:\n%s%s", missing, d, s, p.errText())
	}
	return s
}

// WaitUntil polls the screen until ok holds for it, and returns it; what
// names the awaited state in the failure.
func (p Pane) WaitUntil(t testing.TB, d time.Duration, what string, ok func(screen string) bool) string {
	t.Helper()
	var s string
	if !Poll(d, func() bool { s = p.Screen(); return ok(s) }) {
		t.Fatalf("the screen never showed %s within %s; screen:\n%s%s", what, d, s, p.errText())
	}
	return s
}

// GraceNote is the console header's note while the approval keys wait out
// the grace period of the selected proposal.
const GraceNote = "a waits: just selected"

// pendingDetail finds the selected proposal's id when it is pending: the
// detail pane's title names the selection and its status.
var pendingDetail = regexp.MustCompile(`DETAIL  (\S+) · PENDING`)

// WaitApprovable waits until a pending proposal is selected (id's, or any
// when id is ""), with the selection marker › on its row and its grace
// period over, so that the next a approves it. It returns the proposal's id.
func (p Pane) WaitApprovable(t testing.TB, d time.Duration, id string) string {
	t.Helper()
	var got string
	what := "a pending proposal selected with its grace period over"
	if id != "" {
		what = id + " selected with its grace period over"
	}
	p.WaitUntil(t, d, what, func(s string) bool {
		m := pendingDetail.FindStringSubmatch(s)
		if m == nil || (id != "" && m[1] != id) {
			return false
		}
		got = m[1]
		return strings.Contains(s, "› "+got) && !strings.Contains(s, GraceNote)
	})
	return got
}

// SawAll polls until each want has appeared on some screen, not necessarily
// together: log lines scroll away.
func (p Pane) SawAll(t testing.TB, d time.Duration, wants ...string) {
	t.Helper()
	seen := map[string]bool{}
	var s string
	if !Poll(d, func() bool {
		s = p.Screen()
		all := true
		for _, w := range wants {
			seen[w] = seen[w] || strings.Contains(s, w)
			all = all && seen[w]
		}
		return all
	}) {
		t.Fatalf("never saw all of %q (seen %v); last screen:\n%s%s", wants, seen, s, p.errText())
	}
}

func (p Pane) errText() string {
	if p.ErrLog == "" {
		return ""
	}
	errs, _ := os.ReadFile(p.ErrLog)
	return "\nstderr:\n" + string(errs)
}
