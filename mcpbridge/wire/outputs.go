package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// A tool's result is declared next to its arguments (Tool.Output, and the
// outcomes it answers with, Tool.Outcomes), and its MCP outputSchema is
// derived from that declaration. Tests drive every tool for real against
// the same schemas, through the TypeScript SDK client too, and the bridge
// validates every result of a console of another contract (OutputContract)
// before the model sees it, tool errors included: a result that breaks its
// own contract is a broken invariant, answered as an error.
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
	Name string
	Kind OutKind
	// Required: a read tool's own answer always carries it. Tools whose
	// answers carry a status say what each carries in Tool.Outcomes.
	Required bool
	Desc     string
	Enum     []string // the only values it takes, when set
}

// Outcome is one kind of answer a tool gives: the value of its status
// field and the fields such an answer always carries. Status "" is a read
// tool's own answer, which carries no status. A tool's outputSchema lists
// its outcomes (anyOf) and its status field takes exactly their statuses,
// so a client's validator (the TypeScript SDK's, which every answer meets
// after tools/list) accepts each answer the console gives, tool errors
// included; TestEveryAnswerIsDeclared, in the authority, drives the
// handlers down each path and fails on an answer its tool does not list.
type Outcome struct {
	Status   string
	Required []string
}

// errorOutcome is every tool's tool error (isError true): a malformed
// argument, or a console that could not do what was asked. Its error field
// is the message, which names the argument and what it accepts.
var errorOutcome = Outcome{"error", []string{"error"}}

// errorOutput is the error outcome's field.
var errorOutput = OutSpec{"error", OutText, false, "A tool error's message (isError true): the argument that is wrong and what it accepts, or what failed.", nil}

// executionOutcomes are how a confirmed call's execution went, reported by
// the write tool's confirmed call and by proposal_status.
var executionOutcomes = []Outcome{
	{"executing", []string{"proposal_id"}},
	{"submitted", []string{"proposal_id"}},
	{"executed", []string{"proposal_id"}},
	{"failed", []string{"proposal_id", "reason"}},
	{"executed_with_unexpected_losses", []string{"proposal_id", "reason"}},
}

// writeOutcomes are a write tool's answers: its first call's (a proposal
// or a policy denial), a confirmed call whose token did not hold
// ("refused": an ordinary result, nothing was signed), and the execution's.
var writeOutcomes = append([]Outcome{
	{"pending_approval", []string{"proposal_id", "expires_at"}},
	{"denied", []string{"reason", "rule", "retryable"}},
	{"refused", []string{"reason"}},
}, executionOutcomes...)

// proposalOutcomes are proposal_status's answers, each about one proposal.
var proposalOutcomes = append([]Outcome{
	{"pending", []string{"proposal_id"}},
	{"approved", []string{"proposal_id"}},
	{"denied", []string{"proposal_id"}},
	{"expired", []string{"proposal_id"}},
	{"unknown", []string{"proposal_id"}},
}, executionOutcomes...)

// Outcomes are every answer the tool gives: its declared ones (a read's own
// answer when it declares none) and the tool error.
func Outcomes(t Tool) []Outcome {
	out := slices.Clone(t.Outcomes)
	if len(out) == 0 {
		var own []string
		for _, o := range t.Output {
			if o.Required {
				own = append(own, o.Name)
			}
		}
		out = append(out, Outcome{Required: own})
	}
	return append(out, errorOutcome)
}

// Statuses are the values of the tool's status field, in outcome order.
func Statuses(t Tool) []string {
	var out []string
	for _, o := range Outcomes(t) {
		if o.Status != "" && !slices.Contains(out, o.Status) {
			out = append(out, o.Status)
		}
	}
	return out
}

// DeclaredOutput is every field of the tool's answers: its own, the error
// outcome's, and the status field, which takes the statuses of its
// outcomes (a read declares it for its tool error only).
func DeclaredOutput(t Tool) []OutSpec {
	out := slices.Clone(t.Output)
	statuses := Statuses(t)
	i := slices.IndexFunc(out, func(o OutSpec) bool { return o.Name == "status" })
	if i < 0 {
		out = append(out, OutSpec{"status", OutText, false, `Present on a tool error only: "error".`, nil})
		i = len(out) - 1
	}
	out[i].Enum = statuses
	if !slices.ContainsFunc(out, func(o OutSpec) bool { return o.Name == errorOutput.Name }) {
		out = append(out, errorOutput)
	}
	return out
}

// executionOutput are the fields of an execution's report, for the write
// tools' confirmed calls and proposal_status.
var executionOutput = []OutSpec{
	{"proposal_id", OutText, false, "The proposal.", nil},
	{"signature", OutAddress, false, "The transaction's signature, once signed.", nil},
	{"slot", OutInteger, false, "The slot it landed in.", nil},
	{"fee_lamports", OutDigits, false, "The fee charged on chain.", nil},
	{"verified", OutBool, false, "The landed effects matched the approved ones.", nil},
	{"reason", OutText, false, "Why it was denied, refused, failed or is still followed.", nil},
	{"outcome", OutText, false, "The executor's outcome of a failed execution.", nil},
	{"chain_err", OutAny, false, "The chain's error of a transaction that landed and failed.", nil},
}

