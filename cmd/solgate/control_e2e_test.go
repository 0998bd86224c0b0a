package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// Issue 32 through the real binaries: transactions built with @solana/kit
// (localnet's outside.mjs) that move value the wallet controls without
// owning it — a nonce account it is authority of, lamports above rent in
// its Token-2022 account, a multisig's token account its signature
// satisfies, new supply of its mint, rent refunds forwarded — are refused by
// the cap they would break with the ledger unchanged, and the same shapes
// inside the caps execute after the human's a and are counted exactly.

// rentTokenAccount is the rent-exempt minimum of a 165-byte token account:
// (165 + 128) × 3480 × 2.
const rentTokenAccount = 2_039_280

func spentLamports(t *testing.T, a *testkit.Agent) uint64 {
	t.Helper()
	return lamports(t, a.Call("get_spend_status", map[string]any{}), "spent_lamports")
}

func TestWhatTheWalletControlsIsCappedAndCounted(t *testing.T) {
	msMint, mtMint, friend := newMintAddress(t), newMintAddress(t), newMintAddress(t)
	w := startOutsideWorld(t, "--max-token-per-tx", msMint+"=1000000", "--max-token-per-tx", mtMint+"=1000000", "--allow-recipient", friend)
	const tool = "sign_and_send_transaction"
	friendKey := solana.MustPublicKeyFromBase58(friend)

	t.Run("refused", func(t *testing.T) {
		denied := 0
		for _, tc := range []struct {
			kind string
			opts localnet.OutsideOptions
			want func(o localnet.Outside) string
		}{
			{"nonce-withdraw", localnet.OutsideOptions{Lamports: solana.LAMPORTS_PER_SOL, To: friend}, func(localnet.Outside) string { return "per-transaction" }},
			{"withdraw-excess", localnet.OutsideOptions{Lamports: 800_000_000, To: friend}, func(localnet.Outside) string { return "per-transaction" }},
			{"multisig-transfer", localnet.OutsideOptions{Amount: 5_000_000, Mint: msMint, To: friend}, func(localnet.Outside) string {
				return "5000000 base units of " + msMint
			}},
			{"mint-to", localnet.OutsideOptions{Amount: 1_000_000_000_000, To: friend}, func(o localnet.Outside) string {
				return o.Accounts["mint"] + ", which no per-mint cap bounds"
			}},
			// 0.1 SOL forwarded, five refunds (0.0102 SOL) in: netted, it
			// would fit the 0.1 SOL cap; gross, it does not.
			{"close-and-forward", localnet.OutsideOptions{Lamports: 100_000_000, To: friend}, func(localnet.Outside) string { return "per-transaction" }},
			// A stranger is not on --allow-recipient.
			{"memo-transfer", localnet.OutsideOptions{}, func(o localnet.Outside) string {
				return "pays " + o.Accounts["recipient"] + ", a wallet that is not on the recipient allowlist"
			}},
		} {
			t.Run(tc.kind, func(t *testing.T) {
				// The retry breaker pauses a user after five denials in a
				// minute (all its processes together): the operator resumes
				// it, as the console offers, before the next refusal.
				if strings.Contains(w.pane.Screen(), "breaker paused") {
					w.pane.Keys(t, "r")
					w.pane.WaitUntil(t, 30*time.Second, "the breaker resumed", func(s string) bool { return !strings.Contains(s, "breaker paused") })
				}
				o := w.build(t, tc.kind, tc.opts)
				payee := solana.MustPublicKeyFromBase58(o.Accounts["recipient"])
				wallet, paid := w.balance(t, w.wallet), w.balance(t, payee)
				var held uint64
				if m := o.Accounts["mint"]; m != "" {
					held = w.tokens(t, payee, m)
				}
				a := testkit.StartAgent(t, w.socket, "sdk-agent-"+tc.kind)
				ans := a.Call(tool, map[string]any{"transaction": o.Transaction})
				if ans.Status() != "denied" || !strings.Contains(ans.Text, tc.want(o)) {
					t.Fatalf("got %s %v, want denied naming %q", ans.Text, ans.Structured, tc.want(o))
				}
				if w.balance(t, w.wallet) != wallet || w.balance(t, payee) != paid {
					t.Fatal("the ledger moved")
				}
				if m := o.Accounts["mint"]; m != "" && w.tokens(t, payee, m) != held {
					t.Fatal("the payee's tokens moved")
				}
				if denied++; denied == 5 {
					// The fifth denial pauses this user: wait for the console
					// to say so, so the next case can resume it.
					w.pane.WaitFor(t, 30*time.Second, "breaker paused")
				}
			})
		}
	})

	t.Run("within the caps", func(t *testing.T) {
		for _, tc := range []struct {
			kind    string
			opts    localnet.OutsideOptions
			receive string // the preview's Receives line for the friend
			sol     uint64 // lamports the friend gains
			tokens  uint64 // base units the friend gains (of o's mint)
		}{
			// First: the friend's account does not exist yet.
			{"memo-transfer", localnet.OutsideOptions{To: friend}, "gets 0.001 SOL", 1_000_000, 0},
			{"nonce-withdraw", localnet.OutsideOptions{Lamports: 50_000_000, To: friend}, "gets 0.05 SOL", 50_000_000, 0},
			{"withdraw-excess", localnet.OutsideOptions{Lamports: 50_000_000, To: friend}, "gets 0.05 SOL", 50_000_000, 0},
			{"multisig-transfer", localnet.OutsideOptions{Amount: 500_000, Mint: msMint, To: friend}, "gets 500000 base units of " + msMint, 0, 500_000},
			{"mint-to", localnet.OutsideOptions{Amount: 500_000, Mint: mtMint, To: friend}, "gets 500000 base units of " + mtMint, 0, 500_000},
			{"close-and-forward", localnet.OutsideOptions{Lamports: 5 * rentTokenAccount, To: friend}, "gets 0.0101964 SOL", 5 * rentTokenAccount, 0},
		} {
			t.Run(tc.kind, func(t *testing.T) {
				o := w.build(t, tc.kind, tc.opts)
				mint := o.Accounts["mint"]
				solBefore, spentBefore := w.balance(t, friendKey), spentLamports(t, w.agent)
				var tokBefore uint64
				if mint != "" {
					tokBefore = w.tokens(t, friendKey, mint)
				}
				proposed, _ := w.proposeApproveExecute(t, o)
				if want := "Receives: " + friend + " " + tc.receive; !strings.Contains(proposed.Text, want) {
					t.Errorf("the preview lacks %q:\n%s", want, proposed.Text)
				}
				out, fee := lamports(t, proposed, "sol_out_lamports"), lamports(t, proposed, "fee_lamports")+lamports(t, proposed, "priority_fee_lamports")
				if got := w.balance(t, friendKey) - solBefore; got != tc.sol {
					t.Errorf("the friend gained %d lamports, want %d", got, tc.sol)
				}
				// SOL out is what left the wallet's sphere: what the friend
				// gained plus the fees, refunds not netted.
				if out != tc.sol+fee {
					t.Errorf("SOL out %d, want the payment %d + fees %d", out, tc.sol, fee)
				}
				if tc.kind == "memo-transfer" {
					// The friend's account did not exist (nothing paid it
					// before): the transfer that creates it is a payment to
					// it, not rent.
					if rent := lamports(t, proposed, "rent_paid_lamports"); rent != 0 {
						t.Errorf("a payment that creates an account was previewed as %d lamports of rent", rent)
					}
				}
				if got := spentLamports(t, w.agent) - spentBefore; got != out {
					t.Errorf("the session spend grew by %d, SOL out was %d", got, out)
				}
				if mint != "" && tc.tokens > 0 {
					if got := w.tokens(t, friendKey, mint) - tokBefore; got != tc.tokens {
						t.Errorf("the friend gained %d of %s, want %d", got, mint, tc.tokens)
					}
					if s, r := spendOf(t, w.agent, mint); s != "500000" || r != "0" {
						t.Errorf("the spend ledger holds %s as spent %s, reserved %s; want 500000, 0", mint, s, r)
					}
				}
			})
		}
	})
}
