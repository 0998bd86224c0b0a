package authority_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority"
)

// v2World is a console speaking Swap API v2 (GET /swap/v2/build) to
// localnet, whose v2 pool is the cpswap program: the chain, not localnet's
// key, holds the pool's side and the minimum out, and the wallet is the only
// signer. cpswap is configured as an aggregator, judged by the whole-wallet
// simulation. At the ledger's default pace (mainnet's 400 ms slots).
func v2World(t *testing.T) *world {
	t.Helper()
	return newWorldLedger(t, localnet.Options{}, func(o *authority.Options, _ *localnet.Ledger) {
		o.Policy.AllowUncappedTokenSwaps = true
	}, func(s *authority.Setup, l *localnet.Ledger) {
		api, err := executor.NewSwapClient(l.SwapAPI(), executor.SwapClientOptions{Version: executor.SwapAPIv2, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		s.SwapAPI = api
		s.SwapPrograms = []solana.PublicKey{solana.MustPublicKeyFromBase58(l.DemoMints().SwapV2.Program)}
	}, authority.ListenConfig{})
}

// A swap through the v2 path: the console compiles /build's instructions
// into a v0 message only the wallet signs, previews the simulated effects,
// and after approval executes: the wallet's tokens go to the pool, and the
// SOL it gets, read back from the ledger, is at least the approved minimum.
// The transaction on chain is v0, signed by the wallet alone, and calls
// cpswap with the minimum the human approved.
func TestSwapThroughV2BuildLandsWithAtLeastTheMinimum(t *testing.T) {
	w := v2World(t)
	a := startAgent(t, w.socket)
	mints := w.ledger.DemoMints()
	usdc, pool := mints.USDC.Mint, mints.SwapV2.USDC.Pool
	if _, err := w.ledger.MintTo(context.Background(), usdc, w.wallet.String(), 50_000_000); err != nil {
		t.Fatal(err)
	}
	const amount = 20_000_000 // 20 USDC
	args := map[string]any{"input_mint": usdc, "output_mint": mints.WSOL, "amount": amount, "slippage_bps": 100}
	poolBefore := w.balance(t, solana.MustPublicKeyFromBase58(pool))

	prop := a.Call("swap", args)
	if prop.IsError || prop.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", prop)
	}
	minOut, _ := strconv.ParseUint(fmt.Sprint(prop.Structured["min_out"]), 10, 64)
	expected, _ := strconv.ParseUint(fmt.Sprint(prop.Structured["expected_out"]), 10, 64)
	if minOut == 0 || expected < minOut {
		t.Fatalf("preview min %d expected %d: %s", minOut, expected, prop.Text)
	}
	if !strings.Contains(prop.Text, "/swap/v2/build") {
		t.Errorf("the preview does not say the fee is /build's:\n%s", prop.Text)
	}
	// /build gives no priceImpactPct: the preview says so, never 0 %.
	if _, shown := prop.Structured["price_impact_bps"]; shown || !strings.Contains(prop.Text, "price impact not given by the swap API") {
		t.Errorf("an unknown price impact shown as %v:\n%s", prop.Structured["price_impact_bps"], prop.Text)
	}
	quote := a.Call("get_quote", map[string]any{"input_mint": usdc, "output_mint": mints.WSOL, "amount": amount, "slippage_bps": 100})
	if _, shown := quote.Structured["price_impact_bps"]; shown || quote.IsError || !strings.Contains(quote.Text, "price impact not given by the swap API") {
		t.Errorf("get_quote shows an unknown price impact as %v: %s", quote.Structured["price_impact_bps"], quote.Text)
	}
	p, err := w.authority.Approve(prop.Str("proposal_id"), "operator")
	if err != nil {
		t.Fatal(err)
	}
	solBefore := w.balance(t, w.wallet)
	args["confirm"] = p.Token
	done := a.Call("swap", args)
	if done.Status() != "executed" {
		t.Fatalf("execute: %+v", done)
	}
	sig := solana.MustSignatureFromBase58(done.Str("signature"))
	tx, err := w.chain.GetTransaction(context.Background(), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: new(uint64)})
	if err != nil || tx.Meta == nil || tx.Meta.Err != nil {
		t.Fatalf("getTransaction: %v %+v", err, tx)
	}
	gain := int64(w.balance(t, w.wallet)) - int64(solBefore) + int64(tx.Meta.Fee)
	if gain < int64(minOut) {
		t.Fatalf("the wallet got %d lamports for its tokens, below the approved minimum %d", gain, minOut)
	}
	if got := int64(poolBefore) - int64(w.balance(t, solana.MustPublicKeyFromBase58(pool))); got != gain {
		t.Errorf("the pool paid %d lamports, the wallet got %d", got, gain)
	}
	if got := w.tokenBalance(t, usdc); got != 30_000_000 {
		t.Errorf("wallet holds %d USDC base units, want 30000000", got)
	}
	if fmt.Sprint(done.Structured["received"]) != fmt.Sprint(gain) {
		t.Errorf("reported received %v, the ledger says %d", done.Structured["received"], gain)
	}
	parsed, err := tx.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if v := w.landedVersion(t, sig.String()); v != "0" || len(parsed.Signatures) != 1 || parsed.Message.Header.NumRequiredSignatures != 1 {
		t.Errorf("landed: version %s, %d signatures, %d required", v, len(parsed.Signatures), parsed.Message.Header.NumRequiredSignatures)
	}
	called := false
	for _, ix := range parsed.Message.Instructions {
		called = called || parsed.Message.AccountKeys[ix.ProgramIDIndex].String() == mints.SwapV2.Program
	}
	if !called {
		t.Error("the landed transaction does not call cpswap")
	}
}

