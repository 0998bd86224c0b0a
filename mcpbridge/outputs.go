package mcpbridge

import (
	"bytes"
	"encoding/json/jsontext"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/solgate/solgate/mcpbridge/wire"
)

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
	spec *wire.OutSpec
	bit  uint64
}

// compiledOutcome is an Outcome as masks: the fields it requires.
type compiledOutcome struct {
	status   string
	required uint64
	names    []string // its required fields, for the error message
}

func newOutputCheck(t wire.Tool) *outputCheck {
	fields := wire.DeclaredOutput(t)
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
	for _, oc := range wire.Outcomes(t) {
		co := compiledOutcome{status: oc.Status, names: wire.OutcomeRequired(oc)}
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
	m := make(map[string]func() *outputCheck, len(wire.Inventory()))
	for _, t := range wire.Inventory() {
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
func checkField(dec *jsontext.Decoder, o *wire.OutSpec) error {
	bad := func(want string) error { return &errOutput{field: o.Name, want: want} }
	switch o.Kind {
	case wire.OutAny:
		if err := dec.SkipValue(); err != nil {
			return fmt.Errorf("the result is not JSON: %w", err)
		}
		return nil
	case wire.OutObject:
		if dec.PeekKind() != '{' {
			return bad("must be an object")
		}
		if err := dec.SkipValue(); err != nil {
			return fmt.Errorf("the result is not JSON: %w", err)
		}
		return nil
	case wire.OutTexts, wire.OutObjects:
		item, want := jsontext.Kind('"'), "must be an array of strings or null"
		if o.Kind == wire.OutObjects {
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
	case wire.OutBool:
		if k := tok.Kind(); k != 't' && k != 'f' {
			return bad("must be a boolean")
		}
		return nil
	case wire.OutInteger:
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
	case wire.OutDigits:
		if !allDigits(s) {
			return bad("must be a string of digits")
		}
	case wire.OutAddress:
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

// isBase58 is the pattern ^[1-9A-HJ-NP-Za-km-z]{min,max}$ (Base58Class).
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
