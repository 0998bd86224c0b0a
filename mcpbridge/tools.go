package mcpbridge

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// ToolDefinitions declares the MCP tools, generated from the inventory in
// its order. Handlers are registered separately by the bridge.
func ToolDefinitions() []mcp.Tool {
	tools := make([]mcp.Tool, 0, len(wire.Inventory()))
	for _, t := range wire.Inventory() {
		tools = append(tools, newTool(t))
	}
	return tools
}

func newTool(spec wire.Tool) mcp.Tool {
	opts := []mcp.ToolOption{
		mcp.WithToolTitle(spec.Title),
		mcp.WithDescription(spec.Description),
		// The whole annotation is set at once, replacing mcp.NewTool's defaults
		// (which call every tool destructive), so a hint that is not stated
		// here is absent and the tests notice.
		mcp.WithToolAnnotation(annotation(spec)),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithRawOutputSchema(wire.OutputSchema(spec)),
	}
	var order []string
	for _, a := range spec.Args {
		opts = append(opts, withArgProperty(a))
		order = append(order, a.Name)
	}
	t := mcp.NewTool(spec.Name, opts...)
	t.InputSchema.PropertyOrder = order // the order a human would explain them in
	return t
}

// annotation is a tool's hints, all stated.
func annotation(spec wire.Tool) mcp.ToolAnnotation {
	write := spec.Write
	return mcp.ToolAnnotation{
		Title:           spec.Title,
		ReadOnlyHint:    mcp.ToBoolPtr(!write),
		DestructiveHint: mcp.ToBoolPtr(write),
		// A repeated read returns the same thing; a repeated write makes
		// another proposal or spends again.
		IdempotentHint: mcp.ToBoolPtr(!write),
		OpenWorldHint:  mcp.ToBoolPtr(spec.OpenWorld),
	}
}

// bridgeTools is ToolDefinitions as a bridge registers them: each tool's
// input and output schemas are the JSON text ToolDefinitions encodes to,
// generated into toolschemas.go, rather than maps built and encoded again
// by every bridge. Building the tools, mcp-go's check of their schemas at
// AddTool (which encodes and decodes each input schema) and tools/list's
// answer encoding them were about 0.8 ms of a bridge's start. The tools as
// a client reads them are the same, byte for byte
// (TestBridgeToolsAreToolDefinitions); a tool whose text is missing or
// stale in toolschemas.go is built as ToolDefinitions builds it.
func bridgeTools() []mcp.Tool {
	tools := make([]mcp.Tool, 0, len(wire.Inventory()))
	for i, spec := range wire.Inventory() {
		if i >= len(toolSchemaText) || toolSchemaText[i].name != spec.Name {
			tools = append(tools, newTool(spec))
			continue
		}
		text := &toolSchemaText[i]
		tools = append(tools, mcp.Tool{
			Name:            spec.Name,
			Title:           spec.Title,
			Description:     spec.Description,
			RawInputSchema:  json.RawMessage(text.input),
			RawOutputSchema: json.RawMessage(text.output),
			Annotations:     annotation(spec),
		})
	}
	return tools
}

// toolSchemas is one tool's schemas as JSON text (toolschemas.go).
type toolSchemas struct{ name, input, output string }

// withArgProperty declares one argument's JSON Schema from its kind. Amounts
// are ["integer","string"]: "minimum"/"maximum" apply only to an integer and
// "pattern" only to a string, so 5 and "5" both validate while 0, -1, 0.5 and
// "5.0" do not.
func withArgProperty(a wire.ArgSpec) mcp.ToolOption {
	opts := []mcp.PropertyOption{mcp.Description(a.Desc)}
	if a.Required {
		opts = append(opts, mcp.Required())
	}
	switch a.Kind {
	case wire.KindAddress:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern("^"+wire.Base58Class+"{32,44}$"))...)
	case wire.KindSignature:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern("^"+wire.Base58Class+"{64,88}$"))...)
	case wire.KindConfirm:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern(fmt.Sprintf("^%s{%d}$", wire.Base58Class, wire.TokenLength)))...)
	case wire.KindProposalID:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern(fmt.Sprintf("^[A-Za-z0-9_-]{1,%d}$", wire.MaxProposalIDLen)))...)
	case wire.KindLamports, wire.KindBaseUnits:
		return mcp.WithAny(a.Name, append(opts, func(schema map[string]any) {
			schema["type"] = []string{"integer", "string"}
			schema["minimum"] = 1
			schema["maximum"] = wire.MaxJSONSafeInteger
			schema["pattern"] = "^[1-9][0-9]{0,19}$"
		})...)
	case wire.KindSlippageBps:
		return mcp.WithInteger(a.Name, append(opts, mcp.Min(wire.MinSlippageBps), mcp.Max(wire.MaxSlippageBps))...)
	case wire.KindURL:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern("^[hH][tT][tT][pP][sS]?://"), mcp.MaxLength(wire.MaxURLLen))...)
	case wire.KindHTTPMethod:
		return mcp.WithString(a.Name, append(opts, mcp.Enum("GET", "POST", "PUT", "PATCH", "DELETE"))...)
	case wire.KindHTTPHeaders:
		return mcp.WithObject(a.Name, append(opts, func(schema map[string]any) {
			schema["additionalProperties"] = map[string]any{"type": "string"}
			schema["maxProperties"] = wire.MaxRequestHeaders
		})...)
	case wire.KindText:
		return mcp.WithString(a.Name, append(opts, mcp.MaxLength(wire.MaxRequestBody))...)
	case wire.KindWaitSeconds:
		return mcp.WithInteger(a.Name, append(opts, mcp.Min(0), mcp.Max(wire.MaxWaitSeconds), mcp.DefaultNumber(0))...)
	case wire.KindTransaction:
		// Standard base64 of at least the smallest transaction (one
		// signature, one account, a blockhash: 180 characters).
		return mcp.WithString(a.Name, append(opts, mcp.MaxLength(wire.MaxTransactionBase64),
			mcp.Pattern("^[A-Za-z0-9+/]{178,}={0,2}$"))...)
	case wire.KindLabel:
		return mcp.WithString(a.Name, append(opts, mcp.MaxLength(wire.MaxLabelBytes), mcp.Pattern("^[^\\x00-\\x1f\\x7f]*$"))...)
	case wire.KindActionURL:
		return mcp.WithString(a.Name, append(opts, mcp.MinLength(1), mcp.MaxLength(wire.MaxActionURLLen), mcp.Pattern("^(https?://|solana-action:)"))...)
	case wire.KindActionInput:
		return mcp.WithObject(a.Name, append(opts, func(schema map[string]any) {
			schema["maxProperties"] = wire.MaxActionInputKeys
			schema["additionalProperties"] = map[string]any{"anyOf": []any{
				map[string]any{"type": []string{"string", "number", "boolean"}},
				map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": wire.MaxActionInputValues},
			}}
		})...)
	}
	panic(fmt.Sprintf("mcpbridge: argument %s has no schema for kind %d", a.Name, a.Kind))
}
