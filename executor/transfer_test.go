package executor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
)

const fee = 5000 // lamports per signature on the SVM

// ledgerFixture is a running localnet with a funded wallet. Every balance
// assertion reads the ledger through an RPC client of its own, never through
// the executor under test.
type ledgerFixture struct {
	ledger *localnet.Ledger
	chain  *rpc.Client
	key    *executor.Keypair
	ex     *executor.Executor
}

func newFixture(t testing.TB, fund uint64, opts executor.Options) *ledgerFixture {
	t.Helper()
	return newFixtureOn(t, 0, fund, opts)
}

// newFixtureOn is newFixture on a ledger with slots of slotMS (0: the
// default, mainnet's pace).
func newFixtureOn(t testing.TB, slotMS int, fund uint64, opts executor.Options) *ledgerFixture {
	t.Helper()
	ctx := context.Background()
	l, err := localnet.Start(ctx, localnet.Options{SlotMS: slotMS})
	if err != nil {
		t.Fatalf("start localnet: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	key, err := executor.NewRandomKeypair()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Fund(ctx, key.PublicKey().String(), fund); err != nil {
		t.Fatalf("fund: %v", err)
	}
	client := executor.NewClient(l.RPC(), executor.ClientOptions{RetryBase: 20 * time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	return &ledgerFixture{ledger: l, chain: rpc.New(l.RPC()), key: key, ex: executor.New(client, key, opts)}
}

func (f *ledgerFixture) balance(t *testing.T, pk solana.PublicKey) uint64 {
	t.Helper()
	out, err := f.chain.GetBalance(context.Background(), pk, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("getBalance %s: %v", pk, err)
	}
	return out.Value
}

func (f *ledgerFixture) stats(t *testing.T) localnet.Stats {
	t.Helper()
	s, err := f.ledger.Stats(context.Background())
	if err != nil {
		t.Fatalf("stats: %v", err)
	}
	return s
}

func freshAddress(t testing.TB) solana.PublicKey {
	t.Helper()
	k, err := executor.NewRandomKeypair()
	if err != nil {
		t.Fatal(err)
	}
	return k.PublicKey()
}

// A transfer lands and the balances move, at mainnet's pace (where
// confirmation takes a real slot) and at the fast pace.
func TestTransferLandsAndBalancesMove(t *testing.T) {
	for _, pace := range []struct {
		name   string
		slotMS int
	}{{"mainnet pace", localnet.MainnetSlotMS}, {"fast pace", localnet.FastSlotMS}} {
		t.Run(pace.name, func(t *testing.T) { transferLandsAndBalancesMove(t, pace.slotMS) })
	}
}

func transferLandsAndBalancesMove(t *testing.T, slotMS int) {
	const funded, amount = 10 * solana.LAMPORTS_PER_SOL, 50_000_000
	f := newFixtureOn(t, slotMS, funded, executor.Options{})
	to := freshAddress(t)

	res, err := f.ex.ExecuteTransfer(context.Background(), executor.Transfer{To: to, Lamports: amount}, nil)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if res.Outcome != executor.Executed {
		t.Fatalf("outcome %s (%s), want executed", res.Outcome, res.Reason)
	}
	// The outside world: balances read back from the ledger.
	if got := f.balance(t, to); got != amount {
		t.Errorf("recipient balance %d, want %d", got, amount)
	}
	if got, want := f.balance(t, f.key.PublicKey()), uint64(funded-amount-fee); got != want {
		t.Errorf("sender balance %d, want %d (amount + %d fee)", got, want, fee)
	}
	// And the transaction the executor reports is the one on chain.
	tx, err := f.chain.GetTransaction(context.Background(), res.Signature, &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil || tx.Meta == nil {
		t.Fatalf("getTransaction %s: %v", res.Signature, err)
	}
	if tx.Meta.Err != nil || tx.Meta.Fee != fee || tx.Slot != res.Slot {
		t.Errorf("on chain: err=%v fee=%d slot=%d; executor said slot %d", tx.Meta.Err, tx.Meta.Fee, tx.Slot, res.Slot)
	}
	if s := f.stats(t); s.TransactionsExecuted != 1 {
		t.Errorf("ledger executed %d transactions, want 1", s.TransactionsExecuted)
	}
	if res.RPC.Calls == 0 || res.Timings.Total <= 0 {
		t.Errorf("result carries no measurements: %+v", res)
	}
	// Calls made side by side count once: waiting can never exceed the wall time.
	if res.RPC.Waiting > res.Timings.Total {
		t.Errorf("RPC waiting %v exceeds the wall time %v", res.RPC.Waiting, res.Timings.Total)
	}
}

// A preview may build on a blockhash fetched a moment ago (one round trip
// fewer per proposal); preparing for execution always fetches a fresh one;
// and a reused blockhash that has expired costs a retry, not a denial.
func TestPreviewReusesRecentBlockhash(t *testing.T) {
	f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{PreviewBlockhashAge: time.Minute})
	to := freshAddress(t)
	ctx := context.Background()
	calls := func() uint64 { return f.stats(t).RPCCalls } // stats is a control call, not counted

	before := calls()
	p1, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	first := calls() - before
	p2, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 2_000_000})
	if err != nil {
		t.Fatal(err)
	}
	second := calls() - before - first
	// The fee market is two calls (the accounts and the global market), and
	// the first preview also probes once for Helius' method, which a stock
	// node refuses.
	if first != 8 || second != 5 {
		t.Errorf("previews made %d then %d RPC calls, want 8 (blockhash, the Helius probe, fee market for the accounts and global, measuring simulation, balances, simulation, balances again to know the simulation saw them) then 5 (the first's budget holds: no measuring simulation)", first, second)
	}
	if p2.Tx.Message.RecentBlockhash != p1.Tx.Message.RecentBlockhash {
		t.Errorf("second preview fetched a new blockhash")
	}
	if p2.Preview.SpendLamports != 2_000_000+fee {
		t.Errorf("second preview spend %d, want %d", p2.Preview.SpendLamports, 2_000_000+fee)
	}

	before = calls()
	ex, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if n := calls() - before; n != 7 {
		t.Errorf("PrepareTransfer made %d RPC calls, want 7: execution always fetches its blockhash", n)
	}

	// Every blockhash so far expires; the reused one fails its simulation
	// with BlockhashNotFound and the preview retries on a fresh one.
	if err := f.ledger.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	p3, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 3_000_000})
	if err != nil {
		t.Fatalf("preview after the blockhash expired: %v", err)
	}
	if p3.Tx.Message.RecentBlockhash == ex.Tx.Message.RecentBlockhash || p3.Preview.SpendLamports != 3_000_000+fee {
		t.Errorf("preview after expiry: blockhash %s (old %s), spend %d", p3.Tx.Message.RecentBlockhash, ex.Tx.Message.RecentBlockhash, p3.Preview.SpendLamports)
	}
}

