package authority

import (
	"fmt"
	"sort"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// Grants lists the live grants, oldest first.
func (h *Hub) Grants() []Grant {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.grantsLocked(func(*Grant) bool { return true })
}

func (h *Hub) grantsLocked(keep func(*Grant) bool) []Grant {
	out := make([]Grant, 0, len(h.grants))
	now := h.opts.Now()
	for _, g := range h.grants {
		// A grant whose last calls are still open stays listed: a call
		// that does not land gives its use back.
		if now.Before(g.ExpiresAt) && (g.Left() > 0 || g.inFlight > 0) && keep(g) {
			out = append(out, *g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out
}

// EndGrant ends grant n (the console's grants list). It reports whether
// the grant was live.
func (h *Hub) EndGrant(n int, by string) bool {
	return h.endGrants(func(g *Grant) bool { return g.N == n }, "ended by "+by) > 0
}

// endGrants ends every grant match selects, audits and announces each.
func (h *Hub) endGrants(match func(*Grant) bool, why string) int {
	h.mu.Lock()
	var ended []Grant
	for n, g := range h.grants {
		if match(g) {
			ended = append(ended, *g)
			delete(h.grants, n)
		}
	}
	h.mu.Unlock()
	sort.Slice(ended, func(i, j int) bool { return ended[i].N < ended[j].N })
	for _, g := range ended {
		if g.watch != nil {
			g.watch.Close() // its waiter returns
		}
		h.audit("grant_ended", "", map[string]any{"grant": g.N, "reason": why, "used": g.Used, "spent_lamports": fmt.Sprint(g.Spent)})
		h.log.Info("grant ended", "grant", g.N, "reason", why)
		h.events.Publish(Event{Kind: approval.EventGrantsChanged, At: h.opts.Now(), Client: g.Client,
			Message: fmt.Sprintf("grant #%d ended: %s (%d/%d calls used)", g.N, why, g.Used, g.Count)})
	}
	return len(ended)
}

// endAllGrants ends every grant (x, pause).
func (h *Hub) endAllGrants(why string) int {
	return h.endGrants(func(*Grant) bool { return true }, why)
}

// settleGrantLocked tells the grant that approved p how p ended, once p's
// status is final: a call that landed (even with an error on chain: its fee
// was spent) keeps its use, and the ceiling holds what the chain says it
// spent; any other end (failed before landing, expired, refused at
// execution, its token unused or revoked) gives the use and its part of the
// ceiling back. Called from changedLocked, so no path that ends a proposal
// can forget it.
func (h *Hub) settleGrantLocked(p *queued) {
	if p.Grant == 0 || p.grantSettled || !p.Status.Final() {
		return
	}
	if p.Result != nil && p.Result.Outcome.Landed() {
		p.grantSettled = true
		g, live := h.grants[p.Grant]
		if !live {
			return
		}
		g.inFlight--
		g.Spent = g.Spent - p.grantClaim + landedOutflow(p.Result)
		return
	}
	h.giveBackLocked(p, "it did not land ("+string(p.Status)+")")
}

// giveBackLocked returns p's claim to its grant, if the grant still lives.
func (h *Hub) giveBackLocked(p *queued, why string) {
	p.grantSettled = true
	g, live := h.grants[p.Grant]
	if !live {
		return // ended meanwhile: there is nothing to give back to
	}
	g.inFlight--
	g.Used--
	g.Spent -= p.grantClaim
	h.log.Info("grant call given back", "grant", g.N, "proposal", p.ID, "why", why)
	// The broker never blocks, so announcing under the hub's lock is safe.
	h.events.Publish(Event{Kind: approval.EventGrantsChanged, At: h.opts.Now(), Client: g.Client,
		Message: fmt.Sprintf("grant #%d has its call back: %s %s; %s", g.N, p.ID, why, g.Describe())})
}

// endSpentGrant ends grant n once every call it granted has landed.
func (h *Hub) endSpentGrant(n int) {
	h.endGrants(func(g *Grant) bool { return g.N == n && g.Left() <= 0 && g.inFlight == 0 }, "all its calls were used")
}

// landedOutflow is what the wallet lost according to the landed
// transaction's effects: SOL and wrapped SOL together, fees and rent
// included; at least the fee it was charged.
func landedOutflow(res *executor.Result) uint64 {
	if res.Effects == nil {
		return res.Fee
	}
	return max(res.Effects.SOLOut(), res.Fee)
}

// changedLocked wakes everyone waiting on p and arms the next wait.
func (h *Hub) changedLocked(p *queued) {
	// Every change of status passes here, so a grant learns every outcome
	// of a call it approved, whichever path ended it.
	h.settleGrantLocked(p)
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}
