package mcpbridge

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/solgate/solgate/mcpbridge/wire"
)

func TestToolNamesAndKinds(t *testing.T) {
	var names []string
	for _, tool := range ToolDefinitions() {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, wire.ToolNames()) {
		t.Fatalf("declared %v, want %v", names, wire.ToolNames())
	}
	var writes []string
	for _, n := range names {
		if wire.IsWriteTool(n) {
			writes = append(writes, n)
		}
	}
	if !slices.Equal(writes, []string{wire.ToolTransferSOL, wire.ToolSwap, wire.ToolTransferToken, wire.ToolSignAndSend, wire.ToolSolanaAction, wire.ToolX402Fetch, wire.ToolReclaimRent}) {
		t.Fatalf("write tools %v", writes)
	}
	if wire.IsWriteTool("Transfer_SOL") || wire.IsWriteTool("") {
		t.Fatal("IsWriteTool matches loosely")
	}
}

// Every tool must state readOnlyHint; clients use it to decide what needs the
// user's attention. The check reads the wire JSON, where a missing hint is a
// missing key.
// spends is whether each tool can move funds, spelled out from DESIGN.md's
// "MCP tools" table (its kind column), not taken from the inventory: a hint
// derived from the same flag it is checked against could never be wrong.
var spends = map[string]bool{
	"get_balance": false, "get_token_balances": false, "get_quote": false, "get_token_info": false,
	"get_spend_status": false, "get_transaction": false, "proposal_status": false,
	"transfer_sol": true, "transfer_token": true, "swap": true,
	"sign_and_send_transaction": true, "x402_fetch": true, "solana_action": true, "reclaim_rent": true,
}

func TestEveryToolStatesReadOnlyHint(t *testing.T) {
	for _, tool := range ToolDefinitions() {
		write, known := spends[tool.Name]
		if !known {
			t.Errorf("%s is not in DESIGN.md's tool table (add it there and to spends)", tool.Name)
			continue
		}
		ann := wireJSON(t, tool)["annotations"].(map[string]any)
		ro, ok := ann["readOnlyHint"].(bool)
		if !ok || tool.Annotations.ReadOnlyHint == nil {
			t.Errorf("%s does not state readOnlyHint: %v", tool.Name, ann)
			continue
		}
		if ro == write {
			t.Errorf("%s: readOnlyHint %v, but the tool %s", tool.Name, ro, map[bool]string{true: "spends", false: "only reads"}[write])
		}
		for _, hint := range []string{"destructiveHint", "idempotentHint", "openWorldHint", "title"} {
			if _, ok := ann[hint]; !ok {
				t.Errorf("%s does not state %s", tool.Name, hint)
			}
		}
		if d := ann["destructiveHint"]; d != write {
			t.Errorf("%s: destructiveHint %v", tool.Name, d)
		}
	}
}

func TestToolDescriptionsExplainTheApprovalFlow(t *testing.T) {
	for _, tool := range ToolDefinitions() {
		if tool.Title == "" || len(tool.Description) < 40 {
			t.Errorf("%s: title %q, description %q", tool.Name, tool.Title, tool.Description)
		}
		if !wire.IsWriteTool(tool.Name) {
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

// A list of tools inside a tool's description or an argument's is a whole
// one (every write tool, or every tool), generated from the inventory: the
// model learns from it which tools a thing applies to, and proposal_status
// once named 4 of the 6 write tools. A list of three or more tool names
// written by hand fails here the day a tool is added.
func TestToolListsInDescriptionsAreWhole(t *testing.T) {
	list := regexp.MustCompile(`[a-z0-9_]+(?:, [a-z0-9_]+)+`)
	whole := map[string]bool{strings.Join(wire.WriteToolNames(), ", "): true, strings.Join(wire.ToolNames(), ", "): true}
	lists := 0
	for _, tool := range wire.Inventory() {
		texts := []string{tool.Description}
		for _, a := range tool.Args {
			texts = append(texts, a.Desc)
		}
		for _, text := range texts {
			for _, m := range list.FindAllString(text, -1) {
				names := strings.Split(m, ", ")
				tools := 0
				for _, n := range names {
					if _, ok := wire.LookupTool(n); ok {
						tools++
					}
				}
				if tools < 2 {
					continue // not a list of tools
				}
				lists++
				if !whole[m] {
					t.Errorf("%s: the list of tools %q is not the inventory's write tools (%s)", tool.Name, m, strings.Join(wire.WriteToolNames(), ", "))
				}
			}
		}
	}
	if lists == 0 {
		t.Fatal("no list of tools found: proposal_status's description names the write tools")
	}
}
