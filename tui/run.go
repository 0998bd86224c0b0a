// Package tui is the approval console: one Bubble Tea root model that shows
// the hub's proposals as solgate would execute them, the spend caps and the
// live session spend, and turns a human's key presses into the hub's
// operator actions. It never does I/O inside Update: hub calls leave as
// commands, and hub events arrive through one forwarding goroutine.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// DefaultGrace is the approval grace period when Options.Grace is zero.
const DefaultGrace = 800 * time.Millisecond

// Options configure Run.
type Options struct {
	// Service is the authority as the console sees it (consoleservice.Of(hub)).
	Service approval.Service
	Genesis string        // genesis hash shown next to the network badge
	NoColor bool          // NO_COLOR set or --no-color: no colour at all, still readable (badges in words)
	Grace   time.Duration // keys ignored this long after a new proposal appears (default 800ms, max 1s)
	Input   io.Reader     // default os.Stdin
	Output  io.Writer     // default os.Stdout
	Now     func() time.Time
	// NoBell keeps the terminal bell silent when a proposal starts waiting.
	NoBell bool
	// NotifyCommand runs (a program with fixed arguments, no shell) for
	// every proposal that starts waiting, with its sanitised fields in
	// SOLGATE_* variables; nil: none.
	NotifyCommand NotifyCommand
	NotifyTimeout time.Duration // default 10 s
	// Logger receives what the console logs (notify failures); never the
	// terminal. Nil: nothing is logged.
	Logger *slog.Logger
	// TerminalCheck says how an admitted agent can reach a terminal
	// showing the console now (nil: not watched, as with
	// --allow-shared-terminal). It runs off the event loop, at start, on
	// every resize and resume and on a short timer.
	TerminalCheck func() []string
	// NoGrants: standing grants are off (--no-grants); A says so.
	NoGrants bool
	// FPS is how often the screen may be redrawn (default defaultFPS).
	FPS int
	// Width and Height are the window size when Output is not a terminal
	// (the benchmark); a terminal reports its own.
	Width, Height int
}

const (
	defaultGrace = DefaultGrace
	maxGrace     = time.Second
	// eventBuffer is the subscription's channel size. Approval events are
	// never dropped by the hub (it waits for us); progress events are
	// dropped when this is full.
	eventBuffer = 1024
	// maxBatch bounds how many queued events one redraw absorbs.
	maxBatch = 512
)

// Run shows the console until the operator quits or ctx ends. Whatever ends
// it, proposals still pending are then denied as "console closed": nobody is
// left to approve them, and the agent learns so from proposal_status.
func Run(ctx context.Context, opts Options) error {
	if opts.Service == nil {
		return errors.New("tui: Options.Service is required")
	}
	if opts.Input == nil {
		opts.Input = os.Stdin
	}
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	h := opts.Service

	// SIGINT and SIGTERM end the console through ctx. Bubble Tea's own
	// handler is off: it hands the signal to the event loop with a send that
	// blocks for ever when the loop has already ended through ctx (the
	// caller's handler of the same signal), and its exit waits for it.
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Subscribe before taking the snapshot so nothing falls between them;
	// the model ignores snapshots older than what it already holds.
	events, unsubscribe := h.Subscribe(eventBuffer)
	defer unsubscribe()
	m := newModel(configFor(opts), h.Proposals(), readState(h))

	t, err := openTTY(opts.Input, opts.Output)
	if err != nil {
		return err
	}
	rnd := newRenderer(opts.Output, frameInterval(opts.FPS))
	rnd.open()
	// Whatever ends the program (q, a signal, ctx, an error, a recovered
	// panic), the operator gets the terminal back as it was, before
	// anything below prints to it.
	restore := func() { rnd.close(); t.restore() }
	defer restore()

	p := tea.NewProgram(rendered{m: m, r: rnd, restore: restore},
		tea.WithContext(ctx),
		tea.WithInput(opts.Input),
		tea.WithOutput(opts.Output),
		// renderer.go draws instead: Bubble Tea's own renderer wakes at
		// its frame rate even when nothing changed.
		tea.WithoutRenderer(),
		tea.WithoutSignalHandler(),
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if opts.Width > 0 && opts.Height > 0 {
			p.Send(tea.WindowSizeMsg{Width: opts.Width, Height: opts.Height})
		}
		go t.watchSize(ctx, p.Send)
		if opts.TerminalCheck != nil {
			go watchExposure(ctx, opts.TerminalCheck, p.Send)
		}
		forward(ctx, events, h, p.Send)
	}()

	_, err = p.Run()
	cancel()
	<-done
	restore()
	if n := h.DenyAllPending(decidedBy, closedReason); n > 0 {
		fmt.Fprintf(opts.Output, "solgate: %d pending proposal(s) denied: %s\n", n, closedReason)
	}
	// Tokens live in this process: say so, and record it, rather than let
	// an approval vanish without a word.
	if n := h.RevokeAll(decidedBy); n > 0 {
		fmt.Fprintf(opts.Output, "solgate: %d approved proposal(s) not executed: their approvals are void (%s)\n", n, closedReason)
		if opts.Logger != nil {
			opts.Logger.Info("approvals void on quit", "count", n)
		}
	}
	switch {
	case err == nil, errors.Is(err, tea.ErrInterrupted), errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return nil
	}
	return fmt.Errorf("console: %w", err)
}

