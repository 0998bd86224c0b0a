package executor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
)

// An aggregator's instructions are not decoded: whatever one makes the
// wallet do shows only in the simulation. Here each hostile swap API answer
// is judged by the whole-wallet simulation alone (the inspector's
// instruction rules skipped, as they would see nothing inside an aggregator
// instruction), on the real SVM: every one is refused before signing, and
// the ledger does not move.
func TestWholeWalletSimulationRefusesEveryHostileAnswer(t *testing.T) {
	ctx := context.Background()
	l, err := localnet.Start(ctx, localnet.Options{})
	if err != nil {
		t.Fatalf("start localnet: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	key, _ := NewRandomKeypair()
	wallet := key.PublicKey()
	if err := l.Fund(ctx, wallet.String(), 10*solana.LAMPORTS_PER_SOL); err != nil {
		t.Fatal(err)
	}
	client := NewClient(l.RPC(), ClientOptions{RetryBase: 20 * time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	api, err := NewSwapClient(l.SwapAPI(), SwapClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	demo := l.DemoMints()
	sw := NewSwapper(New(client, key, Options{}), api, SwapOptions{SwapPrograms: []solana.PublicKey{solana.MustPublicKeyFromBase58(demo.AggregatorProgram)}})
	if err := l.SetSwapAggregator(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := l.MintTo(ctx, demo.WSOL, wallet.String(), 200_000_000); err != nil {
		t.Fatal(err)
	}
	baitTA, err := l.MintTo(ctx, demo.Bait.Mint, wallet.String(), 777)
	if err != nil {
		t.Fatal(err)
	}
	balanceBefore, err := client.rpc.GetBalance(ctx, wallet, "confirmed")
	if err != nil {
		t.Fatal(err)
	}
	usdc := solana.MustPublicKeyFromBase58(demo.USDC.Mint)

	// judge runs what PrepareSwap runs after inspection, on the API's answer.
	judge := func(t *testing.T) (*PreparedSwap, error, error) {
		t.Helper()
		q, err := sw.Quote(ctx, QuoteRequest{InputMint: WrappedSOL, OutputMint: usdc, Amount: 20_000_000, SlippageBps: 100})
		if err != nil {
			t.Fatal(err)
		}
		stx, err := api.SwapTransaction(ctx, q, wallet)
		if err != nil {
			t.Fatal(err)
		}
		tables := LookupTables{}
		keys := stx.Tx.LookupTables()
		accts, err := client.multipleAccounts(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if tables[k], err = ParseLookupTable(accts[i].Owner, accts[i].Data.GetBinary()); err != nil {
				t.Fatal(err)
			}
		}
		_, inspectErr := Inspect(stx.Tx, tables, InspectRules{Wallet: wallet, InputMint: WrappedSOL, OutputMint: usdc, InAmount: q.InAmount,
			Pools: q.Pools(), SwapPrograms: sw.opts.SwapPrograms, MaxPriorityFeeLamports: sw.maxPriorityFee()})
		in := &Inspection{Fee: uint64(stx.Tx.NumSignatures()) * LamportsPerSignature}
		if in.Accounts, in.Writable, in.Loaded, err = resolveAccounts(stx.Tx, tables); err != nil {
			t.Fatal(err)
		}
		p := &PreparedSwap{Quote: q, Terms: q.Terms(), Tx: stx.Tx, Inspection: in}
		return p, sw.simulateSwap(ctx, p, stx.LastValidBlockHeight), inspectErr
	}

	if _, err, inspectErr := judge(t); err != nil || inspectErr != nil {
		t.Fatalf("the honest answer through the aggregator: simulation %v, inspection %v", err, inspectErr)
	}
	for _, tc := range []struct {
		mode, want      string
		inspectorSeesIt bool
	}{
		{localnet.HostileDrainWSOL, "lamports of SOL and wrapped SOL left the wallet", false},
		{localnet.HostileDrainToken, "777 base units of " + demo.Bait.Mint + " left the wallet", true},
		{localnet.HostileCloseToAttacker, "would close " + baitTA + " and send its 2039280 lamports to", true},
		{localnet.HostileSetDelegate, "token account delegate changed from none to", true},
		{localnet.HostileSetOwner, "token account owner changed from " + wallet.String(), true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			if err := l.SetSwapHostile(ctx, tc.mode, 0); err != nil {
				t.Fatal(err)
			}
			defer l.SetSwapHostile(ctx, "", 0)
			_, err, inspectErr := judge(t)
			if !errors.Is(err, ErrSwapRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("the whole-wallet simulation: %v, want a refusal saying %q", err, tc.want)
			}
			if (inspectErr != nil) != tc.inspectorSeesIt {
				t.Errorf("the inspector's verdict on its own: %v", inspectErr)
			}
		})
	}
	s, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.SendsReceived != 0 || s.TransactionsExecuted != 0 {
		t.Errorf("something reached the ledger: %+v", s)
	}
	if after, _ := client.rpc.GetBalance(ctx, wallet, "confirmed"); after.Value != balanceBefore.Value {
		t.Errorf("wallet balance %d → %d", balanceBefore.Value, after.Value)
	}
}
