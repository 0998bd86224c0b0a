package mcpbridge

import (
	"encoding/json"
	"fmt"
)

// A tool's result is declared next to its arguments (Tool.Output), and its
// MCP outputSchema is derived from that declaration. The bridge validates
// every successful result against it before the model sees it (a result
// that breaks its own contract is a broken invariant, answered as an
// error), and tests drive every tool for real against the same schemas.
// Schemas name the fields every client may rely on and their types; a write
// kind may add fields of its own, so objects stay open.

// OutKind is what a result field holds.
type OutKind int

const (
	// OutDigits is an amount in lamports or base units as a string of
	// digits: money never travels as a JSON number, which a client may
	// round.
	OutDigits OutKind = iota
	OutText
	OutInteger
	OutBool
	OutTexts   // an array of strings (null when there are none)
	OutObject  // a JSON object
	OutObjects // an array of objects (null when there are none)
	OutAny     // any JSON value, e.g. a chain error
	OutAddress // a base58 public key or signature
)

// OutSpec declares one field of a tool's structured result.
type OutSpec struct {
	Name     string
	Kind     OutKind
	Required bool
	Desc     string
	Enum     []string // the only values it takes, when set
}

// Statuses a write tool's result carries (tool errors, which are not
// validated, say "error" or "refused"). "response" is x402_fetch's answer
// when the server asked no payment: a read, nothing proposed.
var writeStatuses = []string{"pending_approval", "denied", "executing", "submitted", "executed", "failed", "executed_with_unexpected_losses", "response"}

// proposalStatuses are proposal_status's answers.
var proposalStatuses = []string{"pending", "approved", "denied", "expired", "executing", "submitted", "executed", "failed", "executed_with_unexpected_losses", "unknown"}

// executionOutput are the fields of an execution's report, for the write
// tools' confirmed calls and proposal_status.
var executionOutput = []OutSpec{
	{"proposal_id", OutText, false, "The proposal.", nil},
	{"signature", OutAddress, false, "The transaction's signature, once signed.", nil},
	{"slot", OutInteger, false, "The slot it landed in.", nil},
	{"fee_lamports", OutDigits, false, "The fee charged on chain.", nil},
	{"verified", OutBool, false, "The landed effects matched the approved ones.", nil},
	{"reason", OutText, false, "Why it was denied, failed or is still followed.", nil},
	{"outcome", OutText, false, "The executor's outcome of a failed execution.", nil},
	{"chain_err", OutAny, false, "The chain's error of a transaction that landed and failed.", nil},
}

// writeOutput is a write tool's result: a proposal (pending_approval), a
// denial, or an execution's report, plus the kind's own fields.
func writeOutput(kind ...OutSpec) []OutSpec {
	out := []OutSpec{
		{"status", OutText, true, "pending_approval, denied, or how the confirmed call's execution went.", writeStatuses},
		{"expires_at", OutText, false, "When the proposal (or the approval) lapses, RFC 3339.", nil},
		{"spend_lamports", OutDigits, false, "SOL leaving the wallet as simulated, fees and rent included: what the caps measure.", nil},
		{"network", OutText, false, "The console's cluster.", nil},
		{"flags", OutTexts, false, "Warnings about the proposal.", nil},
		{"effects", OutObject, false, "The effects engine's measure of the exact bytes.", nil},
		{"rule", OutText, false, "The policy rule that denied it.", nil},
		{"retryable", OutBool, false, "false: retrying cannot succeed in this session.", nil},
	}
	out = append(out, executionOutput...)
	return append(out, kind...)
}

// OutputSchema is the JSON Schema of a tool's structured result.
func OutputSchema(t Tool) json.RawMessage {
	props := map[string]any{}
	var required []string
	for _, o := range t.Output {
		p := outProperty(o)
		p["description"] = o.Desc
		if len(o.Enum) > 0 {
			p["enum"] = o.Enum
		}
		props[o.Name] = p
		if o.Required {
			required = append(required, o.Name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("mcpbridge: output schema of %s: %v", t.Name, err))
	}
	return raw
}

func outProperty(o OutSpec) map[string]any {
	switch o.Kind {
	case OutDigits:
		return map[string]any{"type": "string", "pattern": "^[0-9]+$"}
	case OutText:
		return map[string]any{"type": "string"}
	case OutAddress:
		return map[string]any{"type": "string", "pattern": "^" + base58Class + "{32,88}$"}
	case OutInteger:
		return map[string]any{"type": "integer"}
	case OutBool:
		return map[string]any{"type": "boolean"}
	case OutTexts:
		return map[string]any{"type": []string{"array", "null"}, "items": map[string]any{"type": "string"}}
	case OutObject:
		return map[string]any{"type": "object"}
	case OutObjects:
		return map[string]any{"type": []string{"array", "null"}, "items": map[string]any{"type": "object"}}
	case OutAny:
		return map[string]any{}
	}
	panic(fmt.Sprintf("mcpbridge: output field %s has no schema for kind %d", o.Name, o.Kind))
}
