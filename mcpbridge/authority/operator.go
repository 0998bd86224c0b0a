package authority

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/reconcile"
	"github.com/solgate/solgate/policy/store"
)

// The operator's actions. Only these mint tokens; nothing reachable from the
// socket calls them.

// ErrNotPending is returned when a decision targets a proposal that is no
// longer waiting for one (the first decision wins).
var ErrNotPending = errors.New("proposal is not pending")

// Approve issues the single-use token for a pending proposal. The decision is
// recorded before the token exists, so an approval without a trace cannot
// happen. A second approval of the same proposal is ErrNotPending.
func (h *Hub) Approve(id, by string) (*Proposal, error) {
	snap, err := h.decide(id, "approve", approval.StatusApproved, by, "")
	if err != nil {
		return nil, err
	}
	answerWaitersFirst()
	h.publish(approval.EventProposalDecided, snap, "")
	h.log.Info("approved", "id", id, "by", by)
	return snap, nil
}

// Deny refuses a pending proposal with an optional reason for the agent.
func (h *Hub) Deny(id, by, reason string) (*Proposal, error) {
	if reason == "" {
		reason = "denied by the operator"
	}
	snap, err := h.decide(id, "deny", approval.StatusDenied, by, reason)
	if err != nil {
		return nil, err
	}
	answerWaitersFirst()
	h.publish(approval.EventProposalDecided, snap, reason)
	return snap, nil
}

// decide claims a pending proposal, records the decision in the store with
// the hub unlocked, and only then applies it. The decision's write is queued
// after the proposal's own insert (enqueue), so it is durable only once that
// insert is, and a token never precedes either. The write fsyncs; holding h.mu
// across it would make every call from every bridge, reads included, wait
// behind each decision's disk write.
//
// The claim (p.deciding) is what keeps "first caller wins" without the lock:
// a second approval, denial or the expiry timer finds the proposal claimed
// and backs off. Readers meanwhile still see it pending, which it is until
// the record exists. When an approval cannot be recorded the claim is
// dropped and the proposal stays pending (no token without a trace); a
// denial or expiry stands anyway, failing closed. The returned proposal is
// a snapshot. An approval's token is issued in the same locked section that
// makes the approval visible, so nobody sees "approved" without its token.
func (h *Hub) decide(id, verb string, st approval.Status, by, reason string) (*Proposal, error) {
	h.mu.Lock()
	p, err := h.pendingLocked(id, verb)
	if err != nil {
		h.mu.Unlock()
		return nil, err
	}
	p.deciding = true
	d := store.Decision{
		ProposalID: p.ID, DecidedBy: by, DecidedAt: h.opts.Now(),
		Outcome: map[approval.Status]string{approval.StatusApproved: store.OutcomeApproved, approval.StatusDenied: store.OutcomeDenied, approval.StatusExpired: store.OutcomeExpired}[st],
		Reason:  reason,
	}
	d.Latency = d.DecidedAt.Sub(p.CreatedAt)
	h.mu.Unlock()

	err = h.recordDecision(d)

	h.mu.Lock()
	defer h.mu.Unlock()
	p.deciding = false
	if p.Status != approval.StatusPending {
		// Withdrawn while the decision was written: its insert failed, so
		// the decision found no row either (see enqueue).
		return nil, fmt.Errorf("%s %s: %w (it is %s: %s)", verb, id, ErrNotPending, p.Status, p.Reason)
	}
	if err != nil && st == approval.StatusApproved {
		// Still pending; if its time ran out while the write failed, the
		// expiry that backed off from the claim is due now.
		if !h.opts.Now().Before(p.ExpiresAt) {
			go h.expireUndecided(p.ID)
		}
		return nil, fmt.Errorf("%s %s: the approval could not be recorded, so no token was issued: %w", verb, id, err)
	}
	p.Status, p.DecidedBy, p.Reason, p.DecidedAt = st, by, reason, d.DecidedAt
	h.unpendLocked(p)
	if st == approval.StatusApproved {
		ttl := p.Kind.TokenTTL(h.opts.TokenTTL) // a swap approval binds a price: it lapses sooner
		token, expires, err := h.tokens.Issue(p.ID, p.Fingerprint, ttl)
		if err != nil {
			// Recorded as approved but unusable: void it rather than leave it hanging.
			p.Status, p.Reason = approval.StatusFailed, "no confirmation token could be issued: "+err.Error()
			h.changedLocked(p)
			return nil, fmt.Errorf("approve %s: issue token: %w", id, err)
		}
		p.Token, p.TokenExpires = token, expires
	}
	h.changedLocked(p)
	return p.snapshot(), nil
}

// answerWaitersFirst lets the agent's proposal_status, which decide just
// woke, answer before this goroutine wakes the console's subscribers: the
// goroutine woken last runs first on this P, and the event's subscribers
// (the console redraws) pushed the waiting call behind them (its wake-up
// wait had a p99 of about 1 ms on a busy 2-core machine). The console's
// event comes that much later; nothing waits on it.
func answerWaitersFirst() { runtime.Gosched() }

func (h *Hub) pendingLocked(id, verb string) (*queued, error) {
	p, ok := h.proposals[id]
	if !ok {
		return nil, fmt.Errorf("%s %s: no such proposal", verb, id)
	}
	if p.Status != approval.StatusPending {
		return nil, fmt.Errorf("%s %s: %w (it is %s)", verb, id, ErrNotPending, p.Status)
	}
	if p.deciding {
		return nil, fmt.Errorf("%s %s: %w (another decision on it is being recorded)", verb, id, ErrNotPending)
	}
	return p, nil
}

