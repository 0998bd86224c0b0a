package authority

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/answer"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/reconcile"
	"github.com/solgate/solgate/mcpbridge/authority/tokens"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy/store"
)

// executeConfirmed handles a write tool called again with confirm. The token
// is consumed whatever happens next; then run re-checks policy and reserves
// the spend atomically from a fresh simulation, and only then is anything
// signed.
func (h *Hub) executeConfirmed(ctx context.Context, who caller, fp, confirm string, run func(p *Proposal)) wire.CallResult {
	client := who.name
	id, err := h.tokens.Consume(confirm, fp)
	var te *tokens.Error
	switch {
	case errors.As(err, &te) && !h.ownedBy(who, te.ProposalID):
		// Used, expired or mismatched, but not this caller's to know.
		h.foreignToken(who, te.ProposalID, fp, burned(err))
		return answer.Refused(tokens.ErrUnknown.Error())
	case err != nil:
		h.tokenRefused(client, fp, err)
		return answer.Refused(err.Error())
	}
	if f := h.afterConsume.Load(); f != nil {
		(*f)(id)
	}

	h.mu.Lock()
	p, ok := h.proposals[id]
	switch {
	case !ok:
		h.mu.Unlock()
		return answer.Refused("the proposal behind this token no longer exists; propose again")
	case !who.owns(p):
		// Someone else's token: the answer is an unknown token's, and the
		// token is spent like any other presented one (fail closed: it
		// leaked, so its own proposal is void too).
		h.mu.Unlock()
		h.foreignToken(who, id, fp, true)
		return answer.Refused(tokens.ErrUnknown.Error())
	case p.Status != approval.StatusApproved:
		st := p.Status
		h.mu.Unlock()
		return answer.Refused(fmt.Sprintf("proposal %s is %s, not approved; the token is void", id, st))
	case h.paused:
		p.Status, p.Reason = approval.StatusFailed, "writes were paused by the operator before execution"
		h.changedLocked(p)
		snap := p.snapshot()
		h.mu.Unlock()
		h.recordExecution(snap, store.ExecFailed)
		h.publish(approval.EventExecuted, snap, snap.Reason)
		return answer.Refused("the operator paused all writes; nothing was signed or sent and the token is void. Propose again after they resume.")
	case h.closed:
		h.mu.Unlock()
		return answer.Refused("the console is shutting down; nothing was signed or sent")
	}
	p.Status = approval.StatusExecuting
	h.changedLocked(p)
	snap := p.snapshot()
	h.executions.Add(1)
	h.mu.Unlock()
	h.publish(approval.EventExecuting, snap, "")

	done := make(chan struct{})
	go func() {
		defer h.executions.Done()
		defer close(done)
		run(snap)
	}()

	// MCP clients cancel long calls, so the answer comes within ExecuteWait;
	// past that the execution goes on and proposal_status reports the outcome.
	timer := time.NewTimer(h.opts.ExecuteWait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-ctx.Done():
	}
	final, _ := h.Proposal(id)
	return answer.Execution(final)
}

// progressFor reports an execution's steps as events and notes the
// signature on the proposal once it is known.
func (h *Hub) progressFor(id, client string) func(executor.Progress) {
	return func(pr executor.Progress) {
		if pr.Step == executor.StepSending {
			h.mu.Lock()
			if p := h.proposals[id]; p != nil {
				p.Signature = pr.Signature.String()
				h.changedLocked(p)
			}
			h.mu.Unlock()
		}
		pc := pr
		h.events.Publish(Event{Kind: approval.EventExecuting, At: h.opts.Now(), Client: client, Progress: &pc, Proposal: &Proposal{ID: id}})
	}
}