// writeOutput is a write tool's result: a proposal (pending_approval), a
// denial, a refused token, or an execution's report, plus the kind's own
// fields.
func writeOutput(kind ...OutSpec) []OutSpec {
	out := []OutSpec{
		{"status", OutText, false, "pending_approval, denied, refused (the confirm token did not hold), or how the confirmed call's execution went.", nil},
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

// OutputSchema is the JSON Schema of a tool's structured result: its
// fields, and anyOf its outcomes, each the status it carries and the fields
// it always has. A field declared twice is as declared last. A bridge
// serves the text generated into toolschemas.go; the tools' snapshots
// (testdata/tools) hold the bytes.
func OutputSchema(t Tool) json.RawMessage {
	fields := DeclaredOutput(t)
	outcomes := Outcomes(t)
	props := make(map[string]any, len(fields))
	for i := range fields {
		props[fields[i].Name] = outProperty(&fields[i])
	}
	anyOf := make([]map[string]any, 0, len(outcomes))
	for _, oc := range outcomes {
		o := map[string]any{"required": OutcomeRequired(oc)}
		if oc.Status != "" {
			o["properties"] = map[string]any{"status": map[string]any{"const": oc.Status}}
		}
		anyOf = append(anyOf, o)
	}
	schema := map[string]any{"anyOf": anyOf, "properties": props, "type": "object"}
	// What every outcome carries, said once for clients that read only the
	// top level.
	if always := alwaysRequired(outcomes); len(always) > 0 {
		schema["required"] = always
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("mcpbridge: %s's output schema: %v", t.Name, err))
	}
	return raw
}

// OutputContractHeader carries, on each of the console's call answers, the
// OutputContract its answers were written to. A bridge whose own contract
// is the same skips its check of the answer's structured content: the
// console's tests judge every answer down every path they reach with that
// check (TestEveryAnswerIsDeclared, TestRefusalsAnswerPerTheWireContract), and the
// official TypeScript client's tests judge them again, so at run time it
// could only repeat them. Against a console of another contract (another
// version, or no header at all), the bridge checks every answer.
const OutputContractHeader = "X-Solgate-Output-Contract"

// OutputContract is the hex SHA-256 of every tool's name and outputSchema,
// in inventory order: equal for two builds exactly when every tool's
// outputSchema is.
var OutputContract = sync.OnceValue(func() string { return outputContract(inventory) })

func outputContract(tools []Tool) string {
	h := sha256.New()
	for _, t := range tools {
		// The NUL separators keep "ab"+"c" apart from "a"+"bc".
		h.Write([]byte(t.Name))
		h.Write([]byte{0})
		h.Write(OutputSchema(t))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// OutcomeRequired is what an answer of the outcome carries: its status
// (when it has one) and its fields; never nil, so that it is written [].
func OutcomeRequired(oc Outcome) []string {
	if oc.Status == "" {
		return append([]string{}, oc.Required...)
	}
	return append([]string{"status"}, oc.Required...)
}

// alwaysRequired are the fields every outcome requires, in the first's order.
func alwaysRequired(outcomes []Outcome) []string {
	var out []string
	for _, name := range OutcomeRequired(outcomes[0]) {
		every := true
		for _, oc := range outcomes[1:] {
			every = every && slices.Contains(OutcomeRequired(oc), name)
		}
		if every {
			out = append(out, name)
		}
	}
	return out
}

// outProperty is one field's schema.
func outProperty(o *OutSpec) map[string]any {
	p := map[string]any{"description": o.Desc}
	if len(o.Enum) > 0 {
		p["enum"] = o.Enum
	}
	typ, items, pattern := outShape(o)
	if items != "" {
		p["items"] = map[string]any{"type": items}
	}
	if pattern != "" {
		p["pattern"] = pattern
	}
	if typ != nil {
		p["type"] = typ
	}
	return p
}

// outShape is a field kind's JSON Schema: its type (a name, or the names
// of an array that may be null), the type of its items for an array, and
// its pattern. OutAny has none of them.
func outShape(o *OutSpec) (typ any, items, pattern string) {
	nullableArray := []string{"array", "null"}
	switch o.Kind {
	case OutDigits:
		return "string", "", "^[0-9]+$"
	case OutText:
		return "string", "", ""
	case OutAddress:
		return "string", "", "^" + Base58Class + "{32,88}$"
	case OutInteger:
		return "integer", "", ""
	case OutBool:
		return "boolean", "", ""
	case OutTexts:
		return nullableArray, "string", ""
	case OutObject:
		return "object", "", ""
	case OutObjects:
		return nullableArray, "object", ""
	case OutAny:
		return nil, "", ""
	}
	panic(fmt.Sprintf("mcpbridge: output field %s has no schema for kind %d", o.Name, o.Kind))
}

// Base58Class is one base58 character as a JSON Schema pattern class: the
// schemas of addresses, signatures and tokens are built from it.
const Base58Class = "[1-9A-HJ-NP-Za-km-z]"
