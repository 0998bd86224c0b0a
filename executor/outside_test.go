package executor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
)

// Transactions built outside solgate, by localnet's @solana/kit builders
// (outside.mjs), are judged by their bytes and effects on the real ledger.

// newOutsideFixture is newFixture with 10 SOL: at the default pace a
// co-signed blockhash lives 60 s, long enough for a loaded machine to
// prepare twice and submit.
func newOutsideFixture(t *testing.T) *ledgerFixture {
	t.Helper()
	return newFixture(t, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
}

func (f *ledgerFixture) outside(t *testing.T, kind string, o localnet.OutsideOptions) (localnet.Outside, []byte) {
	t.Helper()
	out, err := f.ledger.BuildOutside(context.Background(), kind, f.key.PublicKey().String(), o)
	if err != nil {
		t.Fatalf("build %s: %v", kind, err)
	}
	raw, err := executor.DecodeOutside(out.Transaction)
	if err != nil {
		t.Fatalf("decode %s: %v", kind, err)
	}
	return out, raw
}

// defaultPrograms is the allowlist without --allow-program, as published
// ids: System, SPL Token, Token-2022, Associated Token Account, Compute
// Budget, Memo.
func defaultPrograms() map[solana.PublicKey]string {
	out := map[solana.PublicKey]string{}
	for _, id := range []string{"11111111111111111111111111111111", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
		"ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL", "ComputeBudget111111111111111111111111111111", "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"} {
		out[solana.MustPublicKeyFromBase58(id)] = ""
	}
	return out
}

// lookupTableProgram is the address lookup table program's published id,
// the "unknown program" of these tests: on every cluster, in no default list.
var lookupTableProgram = solana.MustPublicKeyFromBase58("AddressLookupTab1e1111111111111111111111111")

// Rent-exempt minimum of an 82-byte SPL mint: (82 + 128) × 3480 × 2.
const rentMint = 1_461_600

func TestOutsideAcceptedTransactionsExecuteWithTheirPreviewedEffects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newOutsideFixture(t)
	wallet := f.key.PublicKey()
	rules := executor.OutsideRules{AllowPrograms: defaultPrograms()}
	rules.AllowPrograms[lookupTableProgram] = "lookup tables"
	for _, tc := range []struct {
		kind  string
		check func(t *testing.T, o localnet.Outside, p *executor.PreparedOutside)
	}{
		{"memo-transfer", func(t *testing.T, o localnet.Outside, p *executor.PreparedOutside) {
			if got := f.balance(t, solana.MustPublicKeyFromBase58(o.Accounts["recipient"])); got != 1_000_000 {
				t.Errorf("recipient has %d lamports, want 1000000", got)
			}
			if !p.WalletOnly || !p.OwnBudget || p.Budget.UnitLimit == 0 {
				t.Errorf("wallet only %v, own budget %v (limit %d): solgate's fee policy should apply", p.WalletOnly, p.OwnBudget, p.Budget.UnitLimit)
			}
			if want := 1_000_000 + p.Effects.Fee(); p.Effects.SOLOut() != want {
				t.Errorf("SOL out %d, want 1000000 + fee %d", p.Effects.SOLOut(), p.Effects.Fee())
			}
		}},
		{"v0-lookup", func(t *testing.T, o localnet.Outside, p *executor.PreparedOutside) {
			if !p.Tx.IsVersioned() || len(p.Tx.LookupTables()) != 1 || p.Tx.LookupTables()[0].String() != o.Accounts["lookupTable"] {
				t.Errorf("not the v0 message with its lookup table: %v", p.Tx.LookupTables())
			}
			if got := f.balance(t, solana.MustPublicKeyFromBase58(o.Accounts["recipient"])); got != 1_000_000 {
				t.Errorf("recipient (from the lookup table) has %d lamports, want 1000000", got)
			}
		}},
		{"mint-new", func(t *testing.T, o localnet.Outside, p *executor.PreparedOutside) {
			mint := solana.MustPublicKeyFromBase58(o.Accounts["mint"])
			if len(p.Cosigners) != 1 || !p.Cosigners[0].Equals(mint) || p.WalletOnly {
				t.Errorf("co-signers %v, want the mint %s", p.Cosigners, mint)
			}
			if p.Effects.RentPaid != rentMint+rentTokenAccount {
				t.Errorf("rent paid %d, want mint %d + token account %d", p.Effects.RentPaid, rentMint, rentTokenAccount)
			}
			if p.Effects.TokensIn[mint] != 1_000_000_000_000 {
				t.Errorf("tokens in %v, want 1000000000000 of %s", p.Effects.TokensIn, mint)
			}
			if got, _ := f.tokenBalance(t, wallet, mint); got != 1_000_000_000_000 {
				t.Errorf("the wallet holds %d of the new mint, want 1000000000000", got)
			}
		}},
		{"wsol-transfer", func(t *testing.T, o localnet.Outside, p *executor.PreparedOutside) {
			// Wrapped SOL is SOL: its outflow is in the SOL measure.
			if want := 1_000_000 + p.Effects.Fee(); p.Effects.SOLOut() != want {
				t.Errorf("SOL out %d, want wrapped 1000000 + fee %d", p.Effects.SOLOut(), p.Effects.Fee())
			}
			if got, _ := f.tokenBalance(t, solana.MustPublicKeyFromBase58(o.Accounts["recipient"]), solana.SolMint); got != 1_000_000 {
				t.Errorf("recipient holds %d wrapped lamports, want 1000000", got)
			}
		}},
		{"unknown-program", func(t *testing.T, o localnet.Outside, p *executor.PreparedOutside) {
			if p.Programs[len(p.Programs)-1].Label != "lookup tables" {
				t.Errorf("programs %v: the allowed program should carry the operator's label", p.Programs)
			}
			if len(p.InnerPrograms) == 0 || !p.InnerPrograms[0].ID.Equals(solana.SystemProgramID) {
				t.Errorf("inner programs %v, want the system program the table creation calls", p.InnerPrograms)
			}
			if _, err := f.chain.GetAccountInfo(ctx, solana.MustPublicKeyFromBase58(o.Accounts["lookupTable"])); err != nil {
				t.Errorf("the lookup table was not created: %v", err)
			}
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			o, raw := f.outside(t, tc.kind, localnet.OutsideOptions{})
			p, err := f.ex.PrepareOutside(ctx, raw, rules, executor.OutsideFacts{})
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			before := f.balance(t, wallet)
			// Execution prepares the same bytes again, held to the approval.
			q, err := f.ex.PrepareApprovedOutside(ctx, raw, rules, executor.OutsideFacts{}, p.Approval())
			if err != nil {
				t.Fatalf("prepare approved: %v", err)
			}
			res, err := f.ex.SubmitOutside(ctx, q, nil)
			if err != nil {
				t.Fatalf("submit: %v", err)
			}
			if res.Outcome != executor.Executed {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
			}
			// The ledger shows exactly the previewed effects: the wallet's
			// lamports moved by the previewed SOL (wrapped SOL moves in its
			// token account, outside the wallet's own lamports).
			after := f.balance(t, wallet)
			walletOut := p.Effects.SOLOut()
			if tc.kind == "wsol-transfer" {
				walletOut = p.Effects.Fee()
			}
			if before-after != walletOut {
				t.Errorf("the wallet lost %d lamports, the preview said %d", before-after, walletOut)
			}
			if res.Effects == nil || res.Effects.SOLOut() != p.Effects.SOLOut() {
				t.Errorf("landed effects %+v, previewed SOL out %d", res.Effects, p.Effects.SOLOut())
			}
			tc.check(t, o, p)
		})
	}
}

