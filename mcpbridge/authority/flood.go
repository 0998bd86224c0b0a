package authority

import (
	"fmt"

	"github.com/solgate/solgate/mcpbridge/authority/answer"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/flood"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// RuleFlood is the rule named in a flood-control denial.
const RuleFlood = flood.Rule

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
		h.events.Publish(Event{Kind: approval.EventAutoDenied, At: h.opts.Now(), Client: who.name, Message: msg})
	}
	h.log.Debug("flood-control denial", "client", who.name, "peer", who.id)
	return answer.Denial(d)
}
