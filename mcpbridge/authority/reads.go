package authority

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/chainreads"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// SpendSummary reports the console's caps and the live spend of all agents
// together, with each sectioned agent's own budget.
func (h *Hub) SpendSummary() SpendSummary {
	v := h.summarize(h.opts.Policy, h.opts.Spend.State())
	for _, a := range h.opts.Policy.Agents {
		v.Agents = append(v.Agents, AgentSpend{UID: a.UID, Label: a.Label, SpendSummary: h.summarize(a.Config, h.opts.Spend.AgentState(a.Owner()))})
	}
	return v
}

// spendSummaryOf is the budget who may know of: with a section, its own
// caps and spend, its remaining room held to what all agents together leave
// (total is that figure: the console's remaining room); without, the
// console's. Never another agent's.
func (h *Hub) spendSummaryOf(who caller) (own SpendSummary, agent *policy.Agent, total SpendSummary) {
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
func (h *Hub) summarize(cfg policy.Config, s policy.SpendState) SpendSummary {
	v := SpendSummary{
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
		ts := TokenSpend{Mint: m, Spent: t.SessionSpent, Reserved: t.SessionReserved, DaySpent: t.DaySpent, DayReserved: t.DayReserved}
		ts.PerTx, ts.PerSession, ts.PerDay = cfg.TokenCapsFor(m)
		v.Tokens = append(v.Tokens, ts)
	}
	return v
}

func (h *Hub) spendStatus(who caller) wire.CallResult {
	v, agent, total := h.spendSummaryOf(who)
	structured := map[string]any{
		"network":              string(v.Network),
		"max_lamports_per_tx":  fmt.Sprint(v.PerTx),
		"max_lamports_session": fmt.Sprint(v.PerSession),
		"spent_lamports":       fmt.Sprint(v.Spent),
		"reserved_lamports":    fmt.Sprint(v.Reserved),
		"remaining_lamports":   fmt.Sprint(v.Remaining),
		"paused":               v.Paused,
	}
	if v.PerDay > 0 {
		structured["max_lamports_per_day"] = fmt.Sprint(v.PerDay)
		structured["day_remaining_lamports"] = fmt.Sprint(v.DayRemaining)
	}
	tokens := make([]map[string]any, 0, len(v.Tokens))
	for _, t := range v.Tokens {
		tokens = append(tokens, map[string]any{
			"mint": t.Mint, "max_per_tx": t.PerTx, "max_per_session": t.PerSession, "max_per_day": t.PerDay,
			"spent": fmt.Sprint(t.Spent), "reserved": fmt.Sprint(t.Reserved),
			"day_spent": fmt.Sprint(t.DaySpent), "day_reserved": fmt.Sprint(t.DayReserved),
		})
	}
	structured["tokens"] = tokens
	text := capsText(v)
	if agent != nil {
		// The caller's own budget; the console's total only as the room it
		// leaves, so no agent learns another's spend.
		structured["agent"] = map[string]any{"uid": agent.UID, "label": agent.Label}
		structured["total_remaining_lamports"] = fmt.Sprint(total.Remaining)
		text = "Your budget, " + agent.Name() + ": " + text + "\nAll agents together have " + executor.FormatSOL(total.Remaining) + " SOL of the console's session cap left."
		if total.PerDay > 0 {
			structured["total_day_remaining_lamports"] = fmt.Sprint(total.DayRemaining)
		}
	}
	structured["allow_uncapped_token_transfers"] = h.opts.Policy.AllowUncappedTokenTransfers
	// Who can reach the key and the console, so an honest agent can tell
	// its user when the setup does not keep it out.
	grants := h.grantsOf(who)
	structured["grants"] = grants
	text += "\n" + grantsText(grants)
	warnings := h.Warnings()
	if e := h.opts.Exposure; e != nil {
		structured["safety"] = e.Structured(warnings)
		text += "\nSafety of this setup:\n  " + strings.Join(e.Report(), "\n  ")
	} else {
		structured["safety"] = map[string]any{"warnings": append([]string{}, warnings...)}
	}
	for _, w := range warnings {
		text += "\nWARNING: " + w
	}
	return wire.CallResult{Text: text, Structured: structured}
}

// readTool is one read tool's entry: its parser and its handler, side by
// side, as a write kind's registration pairs them.
type readTool struct {
	parse  func(raw map[string]any) (args.Args, error)
	handle func(ctx context.Context, h *Hub, who caller, a args.Args) wire.CallResult
}

// readEntry pairs a typed parser with its typed handler.
func readEntry[T args.Args](parse func(map[string]any) (T, error), handle func(ctx context.Context, h *Hub, who caller, a T) wire.CallResult) readTool {
	return readTool{
		parse: func(raw map[string]any) (args.Args, error) {
			a, err := parse(raw)
			if err != nil {
				return nil, err
			}
			return a, nil
		},
		handle: func(ctx context.Context, h *Hub, who caller, a args.Args) wire.CallResult {
			return handle(ctx, h, who, a.(T))
		},
	}
}

// readTools are the read entries of the bridge's inventory, by tool name:
// the two that read the hub's state, and the chain's, which package
// chainreads answers; TestInventoryReadToolsHaveEntries ties them to the
// inventory.
var readTools = func() map[string]readTool {
	tools := map[string]readTool{
		wire.ToolGetSpendStatus: readEntry(args.ParseSpendStatusArgs, func(_ context.Context, h *Hub, who caller, _ args.SpendStatusArgs) wire.CallResult {
			return h.spendStatus(who)
		}),
		wire.ToolProposalStatus: readEntry(args.ParseProposalStatusArgs, func(ctx context.Context, h *Hub, who caller, a args.ProposalStatusArgs) wire.CallResult {
			return h.proposalStatus(ctx, who, a)
		}),
	}
	for name, t := range chainreads.Tools {
		tools[name] = readTool{parse: t.Parse, handle: func(ctx context.Context, h *Hub, _ caller, a args.Args) wire.CallResult {
			return t.Handle(ctx, h.chain, a)
		}}
	}
	return tools
}()
