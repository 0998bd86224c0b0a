package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
)

// The console sits in a side terminal that is usually not in view, so a
// proposal that starts waiting is announced three ways: the terminal bell,
// the window title ("(N) solgate — approval waiting"), and, when the operator
// asks for it, a command of their choosing (notify-send, a script that posts
// to a phone). All three leave Update as commands.

const (
	titleIdle = "solgate"
	// defaultNotifyTimeout bounds one run of the notify command.
	defaultNotifyTimeout = 10 * time.Second
	// maxNotifyRunning bounds notify commands running at once; a flood of
	// proposals must not become a flood of processes.
	maxNotifyRunning = 4
	// maxNotifyOutput is how much of a failed command's output is logged.
	maxNotifyOutput = 512
)

// windowTitle is the title for n waiting proposals.
func windowTitle(n int) string {
	if n == 0 {
		return titleIdle
	}
	return fmt.Sprintf("(%d) solgate — approval waiting", n)
}

// bellCmd rings the terminal bell on out. It writes one byte outside the
// renderer, as Bubble Tea's own SetWindowTitle does; a frame is written in
// one piece, so the byte lands between frames, never inside a sequence.
func bellCmd(out io.Writer) tea.Cmd {
	return func() tea.Msg {
		_, _ = io.WriteString(out, "\a")
		return nil
	}
}

// notifyFields is what the notify command learns about a waiting proposal,
// as environment variables. Every value is sanitised text the console also
// shows; a confirmation token is never among them (none exists while a
// proposal waits, and none is ever added here).
type notifyFields struct {
	ID, Tool, Amount, Recipient, Network, Flags string
	Waiting                                     int
}

func (f notifyFields) env() []string {
	clean := func(s string) string { return untrusted.Sanitize(s, 200) }
	return []string{
		"SOLGATE_PROPOSAL_ID=" + clean(f.ID),
		"SOLGATE_TOOL=" + clean(f.Tool),
		"SOLGATE_AMOUNT=" + clean(f.Amount),
		"SOLGATE_RECIPIENT=" + clean(f.Recipient),
		"SOLGATE_NETWORK=" + clean(f.Network),
		"SOLGATE_FLAGS=" + clean(f.Flags),
		fmt.Sprintf("SOLGATE_WAITING=%d", f.Waiting),
	}
}

// notifyDoneMsg reports a finished notify command; failures are logged.
type notifyDoneMsg struct {
	id  string
	err error
}

// NotifyCommand is a checked program the console may run: Cmd checks it
// again and returns it ready to start from a checked descriptor; done
// releases what the check held.
type NotifyCommand interface {
	Cmd(ctx context.Context) (_ *exec.Cmd, done func(), err error)
}

// notifier runs the operator's --notify-command: a program with fixed
// arguments, checked again and run from a checked descriptor each time
// (the authority's TrustedCommand), never through a shell.
type notifier struct {
	command NotifyCommand
	timeout time.Duration
	log     *slog.Logger
	running chan struct{} // a slot per running command
}

func newNotifier(command NotifyCommand, timeout time.Duration, log *slog.Logger) *notifier {
	if command == nil {
		return nil
	}
	if timeout <= 0 {
		timeout = defaultNotifyTimeout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &notifier{command: command, timeout: timeout, log: log, running: make(chan struct{}, maxNotifyRunning)}
}

// cmd runs the command once for f, in the command's own goroutine.
func (n *notifier) cmd(f notifyFields) tea.Cmd {
	return func() tea.Msg {
		err := n.run(f)
		if err != nil {
			n.log.Warn("notify command failed", "proposal", f.ID, "err", err.Error())
		}
		return notifyDoneMsg{id: f.ID, err: err}
	}
}

func (n *notifier) run(f notifyFields) error {
	select {
	case n.running <- struct{}{}:
		defer func() { <-n.running }()
	default:
		return fmt.Errorf("skipped: %d notify commands are still running", maxNotifyRunning)
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.timeout)
	defer cancel()
	c, done, err := n.command.Cmd(ctx)
	if err != nil {
		return err // refused: the program or a directory above it changed hands
	}
	defer done()
	c.Env = append(os.Environ(), f.env()...)
	// Its own session: no controlling terminal, so nothing it runs can draw
	// on the console's screen or read its keys; output is kept for the log.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = time.Second
	var out capped
	c.Stdin, c.Stdout, c.Stderr = nil, &out, &out
	err = c.Run()
	switch {
	case err == nil:
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("--notify-command did not finish within %s and was killed", n.timeout)
	}
	msg := "--notify-command: " + err.Error()
	if o := strings.TrimSpace(untrusted.Sanitize(out.String(), maxNotifyOutput)); o != "" {
		msg += ": " + o
	}
	return errors.New(msg)
}

// capped keeps the first maxNotifyOutput bytes written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxNotifyOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
