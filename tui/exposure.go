package tui

import (
	"context"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// While the console runs, a terminal showing it can become reachable by an
// admitted agent: a client attached from a window the agent owns, a device
// handed over, a tmux access list widened. Then what the screen shows can be
// faked and what is typed can be the agent's, so the console hides every
// amount and ignores the approval keys, saying why, until it is gone. The
// check is I/O (it stats devices, reads /proc, asks tmux), so it runs in
// its own goroutine, on a short timer and on every resize (SIGWINCH, which
// an attach sends) and resume (SIGCONT), and reaches the model as a message.

// exposureEvery is how often the terminal is looked at between signals.
const exposureEvery = 500 * time.Millisecond

// exposureMsg is the latest answer: empty when no admitted agent can reach
// a terminal showing the console.
type exposureMsg struct{ problems []string }

// watchExposure runs check at once, on every SIGWINCH and SIGCONT, and
// every exposureEvery, and sends what it finds whenever it changes.
func watchExposure(ctx context.Context, check func() []string, send func(tea.Msg)) {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGWINCH, syscall.SIGCONT)
	defer signal.Stop(sig)
	tick := time.NewTicker(exposureEvery)
	defer tick.Stop()
	last := ""
	for {
		problems := check()
		if now := strings.Join(problems, "\n"); now != last {
			last = now
			send(exposureMsg{problems: problems})
		}
		select {
		case <-ctx.Done():
			return
		case <-sig:
		case <-tick.C:
		}
	}
}

// exposedLines is what the console shows instead of its panes while a
// terminal showing it is reachable: no amount, no recipient, only why.
func (m *model) exposedLines() []string {
	s := m.cfg.styles
	lines := []string{
		s.danger.Render("⚠ AN ADMITTED AGENT CAN REACH A TERMINAL SHOWING THIS CONSOLE"),
		s.danger.Render("amounts are hidden and approval keys are ignored until it is gone; deny, pause and quit still work"),
		"",
	}
	for _, p := range m.exposed {
		lines = append(lines, "• "+p)
	}
	lines = append(lines, "", s.dim.Render("waiting proposals: "+strconv.Itoa(len(m.queue.pending))))
	return lines
}
