package executor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
)

const (
	swapIn        = 50_000_000 // 0.05 SOL
	tokenRent     = executor.TokenAccountRent
	swapSlippage  = 100
	walletFunding = 10 * solana.LAMPORTS_PER_SOL
)

type swapFixture struct {
	*ledgerFixture
	sw    *executor.Swapper
	demo  localnet.DemoMints
	usdc  solana.PublicKey
	wsol  solana.PublicKey
	pool  solana.PublicKey
	ownTA solana.PublicKey // the wallet's USDC associated token account
}

func newSwapFixture(t *testing.T, opts executor.SwapClientOptions) *swapFixture {
	t.Helper()
	f := newFixture(t, walletFunding, executor.Options{})
	api, err := executor.NewSwapClient(f.ledger.SwapAPI(), opts)
	if err != nil {
		t.Fatal(err)
	}
	demo := f.ledger.DemoMints()
	sf := &swapFixture{
		ledgerFixture: f,
		sw:            executor.NewSwapper(f.ex, api, executor.SwapOptions{}),
		demo:          demo,
		usdc:          solana.MustPublicKeyFromBase58(demo.USDC.Mint),
		wsol:          solana.MustPublicKeyFromBase58(demo.WSOL),
		pool:          solana.MustPublicKeyFromBase58(demo.USDC.Pool),
	}
	sf.ownTA, err = executor.AssociatedTokenAddress(f.key.PublicKey(), sf.usdc, solana.TokenProgramID)
	if err != nil {
		t.Fatal(err)
	}
	return sf
}

