package mcpbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// The bridge checks results with outputCheck, not with a JSON Schema
// validator. It must be exactly as strict as each tool's outputSchema, the
// declaration clients read: here both judge the same results, and a JSON
// Schema validator of its own (the one mcp-go used) gives the schema's
// verdict. The results are, for each of a tool's outcomes, its required
// fields with every declared field given every value of a palette of right
// and wrong kinds, each required field left out, the status of every other
// outcome; and roots that are not objects.
func TestOutputCheckAgreesWithTheSchema(t *testing.T) {
	palette := []string{
		`"x"`, `""`, `"123"`, `"0"`, `"007"`, `"12a"`, `"-1"`, `" 1"`, `"1\n"`, `"\u0031\u0032"`, `"é"`,
		`"` + strings.Repeat("A", 31) + `"`, `"` + strings.Repeat("A", 32) + `"`, `"` + strings.Repeat("z", 88) + `"`,
		`"` + strings.Repeat("z", 89) + `"`, `"` + strings.Repeat("1", 44) + `"`, `"0` + strings.Repeat("A", 40) + `"`,
		`"O` + strings.Repeat("A", 40) + `"`, `"I` + strings.Repeat("A", 40) + `"`, `"l` + strings.Repeat("A", 40) + `"`,
		`"\u0041` + strings.Repeat("A", 40) + `"`,
		`0`, `123`, `-1`, `-0`, `1.5`, `1.0`, `2e0`, `20e-1`, `0.2e1`, `150e-2`, `100e-2`, `1e400`, `1E2`, `12345678901234567890123`,
		`true`, `false`, `null`,
		`[]`, `["a"]`, `["a",1]`, `[1]`, `[{}]`, `[{},"a"]`, `[null]`, `[[]]`, `{}`, `{"a":1}`,
		`"approved_by_model"`, `"pending"`, `"error"`, `"refused"`, `"\u0065rror"`,
	}
	var statuses []string
	for _, tool := range wire.Inventory() {
		statuses = append(statuses, wire.Statuses(tool)...)
	}
	for _, s := range statuses {
		palette = append(palette, `"`+s+`"`)
	}
	c := jsonschema.NewCompiler()
	agreed, valid := 0, 0
	judged := map[string]bool{}
	for _, tool := range wire.Inventory() {
		url := "mem://" + tool.Name
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(wire.OutputSchema(tool)))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		schema, err := c.Compile(url)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		judge := func(result string) {
			t.Helper()
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(result))
			if err != nil {
				t.Fatalf("%s: the test made invalid JSON: %v\n%s", tool.Name, err, result)
			}
			want := schema.Validate(v) == nil
			got := CheckOutput(tool.Name, []byte(result))
			if (got == nil) != want {
				t.Errorf("%s: outputCheck says %v, the schema says valid=%v:\n%s", tool.Name, got, want, result)
				return
			}
			agreed++
			if want {
				valid++
			}
		}
		declared := wire.DeclaredOutput(tool)
		spec := map[string]wire.OutSpec{}
		for _, o := range declared {
			spec[o.Name] = o
		}
		for n, oc := range wire.Outcomes(tool) {
			// The outcome's own answer: its status and required fields.
			required := map[string]string{}
			if oc.Status != "" {
				required["status"] = `"` + oc.Status + `"`
			}
			for _, name := range oc.Required {
				required[name] = validValue(spec[name])
			}
			judge(object(required, ""))
			for name := range required {
				judge(object(required, name))
			}
			for _, other := range statuses {
				judge(object(required, "status", `"`+other+`"`))
			}
			judge(object(required, "undeclared_field", `{"anything":[1,"x"]}`))
			if n > 0 && oc.Status == "error" {
				continue // the palette over every field once per tool is enough
			}
			// Each field given the palette beside the required ones only (a
			// field several tools declare alike is judged once).
			for _, o := range declared {
				key := fmt.Sprintf("%v %v", o, required)
				if judged[key] {
					continue
				}
				judged[key] = true
				for _, v := range palette {
					judge(object(required, o.Name, v))
				}
			}
		}
		for _, root := range []string{`[]`, `"s"`, `1`, `null`, `true`, `{}`} {
			judge(root)
		}
	}
	if valid == 0 || valid == agreed {
		t.Fatalf("of %d results judged, %d were valid: the corpus cannot tell the validators apart", agreed, valid)
	}
	t.Logf("%d results judged alike, %d of them valid", agreed, valid)

	// Stricter than the schema where JSON itself is in doubt: a member
	// given twice is refused (a decoder would keep one of the two).
	if err := CheckOutput(wire.ToolGetSpendStatus, []byte(`{"status":"error","status":"error","error":"x"}`)); err == nil {
		t.Error("a result naming a member twice was accepted")
	}
}

// Every tool's tool error, as the console writes it (status "error" and
// the message), is an answer its schema lists; a status no outcome names,
// or an outcome without its fields, is not.
func TestEveryToolDeclaresItsToolError(t *testing.T) {
	for _, tool := range wire.Inventory() {
		if err := CheckOutput(tool.Name, []byte(`{"status":"error","error":"lamports: must be a positive integer"}`)); err != nil {
			t.Errorf("%s: a tool error breaks its schema: %v", tool.Name, err)
		}
		if err := CheckOutput(tool.Name, []byte(`{"status":"error"}`)); err == nil {
			t.Errorf("%s: a tool error without its message passes", tool.Name)
		}
		if err := CheckOutput(tool.Name, []byte(`{"status":"oops","error":"x"}`)); err == nil {
			t.Errorf("%s: an undeclared status passes", tool.Name)
		}
	}
}

// object is fields as a JSON object, with field set to value (one value
// given) or left out (no value given).
func object(fields map[string]string, field string, value ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	add := func(k, v string) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		fmt.Fprintf(&b, "%q:%s", k, v)
	}
	for k, v := range fields {
		if k != field {
			add(k, v)
		}
	}
	if len(value) == 1 {
		add(field, value[0])
	}
	b.WriteByte('}')
	return b.String()
}

// validValue is a value of o's kind that its schema accepts.
func validValue(o wire.OutSpec) string {
	if len(o.Enum) > 0 {
		return `"` + o.Enum[0] + `"`
	}
	switch o.Kind {
	case wire.OutDigits:
		return `"10005000"`
	case wire.OutText:
		return `"text"`
	case wire.OutAddress:
		return `"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn"`
	case wire.OutInteger:
		return `1450`
	case wire.OutBool:
		return `false`
	case wire.OutTexts:
		return `["a","b"]`
	case wire.OutObject:
		return `{"k":"v"}`
	case wire.OutObjects:
		return `[{"k":"v"}]`
	case wire.OutAny:
		return `{"InstructionError":[0,"x"]}`
	}
	panic(fmt.Sprintf("no valid value for kind %d", o.Kind))
}

// A real answer of the console passes, as captured from a transfer_sol
// proposal on the ledger.
func TestOutputCheckPassesARealProposal(t *testing.T) {
	raw, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Structured json.RawMessage `json:"structured"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatal(err)
	}
	if err := CheckOutput(wire.ToolTransferSOL, answer.Structured); err != nil {
		t.Fatal(err)
	}
}
