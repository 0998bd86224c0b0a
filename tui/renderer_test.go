package tui

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
	"github.com/solgate/solgate/policy"
)

// writes records every write the renderer makes, as the terminal gets them.
type writes struct {
	mu   sync.Mutex
	all  []string
	read int // how many of all next has returned
	new  chan struct{}
}

func newWrites() *writes { return &writes{new: make(chan struct{}, 1000)} }

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.all = append(w.all, string(p))
	w.mu.Unlock()
	w.new <- struct{}{}
	return len(p), nil
}

func (w *writes) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.all)
}

// next waits for the next write and returns it: each write once, in order,
// so an extra write is seen rather than skipped.
func (w *writes) next(t *testing.T) string {
	t.Helper()
	select {
	case <-w.new:
	case <-time.After(10 * time.Second):
		t.Fatal("no write within 10 s")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.read++
	return w.all[w.read-1]
}

// openRenderer starts a renderer on a w×h terminal and consumes what open
// writes.
func openRenderer(t *testing.T, interval time.Duration, w, h int) (*renderer, *writes) {
	t.Helper()
	out := newWrites()
	r := newRenderer(out, interval)
	r.resize(w, h)
	r.open()
	t.Cleanup(r.close)
	if got := out.next(t); got != openSeq {
		t.Fatalf("open wrote %q, want %q", got, openSeq)
	}
	return r, out
}

// A change is drawn at once, in one write, with the title; the next change
// rewrites only the lines that changed, addressed by row; a shorter view
// erases what the longer one left; lines wider than the terminal are cut.
func TestRendererDrawsOnlyWhatChanged(t *testing.T) {
	r, out := openRenderer(t, time.Millisecond, 10, 5)

	r.show(frame{view: "alpha\nbeta\ngamma", title: "solgate"})
	first := out.next(t)
	for _, want := range []string{ansi.SetWindowTitle("solgate"), "\x1b[1Halpha", "\x1b[2Hbeta", "\x1b[3Hgamma"} {
		if !strings.Contains(first, want) {
			t.Errorf("first frame %q lacks %q", first, want)
		}
	}

	r.show(frame{view: "alpha\nBETA\ngamma", title: "solgate"})
	second := out.next(t)
	if second != "\x1b[2HBETA"+ansi.EraseLineRight {
		t.Errorf("one changed line: wrote %q, want only that line", second)
	}

	r.show(frame{view: "alpha\nBETA", title: "(1) solgate"})
	third := out.next(t)
	if want := ansi.SetWindowTitle("(1) solgate") + "\x1b[3H" + ansi.EraseScreenBelow; third != want {
		t.Errorf("shorter view and new title: wrote %q, want %q", third, want)
	}

	r.show(frame{view: "alpha\n0123456789ABCDEF", title: "(1) solgate"})
	if fourth := out.next(t); fourth != "\x1b[2H0123456789" {
		t.Errorf("a line wider than 10 cells: wrote %q, want it cut at the width (and no erase: it fills the row)", fourth)
	}
}

// After a resize every line is drawn again on a cleared screen, even when
// the view is the same: the terminal may have reflowed or cut what it showed.
func TestRendererRepaintsFullyAfterResize(t *testing.T) {
	r, out := openRenderer(t, time.Millisecond, 20, 5)
	view := frame{view: "alpha\nbeta\ngamma", title: "solgate"}
	r.show(view)
	out.next(t)

	r.resize(30, 6)
	r.show(view)
	got := out.next(t)
	if !strings.HasPrefix(got, ansi.EraseEntireScreen) {
		t.Errorf("after a resize the frame does not start by clearing the screen: %q", got)
	}
	for _, want := range []string{"\x1b[1Halpha", "\x1b[2Hbeta", "\x1b[3Hgamma"} {
		if !strings.Contains(got, want) {
			t.Errorf("after a resize the frame %q lacks the unchanged line %q", got, want)
		}
	}
}

// Changes that follow a frame within the interval are drawn together, once,
// at the interval's end, showing the latest.
func TestRendererCoalescesWithinTheInterval(t *testing.T) {
	const interval = 300 * time.Millisecond
	r, out := openRenderer(t, interval, 20, 5)
	r.show(frame{view: "one", title: "solgate"})
	out.next(t)
	drawn := time.Now()
	r.show(frame{view: "two", title: "solgate"})
	r.show(frame{view: "three", title: "solgate"})
	got := out.next(t)
	if since := time.Since(drawn); since < interval-20*time.Millisecond {
		t.Errorf("second frame %s after the first, want no sooner than %s", since, interval)
	}
	if strings.Contains(got, "two") || !strings.Contains(got, "three") {
		t.Errorf("coalesced frame %q, want only the latest view", got)
	}
	if n := out.count(); n != 3 { // open, one, three
		t.Errorf("%d writes, want 3 (open, one, three)", n)
	}
}

// An unchanged screen costs nothing: handing over the same view again
// neither writes nor wakes the drawing goroutine, and without a change
// nothing happens at all. The sleep is the behaviour under test: idle time
// passing.
func TestRendererIdleNeitherWritesNorWakes(t *testing.T) {
	r, out := openRenderer(t, time.Millisecond, 20, 5)
	view := frame{view: "alpha\nbeta", title: "solgate"}
	r.show(view)
	out.next(t)
	writes, wakes := out.count(), r.wakes.Load()
	for range 100 {
		r.show(view)
	}
	time.Sleep(500 * time.Millisecond) // behaviour under test: idle time passing
	if n := out.count() - writes; n != 0 {
		t.Errorf("%d writes while nothing changed", n)
	}
	if n := r.wakes.Load() - wakes; n != 0 {
		t.Errorf("the drawing goroutine woke %d times while nothing changed", n)
	}
}

// Before the console hands over its first view there is nothing to draw:
// the size given at start makes no frame of its own (it once drew an empty
// one, which raced the first view). The sleep is the behaviour under test:
// time passing with no view.
func TestRendererDrawsNothingBeforeTheFirstView(t *testing.T) {
	r, out := openRenderer(t, time.Millisecond, 20, 5)
	time.Sleep(200 * time.Millisecond) // behaviour under test: time passing with no view
	if n := out.count(); n != 1 {
		t.Fatalf("%d writes before the first view, want 1 (open): %q", n, out.all)
	}
	r.show(frame{view: "alpha", title: "solgate"})
	if got := out.next(t); !strings.Contains(got, "alpha") {
		t.Fatalf("the first frame after open is %q, want the view", got)
	}
}

// close gives the terminal back (bracketed paste off, cursor shown, main
// screen), after the frame in flight, and nothing is drawn after it.
func TestRendererCloseRestoresTheTerminal(t *testing.T) {
	r, out := openRenderer(t, time.Millisecond, 20, 5)
	r.show(frame{view: "alpha", title: "solgate"})
	out.next(t)
	r.close()
	if got := out.next(t); got != closeSeq {
		t.Fatalf("close wrote %q, want %q", got, closeSeq)
	}
	// DEC private modes 1049 (alternate screen), 25 (cursor shown), 2004
	// (bracketed paste), as xterm documents them.
	for _, want := range []string{"\x1b[?1049l", "\x1b[?25h", "\x1b[?2004l"} {
		if !strings.Contains(closeSeq, want) {
			t.Errorf("close does not write %q", want)
		}
	}
	r.show(frame{view: "after", title: "solgate"})
	r.close()
	if n := out.count(); n != 3 {
		t.Errorf("%d writes, want 3: something was written after close", n)
	}
}

// quietHub is a hub of its own on the shared ledger: nothing pending, no
// grant, nothing counting down. The ledger is reached here, outside any
// synctest bubble (a connection's goroutines never block durably); the hub
// is made by the returned func, which does no I/O, inside the bubble, so
// that the bubble owns the hub's channels and timers.
func quietHub(t *testing.T) func(*testing.T) *authority.Hub {
	t.Helper()
	l := sharedWorld(t, "").ledger
	client := executor.NewClient(l.RPC(), executor.ClientOptions{})
	network, genesis, err := client.DetectNetwork(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T) *authority.Hub {
		t.Helper()
		key, _ := executor.NewRandomKeypair()
		spend, _ := policy.NewSpend(nil, nil)
		h, err := authority.New(authority.Options{Executor: executor.New(client, key, executor.Options{}), Network: network, Genesis: genesis, Policy: policy.DefaultConfig(), Spend: spend})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Close)
		return h
	}
}

