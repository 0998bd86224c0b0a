package hub

import (
	"errors"
	"fmt"

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
	h.mu.Lock()
	defer h.mu.Unlock()
	p, err := h.pendingLocked(id, "approve")
	if err != nil {
		return nil, err
	}
	if err := h.decideLocked(p, StatusApproved, by, ""); err != nil {
		return nil, fmt.Errorf("approve %s: the approval could not be recorded, so no token was issued: %w", id, err)
	}
	ttl := h.opts.TokenTTL
	ttl = p.Kind.TokenTTL(ttl) // a swap approval binds a price: it lapses sooner
	token, expires, err := h.tokens.Issue(p.ID, p.Fingerprint, ttl)
	if err != nil {
		// Recorded as approved but unusable: void it rather than leave it hanging.
		p.Status, p.Reason = StatusFailed, "no confirmation token could be issued: "+err.Error()
		h.changedLocked(p)
		return nil, fmt.Errorf("approve %s: issue token: %w", id, err)
	}
	p.Token, p.TokenExpires = token, expires
	snap := p.snapshot()
	h.publish(EventProposalDecided, snap, "")
	h.log.Info("approved", "id", id, "by", by)
	return snap, nil
}

// Deny refuses a pending proposal with an optional reason for the agent.
func (h *Hub) Deny(id, by, reason string) (*Proposal, error) {
	if reason == "" {
		reason = "denied by the operator"
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	p, err := h.pendingLocked(id, "deny")
	if err != nil {
		return nil, err
	}
	// A denial stands even if the store cannot record it: failing closed.
	_ = h.decideLocked(p, StatusDenied, by, reason)
	snap := p.snapshot()
	h.publish(EventProposalDecided, snap, reason)
	return snap, nil
}

func (h *Hub) pendingLocked(id, verb string) (*Proposal, error) {
	p, ok := h.proposals[id]
	if !ok {
		return nil, fmt.Errorf("%s %s: no such proposal", verb, id)
	}
	if p.Status != StatusPending {
		return nil, fmt.Errorf("%s %s: %w (it is %s)", verb, id, ErrNotPending, p.Status)
	}
	return p, nil
}

// DenyAllPending denies every pending proposal, e.g. when the console closes.
func (h *Hub) DenyAllPending(by, reason string) int {
	n := 0
	for _, p := range h.Proposals() {
		if p.Status == StatusPending {
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
	h.audit("paused", "", map[string]bool{"paused": paused})
	h.publish(EventPaused, nil, map[bool]string{true: "all writes paused", false: "writes resumed"}[paused])
}

// Paused reports whether writes are paused.
func (h *Hub) Paused() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.paused
}

// RevokeAll voids every outstanding token; their proposals become expired.
func (h *Hub) RevokeAll(by string) int {
	n := h.tokens.RevokeAll()
	h.mu.Lock()
	var revoked []*Proposal
	for _, p := range h.proposals {
		if p.Status == StatusApproved {
			p.Status, p.Token, p.Reason = StatusExpired, "", "the operator revoked the approval"
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
		h.publish(EventProposalExpired, p, p.Reason)
	}
	h.publish(EventTokensRevoked, nil, fmt.Sprintf("%d outstanding token(s) revoked", n))
	return n
}

// ResumeClient lifts the retry breaker's pause on one client.
func (h *Hub) ResumeClient(client string) {
	h.opts.Breaker.Resume(client)
	h.audit("client_resumed", "", map[string]string{"client": client})
	h.publish(EventPaused, nil, client+" may propose again")
}

// PausedClients lists clients the retry breaker has paused.
func (h *Hub) PausedClients() []string { return h.opts.Breaker.PausedClients() }
