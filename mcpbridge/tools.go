package mcpbridge

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// ToolNames lists every tool, reads first, in inventory order.
func ToolNames() []string {
	names := make([]string, len(inventory))
	for i, t := range inventory {
		names[i] = t.Name
	}
	return names
}

// WriteToolNames lists the tools that can spend, in inventory order: the
// tools whose proposals proposal_status answers for.
func WriteToolNames() []string {
	var names []string
	for _, t := range inventory {
		if t.Write {
			names = append(names, t.Name)
		}
	}
	return names
}

// IsWriteTool reports whether calling the tool can spend funds, from its
// inventory entry. The console serves a write tool through its registered
// write kind, and clients read the annotations derived from this; a test
// checks both against what each handler does.
func IsWriteTool(name string) bool {
	t, ok := LookupTool(name)
	return ok && t.Write
}

const approvalFlow = ` Nothing moves on the first call: it creates a proposal that a human must approve in the solgate console, and returns status "pending_approval" with a proposal_id and a preview; nothing has been signed or sent at that point. Then call proposal_status with the proposal_id (wait_seconds up to 45 waits for the decision). When it says "approved" with a confirm token, call this tool again with exactly the same arguments plus confirm set to that token to execute; if proposal_status says approved without a token, ask the human for it. A token works once, only for those exact arguments, and expires (%s). A policy refusal is an ordinary result with status "denied", a reason and "retryable"; when retryable is false, do not try again in this session. A confirm token that does not hold (used already, expired, or sent with other arguments) is answered with status "refused" and a reason: nothing was signed or sent, and the token is void; propose again.`

// ToolDefinitions declares the MCP tools, generated from the inventory in
// its order. Handlers are registered separately by the bridge.
func ToolDefinitions() []mcp.Tool {
	tools := make([]mcp.Tool, 0, len(inventory))
	for _, t := range inventory {
		tools = append(tools, newTool(t))
	}
	return tools
}

func newTool(spec Tool) mcp.Tool {
	opts := []mcp.ToolOption{
		mcp.WithToolTitle(spec.Title),
		mcp.WithDescription(spec.Description),
		// The whole annotation is set at once, replacing mcp.NewTool's defaults
		// (which call every tool destructive), so a hint that is not stated
		// here is absent and the tests notice.
		mcp.WithToolAnnotation(annotation(spec)),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithRawOutputSchema(OutputSchema(spec)),
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
func annotation(spec Tool) mcp.ToolAnnotation {
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
	tools := make([]mcp.Tool, 0, len(inventory))
	for i, spec := range inventory {
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

const base58Class = "[1-9A-HJ-NP-Za-km-z]"

// withArgProperty declares one argument's JSON Schema from its kind. Amounts
// are ["integer","string"]: "minimum"/"maximum" apply only to an integer and
// "pattern" only to a string, so 5 and "5" both validate while 0, -1, 0.5 and
// "5.0" do not.
func withArgProperty(a ArgSpec) mcp.ToolOption {
	opts := []mcp.PropertyOption{mcp.Description(a.Desc)}
	if a.Required {
		opts = append(opts, mcp.Required())
	}
	switch a.Kind {
	case KindAddress:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern("^"+base58Class+"{32,44}$"))...)
	case KindSignature:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern("^"+base58Class+"{64,88}$"))...)
	case KindConfirm:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern(fmt.Sprintf("^%s{%d}$", base58Class, TokenLength)))...)
	case KindProposalID:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern(fmt.Sprintf("^[A-Za-z0-9_-]{1,%d}$", MaxProposalIDLen)))...)
	case KindLamports, KindBaseUnits:
		return mcp.WithAny(a.Name, append(opts, func(schema map[string]any) {
			schema["type"] = []string{"integer", "string"}
			schema["minimum"] = 1
			schema["maximum"] = MaxJSONSafeInteger
			schema["pattern"] = "^[1-9][0-9]{0,19}$"
		})...)
	case KindSlippageBps:
		return mcp.WithInteger(a.Name, append(opts, mcp.Min(MinSlippageBps), mcp.Max(MaxSlippageBps))...)
	case KindURL:
		return mcp.WithString(a.Name, append(opts, mcp.Pattern("^[hH][tT][tT][pP][sS]?://"), mcp.MaxLength(MaxURLLen))...)
	case KindHTTPMethod:
		return mcp.WithString(a.Name, append(opts, mcp.Enum("GET", "POST", "PUT", "PATCH", "DELETE"))...)
	case KindHTTPHeaders:
		return mcp.WithObject(a.Name, append(opts, func(schema map[string]any) {
			schema["additionalProperties"] = map[string]any{"type": "string"}
			schema["maxProperties"] = MaxRequestHeaders
		})...)
	case KindText:
		return mcp.WithString(a.Name, append(opts, mcp.MaxLength(MaxRequestBody))...)
	case KindWaitSeconds:
		return mcp.WithInteger(a.Name, append(opts, mcp.Min(0), mcp.Max(MaxWaitSeconds), mcp.DefaultNumber(0))...)
	case KindTransaction:
		// Standard base64 of at least the smallest transaction (one
		// signature, one account, a blockhash: 180 characters).
		return mcp.WithString(a.Name, append(opts, mcp.MaxLength(MaxTransactionBase64),
			mcp.Pattern("^[A-Za-z0-9+/]{178,}={0,2}$"))...)
	case KindLabel:
		return mcp.WithString(a.Name, append(opts, mcp.MaxLength(MaxLabelBytes), mcp.Pattern("^[^\\x00-\\x1f\\x7f]*$"))...)
	case KindActionURL:
		return mcp.WithString(a.Name, append(opts, mcp.MinLength(1), mcp.MaxLength(MaxActionURLLen), mcp.Pattern("^(https?://|solana-action:)"))...)
	case KindActionInput:
		return mcp.WithObject(a.Name, append(opts, func(schema map[string]any) {
			schema["maxProperties"] = MaxActionInputKeys
			schema["additionalProperties"] = map[string]any{"anyOf": []any{
				map[string]any{"type": []string{"string", "number", "boolean"}},
				map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": MaxActionInputValues},
			}}
		})...)
	}
	panic(fmt.Sprintf("mcpbridge: argument %s has no schema for kind %d", a.Name, a.Kind))
}
