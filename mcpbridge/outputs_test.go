package mcpbridge

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// What the bridge refuses as a result, and what it says: where the result
// breaks its schema and which rule, never the value (a result may carry a
// confirmation token).
func TestCheckOutputSaysWhereNotWhat(t *testing.T) {
	const token = "tok_SECRET_9f8e7d"
	for _, tc := range []struct{ name, result, says string }{
		{"an amount as a number", `{"status":"pending_approval","proposal_id":"p_1","spend_lamports":10005000}`, "spend_lamports"},
		{"no status", `{"proposal_id":"p_1"}`, "the result"},
		{"a denial without retryable", `{"status":"denied","rule":"recipient","reason":"` + token + `"}`, "the result lacks retryable"},
		{"a member twice", `{"status":"error","status":"error","error":"x"}`, "name each member once"},
		{"a status no outcome names", `{"status":"` + token + `","error":"x"}`, "status"},
		{"an address that is no address", `{"status":"pending_approval","proposal_id":"p_1","to":"` + token + `"}`, "to"},
		{"not an object", `["pending_approval"]`, "the result"},
		{"not JSON", `{"status":`, "not one JSON value"},
	} {
		err := CheckOutput(wire.ToolTransferSOL, []byte(tc.result))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "10005000") {
			t.Errorf("%s: %q, want it to name %q and quote no value", tc.name, err, tc.says)
		}
	}
	if err := CheckOutput("no_such_tool", []byte(`{}`)); err == nil {
		t.Error("a result of no declared tool was accepted")
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
