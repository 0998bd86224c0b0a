package authority

import (
	"context"
	"fmt"
	"strings"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/answer"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/chainreads"
	"github.com/solgate/solgate/mcpbridge/wire"
)

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
	text := answer.Caps(v)
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
