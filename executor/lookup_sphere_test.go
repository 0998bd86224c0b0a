package executor_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// A transaction found on chain after a restart (nothing measured before
// it: Lookup is what Reconcile settles from) counts what the wallet
// controls as the live measure did: a withdrawal from a nonce account it is
// authority of (emptied and closed, too), lamports above rent out of its
// Token-2022 account, a multisig's tokens, new supply of its mint. A restart
// that counted only the wallet's own accounts would settle each at the fee.
// The transactions are @solana/kit's (localnet's outside.mjs), signed by the
// wallet; the payee's gain is read back from the ledger.
func TestLookupAfterARestartCountsWhatTheWalletControls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
	w := f.key.PublicKey()
	// Rent-exempt minimum of an 80-byte nonce account: (80 + 128) × 3480 × 2.
	const nonceRent = 1_447_680
	for _, c := range []struct {
		kind   string
		opts   localnet.OutsideOptions
		sol    uint64 // lamports the payee gains
		tokens uint64 // base units of the kind's mint the payee gains
	}{
		{kind: "nonce-withdraw", opts: localnet.OutsideOptions{Lamports: 300_000_000}, sol: 300_000_000},
		// The whole balance, rent included: the nonce account is closed.
		{kind: "nonce-withdraw", opts: localnet.OutsideOptions{Lamports: 200_000_000}, sol: 200_000_000 + nonceRent},
		{kind: "withdraw-excess", opts: localnet.OutsideOptions{Lamports: 400_000_000}, sol: 400_000_000},
		{kind: "multisig-transfer", opts: localnet.OutsideOptions{Amount: 700_000}, tokens: 700_000},
		{kind: "mint-to", opts: localnet.OutsideOptions{Amount: 900_000}, tokens: 900_000},
	} {
		t.Run(c.kind, func(t *testing.T) {
			payee := freshAddress(t)
			c.opts.To = payee.String()
			o, err := f.ledger.BuildOutside(ctx, c.kind, w.String(), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := base64.StdEncoding.DecodeString(o.Transaction)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := solana.TransactionFromBytes(raw)
			if err != nil {
				t.Fatal(err)
			}
			if c.sol == 200_000_000+nonceRent {
				// Withdraw all the nonce account holds: its rent as well.
				tx.Message.Instructions[len(tx.Message.Instructions)-1].Data = withdrawAll(c.sol)
			}
			// A nonce account can be emptied only after a slot passed since
			// its nonce was stored: the simulation says when.
			var measured executor.Effects
			lastValid := *o.LastValidBlockHeight
			testkit.Eventually(t, 30*time.Second, "the simulation to succeed", func() bool {
				if err != nil {
					bh, berr := f.chain.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
					if berr != nil {
						return false
					}
					tx.Message.RecentBlockhash, lastValid = bh.Value.Blockhash, bh.Value.LastValidBlockHeight
				}
				measured, err = f.ex.MeasureEffects(ctx, tx, 0)
				return err == nil
			}, func() string { return fmt.Sprint(err) })
			gained := f.balance(t, payee)
			res, err := f.ex.SubmitMeasured(ctx, tx, measured, lastValid, executor.Limits{SOLOut: ^uint64(0), TokensOut: map[solana.PublicKey]uint64{solana.MustPublicKeyFromBase58(orEmpty(o.Accounts["mint"])): ^uint64(0)}}, nil, nil)
			// Emptying the nonce account closes it to the payee: executed,
			// with that close named as unexpected.
			if err != nil || !res.Outcome.Landed() || res.ChainErr != nil || res.Effects == nil {
				t.Fatalf("sent: %v %+v", err, res)
			}
			if got := f.balance(t, payee) - gained; got != c.sol {
				t.Fatalf("the payee gained %d lamports, want %d", got, c.sol)
			}
			// A console started afresh: a new client and executor, nothing
			// carried from the send.
			client := executor.NewClient(f.ledger.RPC(), executor.ClientOptions{RetryBase: 20 * time.Millisecond})
			t.Cleanup(func() { _ = client.Close() })
			l, err := executor.New(client, f.key, executor.Options{}).Lookup(ctx, res.Signature)
			if err != nil || !l.Found || l.Effects == nil {
				t.Fatalf("lookup: %v %+v", err, l)
			}
			live := res.Effects
			if l.Outflow != live.SOLOut() || l.Outflow < c.sol+live.Fee() {
				t.Fatalf("after a restart %d lamports out, live %d; the payee got %d + fee %d", l.Outflow, live.SOLOut(), c.sol, live.Fee())
			}
			if m := o.Accounts["mint"]; m != "" && c.tokens > 0 {
				mint := solana.MustPublicKeyFromBase58(m)
				if l.Effects.TokensOut[mint] != c.tokens || live.TokensOut[mint] != c.tokens {
					t.Fatalf("tokens out after a restart %d, live %d, want %d", l.Effects.TokensOut[mint], live.TokensOut[mint], c.tokens)
				}
			}
		})
	}
}

// withdrawAll is WithdrawNonceAccount's data (u32 5, u64 lamports).
func withdrawAll(lamports uint64) []byte {
	d := []byte{5, 0, 0, 0}
	for i := range 8 {
		d = append(d, byte(lamports>>(8*i)))
	}
	return d
}

// orEmpty is s, or the system program's address when s is empty (a key
// no transaction here moves tokens of).
func orEmpty(s string) string {
	if s == "" {
		return "11111111111111111111111111111111"
	}
	return s
}
