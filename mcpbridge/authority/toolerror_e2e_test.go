package authority_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// The console's answer to a call it will not serve, where the answer is
// made (the hub's Call, before any bridge relays it). A malformed argument
// and an unknown tool are tool errors: isError, status "error", the message
// in the text and in the error field. A policy denial, a flood refusal and
// a confirm token that does not hold are ordinary results (isError false)
// that a model reads as answers. Each says what was wrong and what would be
// accepted, and each structured content meets the tool's outputSchema as
// the bridge checks it (mcpbridge.CheckOutput, on wire.OutputSchema): a
// result that broke it would reach the model as a schema error instead.
// Importing the bridge here is a test's import: the import rules read the
// authority's build graph, which stays free of it.
func TestRefusalsAnswerPerTheWireContract(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) { o.MaxPendingPerUID = 1 })
	// Each case is a client of its own: in process, a client is its own
	// user, so the flood limit and the retry breaker of one leave the
	// others alone.
	call := func(client, tool string, args map[string]any) wire.CallResult {
		t.Helper()
		raw, _ := json.Marshal(args)
		return w.authority.Call(context.Background(), wire.CallRequest{Client: wire.ClientInfo{Name: client}, Tool: tool, Arguments: raw})
	}
	// answers checks one answer's isError and status, that its structured
	// content meets the outputSchema of each of tools, and that its text
	// (what the model reads first) says every one of says.
	answers := func(what string, res wire.CallResult, isError bool, status string, tools []string, says ...string) {
		t.Helper()
		if res.IsError != isError || res.Status() != status {
			t.Errorf("%s: isError %v, status %q; want isError %v, status %q: %s", what, res.IsError, res.Status(), isError, status, res.Text)
		}
		st, err := json.Marshal(res.Structured)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			if err := mcpbridge.CheckOutput(tool, st); err != nil {
				t.Errorf("%s: the structured content breaks %s's outputSchema (%v):\n%s", what, tool, err, st)
			}
		}
		for _, s := range says {
			if !strings.Contains(res.Text, s) {
				t.Errorf("%s: the text does not say %q:\n%s", what, s, res.Text)
			}
		}
	}
	transfer := []string{wire.ToolTransferSOL}

	// A tool error's message is its text and its error field alike.
	toolError := func(what string, res wire.CallResult, tools []string, says ...string) {
		t.Helper()
		answers(what, res, true, "error", tools, says...)
		if res.Str("error") != res.Text {
			t.Errorf("%s: the error field %q is not the text %q", what, res.Str("error"), res.Text)
		}
	}
	toolError("lamports of 1.5", call("bad-argument", wire.ToolTransferSOL, map[string]any{"to": w.allowed.String(), "lamports": 1.5}), transfer,
		"lamports must be a whole number of lamports from 1 to 18446744073709551615", "got 1.5")
	toolError("a recipient that is no address", call("bad-argument", wire.ToolTransferSOL, map[string]any{"to": "not-an-address", "lamports": 1_000}), transfer,
		"to must be a base58 Solana address", `got "not-an-address"`)
	// A transfer to the console's own wallet moves nothing but the fee: it
	// is refused before the ledger is asked anything, SOL and token alike.
	own := "to: " + w.wallet.String() + " is the console's own wallet"
	toolError("a SOL transfer to the wallet itself", call("bad-argument", wire.ToolTransferSOL, map[string]any{"to": w.wallet.String(), "lamports": 1_000}), transfer,
		own, "give another address")
	toolError("a token transfer to the wallet itself", call("bad-argument", wire.ToolTransferToken, map[string]any{"mint": w.stranger.String(), "to": w.wallet.String(), "amount": 1}),
		[]string{wire.ToolTransferToken}, own, "give another address")
	// An unknown tool has no schema of its own: its answer is the error
	// outcome every tool declares, whichever the client meant.
	toolError("an unknown tool", call("bad-argument", "transfer_everything", map[string]any{}), wire.ToolNames(),
		`unknown tool "transfer_everything"`, "the tools are: "+strings.Join(wire.ToolNames(), ", "))

	denied := call("denial", wire.ToolTransferSOL, map[string]any{"to": w.stranger.String(), "lamports": 1_000})
	answers("a recipient off the allowlist", denied, false, "denied", transfer,
		"DENIED by policy (rule "+policy.RuleRecipient+")", "recipient "+w.stranger.String()+" is not on the allowlist",
		"--allow-recipient "+w.stranger.String(), "will not succeed in this session")
	if denied.Str("rule") != policy.RuleRecipient || denied.Structured["retryable"] != false {
		t.Errorf("the denial's structured content: %v, want rule %s, retryable false", denied.Structured, policy.RuleRecipient)
	}

	if res := call("flood", wire.ToolTransferSOL, map[string]any{"to": w.allowed.String(), "lamports": 1_000_000}); res.Status() != "pending_approval" {
		t.Fatalf("the proposal that fills the pending limit: %s", res.Text)
	}
	flooded := call("flood", wire.ToolTransferSOL, map[string]any{"to": w.allowed.String(), "lamports": 1_000_001})
	answers("a proposal past the pending limit", flooded, false, "denied", transfer,
		"DENIED by policy (rule "+authority.RuleFlood+")", "the most the console queues per user",
		"wait for decisions (proposal_status) before proposing more", "may succeed later")
	if flooded.Str("rule") != authority.RuleFlood || flooded.Structured["retryable"] != true {
		t.Errorf("the flood refusal's structured content: %v, want rule %s, retryable true", flooded.Structured, authority.RuleFlood)
	}

	refused := call("token", wire.ToolTransferSOL, map[string]any{"to": w.allowed.String(), "lamports": 2_000_000, "confirm": "111111111111"})
	answers("a confirm token the console never issued", refused, false, "refused", transfer,
		"REFUSED — nothing was signed or sent", "this confirmation token is not recognised",
		"pass exactly the token proposal_status returned, or call the tool again without confirm")
}