func TestPreviewMeasuresSpendFromSimulation(t *testing.T) {
	const amount = 2_000_000
	f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{})
	to := freshAddress(t)
	p, err := f.ex.PrepareTransfer(context.Background(), executor.Transfer{To: to, Lamports: amount})
	if err != nil {
		t.Fatal(err)
	}
	if p.Preview.SpendLamports != amount+fee || p.Preview.Fee != fee {
		t.Errorf("preview spend %d fee %d, want %d and %d", p.Preview.SpendLamports, p.Preview.Fee, amount+fee, fee)
	}
	// The compute-unit limit first (no price: localnet's fee market is
	// empty until a test sets it), then the transfer.
	if ins := p.Preview.Instructions; len(ins) != 2 || ins[0].Name != "Compute Budget" || ins[1].Name != "System Program" {
		t.Errorf("instructions: %+v", p.Preview.Instructions)
	}
	// Preparing signs and sends nothing.
	if s := f.stats(t); s.SendsReceived != 0 || s.TransactionsExecuted != 0 {
		t.Errorf("prepare reached the ledger: %+v", s)
	}
	if got := f.balance(t, to); got != 0 {
		t.Errorf("recipient has %d lamports after a mere preview", got)
	}
}

func TestSimulationFailureSignsNothing(t *testing.T) {
	const funded = 100_000_000
	f := newFixture(t, funded, executor.Options{})
	to := freshAddress(t)

	_, err := f.ex.ExecuteTransfer(context.Background(), executor.Transfer{To: to, Lamports: 5 * solana.LAMPORTS_PER_SOL}, nil)
	var simErr *executor.SimulationError
	if !errors.As(err, &simErr) || !errors.Is(err, executor.ErrSimulationFailed) {
		t.Fatalf("err = %v, want a *SimulationError", err)
	}
	if simErr.Err == nil {
		t.Errorf("simulation error carries no node error: %v", err)
	}
	s := f.stats(t)
	if s.SendsReceived != 0 || s.TransactionsExecuted != 0 || s.Simulations == 0 {
		t.Errorf("ledger stats %+v: want a simulation and no sends, no executions", s)
	}
	if got := f.balance(t, f.key.PublicKey()); got != funded {
		t.Errorf("sender balance %d, want untouched %d", got, funded)
	}
}

