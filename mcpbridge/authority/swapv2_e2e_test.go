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
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
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
	}, func(s *startup.Setup, l *localnet.Ledger) {
		api, err := executor.NewSwapClient(l.SwapAPI(), executor.SwapClientOptions{Version: executor.SwapAPIv2, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		s.SwapAPI = api
		s.SwapPrograms = []solana.PublicKey{solana.MustPublicKeyFromBase58(l.DemoMints().SwapV2.Program)}
	}, host.ListenConfig{})
}

// A swap through the v2 path, each way: the console compiles /build's
// instructions into a v0 message only the wallet signs, previews the
// simulated effects, and after approval executes; what the wallet gets, read
// back from the ledger, is at least the approved minimum, and is what the
// pool paid. The transaction on chain is v0, signed by the wallet alone, and
// calls cpswap.
func TestSwapThroughV2BuildLandsWithAtLeastTheMinimum(t *testing.T) {
	for _, tc := range []struct {
		name   string
		buy    bool // SOL in, tokens out
		amount uint64
	}{
		{"tokens for SOL", false, 20_000_000}, // 20 USDC
		{"SOL for tokens", true, 50_000_000},  // 0.05 SOL
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := v2World(t)
			a := startAgent(t, w.socket)
			mints := w.ledger.DemoMints()
			usdc, pool := mints.USDC.Mint, solana.MustPublicKeyFromBase58(mints.SwapV2.USDC.Pool)
			poolTokens := solana.MustPublicKeyFromBase58(mints.SwapV2.USDC.PoolTokenAccount)
			if _, err := w.ledger.MintTo(context.Background(), usdc, w.wallet.String(), 50_000_000); err != nil {
				t.Fatal(err)
			}
			in, out := usdc, mints.WSOL
			if tc.buy {
				in, out = out, in
			}
			args := map[string]any{"input_mint": in, "output_mint": out, "amount": tc.amount, "slippage_bps": 100}
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
			quote := a.Call("get_quote", map[string]any{"input_mint": in, "output_mint": out, "amount": tc.amount, "slippage_bps": 100})
			if _, shown := quote.Structured["price_impact_bps"]; shown || quote.IsError || !strings.Contains(quote.Text, "price impact not given by the swap API") {
				t.Errorf("get_quote shows an unknown price impact as %v: %s", quote.Structured["price_impact_bps"], quote.Text)
			}
			p, err := w.authority.Approve(prop.Str("proposal_id"), "operator")
			if err != nil {
				t.Fatal(err)
			}
			solBefore, usdcBefore := w.balance(t, w.wallet), w.tokenBalance(t, usdc)
			poolSOL, poolUSDC := w.balance(t, pool), w.tokenAccountAmount(t, poolTokens)
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
			var got, paid int64
			if tc.buy {
				got = int64(w.tokenBalance(t, usdc)) - int64(usdcBefore)
				paid = int64(poolUSDC) - int64(w.tokenAccountAmount(t, poolTokens))
				if in := int64(w.balance(t, pool)) - int64(poolSOL); in != int64(tc.amount) {
					t.Errorf("the pool got %d lamports, want the %d swapped", in, tc.amount)
				}
			} else {
				got = int64(w.balance(t, w.wallet)) - int64(solBefore) + int64(tx.Meta.Fee)
				paid = int64(poolSOL) - int64(w.balance(t, pool))
				if gave := int64(usdcBefore) - int64(w.tokenBalance(t, usdc)); gave != int64(tc.amount) {
					t.Errorf("the wallet gave %d USDC base units, want %d", gave, tc.amount)
				}
			}
			if got < int64(minOut) {
				t.Fatalf("the wallet got %d, below the approved minimum %d", got, minOut)
			}
			if paid != got {
				t.Errorf("the pool paid %d, the wallet got %d", paid, got)
			}
			if fmt.Sprint(done.Structured["received"]) != fmt.Sprint(got) {
				t.Errorf("reported received %v, the ledger says %d", done.Structured["received"], got)
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
		})
	}
}

