package authority

import (
	"encoding/json"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/solgate/solgate/mcpbridge"
)

// Every declared tool has a parser here and every parser a declaration: the
// bridge declares tools without importing this package, so only this test
// ties the two halves of the inventory together.
func TestEveryDeclaredToolHasAParser(t *testing.T) {
	declared := mcpbridge.ToolNames()
	for _, name := range declared {
		if _, ok := parsers[name]; !ok {
			t.Errorf("tool %s is declared to the model but the console has no parser for it", name)
		}
	}
	for name := range parsers {
		if !slices.Contains(declared, name) {
			t.Errorf("the console parses %s, which the bridge does not declare", name)
		}
	}
}

// The input schema and the parser must agree: values generated from the schema
// alone parse, each required argument is really required, and values the schema
// rules out are refused.
func TestSchemasAgreeWithParsers(t *testing.T) {
	for _, tool := range mcpbridge.ToolDefinitions() {
		t.Run(tool.Name, func(t *testing.T) {
			schema := wireJSON(t, tool)["inputSchema"].(map[string]any)
			if schema["additionalProperties"] != false || schema["type"] != "object" {
				t.Fatalf("schema must be a closed object: %v", schema)
			}
			props := schema["properties"].(map[string]any)
			var required []string
			for _, r := range schema["required"].([]any) {
				required = append(required, r.(string))
			}
			var names []string
			for name := range props {
				names = append(names, name)
			}
			slices.Sort(names)

			used := map[string]bool{}
			asNumber, asString := map[string]any{}, map[string]any{}
			for _, name := range names {
				n, s := sampleFromSchema(t, name, props[name].(map[string]any), used)
				asNumber[name], asString[name] = n, s
			}
			minimal := map[string]any{}
			for _, r := range required {
				minimal[r] = asNumber[r]
			}
			for label, raw := range map[string]map[string]any{"minimal": minimal, "full": asNumber, "full, numbers as strings": asString} {
				if _, err := ParseArgs(tool.Name, raw); err != nil {
					t.Errorf("%s set %v generated from the schema is refused: %v", label, raw, err)
				}
			}
			for _, r := range required {
				raw := maps.Clone(minimal)
				delete(raw, r)
				wantArgError(t, tool.Name, raw, r, "missing required argument "+r)
			}
			raw := maps.Clone(minimal)
			raw["bogus"] = "1"
			err := wantArgError(t, tool.Name, raw, "bogus", "bogus")
			for _, name := range names {
				if err != nil && !strings.Contains(err.Error(), name) {
					t.Errorf("unknown-argument error does not list %s: %v", name, err)
				}
			}
			// Values on the wrong side of the schema's bounds are refused too.
			for _, name := range names {
				p := props[name].(map[string]any)
				for _, bad := range outsideSchema(p) {
					raw := maps.Clone(asNumber)
					raw[name] = bad
					wantArgError(t, tool.Name, raw, name, name)
				}
			}
		})
	}
}

var sampleStrings = []string{addrA, addrB, wSOL, solana.Signature{9, 8, 7}.String(), "kR3nT9xQm2vP", "p-1", "https://actions.example.com/api/tip"}

// sampleFromSchema picks a value that satisfies the property's schema, as a
// JSON number where allowed and as a string where allowed.
func sampleFromSchema(t *testing.T, name string, p map[string]any, used map[string]bool) (asNumber, asString any) {
	types := schemaTypes(p)
	var num, str any
	if slices.Contains(types, "integer") {
		if m, ok := p["minimum"].(float64); ok {
			num = m
		} else {
			num = float64(1)
		}
	}
	if slices.Contains(types, "string") {
		pattern, _ := p["pattern"].(string)
		re := regexp.MustCompile(pattern)
		if num != nil {
			if s := strconv.FormatFloat(num.(float64), 'f', -1, 64); re.MatchString(s) {
				str = s
			}
		}
		for _, s := range sampleStrings {
			if str == nil && !used[s] && re.MatchString(s) {
				str, used[s] = s, true
			}
		}
		if str == nil {
			t.Fatalf("%s: no sample matches %q", name, pattern)
		}
	}
	if slices.Contains(types, "object") {
		num, str = map[string]any{}, map[string]any{}
	}
	switch {
	case num == nil && str == nil:
		t.Fatalf("%s: cannot generate a value for %v", name, p)
	case num == nil:
		num = str
	case str == nil:
		str = num
	}
	return num, str
}

// outsideSchema returns values the property's schema refuses.
func outsideSchema(p map[string]any) []any {
	var bad []any
	types := schemaTypes(p)
	if slices.Contains(types, "integer") {
		bad = append(bad, 1.5, true)
		if m, ok := p["minimum"].(float64); ok {
			bad = append(bad, m-1)
		}
		if m, ok := p["maximum"].(float64); ok {
			bad = append(bad, m+1)
		}
	}
	if slices.Contains(types, "string") {
		re := regexp.MustCompile(p["pattern"].(string))
		for _, s := range []string{"!", "0", addrA + "1", " " + addrA} {
			if !re.MatchString(s) {
				bad = append(bad, s)
			}
		}
	} else {
		bad = append(bad, "x")
	}
	return bad
}

func schemaTypes(p map[string]any) []string {
	switch t := p["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, x.(string))
		}
		return out
	}
	return nil
}

func wantArgError(t *testing.T, tool string, raw map[string]any, arg, msg string) error {
	t.Helper()
	_, err := ParseArgs(tool, raw)
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != arg || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s %v: got %v, want an error on %s mentioning %q", tool, raw, err, arg, msg)
	}
	return err
}

func wireJSON(t *testing.T, tool mcp.Tool) map[string]any {
	t.Helper()
	b, err := json.Marshal(tool)
	if err != nil {
		t.Fatalf("%s: %v", tool.Name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
