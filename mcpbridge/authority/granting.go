package authority

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// ErrGrantsOff is returned when the console runs with --no-grants.
var ErrGrantsOff = errors.New("standing grants are turned off (--no-grants)")

// ceilingCap is the most a grant may spend: the session cap's remainder
// (the agent's own, within the console's) once the proposal being approved is counted.
func (h *Hub) ceilingCap(spend uint64, peer string) uint64 {
	own, _, _ := h.spendSummaryOf(caller{id: peer}) // the agent's own room, held to the total's
	rem := own.Remaining
	if rem <= spend {
		return 0
	}
	return rem - spend
}

// ApproveWithGrant approves pending proposal id as Approve does and grants
// its agent process t.Count more calls like it. The terms are checked
// first (a bad form changes nothing); the approval comes before the grant,
// so a grant never exists for a proposal that was not approved.
func (h *Hub) ApproveWithGrant(id, by string, t approval.GrantTerms) (*Proposal, Grant, error) {
	if h.opts.NoGrants {
		return nil, Grant{}, ErrGrantsOff
	}
	if t.Count < 1 || t.Count > approval.MaxGrantCount {
		return nil, Grant{}, fmt.Errorf("grant %s: count %d: give 1 to %d further calls", id, t.Count, approval.MaxGrantCount)
	}
	if t.For <= 0 || t.For > approval.MaxGrantFor {
		return nil, Grant{}, fmt.Errorf("grant %s: duration %s: give more than 0 and at most %s", id, t.For, approval.MaxGrantFor)
	}
	h.mu.Lock()
	p, err := h.pendingLocked(id, "grant")
	if err != nil {
		h.mu.Unlock()
		return nil, Grant{}, err
	}
	if agent, ok := h.opts.Policy.AgentFor(ownerOf(p.Peer)); ok && agent.NoGrants {
		h.mu.Unlock()
		return nil, Grant{}, fmt.Errorf("grant %s: %w for %s (no_grants in its [[agent]] section)", id, ErrGrantsOff, agent.Name())
	}
	a, ok := grantTerms(p.Kind)
	if !ok {
		h.mu.Unlock()
		return nil, Grant{}, fmt.Errorf("grant %s: %s is never covered by a grant (%s)", id, p.Tool, a.Never())
	}
	cp, amount := a.Counterparty(), a.Amount
	g := Grant{Grant: approval.Grant{Peer: p.Peer, Client: p.Client, Tool: p.Tool, Counterparty: cp, MaxAmount: amount, Amount: p.Kind.Amount(),
		Count: t.Count, Ceiling: t.Ceiling, From: p.ID}, proc: p.proc}
	spend := p.Spend
	_, socket := uidOf(p.Peer)
	h.mu.Unlock()
	if socket {
		// A grant trusts one running process. Bound to anything less (a
		// uid, a connection), a fork or whoever holds its connection
		// would inherit it.
		if !g.proc.Valid() {
			return nil, Grant{}, fmt.Errorf("grant %s: the kernel cannot vouch for one agent process behind this proposal (its client sent no process secret, or another process wrote on its connection): approve it on its own (a) instead", id)
		}
		w, err := host.WatchProcess(g.proc)
		if err != nil {
			return nil, Grant{}, fmt.Errorf("grant %s: %w", id, err)
		}
		g.watch = w
	}
	unwatch := func() {
		if g.watch != nil {
			g.watch.Close()
		}
	}
	fail := func(err error) (*Proposal, Grant, error) {
		unwatch()
		return nil, Grant{}, err
	}
	// A ceiling of 0 SOL is a bound only on a proposal that spends none (an
	// x402 payment: its calls are bounded by count, per-call amount and the
	// per-mint caps).
	if limit := h.ceilingCap(spend, g.Peer); (t.Ceiling == 0 && spend > 0) || t.Ceiling > limit {
		return fail(fmt.Errorf("grant %s: ceiling %s SOL: give more than 0 and at most %s SOL (what the session cap leaves after this proposal)",
			id, executor.FormatSOL(t.Ceiling), executor.FormatSOL(limit)))
	}

	snap, err := h.Approve(id, by)
	if err != nil {
		return fail(err)
	}
	if f := h.beforeGrantMade.Load(); f != nil {
		(*f)(id)
	}
	now := h.opts.Now()
	h.mu.Lock()
	if _, gone := h.departed[g.Peer]; gone {
		// Its bridge went away since the proposal was made: the presence's
		// end could not end a grant that did not exist yet, so none is made.
		h.mu.Unlock()
		unwatch()
		return snap, Grant{}, fmt.Errorf("grant %s: its agent disconnected, so no grant was made; the proposal itself is approved, once", id)
	}
	h.grantSeq++
	g.N = h.grantSeq
	g.CreatedAt, g.ExpiresAt = now, now.Add(t.For)
	h.grants[g.N] = &g
	// From here the live grant is the hub's, changed under h.mu by every
	// covered call: what follows reads a copy taken under the lock.
	made := g
	h.mu.Unlock()
	h.audit("grant_made", id, map[string]any{
		"grant": made.N, "by": by, "peer": made.Peer, "client": made.Client, "tool": made.Tool, "counterparty": made.Counterparty,
		"max_amount": fmt.Sprint(made.MaxAmount), "count": made.Count, "ceiling_lamports": fmt.Sprint(made.Ceiling),
		"expires_at": made.ExpiresAt.UTC().Format(time.RFC3339),
	})
	h.log.Info("grant made", "grant", made.N, "from", id, "by", by, "count", made.Count, "ceiling", made.Ceiling)
	h.events.Publish(Event{Kind: approval.EventGrantsChanged, At: now, Client: made.Client, Message: "GRANTED " + made.Describe() + ", for " + t.For.String()})
	// Expiry is also checked on every use (the clock may be a test's);
	// the timer takes it off the console's grants line on time.
	n := made.N
	time.AfterFunc(t.For, func() { h.endGrants(func(g *Grant) bool { return g.N == n }, "it expired") })
	if made.watch != nil {
		go func() {
			if made.watch.Wait() {
				h.endGrants(func(g *Grant) bool { return g.N == n }, fmt.Sprintf("its agent process (pid %d) exited", made.proc.PID()))
			}
		}()
	}
	return snap, made, nil
}

