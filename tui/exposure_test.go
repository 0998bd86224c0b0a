package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// While a terminal showing the console is reachable by an admitted agent,
// the screen shows no amount, a and A do nothing (the hub's proposal stays
// pending), deny still works, and the screen says why. When it is gone the
// amounts come back and a approves, after the grace period (what is on
// screen was not a moment ago).
func TestExposedTerminalHidesAmountsAndIgnoresApproval(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	w.authority.DenyAllPending("test", "clean slate")
	p := w.propose(t, "exposed-agent")
	c := newClock()
	m := authorityModel(w, c)
	c.Advance(defaultGrace)
	amount := m.queue.byID[p.ID].amount
	if !strings.Contains(screen(t, m, 100, 30), amount) {
		t.Fatalf("the amount %q is not on screen to begin with:\n%s", amount, screen(t, m, 100, 30))
	}
	const why = "the terminal /dev/pts/9, held by the process 42 (sudo) above the console, belongs to uid 64102"
	m.Update(exposureMsg{problems: []string{why}})
	s := screen(t, m, 100, 30)
	if strings.Contains(s, amount) || strings.Contains(s, w.allowed.String()[:8]) || !strings.Contains(s, "AN ADMITTED AGENT CAN REACH A TERMINAL SHOWING THIS CONSOLE") || !strings.Contains(s, "/dev/pts/9, held by the process 42") {
		t.Fatalf("exposed screen:\n%s", s)
	}
	press(t, m, runes("a"), runes("A"), runes("y"), keyEnter)
	if st := w.status(t, p.ID); st != approval.StatusPending {
		t.Fatalf("approved while exposed: %s", st)
	}
	m.Update(exposureMsg{})
	if s := screen(t, m, 100, 30); !strings.Contains(s, amount) || !strings.Contains(s, "no longer reachable") {
		t.Fatalf("after the exposure ended:\n%s", s)
	}
	press(t, m, runes("a"))
	if st := w.status(t, p.ID); st != approval.StatusPending {
		t.Fatalf("a approved at once when the amounts came back: %s", st)
	}
	c.Advance(defaultGrace)
	press(t, m, runes("a"))
	if st := w.status(t, p.ID); st != approval.StatusApproved {
		t.Fatalf("a after the exposure and the grace period: %s", st)
	}
}

// The watcher sends what the check finds when it changes, including on its
// timer, and nothing while it stays the same.
func TestExposureWatcherSendsChanges(t *testing.T) {
	var mu sync.Mutex
	answer := []string(nil)
	calls := 0
	check := func() []string {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return answer
	}
	got := make(chan exposureMsg, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go watchExposure(ctx, check, func(m tea.Msg) { got <- m.(exposureMsg) })
	mu.Lock()
	answer = []string{"reachable"}
	mu.Unlock()
	select {
	case m := <-got:
		if len(m.problems) != 1 {
			t.Fatalf("first message %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not report the exposure")
	}
	mu.Lock()
	answer = nil
	mu.Unlock()
	select {
	case m := <-got:
		if len(m.problems) != 0 {
			t.Fatalf("second message %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not report the end of the exposure")
	}
}