// settleOutcome settles the reservation by what the chain said, then
// finishes the proposal. A landed one settles at its landed effects (SOL and
// wrapped SOL out, fees and rent included), measured by the effects engine
// from the transaction's own meta. An unknown outcome stays reserved and is
// followed in the background until the chain settles it.
func (h *Hub) settleOutcome(id string, res *executor.Result, lastValid uint64) {
	// An x402 payment's record is needed only while its outcome is open
	// (by the follower here; by the store after a restart).
	h.mu.Lock()
	pay, isX402 := h.x402[id]
	delete(h.x402, id)
	h.mu.Unlock()
	var settle func() error
	switch res.Outcome {
	case executor.Executed, executor.Failed, executor.ExecutedWithUnexpectedEffects:
		// Landed: the chain's numbers are what was spent.
		settle = func() error {
			return h.opts.Spend.SettleMeasured(id, landedOutflow(res), reconcile.LandedTokens(res.Effects))
		}
	case executor.Expired, executor.Rejected:
		settle = func() error { return h.opts.Spend.Release(id) }
	case executor.Unknown:
		// Keep it reserved: it may still land.
		settle = func() error { return h.opts.Spend.Unknown(id, res.Signature.String()) }
	}
	switch res.Outcome {
	case executor.Executed:
		h.finishSettling(id, approval.StatusExecuted, "", res, store.ExecExecuted, settle)
	case executor.ExecutedWithUnexpectedEffects:
		h.audit("executed_with_unexpected_losses", id, map[string]any{"signature": res.Signature.String(), "reason": res.Reason})
		h.finishSettling(id, approval.StatusLosses, res.Reason, res, store.ExecLosses, settle)
	case executor.Unknown:
		h.finishSettling(id, approval.StatusSubmitted, res.Reason, res, store.ExecUnknown, settle)
		var x402 *executor.X402Record
		if isX402 {
			x402 = &pay
		}
		h.follow(id, res.Signature, lastValid, x402)
	case executor.Expired, executor.Rejected:
		// Both provably never landed; the store's "expired" means exactly that.
		h.finishSettling(id, approval.StatusFailed, res.Reason, res, store.ExecExpired, settle)
	default:
		h.finishSettling(id, approval.StatusFailed, res.Reason, res, store.ExecFailed, settle)
	}
}

// follow keeps asking the chain about a signature whose outcome was unknown
// (RPC trouble, or the execution deadline) until it is found or can no longer
// land, then settles and finishes the proposal. If the console closes first,
// the next one's Reconcile takes over from the stored signature.
//
// An x402 payment (pay non-nil) is followed by its exact message in the
// payer token account's history instead (byMessage), never by the signature
// the server gave.
func (h *Hub) follow(id string, sig solana.Signature, lastValid uint64, pay *executor.X402Record) {
	h.executions.Add(1)
	go func() {
		defer h.executions.Done()
		ticker := time.NewTicker(h.opts.FollowInterval)
		defer ticker.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-ticker.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			var v reconcile.Verdict
			var landing executor.Landing
			var err error
			if pay != nil {
				v, landing, err = reconcile.Fate(ctx, h.opts.Executor, reconcile.ByMessage(h.opts.Executor, *pay), pay.LastValid)
			} else {
				v, landing, err = reconcile.Fate(ctx, h.opts.Executor, reconcile.BySignature(h.opts.Executor, sig), lastValid)
			}
			cancel()
			h.followRounds.Add(1)
			if err != nil {
				h.log.Info("following unknown outcome", "proposal", id, "err", err)
				continue
			}
			switch v {
			case reconcile.Landed:
				h.settle(id, func() error {
					return h.opts.Spend.SettleMeasured(id, landing.Outflow, reconcile.LandedTokens(landing.Effects))
				})
				res := &executor.Result{Outcome: executor.Executed, Signature: sig, Slot: landing.Slot, Fee: landing.Fee, ChainErr: landing.ChainErr, Changes: landing.Changes, Effects: landing.Effects}
				if pay != nil {
					// The facilitator paid the network fee, not the wallet.
					res.Signature, res.Fee = landing.Signature, 0
				}
				past := ""
				if pay != nil && landing.ChainErr == nil {
					past = pay.PastApproved(landing.Effects)
				}
				switch {
				case landing.ChainErr != nil:
					res.Outcome, res.Reason = executor.Failed, "the transaction landed but failed on chain"
					h.finish(id, approval.StatusFailed, res.Reason, res, store.ExecFailed)
				case past != "":
					// Settled at what moved; shown as more than approved.
					res.Outcome, res.Reason = executor.ExecutedWithUnexpectedEffects, "the payment landed and moved more than was approved: "+past
					h.audit("executed_with_unexpected_losses", id, map[string]any{"signature": res.Signature.String(), "reason": res.Reason})
					h.finish(id, approval.StatusLosses, res.Reason, res, store.ExecLosses)
				default:
					why := ""
					if pay != nil {
						why = fmt.Sprintf("the payment landed: found on chain by its exact message in %s's history (signature %s), whatever the server said", pay.Source, res.Signature)
					}
					h.finish(id, approval.StatusExecuted, why, res, store.ExecExecuted)
				}
				return
			case reconcile.NeverLanded:
				h.settle(id, func() error { return h.opts.Spend.Release(id) })
				res := &executor.Result{Outcome: executor.Expired, Signature: sig, Reason: "the blockhash expired and the signature is not on chain: it never landed; nothing was spent"}
				if pay != nil {
					res.Reason = fmt.Sprintf("the payment never landed: the chain is past its last valid block height %d and %s's history holds no transaction with its message; nothing was spent", pay.LastValid, pay.Source)
				}
				h.finish(id, approval.StatusFailed, res.Reason, res, store.ExecExpired)
				return
			}
		}
	}()
}

