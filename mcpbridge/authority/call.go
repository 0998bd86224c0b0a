package authority

import (
	"context"
	"strings"

	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// Call handles one forwarded tool call. Every expected failure is a result,
// never a Go error: the bridge passes it on to the model as it is. It stands
// above the skeletons and the read table it hands calls to, so that hub.go,
// which every part of the core uses, uses none of them.
func (h *Hub) Call(ctx context.Context, req wire.CallRequest) wire.CallResult {
	who := callerOf(ctx, req)
	defer h.endPropose(who)
	client := who.name
	h.mu.Lock()
	h.clients[client] = h.opts.Now()
	h.mu.Unlock()

	raw, err := args.DecodeArgs(req.Arguments)
	if err != nil {
		return h.malformedCall(who, req, err)
	}
	if wk, ok := h.kinds.Lookup(req.Tool); ok {
		a, err := wk.Parse(raw)
		if err != nil {
			return h.malformedCall(who, req, err)
		}
		if a.ConfirmToken() == "" {
			return h.propose(ctx, who, wk, a)
		}
		// An approved proposal of any kind runs through the one run skeleton.
		return h.executeConfirmed(ctx, who, a.Fingerprint(), a.ConfirmToken(), func(p *Proposal) { h.run(p.ID, who, p.Kind) })
	}
	if rt, ok := readTools[req.Tool]; ok {
		a, err := rt.parse(raw)
		if err != nil {
			return h.malformedCall(who, req, err)
		}
		return rt.handle(ctx, h, who, a)
	}
	return h.malformedCall(who, req, unknownTool(req.Tool))
}

// ParseArgs parses the arguments of any tool the console serves: a write
// kind's registration or a read tool's entry (reads.go).
func ParseArgs(tool string, raw map[string]any) (args.Args, error) {
	if wk, ok := writekind.Default().Lookup(tool); ok {
		return wk.Parse(raw)
	}
	if rt, ok := readTools[tool]; ok {
		return rt.parse(raw)
	}
	return nil, unknownTool(tool)
}

func unknownTool(tool string) error {
	return args.ArgErrorf(tool, "", "unknown tool %s; the tools are: %s", args.QuoteUntrusted(tool), strings.Join(wire.ToolNames(), ", "))
}