// tokenBalance reads a token account's amount from the ledger; 0 when it does
// not exist.
func (f *swapFixture) tokenBalance(t *testing.T, ta solana.PublicKey) uint64 {
	t.Helper()
	info, err := f.chain.GetAccountInfoWithOpts(context.Background(), ta, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
	if errors.Is(err, rpc.ErrNotFound) || (err == nil && info.Value == nil) {
		return 0
	}
	if err != nil {
		t.Fatalf("getAccountInfo %s: %v", ta, err)
	}
	out, err := f.chain.GetTokenAccountBalance(context.Background(), ta, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("getTokenAccountBalance %s: %v", ta, err)
	}
	var n uint64
	for _, c := range out.Value.Amount {
		n = n*10 + uint64(c-'0')
	}
	return n
}

// approve prepares q as a proposal would and returns what approving it binds.
func (f *swapFixture) approve(t *testing.T, q *executor.Quote) executor.SwapApproval {
	t.Helper()
	p, err := f.sw.PrepareSwap(context.Background(), q)
	if err != nil {
		t.Fatalf("prepare the swap to approve: %v", err)
	}
	return p.Approval()
}

func (f *swapFixture) quote(t *testing.T, in, out solana.PublicKey, amount uint64) *executor.Quote {
	t.Helper()
	q, err := f.sw.Quote(context.Background(), executor.QuoteRequest{InputMint: in, OutputMint: out, Amount: amount, SlippageBps: swapSlippage})
	if err != nil {
		t.Fatalf("quote: %v", err)
	}
	return q
}

func TestSwapSOLForTokenEndToEnd(t *testing.T) {
	f := newSwapFixture(t, executor.SwapClientOptions{})
	ctx := context.Background()
	wallet := f.key.PublicKey()
	poolTA := solana.MustPublicKeyFromBase58(f.demo.USDC.PoolTokenAccount)
	poolSOL, poolTokens := f.balance(t, f.pool), f.tokenBalance(t, poolTA)

	q := f.quote(t, f.wsol, f.usdc, swapIn)
	if q.InAmount != swapIn || q.OutAmount == 0 || q.OtherAmountThreshold > q.OutAmount || len(q.Route) != 1 || !q.Route[0].AMMKey.Equals(f.pool) {
		t.Fatalf("quote %+v", q)
	}

	p, err := f.sw.PrepareSwap(ctx, q)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	pv := p.Preview
	if pv.ExpectedOut != q.OutAmount || pv.MinimumOut != q.OtherAmountThreshold || pv.SimulatedOut < pv.MinimumOut {
		t.Fatalf("preview expect %d min %d simulated %d; quote out %d min %d", pv.ExpectedOut, pv.MinimumOut, pv.SimulatedOut, q.OutAmount, q.OtherAmountThreshold)
	}
	// The preview shows SOL out (input + fee + rent of the new token account)
	// and tokens in, as simulated.
	if want := uint64(swapIn) + pv.Fee + tokenRent; pv.SpendLamports != want {
		t.Errorf("preview spend %d, want %d (input + fee %d + rent)", pv.SpendLamports, want, pv.Fee)
	}
	if len(pv.Tokens) != 1 || !pv.Tokens[0].Account.Equals(f.ownTA) || pv.Tokens[0].Post-pv.Tokens[0].Pre != pv.SimulatedOut {
		t.Errorf("preview token changes %+v", pv.Tokens)
	}
	if p.Tx.IsVersioned() != true || len(pv.LookupTables) != 1 || len(pv.Cosigners) != 1 || !pv.Cosigners[0].Equals(f.pool) {
		t.Errorf("expected a v0 transaction with one lookup table, co-signed by the pool: %+v", pv)
	}
	// Nothing was sent by preparing.
	if s := f.stats(t); s.SendsReceived != 0 || s.TransactionsExecuted != 0 {
		t.Fatalf("prepare sent something: %+v", s)
	}
	if got := f.balance(t, wallet); got != walletFunding {
		t.Fatalf("wallet balance %d after prepare, want %d", got, walletFunding)
	}

	res, err := f.sw.SubmitSwap(ctx, p, nil)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	if res.Outcome != executor.Executed {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if res.Received < q.OtherAmountThreshold || res.Spent != swapIn+tokenRent || res.Fee != pv.Fee {
		t.Errorf("result received %d spent %d fee %d; min %d, preview fee %d", res.Received, res.Spent, res.Fee, q.OtherAmountThreshold, pv.Fee)
	}

	// The outside world, read back with a client of our own.
	if got, want := f.balance(t, wallet), walletFunding-swapIn-res.Fee-tokenRent; got != want {
		t.Errorf("wallet SOL %d, want %d (0.05 SOL + fee %d + rent %d for the new token account)", got, want, res.Fee, tokenRent)
	}
	got := f.tokenBalance(t, f.ownTA)
	if got < q.OtherAmountThreshold || got != res.Received {
		t.Errorf("wallet tokens %d; minimum %d, executor reported %d", got, q.OtherAmountThreshold, res.Received)
	}
	if d := f.balance(t, f.pool) - poolSOL; d != swapIn {
		t.Errorf("pool SOL went up by %d, want %d", d, swapIn)
	}
	if d := poolTokens - f.tokenBalance(t, poolTA); d != got {
		t.Errorf("pool tokens went down by %d, wallet got %d", d, got)
	}
	if s := f.stats(t); s.TransactionsExecuted != 1 || s.SendsReceived != 1 {
		t.Errorf("stats %+v", s)
	}
	// A prepared swap is never sent twice.
	if _, err := f.sw.SubmitSwap(ctx, p, nil); !errors.Is(err, executor.ErrAlreadySubmitted) {
		t.Errorf("second submit: %v", err)
	}
}

func TestSwapTokenForSOL(t *testing.T) {
	f := newSwapFixture(t, executor.SwapClientOptions{})
	ctx := context.Background()
	wallet := f.key.PublicKey()
	if _, err := f.ledger.MintTo(ctx, f.usdc.String(), wallet.String(), 20_000_000); err != nil {
		t.Fatal(err)
	}
	const in = 7_500_000 // 7.5 USDC-like
	q := f.quote(t, f.usdc, f.wsol, in)
	p, err := f.sw.PrepareSwap(ctx, q)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	if p.Preview.SimulatedOut < q.OtherAmountThreshold || len(p.Preview.Tokens) != 1 || p.Preview.Tokens[0].Pre-p.Preview.Tokens[0].Post != in {
		t.Fatalf("preview %+v", p.Preview)
	}
	res, err := f.sw.SubmitSwap(ctx, p, nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("submit: %v %+v", err, res)
	}
	if got := f.tokenBalance(t, f.ownTA); got != 20_000_000-in {
		t.Errorf("wallet tokens %d, want %d", got, 20_000_000-in)
	}
	gotSOL := f.balance(t, wallet)
	if gotSOL != walletFunding+res.Received-res.Fee || res.Received < q.OtherAmountThreshold || res.Spent != in {
		t.Errorf("wallet SOL %d (received %d, fee %d, min %d, spent %d)", gotSOL, res.Received, res.Fee, q.OtherAmountThreshold, res.Spent)
	}
}

func TestSwapPriceMovedNothingLands(t *testing.T) {
	f := newSwapFixture(t, executor.SwapClientOptions{})
	ctx := context.Background()
	approved := f.quote(t, f.wsol, f.usdc, swapIn)
	approval := f.approve(t, approved)
	base := f.stats(t)

	// Someone else buys tokens with 100 SOL between approval and execution.
	if _, err := f.ledger.MovePool(ctx, localnet.PoolMove{Lamports: 100 * solana.LAMPORTS_PER_SOL}); err != nil {
		t.Fatal(err)
	}
	fresh, err := f.sw.Requote(ctx, approved.Terms())
	var moved *executor.PriceMovedError
	if !errors.Is(err, executor.ErrPriceMoved) || !errors.As(err, &moved) || fresh == nil || fresh.OtherAmountThreshold >= approved.OtherAmountThreshold {
		t.Fatalf("requote after the pool moved: %v (fresh %+v)", err, fresh)
	}
	if !strings.Contains(err.Error(), "price moved beyond the approved minimum — nothing was swapped") {
		t.Errorf("message %q", err)
	}
	if _, err := f.sw.ExecuteSwap(ctx, approval, nil); !errors.Is(err, executor.ErrPriceMoved) {
		t.Fatalf("execute after the pool moved: %v", err)
	}
	// The old quote cannot be built either: the pool now gives less than its minimum.
	if _, err := f.sw.PrepareSwap(ctx, approved); !errors.Is(err, executor.ErrSwapAPI) || !strings.Contains(err.Error(), "HTTP 422") {
		t.Fatalf("prepare of the stale quote: %v", err)
	}
	s := f.stats(t)
	if s.SendsReceived != 0 || s.TransactionsExecuted != 0 || s.Simulations != base.Simulations {
		t.Fatalf("something was sent or simulated after approval: %+v (at approval %+v)", s, base)
	}
	if got := f.balance(t, f.key.PublicKey()); got != walletFunding {
		t.Fatalf("wallet balance %d, want %d untouched", got, walletFunding)
	}
	if got := f.tokenBalance(t, f.ownTA); got != 0 {
		t.Fatalf("wallet received %d tokens", got)
	}

	// A move the other way passes the re-quote, and the swap executes.
	if _, err := f.ledger.MovePool(ctx, localnet.PoolMove{Tokens: 30_000 * 1_000_000}); err != nil {
		t.Fatal(err)
	}
	res, err := f.sw.ExecuteSwap(ctx, approval, nil)
	if err != nil || res.Outcome != executor.Executed || res.Received < approved.OtherAmountThreshold {
		t.Fatalf("execute after a favourable move: %v %+v", err, res)
	}
	if got := f.tokenBalance(t, f.ownTA); got != res.Received {
		t.Fatalf("wallet tokens %d, executor said %d", got, res.Received)
	}
}

func TestSwapTamperedTransactionsRefusedBeforeSigning(t *testing.T) {
	f := newSwapFixture(t, executor.SwapClientOptions{})
	ctx := context.Background()
	for _, tc := range []struct {
		mode string
		want string
	}{
		{localnet.SwapTamperPayer, "fee payer is "},
		{localnet.SwapTamperProgram, "invokes unknown program"},
		{localnet.SwapTamperDestination, "which is not the pool (" + f.pool.String() + ")"},
		{localnet.SwapTamperDestinationALT, f.demo.Thief + ", which is not the pool"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			q := f.quote(t, f.wsol, f.usdc, swapIn)
			if err := f.ledger.SetSwapFault(ctx, localnet.SwapFault{Mode: tc.mode}); err != nil {
				t.Fatal(err)
			}
			p, err := f.sw.PrepareSwap(ctx, q)
			if !errors.Is(err, executor.ErrUnsafeTransaction) || p != nil {
				t.Fatalf("prepare: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was signed or sent") {
				t.Errorf("refusal %q does not say %q", err, tc.want)
			}
			t.Log(err)
		})
	}
	s := f.stats(t)
	if s.SwapTransactions != 4 || s.SendsReceived != 0 || s.Simulations != 0 || s.TransactionsExecuted != 0 {
		t.Fatalf("stats %+v: the tampered transactions must be refused before simulation and sending", s)
	}
	if got := f.balance(t, f.key.PublicKey()); got != walletFunding {
		t.Fatalf("wallet balance %d, want %d", got, walletFunding)
	}
	// The next, untampered, swap goes through.
	res, err := f.sw.ExecuteSwap(ctx, f.approve(t, f.quote(t, f.wsol, f.usdc, swapIn)), nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("clean swap after the tampered ones: %v %+v", err, res)
	}
}

func TestSwapAPIFaults(t *testing.T) {
	const timeout = 800 * time.Millisecond
	f := newSwapFixture(t, executor.SwapClientOptions{Timeout: timeout})
	ctx := context.Background()
	for _, tc := range []struct {
		fault localnet.SwapFault
		swap  bool // fault the /swap call rather than the quote
		want  string
	}{
		{localnet.SwapFault{Mode: localnet.SwapDown, Count: 3}, false, "request failed"},
		{localnet.SwapFault{Mode: localnet.SwapDown, Count: 3}, true, "request failed"},
		{localnet.SwapFault{Mode: localnet.SwapSlow, Delay: 3 * time.Second}, false, "no complete answer within 800ms"},
		{localnet.SwapFault{Mode: localnet.SwapSlow, Delay: 3 * time.Second}, true, "no complete answer within 800ms"},
		{localnet.SwapFault{Mode: localnet.Swap500}, false, "HTTP 500: Internal Server Error"},
		{localnet.SwapFault{Mode: localnet.Swap500}, true, "HTTP 500"},
		{localnet.SwapFault{Mode: localnet.SwapGarbage}, false, "malformed response"},
		{localnet.SwapFault{Mode: localnet.SwapGarbage}, true, "malformed response"},
		{localnet.SwapFault{Mode: localnet.SwapHuge}, false, "over the 1048576-byte limit; refused"},
		{localnet.SwapFault{Mode: localnet.SwapHuge}, true, "over the 1048576-byte limit; refused"},
	} {
		name := tc.fault.Mode + map[bool]string{false: "/quote", true: "/swap"}[tc.swap]
		t.Run(name, func(t *testing.T) {
			var q *executor.Quote
			if tc.swap {
				q = f.quote(t, f.wsol, f.usdc, swapIn)
			}
			if err := f.ledger.SetSwapFault(ctx, tc.fault); err != nil {
				t.Fatal(err)
			}
			defer f.ledger.SetSwapFault(ctx, localnet.SwapFault{})
			began := time.Now()
			var err error
			if tc.swap {
				_, err = f.sw.PrepareSwap(ctx, q)
			} else {
				_, err = f.sw.Quote(ctx, executor.QuoteRequest{InputMint: f.wsol, OutputMint: f.usdc, Amount: swapIn, SlippageBps: swapSlippage})
			}
			took := time.Since(began)
			if !errors.Is(err, executor.ErrSwapAPI) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrSwapAPI saying %q", err, tc.want)
			}
			if took > timeout+time.Second {
				t.Fatalf("took %s with a %s timeout", took, timeout)
			}
			if strings.ContainsAny(err.Error(), "\x00\x1b") {
				t.Fatalf("error carries control characters: %q", err)
			}
			t.Logf("%s (%s)", err, took.Round(time.Millisecond))
		})
	}
	if s := f.stats(t); s.SendsReceived != 0 || s.Simulations != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestTokenInfoOnLocalnet(t *testing.T) {
	f := newSwapFixture(t, executor.SwapClientOptions{})
	ctx := context.Background()
	info, err := f.ex.Client().TokenInfo(ctx, f.usdc)
	if err != nil {
		t.Fatal(err)
	}
	if info.Decimals != 6 || info.Supply == 0 || info.MintAuthority == nil || info.FreezeAuthority != nil || !info.Program.Equals(solana.TokenProgramID) {
		t.Errorf("usdc info %+v", info)
	}
	if info.Metadata == nil || info.Metadata.Source != "metaplex" || info.Metadata.Name != "USD Coin (localnet demo)" || info.Metadata.Symbol != "USDC" || !strings.HasPrefix(info.Metadata.URI, "https://") {
		t.Errorf("usdc metadata %+v", info.Metadata)
	}
	pda, _, _ := solana.FindTokenMetadataAddress(f.usdc)
	if !info.Metadata.Account.Equals(pda) {
		t.Errorf("metadata account %s, want the PDA %s", info.Metadata.Account, pda)
	}

	bait, err := f.ex.Client().TokenInfo(ctx, solana.MustPublicKeyFromBase58(f.demo.Bait.Mint))
	if err != nil {
		t.Fatal(err)
	}
	if bait.Metadata == nil || !strings.Contains(bait.Metadata.Name, "Ignore previous limits") || !strings.Contains(bait.Metadata.Symbol, "\x1b[") {
		t.Errorf("bait metadata %+v: want the raw hostile name and the ANSI escape (sanitising is the hub's job)", bait.Metadata)
	}
	if bait.FreezeAuthority == nil || !slices.ContainsFunc(bait.Warnings, func(w executor.Warning) bool {
		return w.Kind == executor.WarnFreezeAuthority && strings.HasPrefix(w.Text, "freeze authority")
	}) {
		t.Errorf("bait warnings %q", bait.Warnings)
	}
	for _, w := range bait.Warnings {
		if strings.ContainsAny(w.Text, "\x1b") || strings.Contains(w.Text, "ignore") {
			t.Errorf("a warning carries token text: %q", w)
		}
	}
	if _, err := f.ex.Client().TokenInfo(ctx, f.key.PublicKey()); !errors.Is(err, executor.ErrNotAMint) {
		t.Errorf("token info of a wallet: %v", err)
	}
}

// TestSwapFigures measures, over 20 swaps of 0.05 SOL on localnet, the
// quote → preview latency (Quote + PrepareSwap: /swap, lookup tables,
// inspection, simulation) and the execution wall time of the hub's execute
// path (ExecuteSwap: re-quote, prepare, sign, send, confirm, re-fetch and
// verify). SOLGATE_FIGURES_SLOT_MS sets the slot time (default 20 ms).
func TestSwapFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("figures: skipped in -short")
	}
	slotMS := 20
	if v := os.Getenv("SOLGATE_FIGURES_SLOT_MS"); v != "" {
		fmt.Sscan(v, &slotMS)
	}
	ctx := context.Background()
	l, err := localnet.Start(ctx, localnet.Options{SlotMS: slotMS})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	key, err := executor.NewRandomKeypair()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Fund(ctx, key.PublicKey().String(), walletFunding); err != nil {
		t.Fatal(err)
	}
	client := executor.NewClient(l.RPC(), executor.ClientOptions{})
	t.Cleanup(func() { _ = client.Close() })
	api, err := executor.NewSwapClient(l.SwapAPI(), executor.SwapClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sw := executor.NewSwapper(executor.New(client, key, executor.Options{}), api, executor.SwapOptions{})
	usdc := solana.MustPublicKeyFromBase58(l.DemoMints().USDC.Mint)
	req := executor.QuoteRequest{InputMint: executor.WrappedSOL, OutputMint: usdc, Amount: swapIn, SlippageBps: swapSlippage}

	const n = 20
	var preview, execute, submit []time.Duration
	var received uint64
	for i := 0; i < n; i++ {
		t0 := time.Now()
		q, err := sw.Quote(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		prepared, err := sw.PrepareSwap(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		preview = append(preview, time.Since(t0))

		t0 = time.Now()
		res, err := sw.ExecuteSwap(ctx, prepared.Approval(), nil)
		if err != nil || res.Outcome != executor.Executed {
			t.Fatalf("swap %d: %v %+v", i, err, res)
		}
		execute = append(execute, time.Since(t0))
		submit = append(submit, res.Timings.Total-res.Timings.Simulate)
		received += res.Received
	}
	s, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.TransactionsExecuted != n {
		t.Fatalf("ledger executed %d swaps, want %d", s.TransactionsExecuted, n)
	}
	med := func(d []time.Duration) time.Duration {
		d = slices.Clone(d)
		slices.Sort(d)
		return (d[n/2-1] + d[n/2]) / 2
	}
	t.Logf("slot %d ms, %d swaps of 0.05 SOL, %d tokens received in total", slotMS, n, received)
	t.Logf("quote → preview (Quote + PrepareSwap):            median %s (min %s, max %s)", med(preview), slices.Min(preview), slices.Max(preview))
	t.Logf("execution (ExecuteSwap: requote+prepare+submit): median %s (min %s, max %s)", med(execute), slices.Min(execute), slices.Max(execute))
	t.Logf("  of which sign+send+confirm+verify:             median %s", med(submit))
}

// The landed meta carries no delegates or frozen state, so once a swap
// lands the accounts it could write are read again: a change of control on
// one of the wallet's accounts since the simulation (here an Approve landing
// just before the swap, as bytes that act differently on chain than in the
// simulation could make) is "executed with unexpected effects", never
// "executed". The ledger shows the delegate.
func TestSwapLandingBesideAChangeOfControlIsNeverExecuted(t *testing.T) {
	f := newSwapFixture(t, executor.SwapClientOptions{})
	ctx := context.Background()
	wallet := f.key.PublicKey()
	f.mintTo(t, f.demo.USDC.Mint, wallet, 1) // the wallet's USDC account exists before the swap
	p, err := f.sw.PrepareSwap(ctx, f.quote(t, f.wsol, f.usdc, swapIn))
	if err != nil {
		t.Fatal(err)
	}
	delegate := freshAddress(t)
	p.BeforeSend = func(solana.Signature) error {
		bh, err := f.chain.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
		if err != nil {
			return err
		}
		approve := solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{
			solana.Meta(f.ownTA).WRITE(), solana.Meta(delegate), solana.Meta(wallet).SIGNER(),
		}, []byte{4, 1, 0, 0, 0, 0, 0, 0, 0}) // Approve 1
		tx, err := solana.NewTransaction([]solana.Instruction{approve}, bh.Value.Blockhash, solana.TransactionPayer(wallet))
		if err != nil {
			return err
		}
		res, err := f.ex.SubmitMeasured(ctx, tx, executor.Effects{}, bh.Value.LastValidBlockHeight, executor.Limits{SOLOut: 1e9}, nil, nil)
		if err != nil || res.Outcome != executor.Executed {
			return fmt.Errorf("approve beside the swap: %v %+v", err, res)
		}
		return nil
	}
	res, err := f.sw.SubmitSwap(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != executor.ExecutedWithUnexpectedEffects || !strings.Contains(res.Reason, "after landing, token account delegate changed from none to "+delegate.String()+" on "+f.ownTA.String()) {
		t.Fatalf("%s: %s", res.Outcome, res.Reason)
	}
	info, err := f.chain.GetAccountInfoWithOpts(ctx, f.ownTA, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed, Encoding: solana.EncodingBase64})
	if err != nil {
		t.Fatal(err)
	}
	if d := info.Value.Data.GetBinary(); d[72] != 1 || !solana.PublicKeyFromBytes(d[76:108]).Equals(delegate) || f.tokenBalance(t, f.ownTA) <= 1 {
		t.Fatalf("the ledger does not show the swap landed beside the delegate")
	}
}