// DenyAllPending denies every pending proposal, e.g. when the console closes.
func (h *Hub) DenyAllPending(by, reason string) int {
	n := 0
	for _, p := range h.Proposals() {
		if p.Status == approval.StatusPending {
			if _, err := h.Deny(p.ID, by, reason); err == nil {
				n++
			}
		}
	}
	return n
}

// SetPaused stops (or resumes) all writes: new proposals are denied and
// confirmed calls are refused while paused.
func (h *Hub) SetPaused(paused bool) {
	h.mu.Lock()
	h.paused = paused
	h.mu.Unlock()
	if paused {
		h.endAllGrants("the operator paused all writes")
	}
	h.audit("paused", "", map[string]bool{"paused": paused})
	h.publish(approval.EventPaused, nil, map[bool]string{true: "all writes paused", false: "writes resumed"}[paused])
}

// Paused reports whether writes are paused.
func (h *Hub) Paused() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.paused
}

// RevokeAll voids every outstanding token; their proposals become expired.
func (h *Hub) RevokeAll(by string) int {
	// Grants first: no covered proposal may be approved after x.
	h.endAllGrants("the operator revoked every token and grant")
	n := h.tokens.RevokeAll()
	h.mu.Lock()
	var revoked []*Proposal
	for _, p := range h.proposals {
		if p.Status == approval.StatusApproved {
			p.Status, p.Token, p.Reason = approval.StatusExpired, "", "the operator revoked the approval"
			h.changedLocked(p)
			revoked = append(revoked, p.snapshot())
		}
	}
	h.mu.Unlock()
	for _, p := range revoked {
		h.recordExecution(p, store.ExecExpired)
	}
	h.audit("tokens_revoked", "", map[string]any{"by": by, "count": n})
	// Each proposal's own event, so a console showing it as approved (with
	// its token, under operator delivery) repaints it as expired.
	for _, p := range revoked {
		h.publish(approval.EventProposalExpired, p, p.Reason)
	}
	h.publish(approval.EventTokensRevoked, nil, fmt.Sprintf("%d outstanding token(s) revoked", n))
	return n
}

// ResumeClient lifts the retry breaker's pause on one client.
func (h *Hub) ResumeClient(client string) {
	h.opts.Breaker.Resume(client)
	h.audit("client_resumed", "", map[string]string{"client": client})
	h.publish(approval.EventPaused, nil, client+" may propose again")
}

// PausedClients lists clients the retry breaker has paused.
func (h *Hub) PausedClients() []string { return h.opts.Breaker.PausedClients() }

// unpendLocked takes p out of the pending counts (same-arguments lookup
// and flood limits), once, when it stops waiting for a decision.
func (h *Hub) unpendLocked(p *queued) {
	owner := ownerOf(p.Peer)
	if key := pendingKey(owner, p.Fingerprint); h.pendingByFP[key] == p.ID {
		delete(h.pendingByFP, key)
		if h.pendingOf[owner] > 1 {
			h.pendingOf[owner]--
		} else {
			delete(h.pendingOf, owner)
		}
	}
}

// expireUndecided fails a proposal closed when nobody decided in time. A
// proposal whose decision is being recorded is left to that decision.
func (h *Hub) expireUndecided(id string) {
	snap, err := h.decide(id, "expire", approval.StatusExpired, "timeout", "no decision within "+h.opts.ProposalTTL.String()+" (denied by timeout)")
	if err != nil {
		return // decided already, or being decided
	}
	h.publish(approval.EventProposalExpired, snap, snap.Reason)
}

// recordDecision writes a decision to the store (fsynced). It is called
// without h.mu; see decide.
func (h *Hub) recordDecision(d store.Decision) error {
	if h.beforeDecisionWrite != nil {
		h.beforeDecisionWrite(d.ProposalID)
	}
	if h.opts.Store == nil {
		return nil
	}
	err := h.opts.Store.RecordDecision(d)
	if err != nil {
		h.log.Error("record decision failed", "proposal", d.ProposalID, "err", err)
	}
	return err
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
		if q.Status == approval.StatusPending && ownerOf(q.Peer) == owner {
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

func (h *Hub) recordExecution(p *Proposal, outcome string) { h.queueExecution(p, outcome)() }

// queueExecution puts p's execution record in line for the next commit and
// returns the wait for it: a write made before the wait (the settlement)
// commits with it.
func (h *Hub) queueExecution(p *Proposal, outcome string) (wait func()) {
	if h.opts.Store == nil {
		return func() {}
	}
	if p.Signature == "" {
		// Refused before anything was signed: there is no execution to
		// record, only the proposal's new status (audited by the store).
		if err := h.opts.Store.SetProposalStatus(p.ID, outcome); err != nil {
			h.log.Error("record proposal status failed", "proposal", p.ID, "err", err)
		}
		return func() {}
	}
	e := store.Execution{ProposalID: p.ID, Signature: p.Signature, Outcome: outcome, At: h.opts.Now()}
	if p.Result != nil {
		e.Slot, e.Fee = p.Result.Slot, p.Result.Fee
		e.Deltas = reconcile.DeltasJSON(p.Result.Changes)
	}
	q := h.opts.Store.QueueExecution(e)
	return func() {
		if err := q.Wait(); err != nil {
			h.log.Error("record execution failed", "proposal", p.ID, "err", err)
		}
	}
}
