package authority

import (
	"context"

	"github.com/solgate/solgate/mcpbridge/authority/answer"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/chainreads"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// spendStatus answers get_spend_status for who: its own budget, its own
// grants, and who can reach the key and the console.
func (h *Hub) spendStatus(who caller) wire.CallResult {
	own, agent, total := h.spendSummaryOf(who)
	h.mu.Lock()
	grants := h.grantsLocked(func(g *Grant) bool { return g.boundTo(who) })
	h.mu.Unlock()
	s := answer.SpendState{Own: own, Agent: agent, Total: total, AllowUncappedTokenTransfers: h.opts.Policy.AllowUncappedTokenTransfers, Warnings: h.Warnings()}
	for _, g := range grants {
		s.Grants = append(s.Grants, g.Grant)
	}
	if e := h.opts.Exposure; e != nil {
		s.Safety, s.Report = e.Structured(s.Warnings), e.Report()
	}
	return answer.SpendStatus(s)
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
		parse: args.Untyped(parse),
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