// scheduled is how many goroutine runs the Go runtime has sampled so far
// (it records one in eight): a count of the process's wake-ups.
func scheduled() uint64 {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	var n uint64
	for _, c := range s[0].Value.Float64Histogram().Counts {
		n += c
	}
	return n
}

// An idle console writes nothing to its terminal and wakes nothing in the
// process; when it ends, the terminal is given back before the last words.
// Bubble Tea's standard renderer at 120 fps woke 120 times a second here.
//
// The console runs in a synctest bubble: idle time is the bubble's clock,
// which jumps to the next timer once every goroutine of the console is
// blocked, so an hour passes in microseconds. A timer of the console fires
// on that clock, in that hour, as many times as it would on the wall's; the
// rest of the process (earlier tests' goroutines, the garbage collector, a
// busy machine) has no time in which to add its own wake-ups to the count.
func TestRunIdleWritesNothingAndWakesNothing(t *testing.T) {
	newHub := quietHub(t)
	// The first signal.Notify of the process makes the runtime's signal
	// watcher and its channels. Made by Run inside the bubble, the channels
	// are the bubble's and the watcher's use of them is fatal ("select on
	// synctest channel from outside bubble"): make them here, with SIGWINCH,
	// which is ignored anyway.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	signal.Stop(sig)
	synctest.Test(t, func(t *testing.T) {
		h := newHub(t)
		in, typist := io.Pipe()
		defer typist.Close()
		out := newWrites()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			errc <- Run(ctx, Options{Service: consoleservice.Of(h), NoColor: true, NoBell: true, Input: in, Output: out, Width: 120, Height: 34})
		}()
		for !strings.Contains(out.next(t), "QUEUE") {
		}
		// A change that followed the first frame (the size) is drawn at
		// most one frame interval later: start-up ends there. This sleep
		// is on the bubble's clock, not the wall's: it returns once every
		// goroutine of the console is blocked and the fake clock has moved
		// past the frame timer, so no machine load can make it too short.
		time.Sleep(frameInterval(0))
		synctest.Wait()
		writes, runs := out.count(), scheduled()
		const idle = time.Hour
		time.Sleep(idle) // on the bubble's clock: idle time passing
		synctest.Wait()  // whatever the hour woke has run
		woke := scheduled() - runs
		if n := out.count() - writes; n != 0 {
			t.Errorf("an idle console wrote %d times in %s", n, idle)
		}
		t.Logf("sampled goroutine runs in %s idle: %d", idle, woke)
		if woke > 10 {
			t.Errorf("%d sampled goroutine runs in %s idle (≈%d wake-ups), want next to none", woke, idle, 8*woke)
		}

		cancelRun(t, cancel, errc)
		out.mu.Lock()
		last := out.all[len(out.all)-1]
		out.mu.Unlock()
		if last != closeSeq {
			t.Errorf("the last write of a console that ended with its context is %q, want the terminal given back (%q)", last, closeSeq)
		}
	})
}
