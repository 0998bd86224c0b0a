package mcpbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestToolNamesAndKinds(t *testing.T) {
	var names []string
	for _, tool := range ToolDefinitions() {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, ToolNames()) {
		t.Fatalf("declared %v, want %v", names, ToolNames())
	}
	var writes []string
	for _, n := range names {
		if IsWriteTool(n) {
			writes = append(writes, n)
		}
	}
	if !slices.Equal(writes, []string{ToolTransferSOL, ToolSwap, ToolTransferToken}) {
		t.Fatalf("write tools %v", writes)
	}
	if IsWriteTool("Transfer_SOL") || IsWriteTool("") {
		t.Fatal("IsWriteTool matches loosely")
	}
}

// Every tool must state readOnlyHint; clients use it to decide what needs the
// user's attention. The check reads the wire JSON, where a missing hint is a
// missing key.
func TestEveryToolStatesReadOnlyHint(t *testing.T) {
	for _, tool := range ToolDefinitions() {
		ann := wireJSON(t, tool)["annotations"].(map[string]any)
		ro, ok := ann["readOnlyHint"].(bool)
		if !ok || tool.Annotations.ReadOnlyHint == nil {
			t.Errorf("%s does not state readOnlyHint: %v", tool.Name, ann)
			continue
		}
		if ro == IsWriteTool(tool.Name) {
			t.Errorf("%s: readOnlyHint %v contradicts IsWriteTool", tool.Name, ro)
		}
		for _, hint := range []string{"destructiveHint", "idempotentHint", "openWorldHint", "title"} {
			if _, ok := ann[hint]; !ok {
				t.Errorf("%s does not state %s", tool.Name, hint)
			}
		}
		if d := ann["destructiveHint"]; d != IsWriteTool(tool.Name) {
			t.Errorf("%s: destructiveHint %v", tool.Name, d)
		}
	}
}

func TestToolDescriptionsExplainTheApprovalFlow(t *testing.T) {
	for _, tool := range ToolDefinitions() {
		if tool.Title == "" || len(tool.Description) < 40 {
			t.Errorf("%s: title %q, description %q", tool.Name, tool.Title, tool.Description)
		}
		if !IsWriteTool(tool.Name) {
			continue
		}
		for _, want := range []string{"human", "solgate console", "proposal_status", "confirm", "nothing has been signed or sent", "exactly the same arguments"} {
			if !strings.Contains(tool.Description, want) {
				t.Errorf("%s description does not mention %q", tool.Name, want)
			}
		}
		if !strings.Contains(tool.Title, "approval") {
			t.Errorf("%s title %q does not say it needs approval", tool.Name, tool.Title)
		}
	}
}

// Snapshots catch accidental schema changes. Refresh with UPDATE_SNAPSHOTS=1.
func TestToolSchemaSnapshots(t *testing.T) {
	dir := filepath.Join("testdata", "tools")
	update := os.Getenv("UPDATE_SNAPSHOTS") == "1"
	if update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{}
	for _, tool := range ToolDefinitions() {
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		got = append(got, '\n')
		path := filepath.Join(dir, tool.Name+".json")
		want[tool.Name+".json"] = true
		if update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		snap, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run with UPDATE_SNAPSHOTS=1 to create it)", tool.Name, err)
			continue
		}
		if !bytes.Equal(snap, got) {
			t.Errorf("%s differs from %s; if the change is intended, run UPDATE_SNAPSHOTS=1 go test ./mcpbridge/ and review the diff.\ngot:\n%s", tool.Name, path, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("stale snapshot %s for a tool that no longer exists", e.Name())
		}
	}
}

// The input schema and the parser must agree: values generated from the schema
// alone parse, each required argument is really required, and values the schema
// rules out are refused.
func TestSchemasAgreeWithParsers(t *testing.T) {
	for _, tool := range ToolDefinitions() {
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

var sampleStrings = []string{addrA, addrB, wSOL, solana.Signature{9, 8, 7}.String(), "kR3nT9xQm2vP", "p-1"}

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
