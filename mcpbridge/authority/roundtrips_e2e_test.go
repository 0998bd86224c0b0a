package authority_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// A transfer_token proposal is one round of RPCs once a proposal of the
// same mint and recipient was made: no read of the mint before the
// preview's batch, which reads it beside the simulation. The label shown is
// that read's. Counted by the ledger, at the other end of the wire.
func TestTransferTokenProposalIsOneRoundOfRPCs(t *testing.T) {
	w, mint := countedWorld(t, func(o *authority.Options) { o.Policy.AllowUncappedTokenTransfers = true })
	ctx := context.Background()
	if _, err := w.ledger.MintTo(ctx, mint, w.wallet.String(), 10_000_000); err != nil {
		t.Fatal(err)
	}
	propose := func(amount int) wire.CallResult {
		t.Helper()
		args, _ := json.Marshal(map[string]any{"mint": mint, "to": w.allowed.String(), "amount": amount})
		res := w.authority.Call(ctx, wire.CallRequest{Client: wire.ClientInfo{Name: "rounds"}, Tool: wire.ToolTransferToken, Arguments: args})
		if res.Status() != "pending_approval" {
			t.Fatalf("propose %d: %+v", amount, res)
		}
		return res
	}
	requests := func(during func()) uint64 {
		t.Helper()
		before, err := w.ledger.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		during()
		after, err := w.ledger.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return after.HTTPRequests - before.HTTPRequests
	}
	propose(1_000) // reads the mint first, and measures the shape's budget
	var second wire.CallResult
	if n := requests(func() { second = propose(2_000) }); n != 1 {
		t.Errorf("the second proposal took %d HTTP requests to the ledger, want 1", n)
	}
	for _, want := range []string{"(2000 base units, 6 decimals)", "Creates the recipient's token account", "rent 0.00203928 SOL (2039280 lamports)"} {
		if !strings.Contains(second.Text, want) {
			t.Errorf("second proposal's preview lacks %q:\n%s", want, second.Text)
		}
	}
	// The recipient's account appears: the next proposal does not create it.
	if _, err := w.ledger.MintTo(ctx, mint, w.allowed.String(), 1); err != nil {
		t.Fatal(err)
	}
	if third := propose(3_000); strings.Contains(third.Text, "Creates the recipient's token account") {
		t.Errorf("the third proposal creates an account that exists:\n%s", third.Text)
	}
	if n := requests(func() { propose(4_000) }); n != 1 {
		t.Errorf("the fourth proposal took %d HTTP requests to the ledger, want 1", n)
	}
}

// get_token_info reads the mint (with its metadata account) once: its facts
// and its label come from the same read. Counted by the ledger.
func TestGetTokenInfoIsOneRead(t *testing.T) {
	w, mint := countedWorld(t, func(*authority.Options) {})
	ctx := context.Background()
	before, err := w.ledger.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"mint": mint})
	res := w.authority.Call(ctx, wire.CallRequest{Client: wire.ClientInfo{Name: "rounds"}, Tool: wire.ToolGetTokenInfo, Arguments: args})
	after, err := w.ledger.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Structured["mint"] != mint || res.Structured["decimals"] != uint8(6) {
		t.Fatalf("get_token_info: %+v", res)
	}
	if n := after.RPCCalls - before.RPCCalls; n != 1 {
		t.Errorf("get_token_info made %d RPC calls to the ledger, want 1", n)
	}
}

// countedWorld is a world whose RPCs can be counted at the ledger (no
// background blockhash refresh inside a count), with a mint of 6 decimals.
func countedWorld(t *testing.T, opts func(*authority.Options)) (*world, string) {
	t.Helper()
	var mint string
	w := newWorldSetup(t, func(o *authority.Options, l *localnet.Ledger) {
		m, err := l.CreateMint(context.Background(), 6, "")
		if err != nil {
			t.Fatal(err)
		}
		mint = m
		opts(o)
	}, func(s *startup.Setup, _ *localnet.Ledger) {
		s.PreviewBlockhashAge = time.Hour
	}, host.ListenConfig{})
	return w, mint
}
