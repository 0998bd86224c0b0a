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
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// Every write entry of the bridge's inventory is exactly one registered
// write kind, and every registration is a write entry: the bridge declares
// tools without importing this package, so only this test ties the two
// halves together. A registration is what the console serves (parse,
// prepare, facts, lines, verify); the inventory is what the model sees.
func TestInventoryWriteToolsAreRegistrations(t *testing.T) {
	if problems := inventoryMismatch(wire.ToolNames(), wire.IsWriteTool, writekind.Default()); len(problems) > 0 {
		for _, p := range problems {
			t.Error(p)
		}
	}
	// The check itself must be able to fail, on either side.
	extra, err := writekind.NewRegistry(append(registeredKinds(t), fakeKind{tool: "drain_wallet"})...)
	if err != nil {
		t.Fatal(err)
	}
	if len(inventoryMismatch(wire.ToolNames(), wire.IsWriteTool, extra)) == 0 {
		t.Error("a registration without an inventory entry went unnoticed")
	}
	fewer, _ := writekind.NewRegistry(registeredKinds(t)[1:]...)
	if len(inventoryMismatch(wire.ToolNames(), wire.IsWriteTool, fewer)) == 0 {
		t.Error("an inventory write entry without a registration went unnoticed")
	}
	isWrite := func(n string) bool { return wire.IsWriteTool(n) || n == "drain_wallet" }
	if len(inventoryMismatch(append(wire.ToolNames(), "drain_wallet"), isWrite, writekind.Default())) == 0 {
		t.Error("an extra inventory write entry went unnoticed")
	}
	if _, err := writekind.NewRegistry(fakeKind{tool: "swap"}, fakeKind{tool: "swap"}); err == nil {
		t.Error("a tool registered twice was accepted")
	}
}

// inventoryMismatch lists every way the inventory's write entries and the
// registry differ.
func inventoryMismatch(declared []string, isWrite func(string) bool, r *writekind.Registry) []string {
	var out []string
	for _, name := range declared {
		_, registered := r.Lookup(name)
		_, read := readTools[name]
		switch {
		case isWrite(name) && !registered:
			out = append(out, "write tool "+name+" is declared to the model but no write kind is registered for it")
		case isWrite(name) && read:
			out = append(out, "write tool "+name+" also has a read entry")
		case !isWrite(name) && registered:
			out = append(out, "read tool "+name+" is registered as a write kind")
		}
	}
	for _, name := range r.Tools() {
		if !slices.Contains(declared, name) || !isWrite(name) {
			out = append(out, "write kind "+name+" is registered but the inventory has no write entry for it")
		}
	}
	return out
}

func registeredKinds(t *testing.T) []writekind.Registration {
	t.Helper()
	var out []writekind.Registration
	for _, name := range writekind.Default().Tools() {
		k, _ := writekind.Default().Lookup(name)
		out = append(out, k)
	}
	if len(out) == 0 {
		t.Fatal("no write kind is registered")
	}
	return out
}

// Every read entry of the inventory has a parser and handler here, and
// every read entry here is declared.
func TestInventoryReadToolsHaveEntries(t *testing.T) {
	declared := wire.ToolNames()
	for _, name := range declared {
		if _, ok := readTools[name]; !ok && !wire.IsWriteTool(name) {
			t.Errorf("read tool %s is declared to the model but the console has no entry for it", name)
		}
	}
	for name := range readTools {
		if !slices.Contains(declared, name) || wire.IsWriteTool(name) {
			t.Errorf("the console serves %s as a read tool, which the bridge does not declare as one", name)
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

var sampleStrings = []string{addrA, addrB, wSOL, solana.Signature{9, 8, 7}.String(), "kR3nT9xQm2vP", "p-1", "https://api.example.com/x", sampleTransaction, "https://actions.example.com/api/tip"}

// sampleTransaction is a legacy transfer of 1000 lamports from addrA to
// addrB, its signature slot empty, as base64 wire bytes.
const sampleTransaction = "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAEDfDj4eI9aoEQQVWAPScg/UEIaeCnyzbzUFI1pTy84p0HG+nrzvtutOj1l82qryXQxsbvkwtL24OR8pgIDRS9dYQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAgIAAQwCAAAA6AMAAAAAAAA="

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
	if slices.Contains(types, "object") {
		return map[string]any{}, map[string]any{}
	}
	if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
		return enum[0], enum[0]
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
		pattern, _ := p["pattern"].(string)
		re := regexp.MustCompile(pattern)
		enum, _ := p["enum"].([]any)
		for _, s := range []string{"!", "0", addrA + "1", " " + addrA} {
			if !re.MatchString(s) || (len(enum) > 0 && !slices.Contains(enum, any(s))) {
				bad = append(bad, s)
			}
		}
		if m, ok := p["maxLength"].(float64); ok {
			bad = append(bad, strings.Repeat("a", int(m)+1))
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
	var ae *args.ArgError
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
