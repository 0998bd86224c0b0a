package wire

import (
	"encoding/json"
	"fmt"
	"slices"
)

// A tool's result is declared next to its arguments (Tool.Output, and the
// outcomes it answers with, Tool.Outcomes), and its MCP outputSchema is
// derived from that declaration. The bridge validates every result against
// it before the model sees it, tool errors included (a result that breaks
// its own contract is a broken invariant, answered as an error), and tests
// drive every tool for real against the same schemas, through the
// TypeScript SDK client too.
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
// it always has. It is written out directly, as encoding/json would write
// the same schema held in maps (members in name order, a field declared
// twice as declared last): building and encoding those maps took a bridge
// about half a millisecond at every start-up. The tools' snapshots
// (testdata/tools) hold the bytes.
func OutputSchema(t Tool) json.RawMessage {
	fields := DeclaredOutput(t)
	outcomes := Outcomes(t)
	last := make(map[string]int, len(fields))
	for i, o := range fields {
		last[o.Name] = i
	}
	names := make([]string, 0, len(last))
	for name := range last {
		names = append(names, name)
	}
	slices.Sort(names)
	b := make([]byte, 0, 160*len(names)+96*len(outcomes)+64)
	b = append(b, `{"anyOf":[`...)
	for i, oc := range outcomes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if oc.Status != "" {
			b = append(b, `"properties":{"status":{"const":`...)
			b = appendJSONString(b, oc.Status)
			b = append(b, `}},`...)
		}
		b = appendRequired(b, OutcomeRequired(oc))
		b = append(b, '}')
	}
	b = append(b, `],"properties":{`...)
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, name)
		b = append(b, ':')
		b = appendOutProperty(b, &fields[last[name]])
	}
	b = append(b, '}')
	// What every outcome carries, said once for clients that read only the
	// top level.
	if always := alwaysRequired(outcomes); len(always) > 0 {
		b = append(b, ',')
		b = appendRequired(b, always)
	}
	return append(b, `,"type":"object"}`...)
}

// OutcomeRequired is what an answer of the outcome carries: its status
// (when it has one) and its fields.
func OutcomeRequired(oc Outcome) []string {
	if oc.Status == "" {
		return oc.Required
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

// appendRequired writes "required":[names...].
func appendRequired(b []byte, names []string) []byte {
	b = append(b, `"required":[`...)
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, n)
	}
	return append(b, ']')
}

// appendOutProperty writes one field's schema, its members in name order.
func appendOutProperty(b []byte, o *OutSpec) []byte {
	typ, items, pattern := outShape(o)
	b = append(b, `{"description":`...)
	b = appendJSONString(b, o.Desc)
	if len(o.Enum) > 0 {
		b = append(b, `,"enum":[`...)
		for i, e := range o.Enum {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, e)
		}
		b = append(b, ']')
	}
	if items != "" {
		b = append(b, `,"items":{"type":`...)
		b = appendJSONString(b, items)
		b = append(b, '}')
	}
	if pattern != "" {
		b = append(b, `,"pattern":`...)
		b = appendJSONString(b, pattern)
	}
	if typ != "" {
		b = append(b, `,"type":`...)
		b = append(b, typ...)
	}
	return append(b, '}')
}

// outShape is a field kind's JSON Schema: its type (as JSON), the type of
// its items for an array, and its pattern. OutAny has none of them.
func outShape(o *OutSpec) (typ, items, pattern string) {
	const nullableArray = `["array","null"]`
	switch o.Kind {
	case OutDigits:
		return `"string"`, "", "^[0-9]+$"
	case OutText:
		return `"string"`, "", ""
	case OutAddress:
		return `"string"`, "", "^" + Base58Class + "{32,88}$"
	case OutInteger:
		return `"integer"`, "", ""
	case OutBool:
		return `"boolean"`, "", ""
	case OutTexts:
		return nullableArray, "string", ""
	case OutObject:
		return `"object"`, "", ""
	case OutObjects:
		return nullableArray, "object", ""
	case OutAny:
		return "", "", ""
	}
	panic(fmt.Sprintf("mcpbridge: output field %s has no schema for kind %d", o.Name, o.Kind))
}

// appendJSONString writes s as encoding/json does (<, > and & escaped too).
// Plain printable ASCII, the usual case, needs no escaping.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcpbridge: %q as JSON: %v", s, err))
	}
	return append(b, q...)
}

// Base58Class is one base58 character as a JSON Schema pattern class: the
// schemas of addresses, signatures and tokens are built from it.
const Base58Class = "[1-9A-HJ-NP-Za-km-z]"
