package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
)

// forward hands events over in order, batches what is already queued, reads
// the hub state after the events (never for progress alone), and stops when
// its context ends — without a running program.
func TestForward(t *testing.T) {
	events := make(chan approval.Event, 10)
	src := newFakeService()
	src.spend.Spent, src.paused = 42, true
	var mu sync.Mutex
	var got []eventsMsg
	sent := make(chan struct{}, 10)
	send := func(msg tea.Msg) {
		mu.Lock()
		got = append(got, msg.(eventsMsg))
		mu.Unlock()
		sent <- struct{}{}
	}
	for _, k := range []approval.EventKind{approval.EventProposalAdded, approval.EventProposalDecided, approval.EventSpendChanged} {
		events <- approval.Event{Kind: k}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { forward(ctx, events, src, send); close(done) }()
	<-sent
	events <- approval.Event{Kind: approval.EventExecuting}
	<-sent
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("forward did not stop with its context")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || len(got[0].events) != 3 || got[0].events[2].Kind != approval.EventSpendChanged {
		t.Fatalf("batches: %+v", got)
	}
	if got[0].state == nil || got[0].state.Spend.Spent != 42 || !got[0].state.Paused {
		t.Errorf("state not read with the batch: %+v", got[0].state)
	}
	if got[1].state != nil {
		t.Error("hub state read for a progress-only batch")
	}
}

// Run with a real hub, driven through its input: q with a proposal pending
// asks, y denies it as "console closed" and ends Run.
func TestRunQuitDeniesPending(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	p := w.propose(t, "run-agent")
	in, typist := io.Pipe()
	var out bytes.Buffer
	screen := &syncWriter{w: &out}
	errc := make(chan error, 1)
	go func() {
		errc <- Run(context.Background(), Options{Service: consoleservice.Of(w.authority), Genesis: w.genesis, NoColor: true, Grace: 100 * time.Millisecond, Input: in, Output: screen, Width: 140, Height: 40})
	}()
	// Keys written together arrive as one key message: type y only once
	// the quit question is on screen.
	screen.waitFor(t, p.ID)
	io.WriteString(typist, "q")
	screen.waitFor(t, "Quit and deny")
	io.WriteString(typist, "y")
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end after q y")
	}
	typist.Close()
	got, _ := w.authority.Proposal(p.ID)
	if got.Status != approval.StatusDenied || got.Reason != closedReason {
		t.Errorf("after quit: %s %q", got.Status, got.Reason)
	}
}

// An approval the agent has not used yet dies with the console: q asks
// first and says so, y quits, and the hub then holds the proposal as expired
// (its token void), with the reason on the way out.
func TestRunQuitWithApprovedAsksAndVoidsThem(t *testing.T) {
	w := sharedWorld(t, "")
	p := w.propose(t, "quit-agent")
	if _, err := w.authority.Approve(p.ID, "test"); err != nil {
		t.Fatal(err)
	}
	in, typist := io.Pipe()
	defer typist.Close()
	var out bytes.Buffer
	screen := &syncWriter{w: &out}
	errc := make(chan error, 1)
	go func() {
		errc <- Run(context.Background(), Options{Service: consoleservice.Of(w.authority), Genesis: w.genesis, NoColor: true, Input: in, Output: screen, Width: 140, Height: 40})
	}()
	screen.waitFor(t, "QUEUE") // the console is up (p may be scrolled off: the hub is shared)
	io.WriteString(typist, "q")
	screen.waitFor(t, "approved proposal(s) have not been executed yet")
	screen.waitFor(t, "makes their approvals void")
	if got, _ := w.authority.Proposal(p.ID); got.Status != approval.StatusApproved {
		t.Fatalf("q alone changed the approval: %s", got.Status)
	}
	io.WriteString(typist, "y")
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not end after q y")
	}
	if got, _ := w.authority.Proposal(p.ID); got.Status != approval.StatusExpired || got.Token != "" {
		t.Errorf("after quit the approval is %s (token kept: %v)", got.Status, got.Token != "")
	}
	screen.waitFor(t, "approved proposal(s) not executed: their approvals are void")
}

// When its context ends, Run returns nil and denies what is pending.
func TestRunEndsWithContext(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	in, typist := io.Pipe()
	defer typist.Close()
	ctx, cancel := context.WithCancel(context.Background())
	screen := &syncWriter{w: &bytes.Buffer{}}
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, Options{Service: consoleservice.Of(w.authority), NoColor: true, Input: in, Output: screen, Width: 140, Height: 40})
	}()
	screen.waitFor(t, "QUEUE")
	p := w.propose(t, "ctx-agent") // arrives while the console runs
	screen.waitFor(t, p.ID)
	cancelRun(t, cancel, errc)
	if st := w.status(t, p.ID); st != approval.StatusDenied {
		t.Errorf("pending proposal is %s after the console closed", st)
	}
}

func TestGraceIsCapped(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		0: defaultGrace, -time.Second: defaultGrace, 5 * time.Second: time.Second, 300 * time.Millisecond: 300 * time.Millisecond,
	} {
		if got := graceOf(in); got != want {
			t.Errorf("graceOf(%s) = %s, want %s", in, got, want)
		}
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// waitFor waits until the output so far (a *bytes.Buffer) holds want.
func (s *syncWriter) waitFor(t *testing.T, want string) {
	t.Helper()
	text := func() string {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.w.(*bytes.Buffer).String()
	}
	testkit.Eventually(t, 20*time.Second, "the console showing "+want, func() bool { return strings.Contains(text(), want) }, nil)
}

// cancelRun ends a Run through its context and waits for it to return
// without error.
func cancelRun(t *testing.T, cancel context.CancelFunc, errc <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end with its context")
	}
}
