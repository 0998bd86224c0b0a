package authority

import (
	"strings"

	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
)

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
