package authority_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// badArgValue is a value of an argument's kind that its parser must refuse.
// A kind missing here fails the test: a new kind must say how it is
// malformed.
func badArgValue(t *testing.T, k wire.ArgKind) any {
	t.Helper()
	switch k {
	case wire.KindAddress:
		return "not-a-base58-address"
	case wire.KindLamports, wire.KindBaseUnits:
		return 1.5
	case wire.KindSlippageBps:
		return 0
	case wire.KindSignature:
		return "short"
	case wire.KindProposalID:
		return "no spaces allowed"
	case wire.KindWaitSeconds:
		return 99
	case wire.KindConfirm:
		return "abc"
	case wire.KindTransaction:
		return "!!not base64!!"
	case wire.KindLabel:
		return "two\nlines"
	case wire.KindActionURL, wire.KindURL:
		return "ftp://example.com/x"
	case wire.KindActionInput, wire.KindHTTPHeaders:
		return 7
	case wire.KindHTTPMethod:
		return "TRACE"
	case wire.KindText:
		return 7
	}
	t.Fatalf("no malformed value for argument kind %d: add one to badArgValue", k)
	return nil
}

// malformedCall is a call with one argument malformed.
type malformedCall struct {
	Tool string         `json:"tool"`
	Arg  string         `json:"arg"` // the argument the error must name
	Args map[string]any `json:"args"`
}

// malformedCalls are, from the inventory, one call per argument of every
// tool with that argument malformed and the others as in the tool's probe
// (readOnlyProbes); a tool without arguments gets an unknown one.
func malformedCalls(t *testing.T, probes map[string]map[string]any) []malformedCall {
	t.Helper()
	var out []malformedCall
	for _, name := range wire.ToolNames() {
		tool, _ := wire.LookupTool(name)
		probe, ok := probes[name]
		if !ok {
			t.Fatalf("no probe for %s", name)
		}
		if len(tool.Args) == 0 {
			out = append(out, malformedCall{name, "bogus", map[string]any{"bogus": 1}})
		}
		for _, a := range tool.Args {
			args := maps.Clone(probe)
			args[a.Name] = badArgValue(t, a.Kind)
			out = append(out, malformedCall{name, a.Name, args})
		}
	}
	return out
}

// outcomeWorld is a world in which every tool's probe can reach its
// proposal: the ledger's paid API allowed, its mints in the wallet.
// tweak, when not nil, changes the options further.
func outcomeWorld(t *testing.T, tweak func(*authority.Options, *localnet.Ledger)) *world {
	t.Helper()
	w := newWorldLedger(t, localnet.Options{PaidAPI: true}, func(o *authority.Options, l *localnet.Ledger) {
		o.Policy.AllowUncappedTokenTransfers = true
		o.Policy.AllowedX402Origins = []string{l.PaidAPI().URL}
		if tweak != nil {
			tweak(o, l)
		}
	}, nil, host.ListenConfig{})
	for _, mint := range []string{w.ledger.DemoMints().USDC.Mint, w.ledger.PaidAPI().Mint} {
		if _, err := w.ledger.MintTo(context.Background(), mint, w.wallet.String(), 10_000_000); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// Every answer the console gives, down every path a test reaches (success,
// proposal, policy denial, writes paused, operator denial, a refused token,
// each argument of each tool malformed, an unknown proposal), is one its
// tool's outputSchema lists: mcpbridge.CheckOutput, the bridge's own check,
// judges each. A handler that returns a status its tool does not declare
// fails here, before any client sees it.
func TestEveryAnswerIsDeclared(t *testing.T) {
	t.Parallel()
	w := outcomeWorld(t, nil)
	ctx := context.Background()
	seen := map[string]map[string]bool{}
	// Each write tool is driven by a client of its own (a proposal
	// belongs to its client in process), so that its denials do not add up
	// to another's retry breaker.
	client := "outcomes"
	call := func(tool string, args map[string]any) wire.CallResult {
		t.Helper()
		raw, _ := json.Marshal(args)
		res := w.authority.Call(ctx, wire.CallRequest{Client: wire.ClientInfo{Name: client}, Tool: tool, Arguments: raw})
		if res.Structured == nil {
			t.Fatalf("%s %v: no structured content: %s", tool, args, res.Text)
		}
		st, _ := json.Marshal(res.Structured)
		if err := mcpbridge.CheckOutput(tool, st); err != nil {
			t.Errorf("%s answered what its outputSchema does not list (%v):\n%s", tool, err, st)
		}
		status, _ := res.Structured["status"].(string)
		if seen[tool] == nil {
			seen[tool] = map[string]bool{}
		}
		seen[tool][status] = true
		return res
	}
	probes := readOnlyProbes(w)

	for _, m := range malformedCalls(t, probes) {
		res := call(m.Tool, m.Args)
		if !res.IsError || !strings.Contains(res.Text, m.Arg) {
			t.Errorf("%s with %s malformed: isError %v, %q does not name it", m.Tool, m.Arg, res.IsError, res.Text)
		}
	}
	for _, name := range wire.ToolNames() {
		if !wire.IsWriteTool(name) {
			call(name, probes[name])
			continue
		}
		client = "outcomes " + name
		// Paused: a denial. Then the proposal, a made-up token refused, and
		// the approved call's execution.
		w.authority.SetPaused(true)
		if res := call(name, probes[name]); res.Structured["status"] != "denied" {
			t.Errorf("%s while paused: %s", name, res.Text)
		}
		w.authority.SetPaused(false)
		res := call(name, probes[name])
		id, _ := res.Structured["proposal_id"].(string)
		if res.Structured["status"] != "pending_approval" {
			t.Fatalf("%s: %s", name, res.Text)
		}
		bogus := maps.Clone(probes[name])
		bogus["confirm"] = "111111111111"
		if res := call(name, bogus); res.Structured["status"] != "refused" || res.IsError {
			t.Errorf("%s with a made-up token: isError %v, %s", name, res.IsError, res.Text)
		}
		call(wire.ToolProposalStatus, map[string]any{"proposal_id": id})
		p, err := w.authority.Approve(id, "operator")
		if err != nil {
			t.Fatal(err)
		}
		call(wire.ToolProposalStatus, map[string]any{"proposal_id": id})
		confirmed := maps.Clone(probes[name])
		confirmed["confirm"] = p.Token
		call(name, confirmed)
		call(name, confirmed) // the token again: refused
		call(wire.ToolProposalStatus, map[string]any{"proposal_id": id})
	}
	// The operator's denial, as proposal_status reports it.
	client = "outcomes denial"
	res := call(wire.ToolTransferSOL, map[string]any{"to": w.allowed.String(), "lamports": 7_000})
	id, _ := res.Structured["proposal_id"].(string)
	if _, err := w.authority.Deny(id, "operator", "not today"); err != nil {
		t.Fatal(err)
	}
	if res := call(wire.ToolProposalStatus, map[string]any{"proposal_id": id}); res.Structured["status"] != "denied" {
		t.Errorf("after the operator's denial: %s", res.Text)
	}
	call(wire.ToolTransferSOL, map[string]any{"to": w.stranger.String(), "lamports": 7_000}) // not allowlisted
	call(wire.ToolProposalStatus, map[string]any{"proposal_id": "p_nothing"})

	for _, name := range wire.ToolNames() {
		t.Logf("%s: %v", name, slices.Sorted(maps.Keys(seen[name])))
	}
}
