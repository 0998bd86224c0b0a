package executor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// Value the wallet controls without owning it, in transactions built by
// localnet's @solana/kit builders (outside.mjs) on the real ledger: each is
// measured as the wallet's outflow before signing, the landed measure
// agrees, and the ledger shows it left.

// Rent-exempt minimum of a 165-byte token account: (165 + 128) × 3480 × 2.
const rentTokenAccount165 = 2_039_280

func TestWhatTheWalletControlsIsMeasuredAsItsOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newOutsideFixture(t)
	rules := executor.OutsideRules{AllowPrograms: defaultPrograms()}
	payee := freshAddress(t)
	const sol = 50_000_000
	for _, tc := range []struct {
		kind  string
		opts  localnet.OutsideOptions
		check func(t *testing.T, o localnet.Outside, e executor.Effects)
		line  string // an instruction line says this
	}{
		{"nonce-withdraw", localnet.OutsideOptions{Lamports: sol}, func(t *testing.T, o localnet.Outside, e executor.Effects) {
			if e.SOLOut() != sol+e.Fee() {
				t.Errorf("SOL out %d, want %d + fee %d", e.SOLOut(), sol, e.Fee())
			}
		}, "withdraw 50000000 lamports (0.05 SOL) from nonce account"},
		{"withdraw-excess", localnet.OutsideOptions{Lamports: sol}, func(t *testing.T, o localnet.Outside, e executor.Effects) {
			if e.SOLOut() != sol+e.Fee() {
				t.Errorf("SOL out %d, want %d + fee %d", e.SOLOut(), sol, e.Fee())
			}
		}, "withdraw the lamports above rent from"},
		{"multisig-transfer", localnet.OutsideOptions{Amount: 500_000}, func(t *testing.T, o localnet.Outside, e executor.Effects) {
			if got := e.TokensOut[solana.MustPublicKeyFromBase58(o.Accounts["mint"])]; got != 500_000 {
				t.Errorf("tokens out %d, want 500000", got)
			}
		}, "multisig " + "%multisig%"},
		{"mint-to", localnet.OutsideOptions{Amount: 700_000}, func(t *testing.T, o localnet.Outside, e executor.Effects) {
			if got := e.TokensOut[solana.MustPublicKeyFromBase58(o.Accounts["mint"])]; got != 700_000 {
				t.Errorf("new supply out %d, want 700000", got)
			}
		}, "mint 700000 base units of"},
		{"close-and-forward", localnet.OutsideOptions{Lamports: 5 * rentTokenAccount165}, func(t *testing.T, o localnet.Outside, e executor.Effects) {
			if e.SOLOut() != 5*rentTokenAccount165+e.Fee() || e.RentRefunded != 5*rentTokenAccount165 {
				t.Errorf("SOL out %d (refunded %d), want %d + fee %d: the refunds must not net the payment", e.SOLOut(), e.RentRefunded, 5*rentTokenAccount165, e.Fee())
			}
		}, "close account"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			tc.opts.To = payee.String()
			o, raw := f.outside(t, tc.kind, tc.opts)
			p, err := f.ex.PrepareOutside(ctx, raw, rules, executor.OutsideFacts{})
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			tc.check(t, o, p.Effects)
			if len(p.Effects.Payees) != 1 || !p.Effects.Payees[0].Address.Equals(payee) || !p.Effects.Payees[0].Wallet {
				t.Errorf("payees %+v, want the payee's wallet %s alone", p.Effects.Payees, payee)
			}
			want := strings.ReplaceAll(tc.line, "%multisig%", o.Accounts["multisig"])
			var lines []string
			for _, in := range p.Instructions {
				lines = append(lines, in.Summary)
			}
			if !strings.Contains(strings.Join(lines, "\n"), want) {
				t.Errorf("no instruction line says %q:\n%s", want, strings.Join(lines, "\n"))
			}
			before := f.balance(t, payee)
			res, err := f.ex.SubmitOutside(ctx, p, nil)
			if err != nil || res.Outcome != executor.Executed {
				t.Fatalf("submit: %v %+v", err, res)
			}
			got := *res.Effects
			if got.SOLOut() != p.Effects.SOLOut() || got.SOLIn() != p.Effects.SOLIn() || len(got.TokensOut) != len(p.Effects.TokensOut) {
				t.Fatalf("landed SOL out/in %d/%d tokens %v, predicted %d/%d %v", got.SOLOut(), got.SOLIn(), got.TokensOut, p.Effects.SOLOut(), p.Effects.SOLIn(), p.Effects.TokensOut)
			}
			for m, n := range p.Effects.TokensOut {
				if got.TokensOut[m] != n {
					t.Fatalf("landed %d of %s out, predicted %d", got.TokensOut[m], m, n)
				}
			}
			// The ledger: what the payee gained is what was counted, less
			// the fee.
			if m := o.Accounts["mint"]; m != "" && tc.kind != "withdraw-excess" {
				if n, _ := testkit.OwnerTokens(t, f.chain, payee, m); n != p.Effects.TokensOut[solana.MustPublicKeyFromBase58(m)] {
					t.Errorf("the payee holds %d, %d were counted", n, p.Effects.TokensOut[solana.MustPublicKeyFromBase58(m)])
				}
			} else if d := f.balance(t, payee) - before; d != p.Effects.SOLOut()-p.Effects.Fee() {
				t.Errorf("the payee gained %d lamports, %d were counted beside the fee", d, p.Effects.SOLOut()-p.Effects.Fee())
			}
		})
	}
}