// tokenAccountAmount reads a token account's amount back from the ledger.
func (w *world) tokenAccountAmount(t *testing.T, account solana.PublicKey) uint64 {
	t.Helper()
	out, err := w.chain.GetTokenAccountBalance(context.Background(), account, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.ParseUint(out.Value.Amount, 10, 64)
	return n
}

// The minimum is the chain's to hold, not the console's alone: a cpswap
// instruction naming a minimum above what the pool gives fails on chain
// (custom error 10), each way. Simulated here by the test itself with the
// /build answer's instructions and the minimum set to the output, then one
// lamport (or base unit) above it.
func TestCpswapFailsBelowTheMinimumOnChain(t *testing.T) {
	w := v2World(t)
	mints := w.ledger.DemoMints()
	usdc := solana.MustPublicKeyFromBase58(mints.USDC.Mint)
	if _, err := w.ledger.MintTo(context.Background(), mints.USDC.Mint, w.wallet.String(), 5_000_000); err != nil {
		t.Fatal(err)
	}
	api, err := executor.NewSwapClient(w.ledger.SwapAPI(), executor.SwapClientOptions{Version: executor.SwapAPIv2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []executor.QuoteRequest{
		{InputMint: usdc, OutputMint: executor.WrappedSOL, Amount: 5_000_000, Taker: w.wallet},
		{InputMint: executor.WrappedSOL, OutputMint: usdc, Amount: 30_000_000, Taker: w.wallet},
	} {
		q, err := api.Quote(context.Background(), r)
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
		simulate := func(minimum uint64) (*rpc.SimulateTransactionResponse, error) {
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
		over, err := simulate(q.OutAmount + 1)
		if err != nil || over.Value.Err == nil || !strings.Contains(fmt.Sprint(over.Value.Err), "Custom:10") {
			t.Fatalf("%s→%s, a minimum one above the output: err %v, simulation %+v", r.InputMint, r.OutputMint, err, over)
		}
		at, err := simulate(q.OutAmount)
		if err != nil || at.Value.Err != nil {
			t.Fatalf("%s→%s, the minimum at the output: err %v, simulation err %v %v", r.InputMint, r.OutputMint, err, at.Value.Err, at.Value.Logs)
		}
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

// The market moves between the execution's re-quote and the build the
// transaction is compiled from (another trader takes 0.5 % of the pool just
// before /build answers). The build is honest, but the minimum its swap
// instruction carries, the one the chain would enforce, is below the
// approved minimum: the console judges the transaction by its own build's
// terms and refuses it before signing, so nothing moves.
func TestV2BuildBelowTheApprovedMinimumIsRefused(t *testing.T) {
	w := v2World(t)
	a := startAgent(t, w.socket)
	ctx := context.Background()
	mints := w.ledger.DemoMints()
	args := map[string]any{"input_mint": mints.WSOL, "output_mint": mints.USDC.Mint, "amount": 50_000_000, "slippage_bps": 100}
	prop := a.Call("swap", args)
	if prop.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", prop)
	}
	p, err := w.authority.Approve(prop.Str("proposal_id"), "operator")
	if err != nil {
		t.Fatal(err)
	}
	// The execution's re-quote is honest; the build after it comes after
	// the trade.
	if err := w.ledger.SetSwapHostile(ctx, localnet.HostileMarketMove, 1); err != nil {
		t.Fatal(err)
	}
	defer w.ledger.SetSwapHostile(ctx, "", 0)
	stats, _ := w.ledger.Stats(ctx)
	solBefore, usdcBefore := w.balance(t, w.wallet), w.tokenBalance(t, mints.USDC.Mint)
	args["confirm"] = p.Token
	ans := a.Call("swap", args)
	if ans.Status() != "failed" || !strings.Contains(ans.Text, "below the approved") {
		t.Fatalf("a build below the approved minimum: %s %v", ans.Text, ans.Structured)
	}
	if after, _ := w.ledger.Stats(ctx); after.SendsReceived != stats.SendsReceived {
		t.Errorf("a send reached the ledger: %d → %d", stats.SendsReceived, after.SendsReceived)
	}
	if w.balance(t, w.wallet) != solBefore || w.tokenBalance(t, mints.USDC.Mint) != usdcBefore {
		t.Error("the wallet's balances moved")
	}
}
