package policy

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Breaker answers the runbook's open question — an agent that keeps retrying
// a wall — in code. A fingerprint (tool + exact arguments) a client was
// denied once is answered "retryable: false" to that client from then on,
// and a client that collects BreakerDenials denials inside BreakerWindow has
// its writes paused until the operator resumes it. The breaker only ever
// adds denials; it can never turn a policy "no" into a "yes".
//
// The client is whatever the caller keys it on; the console keys it on the
// agent's user (uid), all its processes together, so a fork starts with
// its parent's count and one user's wall never marks another's call.
//
// Use: Check before evaluating (a paused client is refused without further
// work), then Observe with the policy's decision.
type Breaker struct {
	mu     sync.Mutex
	now    func() time.Time
	limit  int
	window time.Duration

	deniedFingerprints map[string]struct{}    // client + "\x00" + fingerprint
	denials            map[string][]time.Time // client → denial times inside the window
	paused             map[string]bool
}

// NewBreaker builds a breaker from cfg's breaker settings; now is the clock
// (time.Now in production, a fake in tests).
func NewBreaker(cfg Config, now func() time.Time) *Breaker {
	if now == nil {
		now = time.Now
	}
	limit, window := cfg.BreakerDenials, cfg.BreakerWindow
	if limit < 1 {
		limit = DefaultBreakerDenials
	}
	if window <= 0 {
		window = DefaultBreakerWindow
	}
	return &Breaker{
		now:                now,
		limit:              limit,
		window:             window,
		deniedFingerprints: make(map[string]struct{}),
		denials:            make(map[string][]time.Time),
		paused:             make(map[string]bool),
	}
}

// Check refuses every write from a paused client. ok is true when the client
// may proceed to policy evaluation.
func (b *Breaker) Check(client string) (Decision, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paused[client] {
		return b.pausedDecision(client), false
	}
	return Decision{}, true
}

func (b *Breaker) pausedDecision(client string) Decision {
	return Decision{
		Rule: RuleBreaker,
		Reason: fmt.Sprintf("writes from this agent (%s) are paused after %d policy denials within %s; nothing will be signed until the operator resumes this client in the console. Stop retrying and tell the user.",
			client, b.limit, b.window),
	}
}

// Observe records the outcome of an evaluation and returns the decision the
// client should see. An allowed decision passes through unchanged (and
// forgets the fingerprint, since the wall it hit is gone). A denial of a
// fingerprint denied before is made non-retryable, and the denial that
// completes a burst pauses the client.
func (b *Breaker) Observe(client, fingerprint string, d Decision) Decision {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := client + "\x00" + fingerprint
	if d.Allowed {
		delete(b.deniedFingerprints, key)
		return d
	}
	if _, seen := b.deniedFingerprints[key]; seen && fingerprint != "" {
		d.Retryable = false
		d.Reason += " This exact request was denied before; retrying will not change the answer."
	}
	if fingerprint != "" {
		b.deniedFingerprints[key] = struct{}{}
	}

	now := b.now()
	cutoff := now.Add(-b.window)
	recent := b.denials[client][:0]
	for _, t := range b.denials[client] {
		if t.After(cutoff) {
			recent = append(recent, t)
		}
	}
	recent = append(recent, now)
	b.denials[client] = recent
	if len(recent) >= b.limit && !b.paused[client] {
		b.paused[client] = true
		d.Retryable = false
		d.Reason += fmt.Sprintf(" That was %d denials within %s: writes from this client are now paused until the operator resumes them.", len(recent), b.window)
	}
	return d
}

// Paused reports whether client's writes are paused.
func (b *Breaker) Paused(client string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.paused[client]
}

// PausedClients lists the paused clients, for the console.
func (b *Breaker) PausedClients() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for c, p := range b.paused {
		if p {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// Resume lifts a pause (the operator's decision) and clears the client's
// denial history so the next denial does not immediately re-trip it.
func (b *Breaker) Resume(client string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.paused, client)
	delete(b.denials, client)
}
