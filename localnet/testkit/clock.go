package testkit

import (
	"sync"
	"time"
)

// Clock is a settable time source: code under test takes its Now, and the
// test moves time on with Advance, so nothing waits for a real second.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts a clock at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