func TestOutsideRefusedTransactionsSayWhyAndLeaveTheLedgerAlone(t *testing.T) {
	ctx := context.Background()
	f := newOutsideFixture(t)
	wallet := f.key.PublicKey()
	for _, tc := range []struct {
		kind string
		want func(o localnet.Outside) string
		is   error
	}{
		{"approve", func(o localnet.Outside) string { return "delegate changed from none to " + o.Accounts["delegate"] }, executor.ErrUnsafeTransaction},
		{"set-authority", func(o localnet.Outside) string {
			return "owner changed from " + wallet.String() + " to " + o.Accounts["newOwner"]
		}, executor.ErrUnsafeTransaction},
		{"close-to-stranger", func(o localnet.Outside) string {
			return "close " + o.Accounts["tokenAccount"] + " and send its 2039280 lamports to " + o.Accounts["destination"]
		}, executor.ErrUnsafeTransaction},
		{"durable-nonce", func(o localnet.Outside) string {
			return "durable nonce (AdvanceNonceAccount on " + o.Accounts["nonceAccount"]
		}, executor.ErrUnsafeTransaction},
		{"unknown-program", func(localnet.Outside) string {
			return "calls program AddressLookupTab1e1111111111111111111111111, which is not allowed"
		}, executor.ErrUnsafeTransaction},
		{"foreign-payer", func(o localnet.Outside) string {
			return "the fee payer is " + o.Accounts["feePayer"] + ", not the wallet"
		}, executor.ErrUnsafeTransaction},
		{"missing-cosigner", func(o localnet.Outside) string {
			return "signature 1 (signer " + o.Accounts["mint"] + ") is missing or invalid"
		}, executor.ErrUnsafeTransaction},
		{"expired-cosigned", func(localnet.Outside) string { return "is no longer valid" }, executor.ErrOutsideExpired},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			o, raw := f.outside(t, tc.kind, localnet.OutsideOptions{})
			before, sends := f.balance(t, wallet), f.stats(t).SendsReceived
			_, err := f.ex.PrepareOutside(ctx, raw, executor.OutsideRules{AllowPrograms: defaultPrograms()}, executor.OutsideFacts{})
			if err == nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want(o)) {
				t.Fatalf("got %v, want a refusal (%v) naming %q", err, tc.is, tc.want(o))
			}
			if after := f.balance(t, wallet); after != before {
				t.Errorf("the wallet moved from %d to %d lamports", before, after)
			}
			if s := f.stats(t).SendsReceived; s != sends {
				t.Errorf("%d transactions were sent", s-sends)
			}
		})
	}
}

