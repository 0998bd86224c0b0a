package executor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// rpcCount is what the ledger and the executor counted between two reads.
type rpcCount struct {
	requests, calls, simulations uint64 // as the ledger counted them
	rounds                       int64  // sequential waits, as the executor counted them
}

func (f *ledgerFixture) count(t *testing.T, during func()) rpcCount {
	t.Helper()
	s0, c0 := f.stats(t), f.ex.Client().Stats()
	during()
	s1, c1 := f.stats(t), f.ex.Client().Stats()
	return rpcCount{requests: s1.HTTPRequests - s0.HTTPRequests, calls: s1.RPCCalls - s0.RPCCalls,
		simulations: s1.Simulations - s0.Simulations, rounds: c1.Rounds - c0.Rounds}
}

// A proposal's preview is one round of RPCs once a preview of its shape
// was measured: the exact bytes' reads and simulation, and the fee market
// (two questions on a stock node), as one batch: one HTTP request, and no
// measuring simulation. Counted by the ledger, at the other end of the wire.
func TestPreviewIsOneRoundOfRPCs(t *testing.T) {
	f := newFixture(t, 10*1_000_000_000, executor.Options{PreviewBlockhashAge: time.Hour}) // no background refresh inside the counts
	ctx := context.Background()
	to := freshAddress(t)
	preview := func(lamports uint64) *executor.Prepared {
		t.Helper()
		p, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: lamports})
		if err != nil {
			t.Fatalf("preview %d: %v", lamports, err)
		}
		return p
	}
	first := preview(1_000_000) // measures the shape's budget the long way

	var second *executor.Prepared
	got := f.count(t, func() { second = preview(2_000_000) })
	if got != (rpcCount{requests: 1, calls: 5, simulations: 1, rounds: 1}) {
		t.Errorf("second preview: %+v; want 1 HTTP request (one batch of balances, simulation, balances and two fee-market questions), 5 calls, 1 simulation, 1 round", got)
	}
	if second.Preview.Budget != first.Preview.Budget || second.Preview.SpendLamports != 2_000_000+fee {
		t.Errorf("second preview budget %+v spend %d; want the first's budget %+v and spend %d", second.Preview.Budget, second.Preview.SpendLamports, first.Preview.Budget, 2_000_000+fee)
	}

	// The market moves: the forecast price no longer holds, so the preview
	// is measured again and carries the fresh price.
	if err := f.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{7_000, 7_000, 7_000}}); err != nil {
		t.Fatal(err)
	}
	var third *executor.Prepared
	got = f.count(t, func() { third = preview(3_000_000) })
	if third.Preview.Budget.UnitPrice != 7_000 || got.simulations != 3 {
		t.Errorf("after the market moved: unit price %d after %d simulations; want 7000 (measured again: forecast, measuring and exact simulations)", third.Preview.Budget.UnitPrice, got.simulations)
	}
	// The transaction needs more units: the exact simulation shows it, and
	// the budget is measured again rather than kept.
	if err := f.ledger.SetExtraComputeUnits(ctx, 400); err != nil {
		t.Fatal(err)
	}
	fourth := preview(4_000_000)
	if fourth.Preview.Budget.Units != third.Preview.Budget.Units+400 {
		t.Errorf("after units rose by 400: budget measured %d units, the one before %d", fourth.Preview.Budget.Units, third.Preview.Budget.Units)
	}
	got = f.count(t, func() { preview(5_000_000) })
	if got.rounds != 1 || got.simulations != 1 {
		t.Errorf("the next preview of the new shape took %d rounds and %d simulations, want 1 and 1", got.rounds, got.simulations)
	}
}

// A node that refuses batches gets the same reads one after another, and
// the preview is the same.
func TestPreviewWithoutBatches(t *testing.T) {
	f := newFixture(t, 10*1_000_000_000, executor.Options{PreviewBlockhashAge: time.Hour}) // no background refresh inside the counts
	ctx := context.Background()
	if err := f.ledger.RefuseBatches(ctx, true); err != nil {
		t.Fatal(err)
	}
	to := freshAddress(t)
	if _, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000}); err != nil {
		t.Fatalf("first preview on a node without batches: %v", err)
	}
	var p *executor.Prepared
	got := f.count(t, func() {
		var err error
		if p, err = f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 2_000_000}); err != nil {
			t.Fatalf("preview: %v", err)
		}
	})
	if got.requests != 5 || got.calls != 5 || got.rounds != 3 {
		t.Errorf("without batches: %+v; want 5 requests = 5 calls (balances, simulation, balances in turn beside the fee market) in 3 rounds", got)
	}
	if p.Preview.SpendLamports != 2_000_000+fee {
		t.Errorf("spend %d, want %d", p.Preview.SpendLamports, 2_000_000+fee)
	}
}

