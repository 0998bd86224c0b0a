package mcpbridge

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// declaredOutput is every field of the tool's answers: its own, the error
// outcome's, and the status field, which takes the statuses of its
// outcomes (a read declares it for its tool error only).
func declaredOutput(t Tool) []OutSpec {
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
	fields := declaredOutput(t)
	outcomes := Outcomes(t)
	props := make(map[string]any, len(fields))
	for i := range fields {
		props[fields[i].Name] = outProperty(&fields[i])
	}
	anyOf := make([]map[string]any, 0, len(outcomes))
	for _, oc := range outcomes {
		o := map[string]any{"required": outcomeRequired(oc)}
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

// outcomeRequired is what an answer of the outcome carries: its status
// (when it has one) and its fields; never nil, so that it is written [].
func outcomeRequired(oc Outcome) []string {
	if oc.Status == "" {
		return append([]string{}, oc.Required...)
	}
	return append([]string{"status"}, oc.Required...)
}

// alwaysRequired are the fields every outcome requires, in the first's order.
func alwaysRequired(outcomes []Outcome) []string {
	var out []string
	for _, name := range outcomeRequired(outcomes[0]) {
		every := true
		for _, oc := range outcomes[1:] {
			every = every && slices.Contains(outcomeRequired(oc), name)
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
		return "string", "", "^" + base58Class + "{32,88}$"
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

// outputCheck is a tool's declared result compiled for checking a result's
// JSON text as it streams past: the same rules as its OutputSchema, without
// decoding the result into maps first. The bridge checks every result with
// it before the model sees it; TestOutputCheckAgreesWithTheSchema holds it
// to a JSON Schema validator's verdict on the same declaration.
type outputCheck struct {
	fields   map[string]outField
	outcomes []compiledOutcome
}

// outField is a declared field and its bit in a result's presence mask.
type outField struct {
	spec *OutSpec
	bit  uint64
}

// compiledOutcome is an Outcome as masks: the fields it requires.
type compiledOutcome struct {
	status   string
	required uint64
	names    []string // its required fields, for the error message
}

func newOutputCheck(t Tool) *outputCheck {
	fields := declaredOutput(t)
	c := &outputCheck{fields: make(map[string]outField, len(fields))}
	for i := range fields {
		o := &fields[i]
		f, ok := c.fields[o.Name]
		if !ok {
			if len(c.fields) == 64 {
				panic(fmt.Sprintf("mcpbridge: %s declares more than 64 output fields", t.Name))
			}
			f.bit = 1 << len(c.fields)
		}
		f.spec = o // a field declared twice, as declared last
		c.fields[o.Name] = f
	}
	for _, oc := range Outcomes(t) {
		co := compiledOutcome{status: oc.Status, names: outcomeRequired(oc)}
		for _, name := range co.names {
			f, ok := c.fields[name]
			if !ok {
				panic(fmt.Sprintf("mcpbridge: %s's outcome %q requires %s, which it does not declare", t.Name, oc.Status, name))
			}
			co.required |= f.bit
		}
		c.outcomes = append(c.outcomes, co)
	}
	return c
}

// outputChecks are every tool's, compiled on first use: a bridge's start-up
// is paid by every agent that starts one, a check only by the tools called.
var outputChecks = func() map[string]func() *outputCheck {
	m := make(map[string]func() *outputCheck, len(inventory))
	for _, t := range inventory {
		m[t.Name] = sync.OnceValue(func() *outputCheck { return newOutputCheck(t) })
	}
	return m
}()

// CheckOutput checks a tool's structured result (one JSON value) against
// its declared outputSchema, as the bridge does before the model sees it.
func CheckOutput(tool string, raw []byte) error {
	c, ok := outputChecks[tool]
	if !ok {
		return &errOutput{want: "belongs to no declared tool"}
	}
	return c().check(raw)
}

// errOutput is a result that breaks its tool's outputSchema. Its message
// names the field and what the schema wants, never the value: a result may
// carry a confirmation token.
type errOutput struct{ field, want string }

func (e *errOutput) Error() string {
	if e.field == "" {
		return "the result " + e.want
	}
	return e.field + ": " + e.want
}

// check reports whether raw, one JSON value, is what the tool declares: an
// object whose declared fields have their kinds (and values, for an enum),
// carrying every field one of its outcomes requires. Fields it does not
// declare may hold anything. A member name twice in one object is refused.
func (c *outputCheck) check(raw []byte) error {
	r := checkReaders.Get().(*checkReader)
	defer r.put()
	r.src.Reset(raw)
	r.dec.Reset(&r.src)
	dec := &r.dec
	tok, err := dec.ReadToken()
	if err != nil {
		return fmt.Errorf("the result is not JSON: %w", err)
	}
	if tok.Kind() != '{' {
		return &errOutput{want: "must be an object"}
	}
	var present uint64
	status, hasStatus := "", false
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return fmt.Errorf("the result is not JSON: %w", err)
		}
		f, declared := c.fields[name.String()]
		if !declared {
			if err := dec.SkipValue(); err != nil {
				return fmt.Errorf("the result is not JSON: %w", err)
			}
			continue
		}
		present |= f.bit
		if f.spec.Name == "status" && dec.PeekKind() == '"' {
			// The value is checked below (checkField); its text picks the
			// outcome.
			v, err := dec.ReadValue()
			if err != nil {
				return fmt.Errorf("the result is not JSON: %w", err)
			}
			s, err := jsontext.AppendUnquote(nil, v)
			if err != nil {
				return fmt.Errorf("the result is not JSON: %w", err)
			}
			status, hasStatus = string(s), true
			if len(f.spec.Enum) > 0 && !slices.Contains(f.spec.Enum, status) {
				return &errOutput{field: "status", want: "must be one of " + strings.Join(f.spec.Enum, ", ")}
			}
			continue
		}
		if err := checkField(dec, f.spec); err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf("the result is not JSON: %w", err)
	}
	if dec.PeekKind() != 0 {
		return &errOutput{want: "must be one JSON value"}
	}
	// anyOf the outcomes: one whose status it has (or a read's own answer,
	// which names none) and whose fields are all present.
	var near *compiledOutcome
	for i := range c.outcomes {
		oc := &c.outcomes[i]
		if oc.status != "" && (!hasStatus || oc.status != status) {
			continue
		}
		if present&oc.required == oc.required {
			return nil
		}
		if near == nil || oc.status != "" {
			near = oc
		}
	}
	if near == nil {
		return &errOutput{field: "status", want: "is required"}
	}
	for _, name := range near.names {
		if present&c.fields[name].bit == 0 {
			if near.status == "" {
				return &errOutput{field: name, want: "is required"}
			}
			return &errOutput{field: name, want: "is required when status is " + near.status}
		}
	}
	return nil
}

// checkReader is a decoder kept between checks: a new jsontext.Decoder
// at every call allocates its buffers and state afresh.
type checkReader struct {
	src bytes.Reader
	dec jsontext.Decoder
}

var checkReaders = sync.Pool{New: func() any { return new(checkReader) }}

// put returns r to the pool holding nothing of the result it read.
func (r *checkReader) put() {
	r.src.Reset(nil)
	r.dec.Reset(&r.src)
	checkReaders.Put(r)
}

// checkField reads one field's value and checks it against its OutSpec, by
// the rules outShape writes into the schema.
func checkField(dec *jsontext.Decoder, o *OutSpec) error {
	bad := func(want string) error { return &errOutput{field: o.Name, want: want} }
	switch o.Kind {
	case OutAny:
		if err := dec.SkipValue(); err != nil {
			return fmt.Errorf("the result is not JSON: %w", err)
		}
		return nil
	case OutObject:
		if dec.PeekKind() != '{' {
			return bad("must be an object")
		}
		if err := dec.SkipValue(); err != nil {
			return fmt.Errorf("the result is not JSON: %w", err)
		}
		return nil
	case OutTexts, OutObjects:
		item, want := jsontext.Kind('"'), "must be an array of strings or null"
		if o.Kind == OutObjects {
			item, want = '{', "must be an array of objects or null"
		}
		switch dec.PeekKind() {
		case 'n':
			_, err := dec.ReadToken()
			return err
		case '[':
		default:
			return bad(want)
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			if k := dec.PeekKind(); k != item {
				if k == 0 {
					_, err := dec.ReadToken()
					return fmt.Errorf("the result is not JSON: %w", err)
				}
				return bad(want)
			}
			if err := dec.SkipValue(); err != nil {
				return fmt.Errorf("the result is not JSON: %w", err)
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return fmt.Errorf("the result is not JSON: %w", err)
	}
	switch o.Kind {
	case OutBool:
		if k := tok.Kind(); k != 't' && k != 'f' {
			return bad("must be a boolean")
		}
		return nil
	case OutInteger:
		if tok.Kind() != '0' || !isIntegral(tok.String()) {
			return bad("must be an integer")
		}
		return nil
	}
	// The string kinds.
	if tok.Kind() != '"' {
		return bad("must be a string")
	}
	s := tok.String()
	switch o.Kind {
	case OutDigits:
		if !allDigits(s) {
			return bad("must be a string of digits")
		}
	case OutAddress:
		if !isBase58(s, 32, 88) {
			return bad("must be a base58 string of 32 to 88 characters")
		}
	}
	if len(o.Enum) > 0 && !slices.Contains(o.Enum, s) {
		return bad("must be one of " + strings.Join(o.Enum, ", "))
	}
	return nil
}

// isIntegral is JSON Schema's "integer" for a JSON number: its value has no
// fractional part, however it is written (2, 2.0, 20e-1 and 0.2e1 all are).
// It works on the digits, so that an exponent of a billion costs nothing.
func isIntegral(num string) bool {
	mant, exp, _ := strings.Cut(strings.ToLower(num), "e")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(mant, "-"), ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return true // zero
	}
	e := 0
	if exp != "" {
		n, err := strconv.Atoi(exp)
		switch {
		case err != nil && strings.HasPrefix(exp, "-"), n < -1<<40:
			return false // a non-zero value times 10^-huge
		case err != nil, n > 1<<40:
			return true
		}
		e = n
	}
	// The value is digits × 10^(e - len(frac)): integral when that power
	// is not negative, or when digits end in as many zeros as it takes away.
	shift := e - len(frac)
	zeros := len(digits) - len(strings.TrimRight(digits, "0"))
	return shift >= 0 || zeros >= -shift
}

// allDigits is the pattern ^[0-9]+$.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isBase58 is the pattern ^[1-9A-HJ-NP-Za-km-z]{min,max}$ (base58Class).
func isBase58(s string, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '1' && c <= '9', c >= 'A' && c <= 'H', c >= 'J' && c <= 'N', c >= 'P' && c <= 'Z',
			c >= 'a' && c <= 'k', c >= 'm' && c <= 'z':
		default:
			return false
		}
	}
	return true
}
