package testkit

import (
	"testing"
	"time"
)

// pollEvery is how often Poll looks again. Waiting for a state by looking at
// it is waiting for an event; the interval only bounds the latency.
const pollEvery = 50 * time.Millisecond

// Poll checks cond until it holds or d has passed, and reports whether it
// held. cond runs at least once, and once more at the deadline.
func Poll(d time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return cond()
		}
	}
}

// Eventually fails the test unless cond holds within d; what names the
// awaited state, and detail (may be nil) adds what the failure should show.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool, detail func() string) {
	t.Helper()
	if Poll(d, cond) {
		return
	}
	extra := ""
	if detail != nil {
		extra = "\n" + detail()
	}
	t.Fatalf("%s did not happen within %s%s", what, d, extra)
}

// Within runs f and returns its error, failing the test if f has not
// returned within d: for a call that must never wait (opening a FIFO
// planted where a file is expected). d is a generous failure guard, not
// synchronisation; a call that hangs stays blocked until the test binary
// exits, but the suite goes on.
func Within(t testing.TB, d time.Duration, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s has not returned within %s: it waits for something that never comes", what, d)
		return nil
	}
}