// A batch whose answers span slots proves nothing about the simulation's
// pre-state on a node that runs its calls side by side: it is asked again,
// and after ten such answers nothing is previewed (nothing could be signed).
func TestBatchAcrossSlotsIsAskedAgain(t *testing.T) {
	f := newFixture(t, 10*1_000_000_000, executor.Options{PreviewBlockhashAge: time.Hour}) // no background refresh inside the counts
	ctx := context.Background()
	to := freshAddress(t)
	if _, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000}); err != nil {
		t.Fatal(err)
	}
	if err := f.ledger.SplitBatchSlots(ctx, 2); err != nil {
		t.Fatal(err)
	}
	got := f.count(t, func() {
		if _, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 2_000_000}); err != nil {
			t.Fatalf("preview after two batches across slots: %v", err)
		}
	})
	if got.rounds != 3 || got.simulations != 3 {
		t.Errorf("two batches across slots: %d rounds, %d simulations; want 3 and 3 (asked again until one slot answered)", got.rounds, got.simulations)
	}

	if err := f.ledger.SplitBatchSlots(ctx, 100); err != nil {
		t.Fatal(err)
	}
	_, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 3_000_000})
	if err == nil || !strings.Contains(err.Error(), "cannot be measured alone") {
		t.Fatalf("every batch across slots: err %v, want the effects refused as unmeasurable", err)
	}
}

// A reused blockhash past half its age is refreshed in the background: the
// preview that notices does not wait for it, and the next one builds on the
// fresh blockhash, still in one round.
func TestPreviewBlockhashRefreshedInBackground(t *testing.T) {
	const age = 3 * time.Second
	f := newFixture(t, 10*1_000_000_000, executor.Options{PreviewBlockhashAge: age})
	ctx := context.Background()
	to := freshAddress(t)
	preview := func(lamports uint64) *executor.Prepared {
		t.Helper()
		p, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: lamports})
		if err != nil {
			t.Fatalf("preview %d: %v", lamports, err)
		}
		return p
	}
	first := preview(1_000_000)
	time.Sleep(age/2 + 100*time.Millisecond) // behaviour under test: the blockhash passes half its age

	before := f.stats(t).HTTPRequests
	var second *executor.Prepared
	got := f.count(t, func() { second = preview(2_000_000) })
	if second.Tx.Message.RecentBlockhash != first.Tx.Message.RecentBlockhash || got.rounds != 1 {
		t.Fatalf("past half its age: blockhash reused %v, %d rounds; want the reused one, 1 round (the refresh is not waited for)",
			second.Tx.Message.RecentBlockhash == first.Tx.Message.RecentBlockhash, got.rounds)
	}
	// The refresh is one more request beside the preview's one.
	testkit.Eventually(t, 10*time.Second, "the background blockhash refresh", func() bool {
		return f.stats(t).HTTPRequests >= before+2
	}, nil)
	var third *executor.Prepared
	got = f.count(t, func() { third = preview(3_000_000) })
	if third.Tx.Message.RecentBlockhash == first.Tx.Message.RecentBlockhash || got.rounds != 1 || got.requests != 1 {
		t.Errorf("after the refresh: new blockhash %v, %d rounds, %d requests; want a new one in 1 round of 1 request",
			third.Tx.Message.RecentBlockhash != first.Tx.Message.RecentBlockhash, got.rounds, got.requests)
	}
}

