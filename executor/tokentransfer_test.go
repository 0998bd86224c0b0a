package executor_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
)

// Rent-exempt minimums, (bytes + 128) × 3480 × 2 lamports: an SPL Token
// account is 165 bytes; a Token-2022 account of a transfer-fee mint as the
// associated token account program creates it carries ImmutableOwner and
// TransferFeeAmount, 182 bytes.
const (
	rentTokenAccount     = 2_039_280
	rentToken2022FeeAcct = 2_157_600
)

// tokenBalance asks the ledger, through the test's own client, for every
// token account owner holds of mint and sums their amounts.
func (f *ledgerFixture) tokenBalance(t *testing.T, owner, mint solana.PublicKey) (uint64, int) {
	t.Helper()
	out, err := f.chain.GetTokenAccountsByOwner(context.Background(), owner,
		&rpc.GetTokenAccountsConfig{Mint: &mint},
		&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatalf("getTokenAccountsByOwner %s: %v", owner, err)
	}
	var sum uint64
	for _, a := range out.Value {
		sum += binary.LittleEndian.Uint64(a.Account.Data.GetBinary()[64:72])
	}
	return sum, len(out.Value)
}

func (f *ledgerFixture) mintTo(t *testing.T, mint string, owner solana.PublicKey, amount uint64) {
	t.Helper()
	if _, err := f.ledger.MintTo(context.Background(), mint, owner.String(), amount); err != nil {
		t.Fatalf("mintTo: %v", err)
	}
}

