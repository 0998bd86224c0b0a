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
	p, ok := h.proposals[id]
	if !ok {
		h.mu.Unlock()
		return nil, fmt.Errorf("approve %s: no such proposal", id)
	}
	if p.Status != StatusPending {
		st := p.Status
		h.mu.Unlock()
		return nil, fmt.Errorf("approve %s: %w (it is %s)", id, ErrNotPending, st)
	}
	h.decideLocked(p, StatusApproved, by, "")
	token, expires, err := h.tokens.Issue(p.ID, p.Fingerprint, h.opts.TokenTTL)
	if err != nil {
		// Back to pending: nothing was issued.
		p.Status, p.DecidedBy = StatusPending, ""
		h.pendingByFP[p.Fingerprint] = p.ID
		h.mu.Unlock()
		return nil, fmt.Errorf("approve %s: issue token: %w", id, err)
	}
	p.Token, p.TokenExpires = token, expires
	snap := p.snapshot()
	h.mu.Unlock()

	if err := h.recordDecision(snap, store.OutcomeApproved); err != nil {
		// Unrecorded approvals must not execute.
		h.tokens.Revoke(id)
		h.mu.Lock()
		p.Status, p.Token, p.Reason = StatusFailed, "", "the approval could not be recorded: "+err.Error()
		h.changedLocked(p)
		h.mu.Unlock()
		return nil, fmt.Errorf("approve %s: %w", id, err)
	}
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
	p, ok := h.proposals[id]
	if !ok {
		h.mu.Unlock()
		return nil, fmt.Errorf("deny %s: no such proposal", id)
	}
	if p.Status != StatusPending {
		st := p.Status
		h.mu.Unlock()
		return nil, fmt.Errorf("deny %s: %w (it is %s)", id, ErrNotPending, st)
	}
	h.decideLocked(p, StatusDenied, by, reason)
	snap := p.snapshot()
	h.mu.Unlock()
	h.recordDecision(snap, store.OutcomeDenied)
	h.publish(EventProposalDecided, snap, reason)
	return snap, nil
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