// applyGrant approves the just-queued proposal id when a live grant covers
// it, through decide like a human approval. Otherwise, if its agent holds
// grants, the proposal records why none applied, for the console and the
// agent. Nothing here can lift a cap: the proposal was judged by policy
// before it was queued, and its execution reserves against the caps as any
// other.
func (h *Hub) applyGrant(id string) {
	if h.opts.NoGrants {
		return
	}
	h.mu.Lock()
	p, ok := h.proposals[id]
	if !ok || p.Status != approval.StatusPending || p.deciding || len(h.grants) == 0 {
		h.mu.Unlock()
		return
	}
	g, miss := h.coveringLocked(p)
	if g == nil {
		if miss != "" {
			p.GrantMiss = miss
			h.changedLocked(p)
		}
		h.mu.Unlock()
		if miss != "" {
			h.publish(approval.EventGrantsChanged, &p.Proposal, id+" waits for you: "+miss)
		}
		return
	}
	// Claim the use before the decision is written, so two proposals
	// arriving together cannot both take the grant's last call. The claim
	// holds until the call's outcome is known: a call that lands keeps it,
	// one that ends without landing gives it back (settleGrantLocked).
	g.Used++
	g.Spent += p.Spend
	g.inFlight++
	p.Grant, p.grantClaim, p.grantSettled = g.N, p.Spend, false
	n := g.N
	// p.Grant is marked above, before the decision makes the token
	// visible: from then on only the granted process may see or use it
	// (caller.go).
	h.mu.Unlock()

	by := fmt.Sprintf("grant #%d", n)
	snap, err := h.decide(id, "approve", approval.StatusApproved, by, "")
	h.mu.Lock()
	if err != nil {
		// Nothing was approved: give the use back, unless the failed
		// decision's own change of status already did.
		if !p.grantSettled {
			h.giveBackLocked(p, "it was not approved")
		}
		p.Grant, p.grantClaim = 0, 0
	} else {
		snap.Grant = n
	}
	var used Grant
	if live, ok := h.grants[n]; ok {
		used = *live
	}
	h.mu.Unlock()
	if err != nil {
		h.log.Error("grant approval failed", "grant", n, "id", id, "err", err)
		return
	}
	h.publish(approval.EventProposalDecided, snap, "approved by "+by)
	h.log.Info("approved", "id", id, "by", by)
	h.events.Publish(Event{Kind: approval.EventGrantsChanged, At: h.opts.Now(), Client: used.Client, Message: "approved " + id + " by " + by + ": " + used.Describe()})
}

// coveringLocked finds the live grant covering p, or says why the agent's
// grants do not ("" when no grant is anywhere near: nothing to explain).
func (h *Hub) coveringLocked(p *queued) (*Grant, string) {
	a, ok := grantTerms(p.Kind)
	if !ok {
		return nil, p.Tool + " is never covered by a grant"
	}
	cp, amount := a.Counterparty(), a.Amount
	now := h.opts.Now()
	ns := make([]int, 0, len(h.grants))
	for n := range h.grants {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	miss := ""
	for _, n := range ns {
		g := h.grants[n]
		why := ""
		switch {
		case !g.binds(p):
			// Another process, whatever name it gives: the grant is the
			// human's trust in one running agent, not in a name.
			continue
		case !now.Before(g.ExpiresAt):
			why = "it expired"
		case g.Left() <= 0 && g.inFlight > 0:
			why = "all its calls were used, counting calls not yet landed (one that does not land gives its call back)"
		case g.Left() <= 0:
			why = "all its calls were used"
		case g.Tool != p.Tool:
			why = "it is for " + g.Tool + ", this is " + p.Tool
		case g.Counterparty != cp:
			why = "it is for " + g.Counterparty + ", this is for " + cp
		case amount > g.MaxAmount:
			why = fmt.Sprintf("this is %s, more than the %s granted per call", p.Kind.Amount(), g.Amount)
		case g.Spent > g.Ceiling || g.Ceiling-g.Spent < p.Spend:
			// Spent can pass the ceiling when a landed call cost more than
			// its claim: nothing is left then.
			left := g.Ceiling - min(g.Spent, g.Ceiling)
			why = fmt.Sprintf("this spends %s SOL and the grant has %s SOL of its ceiling left", executor.FormatSOL(p.Spend), executor.FormatSOL(left))
		default:
			return g, ""
		}
		if miss == "" {
			miss = fmt.Sprintf("grant #%d does not cover it: %s", g.N, why)
		}
	}
	return nil, miss
}
