package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// format is one of tmux's format variables for the console's pane.
func (term *terminal) format(name string) string {
	out, _ := term.tmux("display-message", "-p", "-t", "console", "#{"+name+"}")
	return strings.TrimSpace(out)
}

// An idle console writes nothing to its terminal: the raw bytes tmux
// receives from it (pipe-pane) stay empty while nothing happens, and the
// next change shows that they were being watched.
func TestTmuxIdleConsoleWritesNothing(t *testing.T) {
	w := startConsole(t)
	w.term.settled() // start-up's frames are out
	raw := filepath.Join(t.TempDir(), "raw")
	if out, err := w.term.tmux("pipe-pane", "-t", "console", "-O", "cat > "+shellQuote(raw)); err != nil {
		t.Fatalf("pipe-pane: %v %s", err, out)
	}
	const idle = 3 * time.Second
	time.Sleep(idle) // behaviour under test: idle time passing
	got, _ := os.ReadFile(raw)
	if len(got) != 0 {
		t.Errorf("an idle console wrote %d bytes in %s: %q", len(got), idle, got)
	}
	w.term.settled()
	testkit.Eventually(t, 30*time.Second, "the frames of w reaching the piped output", func() bool {
		got, _ := os.ReadFile(raw)
		return len(got) > 0
	}, nil)
}

// However the console ends, the operator gets the terminal back: the main
// screen, the cursor shown, and the line discipline as it was (canonical,
// echoing). The pane runs the console from a shell, which then reads the
// terminal's modes with stty and prints them; tmux reports the screen modes.
func TestTmuxTerminalGivenBackOnEveryWayOut(t *testing.T) {
	for _, way := range []struct {
		name string
		end  func(w *consoleWorld, pid int)
	}{
		{"q", func(w *consoleWorld, _ int) { w.term.keys("q") }},
		{"SIGTERM", func(_ *consoleWorld, pid int) { syscall.Kill(pid, syscall.SIGTERM) }},
		{"SIGINT", func(_ *consoleWorld, pid int) { syscall.Kill(pid, syscall.SIGINT) }},
	} {
		t.Run(way.name, func(t *testing.T) {
			w := startConsoleWith(t, consoleSetup{then: `echo; echo CONSOLE-EXITED; for f in icanon echo; do ` +
				`if stty -a | tr ' ;' '\n\n' | grep -qx -- "$f"; then echo "TTY-$f-on"; else echo "TTY-$f-off"; fi; done; exec sleep 600`})
			pid := childOf(t, w.term.pid())
			if w.term.format("alternate_on") != "1" || w.term.format("cursor_flag") != "0" {
				t.Fatalf("while running: alternate_on=%s cursor_flag=%s, want 1 and 0", w.term.format("alternate_on"), w.term.format("cursor_flag"))
			}
			way.end(w, pid)
			s := w.term.pane().WaitUntil(t, 30*time.Second, "stty's report after the console exited", func(s string) bool {
				return strings.Contains(s, "CONSOLE-EXITED") && strings.Contains(s, "TTY-echo-")
			})
			if got := w.term.format("alternate_on"); got != "0" {
				t.Errorf("after %s the pane is still in the alternate screen", way.name)
			}
			if got := w.term.format("cursor_flag"); got != "1" {
				t.Errorf("after %s the cursor is still hidden", way.name)
			}
			for _, flag := range []string{"icanon", "echo"} {
				if !strings.Contains(s, "TTY-"+flag+"-on") {
					t.Errorf("after %s the terminal is not %s again:\n%s", way.name, flag, s)
				}
			}
		})
	}
}

// childOf is the one child process of pid.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	var child int
	testkit.Eventually(t, 10*time.Second, fmt.Sprintf("a child of %d", pid), func() bool {
		raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		_, err := fmt.Sscan(string(raw), &child)
		return err == nil
	}, nil)
	return child
}

// A resize repaints every line on a cleared screen, not only the lines the
// new size changed: text put on every row behind the console's back (as a
// terminal's own reflow might leave it) is gone after the window grows by a
// row, and the screen shows the console at its new height.
func TestTmuxResizeRepaintsFully(t *testing.T) {
	w := startConsole(t)
	w.term.settled()
	tty := w.term.format("pane_tty")
	f, err := os.OpenFile(tty, os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("open the pane's terminal: %v", err)
	}
	var junk strings.Builder
	for row := 1; row <= 40; row++ {
		fmt.Fprintf(&junk, "\x1b[%d;1HJUNK%02d", row, row)
	}
	_, err = f.WriteString(junk.String())
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	w.term.pane().WaitUntil(t, 20*time.Second, "the junk on every row", func(s string) bool { return strings.Contains(s, "JUNK01") && strings.Contains(s, "JUNK40") })

	if out, err := w.term.tmux("resize-window", "-t", "console", "-x", "140", "-y", "41"); err != nil {
		t.Fatalf("resize-window: %v %s", err, out)
	}
	s := w.term.pane().WaitUntil(t, 20*time.Second, "the console repainted at 140x41", func(s string) bool {
		return !strings.Contains(s, "JUNK") && strings.Contains(s, "QUEUE")
	})
	if rows := strings.Count(s, "\n"); rows != 41 {
		t.Errorf("the pane shows %d rows after the resize, want 41:\n%s", rows, s)
	}
}
