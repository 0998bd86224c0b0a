package authority

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority/flood"
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
)

// RuleFlood is the rule named in a flood-control denial.
const RuleFlood = flood.Rule

// prepSlot marks a proposal admitted but not yet queued: while it is being
// prepared (a simulation), it counts against its user's pending limit, so
// thirty processes proposing at once cannot all pass the check before any
// of them is queued, nor keep the ledger busy simulating past the limit.
type prepSlot struct {
	owner string
	held  bool
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
// user's audit tally for the minute (flood.Control.Count), not written one fsynced
// row each, and shown in the console log at most every few seconds per
// user, so a flood can neither grow the database without bound nor bury the
// log.
func (h *Hub) floodDenied(who caller, rule string, d policy.Decision) wire.CallResult {
	owner := who.owner()
	h.flood.Count(owner, rule, who.name)
	if show, held := h.flood.Notice(owner); show {
		msg := fmt.Sprintf("%s (%s) → proposals refused by %s: %s", who.name, owner, d.Rule, d.Reason)
		if held > 0 {
			msg += fmt.Sprintf(" (%d more refused since the last notice)", held)
		}
		h.events.Publish(Event{Kind: EventAutoDenied, At: h.opts.Now(), Client: who.name, Message: msg})
	}
	h.log.Debug("flood-control denial", "client", who.name, "peer", who.id)
	return denialResult(d)
}

// auditFloodTally writes one user's flood denials of one minute as one row.
func (h *Hub) auditFloodTally(t flood.Tally) {
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
