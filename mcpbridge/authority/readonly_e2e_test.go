package authority_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// readOnlyProbes are, for every tool, arguments with which a write handler
// would create a proposal (an allowlisted recipient, a small swap from SOL).
// A tool missing here fails the test: a new tool must say how to probe it.
func readOnlyProbes(w *world) map[string]map[string]any {
	usdc := w.ledger.DemoMints().USDC.Mint
	return map[string]map[string]any{
		wire.ToolGetBalance:       {},
		wire.ToolGetTokenBalances: {},
		wire.ToolGetQuote:         swapArgs(w, usdc, 10_000_000),
		wire.ToolGetTokenInfo:     {"mint": usdc},
		wire.ToolGetSpendStatus:   {},
		wire.ToolGetTransaction:   {"signature": "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"},
		wire.ToolProposalStatus:   {"proposal_id": "p_none"},
		wire.ToolTransferSOL:      {"to": w.allowed.String(), "lamports": 1_000_000},
		wire.ToolSwap:             swapArgs(w, usdc, 10_000_000),
		wire.ToolTransferToken:    {"mint": usdc, "to": w.allowed.String(), "amount": 1_000},
		wire.ToolSignAndSend:      {"transaction": outsideTx(w, "memo-transfer")},
		wire.ToolSolanaAction:     {"url": w.ledger.RPC() + "/api/actions/tip"},
		wire.ToolX402Fetch:        {"url": w.ledger.PaidAPI().URL + "/paid"},
		wire.ToolReclaimRent:      emptyTokenAccount(w),
	}
}

// emptyTokenAccount gives the world's wallet one more empty token account
// (of a new mint), something reclaim_rent would close, and returns
// reclaim_rent's arguments: none.
func emptyTokenAccount(w *world) map[string]any {
	ctx := context.Background()
	mint, err := w.ledger.CreateMint(ctx, 6, w.stranger.String())
	if err == nil {
		_, err = w.ledger.MintTo(ctx, mint, w.wallet.String(), 0)
	}
	if err != nil {
		panic(err)
	}
	return map[string]any{}
}

// outsideTx is a transaction of the ledger's @solana/kit builders for the
// world's wallet, as base64, paying the world's allowed recipient (with the
// allowlist set, a stranger would be refused as a payee).
func outsideTx(w *world, kind string) string {
	o, err := w.ledger.BuildOutside(context.Background(), kind, w.wallet.String(), localnet.OutsideOptions{To: w.allowed.String()})
	if err != nil {
		panic(err)
	}
	return o.Transaction
}

// The readOnlyHint a tool declares must match what its handler can do,
// judged from outside: a call that leaves a proposal row in the store or
// sends a transaction to the ledger is a write, whatever the declaration.
// A hint derived from a name list and checked against the same list could
// never fail; this one fails when a write tool is declared read-only (and
// when a declared write tool's handler cannot write).
func TestReadOnlyHintMatchesWhatTheHandlerDoes(t *testing.T) {
	w := newWorldLedger(t, localnet.Options{PaidAPI: true}, func(o *authority.Options, l *localnet.Ledger) {
		o.Policy.AllowUncappedTokenTransfers = true
		o.Policy.AllowedX402Origins = []string{l.PaidAPI().URL}
	}, nil, host.ListenConfig{})
	ctx := context.Background()
	for _, mint := range []string{w.ledger.DemoMints().USDC.Mint, w.ledger.PaidAPI().Mint} {
		if _, err := w.ledger.MintTo(ctx, mint, w.wallet.String(), 1_000_000); err != nil {
			t.Fatal(err)
		}
	}
	probes := readOnlyProbes(w)
	proposals := func() int {
		var n int
		if err := w.store.DB().QueryRow(`SELECT COUNT(*) FROM proposals`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	sends := func() uint64 {
		s, err := w.ledger.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s.SendsReceived
	}
	for _, tool := range mcpbridge.ToolDefinitions() {
		t.Run(tool.Name, func(t *testing.T) {
			args, ok := probes[tool.Name]
			if !ok {
				t.Fatalf("no probe for %s: add arguments with which it would write, if it can", tool.Name)
			}
			if tool.Annotations.ReadOnlyHint == nil {
				t.Fatalf("%s does not state readOnlyHint", tool.Name)
			}
			declaredReadOnly := *tool.Annotations.ReadOnlyHint
			raw, _ := json.Marshal(args)
			p0, s0 := proposals(), sends()
			res := w.authority.Call(ctx, wire.CallRequest{Client: wire.ClientInfo{Name: "probe"}, Tool: tool.Name, Arguments: raw})
			if res.IsError {
				t.Fatalf("probe of %s was refused, so it proves nothing: %s", tool.Name, res.Text)
			}
			wrote := proposals() > p0 || sends() > s0
			if declaredReadOnly && wrote {
				t.Fatalf("%s declares readOnlyHint true, but a call created a proposal or sent a transaction", tool.Name)
			}
			if !declaredReadOnly && !wrote {
				t.Fatalf("%s declares readOnlyHint false, but the probe neither proposed nor sent: %s", tool.Name, res.Text)
			}
		})
	}
}