func TestDroppedSendsExpireNeverSucceed(t *testing.T) {
	const funded = solana.LAMPORTS_PER_SOL
	// Fast: the answer comes once the blockhash expired, 150 blocks (a
	// minute at the real pace).
	f := newFixtureOn(t, localnet.FastSlotMS, funded, executor.Options{Rebroadcast: 300 * time.Millisecond})
	ctx := context.Background()
	to := freshAddress(t)
	// Drop every send, rebroadcasts included: the transaction must never land.
	if err := f.ledger.DropNextSends(ctx, 1_000_000); err != nil {
		t.Fatal(err)
	}
	p, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := f.ex.Submit(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if res.Outcome != executor.Expired {
		t.Fatalf("outcome %s (%s), want expired", res.Outcome, res.Reason)
	}
	// Expired must mean provably expired: the chain is past the last valid height.
	height, err := f.chain.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	if height <= p.LastValidBlockHeight {
		t.Errorf("reported expired at block height %d ≤ last valid %d", height, p.LastValidBlockHeight)
	}
	if took > 30*time.Second {
		t.Errorf("expiry took %s; with 20 ms slots it should take seconds", took)
	}
	if res.Rebroadcasts == 0 {
		t.Errorf("no rebroadcasts during %s", took)
	}
	s := f.stats(t)
	if s.SendsDropped == 0 || s.TransactionsExecuted != 0 {
		t.Errorf("ledger stats %+v: want drops and no executions", s)
	}
	if got := f.balance(t, to); got != 0 {
		t.Errorf("recipient has %d lamports after an expired transfer", got)
	}
	if got := f.balance(t, f.key.PublicKey()); got != funded {
		t.Errorf("sender balance %d, want %d: an expired transfer spends nothing", got, funded)
	}
}

func TestTransient503sAreRetried(t *testing.T) {
	const funded, amount = solana.LAMPORTS_PER_SOL, 3_000_000
	f := newFixture(t, funded, executor.Options{})
	ctx := context.Background()
	to := freshAddress(t)
	if err := f.ledger.FailNextCalls(ctx, 2); err != nil {
		t.Fatal(err)
	}
	res, err := f.ex.ExecuteTransfer(ctx, executor.Transfer{To: to, Lamports: amount}, nil)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if res.Outcome != executor.Executed {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	if res.RPC.Retries < 2 {
		t.Errorf("RPC retries = %d, want ≥ 2 after two 503s", res.RPC.Retries)
	}
	if got := f.balance(t, to); got != amount {
		t.Errorf("recipient balance %d, want %d", got, amount)
	}
}

func TestPersistent503sAreUnknownNotSuccess(t *testing.T) {
	t.Parallel()
	const funded = solana.LAMPORTS_PER_SOL
	f := newFixture(t, funded, executor.Options{Rebroadcast: 200 * time.Millisecond})
	ctx := context.Background()
	to := freshAddress(t)
	p, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ledger.FailNextCalls(ctx, 1_000_000); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	res, err := f.ex.Submit(sctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != executor.Unknown {
		t.Fatalf("outcome %s (%s), want unknown while the node answers only 503", res.Outcome, res.Reason)
	}
	if res.Signature.IsZero() {
		t.Error("unknown outcome lost the signature needed to reconcile")
	}
	if err := f.ledger.FailNextCalls(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if s := f.stats(t); s.TransactionsExecuted != 0 {
		t.Errorf("ledger executed %d transactions though every send got 503", s.TransactionsExecuted)
	}
	if got := f.balance(t, to); got != 0 {
		t.Errorf("recipient has %d lamports", got)
	}
}

// Two transfers prepared against the same balance: the second one's preflight
// fails after the first spent the funds, and the node never forwards it.
func TestPreflightRejectionIsNotSuccess(t *testing.T) {
	const funded = 10 * solana.LAMPORTS_PER_SOL
	f := newFixture(t, funded, executor.Options{})
	ctx := context.Background()
	a, b := freshAddress(t), freshAddress(t)
	pa, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: a, Lamports: 6 * solana.LAMPORTS_PER_SOL})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: b, Lamports: 6 * solana.LAMPORTS_PER_SOL})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.ex.Submit(ctx, pa, nil); err != nil || res.Outcome != executor.Executed {
		t.Fatalf("first transfer: %v %+v", err, res)
	}
	res, err := f.ex.Submit(ctx, pb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != executor.Rejected {
		t.Fatalf("second transfer outcome %s (%s), want rejected", res.Outcome, res.Reason)
	}
	if got := f.balance(t, b); got != 0 {
		t.Errorf("second recipient has %d lamports", got)
	}
	if got, want := f.balance(t, f.key.PublicKey()), uint64(funded-6*solana.LAMPORTS_PER_SOL-fee); got != want {
		t.Errorf("sender balance %d, want %d", got, want)
	}
}

func TestNetworkFromGenesisHash(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		network string
		want    executor.Network
	}{{"", executor.Localnet}, {"mainnet-beta", executor.Mainnet}, {"devnet", executor.Devnet}} {
		l, err := localnet.Start(ctx, localnet.Options{Network: tc.network})
		if err != nil {
			t.Fatal(err)
		}
		c := executor.NewClient(l.RPC(), executor.ClientOptions{})
		got, hash, err := c.DetectNetwork(ctx)
		_ = l.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want || hash != l.GenesisHash() {
			t.Errorf("network %q: detected %s (%s), want %s (%s)", tc.network, got, hash, tc.want, l.GenesisHash())
		}
	}
}