// A token transfer's preview builds on the mint and recipient the last
// preview of them read, and reads them again in the round that simulates:
// one round, one request. When the recipient's account appears meanwhile,
// the bytes built on the old read would create it, so the preview reads
// first, as the long way does, and shows no creation; the next one is one
// round again. Counted by the ledger.
func TestTokenPreviewIsOneRoundOfRPCs(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 10*1_000_000_000, executor.Options{PreviewBlockhashAge: time.Hour}) // no background refresh inside the counts
	mintS, err := f.ledger.CreateMint(ctx, 6, "")
	if err != nil {
		t.Fatal(err)
	}
	mint := solana.MustPublicKeyFromBase58(mintS)
	f.mintTo(t, mintS, f.key.PublicKey(), 5_000_000)
	to := freshAddress(t)
	preview := func(amount uint64) *executor.PreparedToken {
		t.Helper()
		p, err := f.ex.PreviewTokenTransfer(ctx, executor.TokenTransfer{Mint: mint, To: to, Amount: amount})
		if err != nil {
			t.Fatalf("preview %d: %v", amount, err)
		}
		return p
	}
	first := preview(1_000) // reads first, and measures the shape's budget

	var second *executor.PreparedToken
	got := f.count(t, func() { second = preview(2_000) })
	if got != (rpcCount{requests: 1, calls: 6, simulations: 1, rounds: 1}) {
		t.Errorf("second preview: %+v; want 1 HTTP request (balances, simulation, balances, two fee-market questions, the mint and recipient), 6 calls, 1 simulation, 1 round", got)
	}
	if r := second.Preview.RPC; r.Rounds != got.rounds || r.Calls != 1 || r.Waiting <= 0 {
		t.Errorf("second preview carries RPC %+v; want the %d round(s) counted, 1 HTTP request and its wait", r, got.rounds)
	}
	tp1, tp2 := first.TokenPreview, second.TokenPreview
	if !tp2.CreatesAccount || tp2.Rent != tp1.Rent || tp2.Rent == 0 || tp2.Received != 2_000 || !tp2.Destination.Equals(tp1.Destination) ||
		tp2.Mint.Decimals != 6 || second.Preview.Budget != first.Preview.Budget || len(second.Preview.Instructions) != len(first.Preview.Instructions) {
		t.Errorf("one-round preview %+v budget %+v, %d instructions; want the long way's %+v budget %+v, %d instructions, receiving 2000",
			tp2, second.Preview.Budget, len(second.Preview.Instructions), tp1, first.Preview.Budget, len(first.Preview.Instructions))
	}

	// The recipient's account appears: what the last preview read no
	// longer holds, and the preview must not show a creation.
	f.mintTo(t, mintS, to, 1)
	var third *executor.PreparedToken
	got = f.count(t, func() { third = preview(3_000) })
	if tp := third.TokenPreview; tp.CreatesAccount || tp.Rent != 0 || tp.Received != 3_000 || len(third.Preview.Instructions) != len(first.Preview.Instructions)-1 || got.rounds < 2 {
		t.Errorf("after the account appeared: creates=%v rent=%d received=%d, %d instructions, %d rounds; want no creation, no rent, 3000, one instruction fewer, read first (2 rounds or more)",
			tp.CreatesAccount, tp.Rent, tp.Received, len(third.Preview.Instructions), got.rounds)
	}
	got = f.count(t, func() { preview(4_000) })
	if got.rounds != 1 || got.requests != 1 {
		t.Errorf("the next preview: %+v; want 1 round, 1 request", got)
	}
}

// A preview carries the time it spent waiting for the node's answers, so a
// proposal's latency can be split into the ledger's part and solgate's own
// (the bench's "solgate's share" row). With the ledger told to answer each
// request 100 ms late, that delay is in the preview's wait, and not in the
// rest of its wall time.
func TestPreviewCarriesItsRPCWait(t *testing.T) {
	f := newFixture(t, 10*1_000_000_000, executor.Options{PreviewBlockhashAge: time.Hour}) // no background refresh inside the wait
	ctx := context.Background()
	to := freshAddress(t)
	if _, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000}); err != nil {
		t.Fatal(err) // measures the shape: the next preview is one round
	}
	const latency = 100 * time.Millisecond
	if err := f.ledger.SetLatency(ctx, latency); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.ledger.SetLatency(ctx, 0) }()
	start := time.Now()
	p, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 2_000_000})
	wall := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Preview.RPC
	if got.Rounds != 1 || got.Calls != 1 {
		t.Errorf("preview RPC %+v; want 1 round in 1 HTTP request", got)
	}
	if got.Waiting < latency || got.Waiting > wall {
		t.Errorf("preview waited %v for RPC answers in a wall time of %v; want at least the ledger's injected %v, and no more than the wall time", got.Waiting, wall, latency)
	}
	if own := wall - got.Waiting; own >= latency {
		t.Errorf("wall − RPC wait = %v: the ledger's injected %v is not all in the wait", own, latency)
	}
}