func configFor(opts Options) config {
	h := opts.Service
	var bell io.Writer
	if !opts.NoBell {
		bell = opts.Output
	}
	return config{
		bell:     bell,
		notify:   newNotifier(opts.NotifyCommand, opts.NotifyTimeout, opts.Logger),
		ops:      h,
		network:  h.Network(),
		genesis:  opts.Genesis,
		wallet:   h.Wallet(),
		policy:   h.Policy(),
		grace:    graceOf(opts.Grace),
		noGrants: opts.NoGrants,
		now:      opts.Now,
		styles:   newStyles(opts.Output, opts.NoColor),
	}
}

// defaultFPS caps how often the screen may be redrawn: changes that follow
// a frame within 1/120 s are drawn together at the end of that interval.
// The first change after a quiet spell (a key press, usually) is drawn at
// once, and nothing is drawn, or awake, while nothing changes (renderer.go).
// Bubble Tea's standard renderer, used before, drew only at its ticks and
// ticked at this rate even when idle: key → frame p99 9 ms at 120 fps but
// 0.9-1.6 % of a core idle, 100 ms at 10 fps for 0.2 % idle. Drawn on
// change (solgate-bench -only console, 2 shared cores): key → frame p50
// 0.5 ms, and idle CPU 0 clock ticks in 60 s.
const defaultFPS = 120

func fpsOf(fps int) int {
	if fps <= 0 {
		return defaultFPS
	}
	return min(fps, 120) // Bubble Tea's own cap, kept as the renderer's
}

// frameInterval is the shortest time between two frames.
func frameInterval(fps int) time.Duration { return time.Second / time.Duration(fpsOf(fps)) }

// graceOf applies the default and the cap: a longer lock would make the
// console feel broken, and DESIGN.md promises at most a second.
func graceOf(d time.Duration) time.Duration {
	if d <= 0 {
		return defaultGrace
	}
	return min(d, maxGrace)
}

func readState(src approval.Service) authorityState {
	return authorityState{Spend: src.SpendSummary(), Paused: src.Paused(), Agents: src.Connected(), PausedClients: src.PausedClients(), Warnings: src.Warnings(), Grants: src.Grants()}
}

// forward is the console's one subscriber goroutine: it hands hub events to
// the program through send, in order, until ctx ends. Events already queued
// are batched into one message so that a burst costs one redraw, and the hub
// state (spend, pause, clients) is read here, after the events it follows,
// so Update never calls into the hub. send may block while Update is busy;
// the hub's broker then holds approval events for us and drops only
// progress reports.
func forward(ctx context.Context, events <-chan approval.Event, src approval.Service, send func(tea.Msg)) {
	for {
		var batch []approval.Event
		select {
		case <-ctx.Done():
			return
		case ev := <-events:
			batch = append(batch, ev)
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case ev := <-events:
				batch = append(batch, ev)
			default:
				break drain
			}
		}
		msg := eventsMsg{events: batch}
		if !onlyProgress(batch) {
			st := readState(src)
			msg.state = &st
		}
		if ctx.Err() != nil {
			return
		}
		send(msg)
	}
}

func onlyProgress(batch []approval.Event) bool {
	for _, ev := range batch {
		if ev.Kind != approval.EventExecuting {
			return false
		}
	}
	return true
}
