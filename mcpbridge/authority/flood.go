package authority

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// caller is who sent a call. The name is what the agent says it is (MCP
// clientInfo): display text only, sanitised and capped. The id is what the
// kernel says (uid, pid and the process's start time), which the agent cannot
// choose. The flood limits, the retry breaker and the ownership of proposals
// key on the user (owner): a fork() is a new process but not a new user, so
// it gets no fresh allowance, and renaming itself gives an agent nothing.
type caller struct {
	name string
	id   string
	// proc is the one process that sent this call, by the kernel's word
	// for this call (host/sender.go); zero when it cannot be vouched for, or
	// for a call made inside the console.
	proc host.ProcessID
	// prep is the proposal this call is preparing (see admit); nil for
	// calls that are not proposals.
	prep *prepSlot
}

// owner is the user a caller's limits count against.
func (c caller) owner() string { return ownerOf(c.id) }

// ownerOf reads the user out of a caller id (PeerID.String: "uid 1000 pid
// 42 start 7"); a call from inside the console's process has no uid, and
// its id stands alone.
func ownerOf(id string) string {
	if rest, ok := strings.CutPrefix(id, "uid "); ok {
		if uid, _, ok := strings.Cut(rest, " "); ok {
			return "uid " + uid
		}
	}
	return id
}

// maxClientName caps the self-described name; a 60 KB name once reached the
// console whole.
const maxClientName = 64

func callerOf(ctx context.Context, req wire.CallRequest) caller {
	name := untrusted.Sanitize(req.Client.String(), maxClientName)
	if name == "" {
		name = "unknown-client"
	}
	if pc := host.PeerConnFrom(ctx); pc != nil {
		return caller{name: name, id: pc.Cred().Identity().String(), proc: host.ProcessOf(pc, req.Process), prep: &prepSlot{}}
	}
	// A call from inside the console's own process (tests drive the hub
	// this way) has no peer; its name is all there is to key on.
	return caller{name: name, id: "in-process " + name, prep: &prepSlot{}}
}

// Flood control defaults, per user (uid) and overall.
const (
	DefaultMaxPendingPerUID   = 20  // proposals one user may have waiting for the human
	DefaultMaxPending         = 200 // proposals waiting overall
	DefaultProposalsPerMinute = 60  // proposals one user may make per minute (also the burst)
	// floodNoticeEvery bounds how often a flood shows in the console log.
	floodNoticeEvery = 5 * time.Second
	// floodIdle: a user's rate state is dropped once it has been full
	// (nothing to remember) this long.
	floodIdle = 2 * time.Minute
)

// RuleFlood is the rule named in a flood-control denial.
const RuleFlood = "flood-control"

// prepSlot marks a proposal admitted but not yet queued: while it is being
// prepared (a simulation), it counts against its user's pending limit, so
// thirty processes proposing at once cannot all pass the check before any
// of them is queued, nor keep the ledger busy simulating past the limit.
type prepSlot struct {
	owner string
	held  bool
}

// floodControl is the per-user proposal rate limit (golang.org/x/time/rate)
// and the bookkeeping of flood denials: how often they are shown, and their
// tally for the audit (one row per user per minute, not one each).
type floodControl struct {
	perMinute int
	now       func() time.Time
	flush     func(floodTally) // writes one audit row; called without mu

	mu        sync.Mutex
	limiters  map[string]*floodUser
	lastPrune time.Time
	tallies   map[string]*floodTally
}

type floodUser struct {
	lim        *rate.Limiter
	noticed    time.Time // last time a denial was shown in the console log
	suppressed int       // denials not shown since
}

// floodTally counts one user's flood denials within one minute.
type floodTally struct {
	Owner   string
	Window  time.Time // the minute, UTC
	Denied  int
	ByRule  map[string]int // "pending", "pending-overall", "rate"
	Clients []string       // the first few names given, for the operator
}

const maxTallyClients = 5

func newFloodControl(perMinute int, now func() time.Time, flush func(floodTally)) *floodControl {
	return &floodControl{perMinute: perMinute, now: now, flush: flush,
		limiters: map[string]*floodUser{}, tallies: map[string]*floodTally{}}
}

