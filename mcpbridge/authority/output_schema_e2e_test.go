package authority_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// Every tool answers per the MCP spec: structuredContent, the same JSON
// serialised in a text block, and an outputSchema that the actual results
// satisfy. The results here come from the real binary on the ledger, in
// every status a test can reach cheaply, and are checked with a JSON Schema
// validator of their own (the bridge also validates; this does not rely on
// it).
func TestEveryToolAnswersPerItsOutputSchema(t *testing.T) {
	// A server that asks no payment: x402_fetch answers it as a read.
	free := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { _, _ = rw.Write([]byte("free")) }))
	t.Cleanup(free.Close)
	w, mint := tokenWorld(t, func(c *policy.Config, mint string) {
		c.MaxTokenPerTx = capped(t, mint+"=2.5")
		c.AllowedX402Origins = []string{free.URL}
	})
	a := startAgent(t, w.socket)

	schemas := map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	for _, tool := range mcpbridge.ToolDefinitions() {
		wire, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var def map[string]any
		_ = json.Unmarshal(wire, &def)
		out, ok := def["outputSchema"]
		if !ok {
			t.Errorf("%s declares no outputSchema", tool.Name)
			continue
		}
		raw, _ := json.Marshal(out)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		url := "mem://" + tool.Name
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if schemas[tool.Name], err = c.Compile(url); err != nil {
			t.Fatalf("%s: output schema does not compile: %v", tool.Name, err)
		}
	}

	seen := map[string]int{}
	check := func(tool string, ans testkit.Answer, wantStatus string) testkit.Answer {
		t.Helper()
		if ans.IsError {
			t.Fatalf("%s: tool error: %s", tool, ans.Text)
		}
		if ans.Structured == nil || ans.Serialized == "" {
			t.Fatalf("%s: no structuredContent with its JSON in the text content: %+v", tool, ans)
		}
		if wantStatus != "" && ans.Status() != wantStatus {
			t.Fatalf("%s: status %q, want %q: %s", tool, ans.Status(), wantStatus, ans.Text)
		}
		var v any
		_ = json.Unmarshal([]byte(ans.Serialized), &v)
		if err := schemas[tool].Validate(v); err != nil {
			t.Errorf("%s (%s) breaks its outputSchema: %v\n%s", tool, ans.Status(), err, ans.Serialized)
		}
		seen[tool]++
		return ans
	}

	check(wire.ToolGetBalance, a.Call(wire.ToolGetBalance, nil), "")
	check(wire.ToolGetTokenBalances, a.Call(wire.ToolGetTokenBalances, nil), "")
	check(wire.ToolGetTokenBalances, a.Call(wire.ToolGetTokenBalances, map[string]any{"owner": w.stranger.String()}), "")
	usdc := w.ledger.DemoMints().USDC.Mint
	check(wire.ToolGetQuote, a.Call(wire.ToolGetQuote, map[string]any{"input_mint": w.ledger.DemoMints().WSOL, "output_mint": usdc, "amount": 10_000_000, "slippage_bps": 100}), "")
	check(wire.ToolGetTokenInfo, a.Call(wire.ToolGetTokenInfo, map[string]any{"mint": usdc}), "")
	check(wire.ToolGetSpendStatus, a.Call(wire.ToolGetSpendStatus, nil), "")

	// A transfer: denied, pending, approved, executed, then looked up.
	check(wire.ToolTransferSOL, a.Call(wire.ToolTransferSOL, map[string]any{"to": w.stranger.String(), "lamports": 1000}), "denied")
	tr := map[string]any{"to": w.allowed.String(), "lamports": 1_000_000}
	id := check(wire.ToolTransferSOL, a.Call(wire.ToolTransferSOL, tr), "pending_approval").Str("proposal_id")
	check(wire.ToolProposalStatus, a.Call(wire.ToolProposalStatus, map[string]any{"proposal_id": id}), "pending")
	if _, err := w.authority.Approve(id, "operator"); err != nil {
		t.Fatal(err)
	}
	tr["confirm"] = check(wire.ToolProposalStatus, a.Call(wire.ToolProposalStatus, map[string]any{"proposal_id": id}), "approved").Str("confirm")
	sig := check(wire.ToolTransferSOL, a.Call(wire.ToolTransferSOL, tr), "executed").Str("signature")
	check(wire.ToolProposalStatus, a.Call(wire.ToolProposalStatus, map[string]any{"proposal_id": id}), "executed")
	check(wire.ToolProposalStatus, a.Call(wire.ToolProposalStatus, map[string]any{"proposal_id": "p_nothing"}), "unknown")
	check(wire.ToolGetTransaction, a.Call(wire.ToolGetTransaction, map[string]any{"signature": sig}), "")

	// A token transfer and a swap, proposed and executed.
	tt := map[string]any{"mint": mint, "to": w.allowed.String(), "amount": "1500000"}
	id = check(wire.ToolTransferToken, a.Call(wire.ToolTransferToken, tt), "pending_approval").Str("proposal_id")
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	tt["confirm"] = p.Token
	check(wire.ToolTransferToken, a.Call(wire.ToolTransferToken, tt), "executed")
	sw := swapArgs(w, usdc, 20_000_000)
	id = check(wire.ToolSwap, a.Call(wire.ToolSwap, sw), "pending_approval").Str("proposal_id")
	if p, err = w.authority.Approve(id, "operator"); err != nil {
		t.Fatal(err)
	}
	sw["confirm"] = p.Token
	check(wire.ToolSwap, a.Call(wire.ToolSwap, sw), "executed")

	// A transaction built elsewhere: a refused one, then one executed.
	check(wire.ToolSignAndSend, a.Call(wire.ToolSignAndSend, map[string]any{"transaction": outsideTx(w, "approve")}), "denied")
	ss := map[string]any{"transaction": outsideTx(w, "memo-transfer"), "label": "tip"}
	id = check(wire.ToolSignAndSend, a.Call(wire.ToolSignAndSend, ss), "pending_approval").Str("proposal_id")
	if p, err = w.authority.Approve(id, "operator"); err != nil {
		t.Fatal(err)
	}
	ss["confirm"] = p.Token
	check(wire.ToolSignAndSend, a.Call(wire.ToolSignAndSend, ss), "executed")

	// A Solana Action served by the ledger: one whose origin is not
	// allowed, then the tip proposed and executed.
	check(wire.ToolSolanaAction, a.Call(wire.ToolSolanaAction, map[string]any{"url": "https://actions.example.com/api/tip"}), "denied")
	sa := map[string]any{"url": w.ledger.RPC() + "/api/actions/tip", "input": map[string]any{"amount": "5000"}}
	id = check(wire.ToolSolanaAction, a.Call(wire.ToolSolanaAction, sa), "pending_approval").Str("proposal_id")
	if p, err = w.authority.Approve(id, "operator"); err != nil {
		t.Fatal(err)
	}
	sa["confirm"] = p.Token
	check(wire.ToolSolanaAction, a.Call(wire.ToolSolanaAction, sa), "executed")

	// x402_fetch: a read when no payment is asked, a denial for an origin
	// the operator did not allow (its payments are in x402_e2e_test.go).
	if body := check(wire.ToolX402Fetch, a.Call(wire.ToolX402Fetch, map[string]any{"url": free.URL + "/r"}), "response").Str("body"); body != "free" {
		t.Errorf("x402_fetch read the body %q, want %q", body, "free")
	}
	check(wire.ToolX402Fetch, a.Call(wire.ToolX402Fetch, map[string]any{"url": "http://127.0.0.1:9/r"}), "denied")

	// reclaim_rent: one empty token account, proposed and closed.
	rr := emptyTokenAccount(w)
	id = check(wire.ToolReclaimRent, a.Call(wire.ToolReclaimRent, rr), "pending_approval").Str("proposal_id")
	if p, err = w.authority.Approve(id, "operator"); err != nil {
		t.Fatal(err)
	}
	rr["confirm"] = p.Token
	check(wire.ToolReclaimRent, a.Call(wire.ToolReclaimRent, rr), "executed")

	for _, name := range wire.ToolNames() {
		if seen[name] == 0 {
			t.Errorf("%s was never called here: add it", name)
		}
	}
	// The schemas can fail: a result whose amount is a JSON number, or
	// whose status is not one the tool declares, is refused.
	bad := map[string]any{"address": w.wallet.String(), "lamports": 5, "sol": "0", "slot": 1, "network": "localnet"}
	if schemas[wire.ToolGetBalance].Validate(bad) == nil {
		t.Error("get_balance's schema accepts lamports as a JSON number")
	}
	if schemas[wire.ToolSwap].Validate(map[string]any{"status": "approved_by_model"}) == nil {
		t.Error("swap's schema accepts a status it does not declare")
	}
	if !strings.HasPrefix(strings.TrimSpace(a.Call(wire.ToolGetBalance, nil).Serialized), "{") {
		t.Error("the serialised structured content is not a JSON object")
	}
}