// The minimum is the chain's to hold, not the console's alone: a cpswap
// instruction naming a minimum above what the pool gives fails on chain
// (custom error 10) and nothing moves. Sent here by the test itself with the
// /build answer's instructions and a minimum one lamport above the output.
func TestCpswapFailsBelowTheMinimumOnChain(t *testing.T) {
	w := v2World(t)
	mints := w.ledger.DemoMints()
	if _, err := w.ledger.MintTo(context.Background(), mints.USDC.Mint, w.wallet.String(), 5_000_000); err != nil {
		t.Fatal(err)
	}
	api, err := executor.NewSwapClient(w.ledger.SwapAPI(), executor.SwapClientOptions{Version: executor.SwapAPIv2})
	if err != nil {
		t.Fatal(err)
	}
	q, err := api.Quote(context.Background(), executor.QuoteRequest{
		InputMint: solana.MustPublicKeyFromBase58(mints.USDC.Mint), OutputMint: executor.WrappedSOL, Amount: 5_000_000, SlippageBps: 0, Taker: w.wallet})
	if err != nil {
		t.Fatal(err)
	}
	if q.OtherAmountThreshold != q.OutAmount {
		t.Fatalf("slippage 0: minimum %d, out %d", q.OtherAmountThreshold, q.OutAmount)
	}
	stx, err := api.SwapTransaction(context.Background(), q, w.wallet)
	if err != nil {
		t.Fatal(err)
	}
	send := func(minimum uint64) (*rpc.SimulateTransactionResponse, error) {
		tx := stx.Tx.Tx
		for i, ix := range tx.Message.Instructions {
			if tx.Message.AccountKeys[ix.ProgramIDIndex].String() == mints.SwapV2.Program {
				d := make([]byte, 8)
				for b := range 8 {
					d[b] = byte(minimum >> (8 * b))
				}
				tx.Message.Instructions[i].Data = d
			}
		}
		return w.chain.SimulateTransactionWithOpts(context.Background(), tx, &rpc.SimulateTransactionOpts{SigVerify: false, Commitment: rpc.CommitmentConfirmed})
	}
	over, err := send(q.OutAmount + 1)
	if err != nil || over.Value.Err == nil || !strings.Contains(fmt.Sprint(over.Value.Err), "10") {
		t.Fatalf("a minimum one above the output: err %v, simulation %+v", err, over)
	}
	at, err := send(q.OutAmount)
	if err != nil || at.Value.Err != nil {
		t.Fatalf("the minimum at the output: err %v, simulation err %v %v", err, at.Value.Err, at.Value.Logs)
	}
}

// /build answers honestly for the preview and turns hostile at execution:
// its otherInstructions make the thief delegate or owner of the wallet's
// other token account, or drain it (with the pool asked to sign for the
// thief's account). Each is refused before signing; nothing moves on the
// ledger and nothing is sent.
func TestHostileV2BuildRefusedAtExecution(t *testing.T) {
	w := v2World(t)
	a := startAgent(t, w.socket)
	ctx := context.Background()
	mints := w.ledger.DemoMints()
	if _, err := w.ledger.MintTo(ctx, mints.USDC.Mint, w.wallet.String(), 50_000_000); err != nil {
		t.Fatal(err)
	}
	baitTA, err := w.ledger.MintTo(ctx, mints.Bait.Mint, w.wallet.String(), 777)
	if err != nil {
		t.Fatal(err)
	}
	watched := []solana.PublicKey{w.wallet, solana.MustPublicKeyFromBase58(baitTA), solana.MustPublicKeyFromBase58(mints.Thief)}
	for i, tc := range []struct{ mode, want string }{
		{localnet.HostileSetDelegate, "token instruction 4"},
		{localnet.HostileSetOwner, "token instruction 6"},
		{localnet.HostileDrainToken, "asks " + mints.SwapV2.USDC.Pool + " to sign: only the taker"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			// The proposal's two /build answers (quote, transaction) are
			// honest; the execution's are hostile.
			if err := w.ledger.SetSwapHostile(ctx, tc.mode, 2); err != nil {
				t.Fatal(err)
			}
			defer w.ledger.SetSwapHostile(ctx, "", 0)
			args := map[string]any{"input_mint": mints.USDC.Mint, "output_mint": mints.WSOL, "amount": 1_000_000 + i, "slippage_bps": 100}
			prop := a.Call("swap", args)
			if prop.Status() != "pending_approval" {
				t.Fatalf("propose: %+v", prop)
			}
			p, err := w.authority.Approve(prop.Str("proposal_id"), "operator")
			if err != nil {
				t.Fatal(err)
			}
			before := map[solana.PublicKey]*rpc.Account{}
			for _, k := range watched {
				before[k] = w.rawAccount(t, k)
			}
			usdcBefore := w.tokenBalance(t, mints.USDC.Mint)
			stats, _ := w.ledger.Stats(ctx)
			args["confirm"] = p.Token
			ans := a.Call("swap", args)
			if ans.Status() != "failed" || !strings.Contains(ans.Text, tc.want) {
				t.Fatalf("hostile execution: %s %v", ans.Text, ans.Structured)
			}
			if after, _ := w.ledger.Stats(ctx); after.SendsReceived != stats.SendsReceived {
				t.Errorf("a send reached the ledger: %d → %d", stats.SendsReceived, after.SendsReceived)
			}
			for _, k := range watched {
				if !sameAccount(before[k], w.rawAccount(t, k)) {
					t.Errorf("account %s changed on the ledger", k)
				}
			}
			if got := w.tokenBalance(t, mints.USDC.Mint); got != usdcBefore {
				t.Errorf("USDC %d → %d", usdcBefore, got)
			}
		})
	}
}
