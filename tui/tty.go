package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
)

// tty is what Bubble Tea's Program does to the terminal only when it runs
// its own renderer, and so leaves undone under WithoutRenderer: raw input
// (keys arrive one by one, unechoed) and the output's size, at start and on
// every SIGWINCH. A console whose input or output is not a terminal (the
// tests, the benchmark) gets neither; Options.Width and Height stand in.
type tty struct {
	in      term.File
	inState *term.State
	out     term.File
}

func openTTY(in io.Reader, out io.Writer) (*tty, error) {
	t := &tty{}
	if f, ok := in.(term.File); ok && term.IsTerminal(f.Fd()) {
		st, err := term.MakeRaw(f.Fd())
		if err != nil {
			return nil, fmt.Errorf("console: raw mode: %w", err)
		}
		t.in, t.inState = f, st
	}
	if f, ok := out.(term.File); ok && term.IsTerminal(f.Fd()) {
		t.out = f
	}
	return t, nil
}

// restore gives the input back in the mode it had.
func (t *tty) restore() {
	if t.inState != nil {
		_ = term.Restore(t.in.Fd(), t.inState)
		t.inState = nil
	}
}

// watchSize sends the output's size now and after each resize until ctx
// ends. Between resizes it waits on the signal channel: no wake-ups.
func (t *tty) watchSize(ctx context.Context, send func(tea.Msg)) {
	if t.out == nil {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	defer signal.Stop(sig)
	for {
		if w, h, err := term.GetSize(t.out.Fd()); err == nil {
			send(tea.WindowSizeMsg{Width: w, Height: h})
		}
		select {
		case <-ctx.Done():
			return
		case <-sig:
		}
	}
}