func (h *Hub) settle(id string, fn func() error) {
	if err := fn(); err != nil {
		h.log.Error("spend settlement failed", "proposal", id, "err", err)
	}
	h.publish(approval.EventSpendChanged, nil, "")
}

func (h *Hub) finish(id string, st approval.Status, reason string, res *executor.Result, outcome string) {
	h.finishSettling(id, st, reason, res, outcome, nil)
}

// finishSettling is finish with the spend's settlement (settle, through
// h.settle; nil: none) run between the queueing of the execution record
// and the wait for it, so the two commit as one transaction (one fsync
// where there were two); either way both are durable before the
// proposal's new status can be read.
func (h *Hub) finishSettling(id string, st approval.Status, reason string, res *executor.Result, outcome string, settle func() error) {
	settled := func() {
		if settle != nil {
			h.settle(id, settle)
		}
	}
	h.mu.Lock()
	p, ok := h.proposals[id]
	if !ok {
		h.mu.Unlock()
		settled()
		return
	}
	next := p.snapshot()
	next.Status, next.Reason, next.Result = st, reason, res
	if res != nil {
		next.Signature = res.Signature.String()
	}
	h.mu.Unlock()
	// Recorded before anyone can read it: an agent told "executed" finds
	// the same in the database, even if the console dies right after.
	recorded := h.queueExecution(next, outcome)
	settled()
	recorded()
	h.mu.Lock()
	p.Status, p.Reason, p.Result, p.Signature = next.Status, next.Reason, next.Result, next.Signature
	h.changedLocked(p)
	snap := p.snapshot()
	h.mu.Unlock()
	h.publish(approval.EventExecuted, snap, reason)
	h.log.Info("execution finished", "id", id, "status", st, "signature", snap.Signature)
	if snap.Grant != 0 && st.Final() {
		// Only a call that landed uses a grant's call up, so only here can
		// its last call be used.
		h.endSpentGrant(snap.Grant)
	}
}

