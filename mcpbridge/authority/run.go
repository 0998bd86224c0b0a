package authority

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy/store"
)

// run is the one run skeleton, for every write kind, after the token was
// consumed and the proposal marked executing: prepare the approved bytes,
// reserve the spend on their measured facts, persist the signature before
// the bytes leave, submit, verify the landed effects, settle. It runs with a
// context of its own, so a caller that went away cannot leave a reservation
// unsettled. The kind's writekind.Execution and CheckLanded supply the steps; the order is here.
func (h *Hub) run(id string, who caller, k writekind.Kind) {
	client := who.name
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.ExecutionTimeout)
	defer cancel()

	// 1. The approved bytes, held to the approval.
	ex, err := k.PrepareApproved(ctx, hubEnv{h: h, proposal: id}, id)
	if err != nil {
		h.finish(id, approval.StatusFailed, nothingSent(err.Error()), nil, store.ExecFailed)
		return
	}

	// 2. Reserve, judged on the fresh measure's facts like every decision.
	decision, err := h.opts.Spend.Reserve(id, h.opts.Policy, factsOf(ex.Kind, h.opts.Network, who))
	if err != nil {
		h.finish(id, approval.StatusFailed, "could not reserve the spend, nothing was signed or sent: "+err.Error(), nil, store.ExecFailed)
		return
	}
	if !decision.Allowed {
		decision = h.opts.Breaker.Observe(who.owner(), k.Args().Fingerprint(), decision)
		h.finish(id, approval.StatusFailed, fmt.Sprintf("denied at execution by %s: %s (nothing was signed or sent)", decision.Rule, decision.Reason), nil, store.ExecFailed)
		return
	}
	h.setKind(id, ex.Kind)
	h.publish(approval.EventSpendChanged, nil, "")

	// 3 and 4. Persist before anything leaves, then submit.
	var persisted atomic.Bool
	persist := func(sig solana.Signature) error {
		if err := h.opts.Spend.Sent(id, sig.String(), ex.LastValid); err != nil {
			return err
		}
		persisted.Store(true)
		// From here on the console shows what was actually signed.
		h.setKind(id, ex.Kind)
		return nil
	}
	res, err := ex.Send(ctx, persist, h.progressFor(id, client))
	if err != nil {
		h.settle(id, func() error { return h.opts.Spend.Release(id) })
		h.finish(id, approval.StatusFailed, "not sent: "+err.Error(), nil, store.ExecFailed)
		return
	}
	if !persisted.Load() && res.Signature != (solana.Signature{}) {
		// A kind that sent without persisting broke the skeleton's
		// invariant: a crash now would lose the signature. Record it late,
		// loudly, rather than not at all.
		h.log.Error("a write kind submitted without persisting its signature first", "proposal", id, "tool", k.Args().ToolName())
		h.audit("submitted_without_persist", id, map[string]any{"signature": res.Signature.String(), "tool": k.Args().ToolName()})
		if err := h.opts.Spend.Sent(id, res.Signature.String(), ex.LastValid); err != nil {
			h.log.Error("late persist failed", "proposal", id, "err", err)
		}
	}

	// 5. Verify what landed against what was approved.
	if res.Outcome.Landed() {
		ex.Kind.CheckLanded(ctx, hubEnv{h: h, proposal: id}, res)
	}
	h.setKind(id, ex.Kind)

	// 6. Settle by what the chain said.
	h.settleOutcome(id, res, ex.LastValid)
}

// nothingSent makes sure a failure before signing says so.
func nothingSent(reason string) string {
	if strings.Contains(reason, "nothing was signed or sent") {
		return reason
	}
	return reason + " (nothing was signed or sent)"
}

// setKind replaces the hub's copy of a proposal's kind and wakes waiters.
func (h *Hub) setKind(id string, k writekind.Kind) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.proposals[id]; p != nil {
		p.Kind = k.Clone()
		h.changedLocked(p)
	}
}