func TestTokenTransferSPLCreatesAccountOnceAndMovesTokens(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
	mintS, err := f.ledger.CreateMint(ctx, 6, "")
	if err != nil {
		t.Fatal(err)
	}
	mint := solana.MustPublicKeyFromBase58(mintS)
	f.mintTo(t, mintS, f.key.PublicKey(), 5_000_000)
	to := freshAddress(t)
	tt := executor.TokenTransfer{Mint: mint, To: to, Amount: 1_250_000}

	p, err := f.ex.PreviewTokenTransfer(ctx, tt)
	if err != nil {
		t.Fatal(err)
	}
	tp := p.TokenPreview
	if !tp.CreatesAccount || tp.Rent != rentTokenAccount || tp.Sent != 1_250_000 || tp.Received != 1_250_000 || tp.TransferFee != 0 {
		t.Fatalf("preview: creates=%v rent=%d sent=%d received=%d fee=%d", tp.CreatesAccount, tp.Rent, tp.Sent, tp.Received, tp.TransferFee)
	}
	if tp.Mint.Decimals != 6 || !tp.Mint.Program.Equals(solana.MustPublicKeyFromBase58("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")) {
		t.Fatalf("mint read as %d decimals under %s", tp.Mint.Decimals, tp.Mint.Program)
	}
	if want := p.Preview.Fee + rentTokenAccount; p.Preview.SpendLamports != want {
		t.Fatalf("SOL outflow %d, want fee %d + rent %d", p.Preview.SpendLamports, p.Preview.Fee, rentTokenAccount)
	}
	if p.Preview.Budget.UnitLimit == 0 {
		t.Fatal("a token transfer carries no compute-unit limit")
	}

	solBefore := f.balance(t, f.key.PublicKey())
	res, _, err := f.ex.ExecuteTokenTransfer(ctx, tt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != executor.Executed {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if got, _ := f.tokenBalance(t, f.key.PublicKey(), mint); got != 5_000_000-1_250_000 {
		t.Fatalf("wallet holds %d after, want %d", got, 5_000_000-1_250_000)
	}
	got, n := f.tokenBalance(t, to, mint)
	if got != 1_250_000 || n != 1 {
		t.Fatalf("recipient holds %d in %d accounts, want 1250000 in 1", got, n)
	}
	if spent := solBefore - f.balance(t, f.key.PublicKey()); spent != res.Fee+rentTokenAccount {
		t.Fatalf("wallet spent %d lamports, want fee %d + rent %d", spent, res.Fee, rentTokenAccount)
	}

	// Second transfer: the account exists now, so no rent and no creation.
	res, p2, err := f.ex.ExecuteTokenTransfer(ctx, executor.TokenTransfer{Mint: mint, To: to, Amount: 1}, nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("second transfer: %v %+v", err, res)
	}
	if p2.TokenPreview.CreatesAccount || p2.TokenPreview.Rent != 0 {
		t.Fatalf("second transfer creates=%v rent=%d", p2.TokenPreview.CreatesAccount, p2.TokenPreview.Rent)
	}
	if got, n := f.tokenBalance(t, to, mint); got != 1_250_001 || n != 1 {
		t.Fatalf("recipient holds %d in %d accounts, want 1250001 in 1", got, n)
	}
}

func TestTokenTransfer2022TransferFeeShowsNetAndVerifies(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
	mintS, err := f.ledger.CreateMint2022(ctx, localnet.Mint2022{Decimals: 6, TransferFee: true, TransferFeeBps: 100, TransferFeeMax: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	mint := solana.MustPublicKeyFromBase58(mintS)
	f.mintTo(t, mintS, f.key.PublicKey(), 10_000_000)
	to := freshAddress(t)
	tt := executor.TokenTransfer{Mint: mint, To: to, Amount: 1_000_000}

	p, err := f.ex.PreviewTokenTransfer(ctx, tt)
	if err != nil {
		t.Fatal(err)
	}
	tp := p.TokenPreview
	// 1% of 1 000 000 is withheld: the recipient receives 990 000.
	if tp.TransferFee != 10_000 || tp.Received != 990_000 || tp.Rent != rentToken2022FeeAcct {
		t.Fatalf("preview: fee=%d received=%d rent=%d", tp.TransferFee, tp.Received, tp.Rent)
	}
	if !tp.Mint.Program.Equals(solana.MustPublicKeyFromBase58("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")) {
		t.Fatalf("program %s", tp.Mint.Program)
	}
	var flagged bool
	for _, w := range tp.Flags {
		flagged = flagged || w.Kind == executor.WarnTransferFee
	}
	if !flagged {
		t.Fatalf("transfer fee not flagged: %+v", tp.Flags)
	}

	approved := executor.TokenApproval{Budget: p.Preview.Budget, Received: tp.Received}
	pt, err := f.ex.PrepareApprovedTokenTransfer(ctx, tt, approved)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.ex.Submit(ctx, pt.Prepared, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != executor.Executed {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if got, _ := f.tokenBalance(t, to, mint); got != 990_000 {
		t.Fatalf("recipient holds %d, want the net 990000", got)
	}
	if got, _ := f.tokenBalance(t, f.key.PublicKey(), mint); got != 9_000_000 {
		t.Fatalf("wallet holds %d, want 9000000", got)
	}

	// An approval that showed more than the chain now delivers is refused.
	_, err = f.ex.PrepareApprovedTokenTransfer(ctx, tt, executor.TokenApproval{Budget: p.Preview.Budget, Received: 1_000_000})
	if !errors.Is(err, executor.ErrTokenTermsChanged) {
		t.Fatalf("approved 1000000 net, chain delivers 990000: %v", err)
	}
}

func TestTokenTransferRefusesHostileMints(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
	hook := freshAddress(t)
	for _, tc := range []struct {
		name string
		m    localnet.Mint2022
		want string
	}{
		{"non-transferable", localnet.Mint2022{NonTransferable: true}, "non-transferable"},
		{"transfer hook", localnet.Mint2022{TransferHook: hook.String()}, "transfer hook"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mintS, err := f.ledger.CreateMint2022(ctx, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			f.mintTo(t, mintS, f.key.PublicKey(), 100)
			before := f.stats(t)
			_, err = f.ex.PreviewTokenTransfer(ctx, executor.TokenTransfer{Mint: solana.MustPublicKeyFromBase58(mintS), To: freshAddress(t), Amount: 1})
			if !errors.Is(err, executor.ErrTokenRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want a refusal naming %q, got %v", tc.want, err)
			}
			if after := f.stats(t); after.Simulations != before.Simulations {
				t.Fatalf("refused mint was simulated anyway (%d → %d)", before.Simulations, after.Simulations)
			}
		})
	}
	// Flagged, not refused: a permanent delegate can take the tokens back
	// later, which the person approving must see.
	del := freshAddress(t)
	mintS, err := f.ledger.CreateMint2022(ctx, localnet.Mint2022{Decimals: 2, PermanentDelegate: del.String()})
	if err != nil {
		t.Fatal(err)
	}
	f.mintTo(t, mintS, f.key.PublicKey(), 100)
	p, err := f.ex.PreviewTokenTransfer(ctx, executor.TokenTransfer{Mint: solana.MustPublicKeyFromBase58(mintS), To: freshAddress(t), Amount: 5})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, w := range p.TokenPreview.Flags {
		kinds = append(kinds, w.Kind)
	}
	if !strings.Contains(strings.Join(kinds, ","), executor.WarnPermanentDelegate) {
		t.Fatalf("permanent delegate not flagged: %v", kinds)
	}
}

func TestTokenTransferRefusesBadRecipientsAndAmounts(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
	mintS, err := f.ledger.CreateMint(ctx, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	mint := solana.MustPublicKeyFromBase58(mintS)
	f.mintTo(t, mintS, f.key.PublicKey(), 10)
	other := freshAddress(t)
	ata, err := f.ledger.MintTo(ctx, mintS, other.String(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tt   executor.TokenTransfer
		want string
	}{
		{"to a token account", executor.TokenTransfer{Mint: mint, To: solana.MustPublicKeyFromBase58(ata), Amount: 1}, "is itself a token account"},
		{"more than held", executor.TokenTransfer{Mint: mint, To: other, Amount: 11}, "fewer than the 11 asked"},
		{"zero", executor.TokenTransfer{Mint: mint, To: other, Amount: 0}, "greater than zero"},
		{"not a mint", executor.TokenTransfer{Mint: other, To: freshAddress(t), Amount: 1}, "mint"},
		{"to self", executor.TokenTransfer{Mint: mint, To: f.key.PublicKey(), Amount: 1}, "own wallet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.ex.PreviewTokenTransfer(ctx, tc.tt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error naming %q, got %v", tc.want, err)
			}
		})
	}
}
