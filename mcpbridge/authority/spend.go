package authority

import (
	"slices"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy"
)

// SpendSummary reports the console's caps and the live spend of all agents
// together, with each sectioned agent's own budget.
func (h *Hub) SpendSummary() approval.SpendSummary {
	v := h.summarize(h.opts.Policy, h.opts.Spend.State())
	for _, a := range h.opts.Policy.Agents {
		v.Agents = append(v.Agents, approval.AgentSpend{UID: a.UID, Label: a.Label, SpendSummary: h.summarize(a.Config, h.opts.Spend.AgentState(a.Owner()))})
	}
	return v
}

// spendSummaryOf is the budget who may know of: with a section, its own
// caps and spend, its remaining room held to what all agents together leave
// (total is that figure: the console's remaining room); without, the
// console's. Never another agent's.
func (h *Hub) spendSummaryOf(who caller) (own approval.SpendSummary, agent *policy.Agent, total approval.SpendSummary) {
	total = h.summarize(h.opts.Policy, h.opts.Spend.State())
	a, ok := h.opts.Policy.AgentFor(who.owner())
	if !ok {
		return total, nil, total
	}
	own = h.summarize(a.Config, h.opts.Spend.AgentState(a.Owner()))
	own.Remaining = min(own.Remaining, total.Remaining)
	if own.PerDay > 0 && total.PerDay > 0 {
		own.DayRemaining = min(own.DayRemaining, total.DayRemaining)
	}
	return own, &a, total
}

// summarize is one budget's caps (cfg) and spend (s).
func (h *Hub) summarize(cfg policy.Config, s policy.SpendState) approval.SpendSummary {
	v := approval.SpendSummary{
		Network: h.opts.Network, PerTx: cfg.MaxLamportsPerTx, PerSession: cfg.MaxLamportsPerSession, PerDay: cfg.MaxLamportsPerDay,
		Spent: s.SessionSpent, Reserved: s.SessionReserved, DaySpent: s.DaySpent, DayReserved: s.DayReserved, Paused: h.Paused(),
	}
	if used := writekind.SumOrMax(s.SessionSpent, s.SessionReserved); used < cfg.MaxLamportsPerSession {
		v.Remaining = cfg.MaxLamportsPerSession - used
	}
	if used := writekind.SumOrMax(s.DaySpent, s.DayReserved); cfg.MaxLamportsPerDay > 0 && used < cfg.MaxLamportsPerDay {
		v.DayRemaining = cfg.MaxLamportsPerDay - used
	}
	mints := cfg.CappedMints()
	for m := range s.Tokens {
		if !slices.Contains(mints, m) {
			mints = append(mints, m)
		}
	}
	slices.Sort(mints)
	for _, m := range mints {
		t := s.Tokens[m]
		ts := approval.TokenSpend{Mint: m, Spent: t.SessionSpent, Reserved: t.SessionReserved, DaySpent: t.DaySpent, DayReserved: t.DayReserved}
		ts.PerTx, ts.PerSession, ts.PerDay = cfg.TokenCapsFor(m)
		v.Tokens = append(v.Tokens, ts)
	}
	return v
}