// A compute-unit price in the bytes is kept and counted; one over the
// operator's cap is refused.
func TestOutsidePriorityFeeIsKeptAndCapped(t *testing.T) {
	ctx := context.Background()
	f := newOutsideFixture(t)
	price, limit := uint64(50_000), uint32(10_000)
	_, raw := f.outside(t, "memo-transfer", localnet.OutsideOptions{CUPrice: &price, CULimit: &limit})
	p, err := f.ex.PrepareOutside(ctx, raw, executor.OutsideRules{AllowPrograms: defaultPrograms()}, executor.OutsideFacts{})
	if err != nil {
		t.Fatal(err)
	}
	// 50 000 micro-lamports × 10 000 units = 500 lamports.
	if p.OwnBudget || p.Budget.UnitPrice != 50_000 || p.Budget.PriorityFee != 500 || p.Effects.PriorityFee != 500 {
		t.Fatalf("budget %+v, effects priority %d: the transaction's own price should be kept", p.Budget, p.Effects.PriorityFee)
	}
	if want := 1_000_000 + 5_000 + 500; p.Effects.SOLOut() != uint64(want) {
		t.Errorf("SOL out %d, want %d (amount, signature, priority)", p.Effects.SOLOut(), want)
	}
	price = 1_000_000 // × 200 000 default units = 200 000 lamports, over the 100 000 default cap
	_, raw = f.outside(t, "memo-transfer", localnet.OutsideOptions{CUPrice: &price})
	if _, err := f.ex.PrepareOutside(ctx, raw, executor.OutsideRules{AllowPrograms: defaultPrograms()}, executor.OutsideFacts{}); err == nil || !strings.Contains(err.Error(), "--max-priority-fee-lamports") {
		t.Fatalf("a priority fee over the cap: %v", err)
	}
}