// userLocked returns owner's state, creating it; now and then it forgets
// users whose bucket is full again, so a console that saw many users does
// not keep them all.
func (f *floodControl) userLocked(owner string, now time.Time) *floodUser {
	if now.Sub(f.lastPrune) >= floodIdle {
		f.lastPrune = now
		for k, u := range f.limiters {
			if u.lim.TokensAt(now) >= float64(u.lim.Burst()) && now.Sub(u.noticed) >= floodIdle {
				delete(f.limiters, k)
			}
		}
	}
	u, ok := f.limiters[owner]
	if !ok {
		u = &floodUser{lim: rate.NewLimiter(rate.Every(time.Minute/time.Duration(f.perMinute)), f.perMinute)}
		f.limiters[owner] = u
	}
	return u
}

// admit takes one proposal from owner's allowance.
func (f *floodControl) admit(owner string) (policy.Decision, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	u := f.userLocked(owner, now)
	if u.lim.AllowN(now, 1) {
		return policy.Decision{Allowed: true}, true
	}
	wait := time.Duration((1 - u.lim.TokensAt(now)) * float64(time.Minute) / float64(f.perMinute)).Round(100 * time.Millisecond)
	return policy.Decision{Rule: RuleFlood, Retryable: true, Reason: fmt.Sprintf(
		"too many proposals from this agent's user: at most %d a minute. Nothing was proposed; wait %s before proposing again.",
		f.perMinute, max(wait, 100*time.Millisecond))}, false
}

// notice reports whether a flood denial for owner should be shown now, and
// how many were held back before it.
func (f *floodControl) notice(owner string) (show bool, held int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	u := f.userLocked(owner, now)
	if now.Sub(u.noticed) >= floodNoticeEvery {
		held, u.suppressed, u.noticed = u.suppressed, 0, now
		return true, held
	}
	u.suppressed++
	return false, 0
}

// count adds one denial to owner's tally for this minute. The tally is
// written (one audit row) when the minute is over: by a timer, by the next
// denial of a later minute, or by flushAll when the hub closes.
func (f *floodControl) count(owner, rule, client string) {
	f.mu.Lock()
	now := f.now()
	window := now.UTC().Truncate(time.Minute)
	var due []floodTally
	t, ok := f.tallies[owner]
	if ok && !t.Window.Equal(window) {
		due = append(due, *t)
		ok = false
	}
	if !ok {
		t = &floodTally{Owner: owner, Window: window, ByRule: map[string]int{}}
		f.tallies[owner] = t
		// Past the minute's end, whatever denials came: write it.
		time.AfterFunc(window.Add(time.Minute).Sub(now)+time.Second, func() { f.flushBefore(window.Add(time.Minute)) })
	}
	t.Denied++
	t.ByRule[rule]++
	if len(t.Clients) < maxTallyClients && !containsString(t.Clients, client) {
		t.Clients = append(t.Clients, client)
	}
	f.mu.Unlock()
	for _, d := range due {
		f.flush(d)
	}
}

