package authority

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority/answer"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// proposalStatus answers proposal_status, waiting up to wait_seconds for a
// pending or executing proposal to change so an agent need not poll hard.
// Only its owner learns anything of a proposal (caller.go).
func (h *Hub) proposalStatus(ctx context.Context, who caller, a args.ProposalStatusArgs) wire.CallResult {
	deadline := time.NewTimer(time.Duration(a.WaitSeconds) * time.Second)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		p, ok := h.proposals[a.ProposalID]
		if !ok {
			h.mu.Unlock()
			return h.storedStatus(who, a.ProposalID)
		}
		if !who.owns(p) {
			h.mu.Unlock()
			return answer.UnknownProposal(a.ProposalID)
		}
		if p.record != nil {
			select {
			case <-p.record.done:
			default:
				// Nothing about a proposal is said before its record is
				// durable (or withdrawn, which the next turn reports).
				h.mu.Unlock()
				_ = p.recorded()
				continue
			}
		}
		h.expireTokenLocked(p)
		waiting := p.Status == approval.StatusPending || p.Status == approval.StatusExecuting || p.Status == approval.StatusSubmitted
		if !waiting || a.WaitSeconds == 0 {
			snap := p.snapshot()
			h.mu.Unlock()
			return answer.Status(snap, h.opts.Policy.TokenDelivery == policy.DeliveryAgent)
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
func (h *Hub) expireTokenLocked(p *queued) {
	if p.Status == approval.StatusApproved && !h.opts.Now().Before(p.TokenExpires) {
		p.Status, p.Reason = approval.StatusExpired, "approved, but the confirmation token expired unused; propose again"
		p.Token = ""
		h.changedLocked(p)
	}
}

// storedStatus answers for a proposal this console does not hold in memory —
// typically one made before a restart. The database knows how it ended; an
// agent told "unknown, propose again" about a transfer that already executed
// would pay twice.
func (h *Hub) storedStatus(who caller, id string) wire.CallResult {
	if h.opts.Store == nil {
		return answer.UnknownProposal(id)
	}
	p, err := h.opts.Store.GetProposal(id)
	if err != nil || !who.ownsStored(p.Owner) {
		return answer.UnknownProposal(id)
	}
	st := map[string]any{"proposal_id": id, "status": p.Status, "earlier_console": true}
	// The normalised arguments it was made with (to, lamports; or the swap's).
	var args map[string]string
	if json.Unmarshal(p.Args, &args) == nil {
		for k, v := range args {
			st[k] = v
		}
	}
	var sig string
	if execs, err := h.opts.Store.Executions(id); err == nil && len(execs) > 0 {
		last := execs[len(execs)-1]
		sig = last.Signature
		if sig != "" {
			st["signature"], st["slot"], st["fee_lamports"] = sig, last.Slot, fmt.Sprint(last.Fee)
		}
	}
	var text string
	switch p.Status {
	case store.ExecExecuted:
		text = fmt.Sprintf("Proposal %s was EXECUTED (recorded before the console restarted): signature %s. It is done; do not propose it again.", id, sig)
	case store.ExecUnknown:
		st["status"] = string(approval.StatusSubmitted)
		text = fmt.Sprintf("Proposal %s was sent (signature %s) before the console restarted and its outcome is still being reconciled with the chain. Do not propose it again; ask again later.", id, sig)
	case store.ExecLosses:
		text = fmt.Sprintf("Proposal %s was EXECUTED WITH UNEXPECTED EFFECTS (recorded before the console restarted): signature %s. Its landed effects differed from the approved ones; tell the operator.", id, sig)
	case store.ExecFailed, store.ExecExpired, store.OutcomeDenied:
		text = fmt.Sprintf("Proposal %s ended as %s before the console restarted; nothing more will happen to it.", id, strings.ToUpper(p.Status))
	default:
		// Pending or approved when the console stopped: its token died with it.
		st["status"] = string(approval.StatusExpired)
		text = fmt.Sprintf("Proposal %s was still %s when the console restarted; it is void and nothing was sent. Propose again if it is still wanted.", id, p.Status)
	}
	return wire.CallResult{Text: text, Structured: st}
}