// Only the wallet signs: an expired blockhash is moved forward and the
// transaction still executes, bound by its message apart from the blockhash.
func TestOutsideWalletOnlyBlockhashIsRefreshed(t *testing.T) {
	ctx := context.Background()
	f := newOutsideFixture(t)
	o, raw := f.outside(t, "memo-transfer", localnet.OutsideOptions{})
	if err := f.ledger.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := f.ex.PrepareOutside(ctx, raw, executor.OutsideRules{AllowPrograms: defaultPrograms()}, executor.OutsideFacts{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tx.Blockhash().String() == o.Blockhash {
		t.Fatal("the expired blockhash was kept")
	}
	if err := f.ledger.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	q, err := f.ex.PrepareApprovedOutside(ctx, raw, executor.OutsideRules{AllowPrograms: defaultPrograms()}, executor.OutsideFacts{}, p.Approval())
	if err != nil {
		t.Fatal(err)
	}
	if q.Binding != p.Binding || q.Tx.Blockhash().Equals(p.Tx.Blockhash()) {
		t.Fatalf("binding %s vs %s, blockhash %s vs %s", q.Binding, p.Binding, q.Tx.Blockhash(), p.Tx.Blockhash())
	}
	res, err := f.ex.SubmitOutside(ctx, q, nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("submit: %v %+v", err, res)
	}
	if got := f.balance(t, solana.MustPublicKeyFromBase58(o.Accounts["recipient"])); got != 1_000_000 {
		t.Errorf("recipient has %d", got)
	}

	// Another message never passes for the approved one.
	_, other := f.outside(t, "memo-transfer", localnet.OutsideOptions{})
	if _, err := f.ex.PrepareApprovedOutside(ctx, other, executor.OutsideRules{AllowPrograms: defaultPrograms()}, executor.OutsideFacts{}, p.Approval()); !errors.Is(err, executor.ErrWorseThanApproved) {
		t.Fatalf("another message under the approval: %v", err)
	}
}

// At execution the same bytes are measured again: when the world changed so
// that they would now take more (here: the recipient's token account is
// gone, so the idempotent create pays its rent), nothing is signed.
func TestOutsideWorseThanApprovedIsRefusedAtExecution(t *testing.T) {
	ctx := context.Background()
	f := newOutsideFixture(t)
	limit := uint32(200_000)
	for name, tc := range map[string]struct {
		opts localnet.OutsideOptions
		is   error
		want string
	}{
		// Its own compute budget: judged by the effects alone.
		"own budget": {localnet.OutsideOptions{Precreate: true, CULimit: &limit}, executor.ErrWorseThanApproved, "2039280 more than the"},
		// solgate's budget: the approved unit limit is outgrown first.
		"solgate's budget": {localnet.OutsideOptions{Precreate: true}, executor.ErrComputeOverApproved, "more than the"},
	} {
		t.Run(name, func(t *testing.T) {
			o, raw := f.outside(t, "token-transfer", tc.opts)
			p, err := f.ex.PrepareOutside(ctx, raw, executor.OutsideRules{AllowPrograms: defaultPrograms()}, executor.OutsideFacts{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Effects.RentPaid != 0 {
				t.Fatalf("rent %d with the account already there", p.Effects.RentPaid)
			}
			if err := f.ledger.RemoveAccount(ctx, o.Accounts["destination"]); err != nil {
				t.Fatal(err)
			}
			before, sends := f.balance(t, f.key.PublicKey()), f.stats(t).SendsReceived
			_, err = f.ex.PrepareApprovedOutside(ctx, raw, executor.OutsideRules{AllowPrograms: defaultPrograms()}, executor.OutsideFacts{}, p.Approval())
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %v naming %q", err, tc.is, tc.want)
			}
			if f.balance(t, f.key.PublicKey()) != before || f.stats(t).SendsReceived != sends {
				t.Fatal("something was sent")
			}
		})
	}
}

// Co-signed bytes keep their blockhash: approved while it was valid, they
// are refused at execution once it has expired, nothing signed.
func TestOutsideCosignedExpiredAtExecutionIsRefused(t *testing.T) {
	ctx := context.Background()
	f := newOutsideFixture(t)
	rules := executor.OutsideRules{AllowPrograms: defaultPrograms()}
	_, raw := f.outside(t, "mint-new", localnet.OutsideOptions{})
	p, err := f.ex.PrepareOutside(ctx, raw, rules, executor.OutsideFacts{})
	if err != nil {
		t.Fatal(err)
	}
	if p.WalletOnly || p.LastValidBlockHeight == 0 {
		t.Fatalf("wallet only %v, expiry %d: the mint co-signs", p.WalletOnly, p.LastValidBlockHeight)
	}
	if err := f.ledger.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	sends := f.stats(t).SendsReceived
	if _, err := f.ex.PrepareApprovedOutside(ctx, raw, rules, executor.OutsideFacts{}, p.Approval()); !errors.Is(err, executor.ErrOutsideExpired) {
		t.Fatalf("got %v, want the blockhash expired", err)
	}
	if f.stats(t).SendsReceived != sends {
		t.Fatal("something was sent")
	}
}

// The landed effects are verified against the approved ones: bytes that,
// between their last simulation and landing, met a world where they take
// more (the recipient's token account vanished, so its rent is paid) are
// reported "executed with unexpected effects", never "executed".
func TestOutsideLandedEffectsAreVerified(t *testing.T) {
	ctx := context.Background()
	f := newOutsideFixture(t)
	rules := executor.OutsideRules{AllowPrograms: defaultPrograms()}
	limit := uint32(200_000)
	o, raw := f.outside(t, "token-transfer", localnet.OutsideOptions{Precreate: true, CULimit: &limit})
	p, err := f.ex.PrepareOutside(ctx, raw, rules, executor.OutsideFacts{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := f.ex.PrepareApprovedOutside(ctx, raw, rules, executor.OutsideFacts{}, p.Approval())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ledger.RemoveAccount(ctx, o.Accounts["destination"]); err != nil {
		t.Fatal(err)
	}
	res, err := f.ex.SubmitOutside(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != executor.ExecutedWithUnexpectedEffects || !strings.Contains(res.Reason, "2039280 more than the") {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
}
