package main

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// The console speaks Swap API v2 by default: through the real binary, with
// no --swap-api-version, a SOL→token swap goes through localnet's
// /swap/v2/build and its cpswap pool program (admitted by --swap-program),
// and lands after the human's a with at least the approved minimum. With
// --swap-api-version 1 the console speaks v1 (/swap/v1/quote,
// /swap/v1/swap): a token→SOL swap through localnet's v1 pool lands the
// same way.
func TestConsoleSwapsThroughV2ByDefaultAndV1WhenAsked(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flags   func(l *localnet.Ledger) []string
		in, out func(m localnet.DemoMints) string
		amount  uint64
		wantAPI string // the swap API path the ledger must have answered
	}{
		{"default: v2", func(l *localnet.Ledger) []string {
			return []string{"--swap-program", l.DemoMints().SwapV2.Program}
		}, func(m localnet.DemoMints) string { return m.WSOL }, func(m localnet.DemoMints) string { return m.USDC.Mint }, 10_000_000, "/swap/v2/build"},
		{"--swap-api-version 1", func(*localnet.Ledger) []string {
			return []string{"--swap-api-version", "1"}
		}, func(m localnet.DemoMints) string { return m.USDC.Mint }, func(m localnet.DemoMints) string { return m.WSOL }, 2_000_000, "/swap/v1/swap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newConsoleWorld(t, localnet.Options{}, 2*solana.LAMPORTS_PER_SOL)
			mints := w.l.DemoMints()
			if _, err := w.l.MintTo(context.Background(), mints.USDC.Mint, w.wallet.String(), 5_000_000); err != nil {
				t.Fatal(err)
			}
			flags := append([]string{"--swap-api", w.l.SwapAPI(), "--allow-uncapped-token-swaps", "--max-sol-per-tx", "0.1"}, tc.flags(w.l)...)
			pane, socket := w.startConsole(t, "console", 180, 60, flags...)
			a := testkit.StartAgent(t, socket, "swap-agent")
			args := map[string]any{"input_mint": tc.in(mints), "output_mint": tc.out(mints), "amount": tc.amount, "slippage_bps": 100}
			ans := a.Call("swap", args)
			id := pendingID(t, ans, tc.name)
			minOut := lamports(t, ans, "min_out")
			usdcBefore, _ := testkit.OwnerTokens(t, w.chain, w.wallet, mints.USDC.Mint)
			solBefore := w.balance(t, w.wallet)
			pane.WaitApprovable(t, 30*time.Second, id)
			pane.Keys(t, "a")
			args["confirm"] = approvedToken(t, a, id, tc.name)
			done := a.Call("swap", args)
			if done.Status() != "executed" {
				t.Fatalf("execute: %s %v", done.Text, done.Structured)
			}
			usdcAfter, _ := testkit.OwnerTokens(t, w.chain, w.wallet, mints.USDC.Mint)
			var got uint64
			if tc.out(mints) == mints.WSOL {
				// SOL out, net of the fee; the tokens left the wallet.
				got = w.balance(t, w.wallet) - solBefore + lamports(t, ans, "fee_lamports") + lamports(t, ans, "priority_fee_lamports")
				if usdcBefore-usdcAfter != tc.amount {
					t.Errorf("the wallet gave %d USDC base units, want %d", usdcBefore-usdcAfter, tc.amount)
				}
			} else {
				got = usdcAfter - usdcBefore
			}
			if got < minOut {
				t.Fatalf("the wallet received %d, below the approved minimum %d", got, minOut)
			}
			s, err := w.l.Stats(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantAPI == "/swap/v2/build" && s.SwapTransactions != 0 {
				t.Errorf("the v2 console asked /swap/v1/swap %d times", s.SwapTransactions)
			}
			if tc.wantAPI == "/swap/v1/swap" && s.SwapTransactions == 0 {
				t.Error("the v1 console never asked /swap/v1/swap")
			}
		})
	}
}
