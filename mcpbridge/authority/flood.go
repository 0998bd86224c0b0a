package authority

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/policy"
)

// caller is who sent a call. The name is what the agent says it is (MCP
// clientInfo): display text only, sanitised and capped. The id is what the
// kernel says (uid, pid and the process's start time), which the agent cannot
// choose: the pending limit, the rate limit and the retry breaker key on it,
// so renaming itself gives an agent nothing.
type caller struct {
	name string
	id   string
}

// maxClientName caps the self-described name; a 60 KB name once reached the
// console whole.
const maxClientName = 64

func callerOf(ctx context.Context, ci mcpbridge.ClientInfo) caller {
	name := untrusted.Sanitize(ci.String(), maxClientName)
	if name == "" {
		name = "unknown-client"
	}
	if id, ok := PeerIDFromContext(ctx); ok {
		return caller{name: name, id: id.String()}
	}
	// A call from inside the console's own process (tests drive the hub
	// this way) has no peer; its name is all there is to key on.
	return caller{name: name, id: "in-process " + name}
}

// Flood control defaults: each connected process may have this many
// proposals waiting for the human, and may propose in bursts of
// DefaultProposeBurst, refilled one every DefaultProposeEvery.
const (
	DefaultMaxPendingPerPeer = 10
	DefaultProposeBurst      = 10
	DefaultProposeEvery      = 2 * time.Second
	// floodNoticeEvery bounds how often a flood shows in the console log.
	floodNoticeEvery = 5 * time.Second
)

// RuleFlood is the rule named in a flood-control denial.
const RuleFlood = "flood-control"

// floodControl is the per-process proposal rate limit (a token bucket) and
// the bookkeeping of how often its denials are shown.
type floodControl struct {
	burst int
	every time.Duration
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*floodBucket
}

type floodBucket struct {
	tokens     float64
	at         time.Time
	noticed    time.Time // last time a denial was shown in the console log
	suppressed int       // denials not shown since
}

func newFloodControl(burst int, every time.Duration, now func() time.Time) *floodControl {
	return &floodControl{burst: burst, every: every, now: now, buckets: map[string]*floodBucket{}}
}

// admit takes one proposal token for id.
func (f *floodControl) admit(id string) (policy.Decision, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	b, ok := f.buckets[id]
	if !ok {
		b = &floodBucket{tokens: float64(f.burst), at: now}
		f.buckets[id] = b
	}
	b.tokens = min(float64(f.burst), b.tokens+float64(now.Sub(b.at))/float64(f.every))
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return policy.Decision{Allowed: true}, true
	}
	wait := time.Duration((1 - b.tokens) * float64(f.every)).Round(100 * time.Millisecond)
	return policy.Decision{Rule: RuleFlood, Retryable: true, Reason: fmt.Sprintf(
		"too many proposals from this agent: at most %d at once and one every %s after that. Nothing was proposed; wait %s before proposing again.",
		f.burst, f.every, max(wait, 100*time.Millisecond))}, false
}

// notice reports whether a flood denial for id should be shown now, and
// how many were held back before it.
func (f *floodControl) notice(id string) (show bool, held int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.buckets[id]
	if !ok {
		b = &floodBucket{tokens: float64(f.burst), at: f.now()}
		f.buckets[id] = b
	}
	if now := f.now(); now.Sub(b.noticed) >= floodNoticeEvery {
		held, b.suppressed, b.noticed = b.suppressed, 0, now
		return true, held
	}
	b.suppressed++
	return false, 0
}

// pendingOfLocked counts id's proposals waiting for the human.
func (h *Hub) pendingOfLocked(id string) int { return h.pendingOf[id] }

func (h *Hub) pendingLimitDecision() policy.Decision {
	return policy.Decision{Rule: RuleFlood, Retryable: true, Reason: fmt.Sprintf(
		"this agent already has %d proposals waiting for the operator, the most the console queues per agent. Nothing was proposed; wait for decisions (proposal_status) before proposing more.",
		h.opts.MaxPendingPerPeer)}
}

// floodDenied answers a flood-control denial. It is audited, and shown in
// the console log at most every few seconds per agent, so a flood cannot
// bury the log or keep the screen busy.
func (h *Hub) floodDenied(who caller, fp string, d policy.Decision) mcpbridge.CallResult {
	h.audit("auto_denied", "", map[string]any{"client": who.name, "peer": who.id, "fingerprint": fp, "rule": d.Rule, "reason": d.Reason})
	if show, held := h.flood.notice(who.id); show {
		msg := fmt.Sprintf("%s (%s) → proposals refused by %s: %s", who.name, who.id, d.Rule, d.Reason)
		if held > 0 {
			msg += fmt.Sprintf(" (%d more refused since the last notice)", held)
		}
		h.events.publish(Event{Kind: EventAutoDenied, At: h.opts.Now(), Client: who.name, Message: msg})
	}
	h.log.Info("flood-control denial", "client", who.name, "peer", who.id)
	return denialResult(d)
}
