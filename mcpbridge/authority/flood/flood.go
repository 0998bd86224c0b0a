// Package flood limits how fast one user's agents may propose, and keeps
// the tally of what it refused: shown in the console log at most every few
// seconds per user, and written to the audit trail as one row per user per
// minute, so a flood can neither grow the database nor bury the log.
package flood

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/solgate/solgate/policy"
)

// Rule is the rule named in a flood-control denial.
const Rule = "flood-control"

const (
	// noticeEvery bounds how often a flood shows in the console log.
	noticeEvery = 5 * time.Second
	// idle: a user's rate state is dropped once it has been full (nothing
	// to remember) this long.
	idle = 2 * time.Minute
)

// Control is the per-user proposal rate limit (golang.org/x/time/rate)
// and the bookkeeping of flood denials: how often they are shown, and their
// tally for the audit (one row per user per minute, not one each).
type Control struct {
	perMinute int
	now       func() time.Time
	flush     func(Tally) // writes one audit row; called without mu

	mu        sync.Mutex
	limiters  map[string]*user
	lastPrune time.Time
	tallies   map[string]*Tally
}

type user struct {
	lim        *rate.Limiter
	noticed    time.Time // last time a denial was shown in the console log
	suppressed int       // denials not shown since
}

// Tally counts one user's flood denials within one minute.
type Tally struct {
	Owner   string
	Window  time.Time // the minute, UTC
	Denied  int
	ByRule  map[string]int // "pending", "pending-overall", "rate"
	Clients []string       // the first few names given, for the operator
}

const maxClients = 5

// New is flood control allowing perMinute proposals a minute per user (also
// the burst); flush writes one tally to the audit trail, called without locks.
func New(perMinute int, now func() time.Time, flush func(Tally)) *Control {
	return &Control{perMinute: perMinute, now: now, flush: flush,
		limiters: map[string]*user{}, tallies: map[string]*Tally{}}
}

// userLocked returns owner's state, creating it; now and then it forgets
// users whose bucket is full again, so a console that saw many users does
// not keep them all.
func (f *Control) userLocked(owner string, now time.Time) *user {
	if now.Sub(f.lastPrune) >= idle {
		f.lastPrune = now
		for k, u := range f.limiters {
			if u.lim.TokensAt(now) >= float64(u.lim.Burst()) && now.Sub(u.noticed) >= idle {
				delete(f.limiters, k)
			}
		}
	}
	u, ok := f.limiters[owner]
	if !ok {
		u = &user{lim: rate.NewLimiter(rate.Every(time.Minute/time.Duration(f.perMinute)), f.perMinute)}
		f.limiters[owner] = u
	}
	return u
}

// Admit takes one proposal from owner's allowance.
func (f *Control) Admit(owner string) (policy.Decision, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	u := f.userLocked(owner, now)
	if u.lim.AllowN(now, 1) {
		return policy.Decision{Allowed: true}, true
	}
	wait := time.Duration((1 - u.lim.TokensAt(now)) * float64(time.Minute) / float64(f.perMinute)).Round(100 * time.Millisecond)
	return policy.Decision{Rule: Rule, Retryable: true, Reason: fmt.Sprintf(
		"too many proposals from this agent's user: at most %d a minute. Nothing was proposed; wait %s before proposing again.",
		f.perMinute, max(wait, 100*time.Millisecond))}, false
}

// Notice reports whether a flood denial for owner should be shown now, and
// how many were held back before it.
func (f *Control) Notice(owner string) (show bool, held int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	u := f.userLocked(owner, now)
	if now.Sub(u.noticed) >= noticeEvery {
		held, u.suppressed, u.noticed = u.suppressed, 0, now
		return true, held
	}
	u.suppressed++
	return false, 0
}

// Count adds one denial to owner's tally for this minute. The tally is
// written (one audit row) when the minute is over: by a timer, by the next
// denial of a later minute, or by FlushAll when the hub closes.
func (f *Control) Count(owner, rule, client string) {
	f.mu.Lock()
	now := f.now()
	window := now.UTC().Truncate(time.Minute)
	var due []Tally
	t, ok := f.tallies[owner]
	if ok && !t.Window.Equal(window) {
		due = append(due, *t)
		ok = false
	}
	if !ok {
		t = &Tally{Owner: owner, Window: window, ByRule: map[string]int{}}
		f.tallies[owner] = t
		// Past the minute's end, whatever denials came: write it.
		time.AfterFunc(window.Add(time.Minute).Sub(now)+time.Second, func() { f.flushBefore(window.Add(time.Minute)) })
	}
	t.Denied++
	t.ByRule[rule]++
	if len(t.Clients) < maxClients && !slices.Contains(t.Clients, client) {
		t.Clients = append(t.Clients, client)
	}
	f.mu.Unlock()
	for _, d := range due {
		f.flush(d)
	}
}

// flushBefore writes the tallies of minutes that ended by end.
func (f *Control) flushBefore(end time.Time) {
	f.mu.Lock()
	var due []Tally
	for k, t := range f.tallies {
		if !t.Window.Add(time.Minute).After(end) {
			due = append(due, *t)
			delete(f.tallies, k)
		}
	}
	f.mu.Unlock()
	for _, d := range due {
		f.flush(d)
	}
}

// FlushAll writes every tally, finished or not (the hub is closing).
func (f *Control) FlushAll() {
	f.mu.Lock()
	var due []Tally
	for k, t := range f.tallies {
		due = append(due, *t)
		delete(f.tallies, k)
	}
	f.mu.Unlock()
	for _, d := range due {
		f.flush(d)
	}
}
