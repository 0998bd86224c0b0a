package hub

import (
	"context"
	"time"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/policy"
)

// proposalStatus answers proposal_status, waiting up to wait_seconds for a
// pending or executing proposal to change so an agent need not poll hard.
func (h *Hub) proposalStatus(ctx context.Context, a mcpbridge.ProposalStatusArgs) mcpbridge.CallResult {
	deadline := time.NewTimer(time.Duration(a.WaitSeconds) * time.Second)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		p, ok := h.proposals[a.ProposalID]
		if !ok {
			h.mu.Unlock()
			return unknownProposalResult(a.ProposalID)
		}
		h.expireTokenLocked(p)
		waiting := p.Status == StatusPending || p.Status == StatusExecuting || p.Status == StatusSubmitted
		if !waiting || a.WaitSeconds == 0 {
			snap := p.snapshot()
			h.mu.Unlock()
			return statusResult(snap, h.opts.Policy.TokenDelivery == policy.DeliveryAgent)
		}
		changed := p.changed
		h.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			a.WaitSeconds = 0 // answer with whatever holds now
		case <-ctx.Done():
			a.WaitSeconds = 0
		}
	}
}

// expireTokenLocked marks an approval whose token lapsed unused as expired.
func (h *Hub) expireTokenLocked(p *Proposal) {
	if p.Status == StatusApproved && !h.opts.Now().Before(p.TokenExpires) {
		p.Status, p.Reason = StatusExpired, "approved, but the confirmation token expired unused; propose again"
		p.Token = ""
		h.changedLocked(p)
	}
}