// flushBefore writes the tallies of minutes that ended by end.
func (f *floodControl) flushBefore(end time.Time) {
	f.mu.Lock()
	var due []floodTally
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

// flushAll writes every tally, finished or not (the hub is closing).
func (f *floodControl) flushAll() {
	f.mu.Lock()
	var due []floodTally
	for k, t := range f.tallies {
		due = append(due, *t)
		delete(f.tallies, k)
	}
	f.mu.Unlock()
	for _, d := range due {
		f.flush(d)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pendingOfLocked counts owner's proposals waiting for the human or being
// prepared.
func (h *Hub) pendingOfLocked(owner string) int { return h.pendingOf[owner] + h.preparing[owner] }

// pendingTotalLocked counts every proposal waiting or being prepared.
func (h *Hub) pendingTotalLocked() int { return len(h.pendingByFP) + h.preparingTotal }

// floodFullLocked says which pending limit a new proposal of owner would
// pass, or "".
func (h *Hub) floodFullLocked(owner string) string {
	switch {
	case h.pendingOfLocked(owner) >= h.opts.MaxPendingPerUID:
		return "pending"
	case h.pendingTotalLocked() >= h.opts.MaxPending:
		return "pending-overall"
	}
	return ""
}

func (h *Hub) pendingLimitDecision(which string) policy.Decision {
	if which == "pending-overall" {
		return policy.Decision{Rule: RuleFlood, Retryable: true, Reason: fmt.Sprintf(
			"the console already has %d proposals waiting for the operator, the most it queues. Nothing was proposed; wait for decisions (proposal_status) before proposing more.",
			h.opts.MaxPending)}
	}
	return policy.Decision{Rule: RuleFlood, Retryable: true, Reason: fmt.Sprintf(
		"this agent's user already has %d proposals waiting for the operator, the most the console queues per user (all its processes together). Nothing was proposed; wait for decisions (proposal_status) before proposing more.",
		h.opts.MaxPendingPerUID)}
}

// holdPrepLocked counts who's admitted proposal as pending while it is
// prepared; endPropose releases it when the call returns.
func (h *Hub) holdPrepLocked(who caller) {
	if who.prep == nil || who.prep.held {
		return
	}
	who.prep.owner, who.prep.held = who.owner(), true
	h.preparing[who.prep.owner]++
	h.preparingTotal++
}

// endPropose releases the call's preparing slot, if it took one.
func (h *Hub) endPropose(who caller) {
	if who.prep == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !who.prep.held {
		return
	}
	who.prep.held = false
	if h.preparing[who.prep.owner]--; h.preparing[who.prep.owner] <= 0 {
		delete(h.preparing, who.prep.owner)
	}
	h.preparingTotal--
}

// floodDenied answers a flood-control denial. It is counted into the
// user's audit tally for the minute (flood.count), not written one fsynced
// row each, and shown in the console log at most every few seconds per
// user, so a flood can neither grow the database without bound nor bury the
// log.
func (h *Hub) floodDenied(who caller, rule string, d policy.Decision) wire.CallResult {
	owner := who.owner()
	h.flood.count(owner, rule, who.name)
	if show, held := h.flood.notice(owner); show {
		msg := fmt.Sprintf("%s (%s) → proposals refused by %s: %s", who.name, owner, d.Rule, d.Reason)
		if held > 0 {
			msg += fmt.Sprintf(" (%d more refused since the last notice)", held)
		}
		h.events.publish(Event{Kind: EventAutoDenied, At: h.opts.Now(), Client: who.name, Message: msg})
	}
	h.log.Debug("flood-control denial", "client", who.name, "peer", who.id)
	return denialResult(d)
}

// auditFloodTally writes one user's flood denials of one minute as one row.
func (h *Hub) auditFloodTally(t floodTally) {
	h.audit("flood_denied", "", map[string]any{
		"peer": t.Owner, "minute": t.Window.Format(time.RFC3339), "denied": t.Denied, "by_rule": t.ByRule, "clients": t.Clients,
	})
	h.log.Info("flood-control denials", "peer", t.Owner, "minute", t.Window, "denied", t.Denied)
}

// DenyPendingOf denies every pending proposal of the user that proposed
// the proposal id, all its processes together: the operator's answer to a
// flood (D in the console). It returns the proposals it denied.
func (h *Hub) DenyPendingOf(id, by, reason string) ([]*Proposal, error) {
	h.mu.Lock()
	p, ok := h.proposals[id]
	if !ok {
		h.mu.Unlock()
		return nil, fmt.Errorf("deny all of %s's user: no such proposal", id)
	}
	owner := ownerOf(p.Peer)
	var ids []string
	for _, q := range h.proposals {
		if q.Status == StatusPending && ownerOf(q.Peer) == owner {
			ids = append(ids, q.ID)
		}
	}
	h.mu.Unlock()
	var out []*Proposal
	for _, qid := range ids {
		if snap, err := h.Deny(qid, by, reason); err == nil {
			out = append(out, snap)
		}
	}
	return out, nil
}

// OwnerOf is the user a proposal's limits count against, for display.
func OwnerOf(p *Proposal) string { return ownerOf(p.Peer) }