// tokenRefused records a refused token: audited, shown in the console, and
// the proposal it was bound to fails, so the agent learns from
// proposal_status that it must propose again.
func (h *Hub) tokenRefused(client, fp string, err error) {
	var id string
	var te *tokens.Error
	if errors.As(err, &te) {
		id = te.ProposalID
	}
	h.audit("token_refused", id, map[string]any{"client": client, "fingerprint": fp, "error": err.Error()})
	h.events.Publish(Event{Kind: approval.EventRefused, At: h.opts.Now(), Client: client, Message: fmt.Sprintf("%s: confirmed call refused: %v", client, err)})
	// Only the call that burned the token (other arguments, or after
	// expiry) voids its proposal. A replay of a used token must not: the
	// call that used it may be between its Consume and marking the
	// proposal executing, and voiding it there failed a legitimate
	// execution that 16 concurrent callers raced (TestAdversarialTokens).
	if id != "" && burned(err) {
		h.failApproved(id, "its confirmation token was used with different arguments or after expiry: "+err.Error())
	}
}

// burned reports whether the refused call was the one that spent the token
// (with other arguments, or after its expiry), rather than a replay of a
// token another call already used or the operator revoked.
func burned(err error) bool {
	return errors.Is(err, tokens.ErrMismatch) || errors.Is(err, tokens.ErrExpired)
}

// foreignToken records a token presented by a caller that does not own its
// proposal (caller.go): audited, shown to the operator, and the proposal
// it was issued for is void when this call spent its token (a replay of a
// used one leaves the call that used it alone; see tokenRefused).
func (h *Hub) foreignToken(who caller, id, fp string, spent bool) {
	h.audit("token_refused", id, map[string]any{"client": who.name, "peer": who.id, "fingerprint": fp,
		"error": "presented by a caller that does not own the proposal"})
	h.events.Publish(Event{Kind: approval.EventRefused, At: h.opts.Now(), Client: who.name,
		Message: fmt.Sprintf("%s (%s): confirmed call with the token of %s, which it does not own, refused; that token is void", who.name, ownerOf(who.id), id)})
	if spent {
		h.failApproved(id, "its confirmation token was presented by another user or process, so it is void; propose again")
	}
}

// ownedBy reports whether the proposal id, if the console still holds it,
// belongs to who.
func (h *Hub) ownedBy(who caller, id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.proposals[id]
	return !ok || who.owns(p)
}

// malformedCall answers arguments that do not parse. A confirm token among
// them is voided all the same: any call that presents a token spends it, so
// a token never survives being sent with arguments other than the approved
// ones, readable or not.
func (h *Hub) malformedCall(who caller, req wire.CallRequest, err error) wire.CallResult {
	client := who.name
	msg := err.Error()
	var loose struct {
		Confirm string `json:"confirm"`
	}
	if json.Unmarshal(req.Arguments, &loose) == nil && loose.Confirm != "" {
		if _, terr := h.tokens.Consume(loose.Confirm, ""); terr != nil && !errors.Is(terr, tokens.ErrUnknown) {
			var te *tokens.Error
			switch {
			case errors.As(terr, &te) && !h.ownedBy(who, te.ProposalID):
				// writekind.Answered as an unknown token is: nothing about it.
				h.foreignToken(who, te.ProposalID, "", burned(terr))
			case errors.Is(terr, tokens.ErrMismatch):
				msg += " The confirm token sent with these arguments is now void: a token is spent by any call that presents it. Propose again by calling the tool without confirm."
				h.tokenRefused(client, "", terr)
			default:
				h.tokenRefused(client, "", terr)
			}
		}
	}
	return wire.ToolError(msg)
}

// failApproved voids an approved proposal whose token was burned by a bad call.
func (h *Hub) failApproved(id, reason string) {
	h.mu.Lock()
	p, ok := h.proposals[id]
	if !ok || p.Status != approval.StatusApproved {
		h.mu.Unlock()
		return
	}
	p.Status, p.Reason = approval.StatusFailed, reason
	h.changedLocked(p)
	snap := p.snapshot()
	h.mu.Unlock()
	h.recordExecution(snap, store.ExecFailed)
	h.publish(approval.EventExecuted, snap, reason)
}