// The measured spend is what the caps judge, so it may overcount but never
// undercount: previews made while other transfers of the same wallet keep
// landing must each measure at least their own amount and fee.
func TestMeasuredSpendNeverUndercountsUnderConcurrentSends(t *testing.T) {
	f := newFixture(t, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := freshAddress(t)
	landed := make(chan int, 1)
	go func() {
		n := 0
		defer func() { landed <- n }()
		for ctx.Err() == nil {
			if res, err := f.ex.ExecuteTransfer(ctx, executor.Transfer{To: sink, Lamports: 1_000_000}, nil); err == nil && res.Outcome == executor.Executed {
				n++
			}
		}
	}()
	to := freshAddress(t)
	for i := 0; i < 300; i++ {
		amount := uint64(2_000_000 + i)
		p, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: to, Lamports: amount})
		if err != nil {
			t.Fatalf("#%d: %v", i, err)
		}
		if p.Preview.SpendLamports < amount+fee {
			t.Fatalf("#%d: measured spend %d is below the transfer's own %d + %d fee", i, p.Preview.SpendLamports, amount, fee)
		}
	}
	cancel()
	if n := <-landed; n == 0 {
		t.Fatal("no concurrent transfer landed: the test exercised nothing")
	}
}

// A load-balanced RPC confirms a status seconds before getTransaction has
// the transaction. Verification waits for it, with backoff, up to the
// verify window: a lag of 2.5 s (longer than the 2 s solgate used to give)
// is still "executed" and verified; a window shorter than the lag gives
// "unknown" with the signature kept, though the transfer landed. The passage
// of time is the behaviour under test; nothing here sleeps.
func TestVerificationWaitsForALaggingGetTransaction(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window time.Duration
		want   executor.Outcome
	}{
		{"default window", 0, executor.Executed},
		{"window shorter than the lag", 700 * time.Millisecond, executor.Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{VerifyWindow: tc.window})
			ctx := context.Background()
			if err := f.ledger.LagGetTransaction(ctx, 2500*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			to := freshAddress(t)
			res, err := f.ex.ExecuteTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tc.want || res.Signature.IsZero() {
				t.Fatalf("outcome %s (%s), want %s with the signature", res.Outcome, res.Reason, tc.want)
			}
			// Either way the transfer landed: the ledger says so.
			if got := f.balance(t, to); got != 1_000_000 {
				t.Errorf("recipient balance %d, want 1000000", got)
			}
		})
	}
}
