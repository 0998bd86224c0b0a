package executor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
)

// TokenTransfer sends Amount base units of Mint from the wallet's associated
// token account to the associated token account of To, an owner's address
// (created, rent paid by the wallet, when it does not exist yet).
type TokenTransfer struct {
	Mint   solana.PublicKey
	To     solana.PublicKey
	Amount uint64
	// Memo, when set, is written with an SPL Memo instruction (memo.go),
	// as Transfer.Memo.
	Memo string
}

// ErrTokenRefused is wrapped when the mint or the accounts make the transfer
// one solgate will not build (a non-transferable mint, a transfer hook, a
// frozen account, a token account given as the recipient...).
var ErrTokenRefused = errors.New("token transfer refused")

// TokenPreview is what a token transfer would do, measured from the
// simulation of the exact transaction, never from the request.
type TokenPreview struct {
	// Mint is the mint as read from the chain; its metadata is raw,
	// attacker-controlled text.
	Mint *TokenInfo
	// Source is the wallet's token account, Destination the recipient
	// owner's associated token account.
	Source, Destination solana.PublicKey
	// CreatesAccount: Destination does not exist and the transaction
	// creates it; Rent is the lamports the wallet puts into it.
	CreatesAccount bool
	Rent           uint64
	// Sent is the wallet's simulated token decrease, Received the
	// recipient's simulated increase; TransferFee = Sent − Received is what
	// a Token-2022 transfer-fee mint withholds.
	Sent, Received, TransferFee uint64
	// Flags are properties of the mint that do not stop the transfer but
	// that a person approving it should see.
	Flags []Warning
}

// PreparedToken is a token transfer built and simulated but not signed.
type PreparedToken struct {
	*Prepared
	Token        TokenTransfer
	TokenPreview TokenPreview
}

// TokenApproval is what the human approved: the compute budget and the net
// amount the recipient was shown to receive.
type TokenApproval struct {
	Budget   Budget
	Received uint64
}

// ErrTokenTermsChanged: the fresh simulation at execution would deliver less
// than the approval showed (a transfer fee raised since). Nothing was signed.
var ErrTokenTermsChanged = errors.New("token transfer terms changed since approval")

// refusedExtensions are mint properties solgate will not transfer.
var refusedExtensions = map[string]string{
	WarnNonTransferable: "the mint is non-transferable: its tokens cannot be moved once received",
	WarnTransferHook:    "the mint has a transfer hook: a program of the mint's choosing runs on every transfer, needs accounts solgate does not resolve, and can block or alter it",
}

// PreviewTokenTransfer builds and simulates a token transfer for a
// proposal's preview. Executing always prepares again.
func (e *Executor) PreviewTokenTransfer(ctx context.Context, t TokenTransfer) (*PreparedToken, error) {
	return previewOnRecentBlockhash(e, func(maxAge time.Duration) (*PreparedToken, error) {
		return e.prepareToken(ctx, t, maxAge, nil)
	})
}

// PrepareTokenTransfer prepares an unapproved token transfer on a fresh
// blockhash (tests and tools that execute directly).
func (e *Executor) PrepareTokenTransfer(ctx context.Context, t TokenTransfer) (*PreparedToken, error) {
	return e.prepareToken(ctx, t, 0, nil)
}

// PrepareApprovedTokenTransfer prepares an approved token transfer: a fresh
// blockhash and simulation, held to the approved compute budget, and
// refused when the recipient would now receive less than approved.
func (e *Executor) PrepareApprovedTokenTransfer(ctx context.Context, t TokenTransfer, approved TokenApproval) (*PreparedToken, error) {
	p, err := e.prepareToken(ctx, t, 0, &approved.Budget)
	if err != nil {
		return nil, err
	}
	if p.TokenPreview.Received < approved.Received {
		return nil, fmt.Errorf("%w: the recipient would now receive %d base units, less than the %d approved (nothing was signed or sent; propose again)", ErrTokenTermsChanged, p.TokenPreview.Received, approved.Received)
	}
	return p, nil
}

// ExecuteTokenTransfer is PrepareTokenTransfer followed by Submit.
func (e *Executor) ExecuteTokenTransfer(ctx context.Context, t TokenTransfer, progress func(Progress)) (*Result, *PreparedToken, error) {
	report(progress, Progress{Step: StepSimulating})
	p, err := e.PrepareTokenTransfer(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	res, err := e.Submit(ctx, p.Prepared, progress)
	return res, p, err
}

func (e *Executor) checkTokenTransfer(t TokenTransfer) error {
	switch {
	case t.Amount == 0:
		return fmt.Errorf("%w: amount must be greater than zero", ErrInvalidTransfer)
	case t.To.IsZero():
		return fmt.Errorf("%w: to is the all-zero address (11111111111111111111111111111111), which no one controls", ErrInvalidTransfer)
	case t.To.Equals(e.key.PublicKey()):
		return fmt.Errorf("%w: to is the console's own wallet %s; a transfer to yourself moves nothing but the fee", ErrInvalidTransfer, t.To)
	case t.Mint.Equals(WrappedSOL):
		return fmt.Errorf("%w: mint is wrapped SOL; send SOL with transfer_sol", ErrInvalidTransfer)
	}
	if err := checkMemo(t.Memo); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidTransfer, err)
	}
	return nil
}

// tokenAccounts reads the mint and the three accounts a token transfer
// depends on, and refuses what cannot or must not be sent.
func (e *Executor) tokenAccounts(ctx context.Context, t TokenTransfer) (*TokenInfo, solana.PublicKey, solana.PublicKey, bool, error) {
	var zero solana.PublicKey
	info, err := e.client.TokenInfo(ctx, t.Mint)
	if err != nil {
		return nil, zero, zero, false, fmt.Errorf("%w: mint: %w", ErrInvalidTransfer, err)
	}
	for _, w := range info.Warnings {
		if why, ok := refusedExtensions[w.Kind]; ok {
			return nil, zero, zero, false, fmt.Errorf("%w: %s", ErrTokenRefused, why)
		}
	}
	wallet := e.key.PublicKey()
	src, err := AssociatedTokenAddress(wallet, t.Mint, info.Program)
	if err != nil {
		return nil, zero, zero, false, err
	}
	dst, err := AssociatedTokenAddress(t.To, t.Mint, info.Program)
	if err != nil {
		return nil, zero, zero, false, err
	}
	accts, err := e.client.multipleAccounts(ctx, []solana.PublicKey{src, dst, t.To})
	if err != nil {
		return nil, zero, zero, false, fmt.Errorf("token transfer: read accounts: %w", err)
	}
	create, err := checkTokenAccounts(t, wallet, src, dst, accts[0], accts[1], accts[2])
	if err != nil {
		return nil, zero, zero, false, err
	}
	return info, src, dst, create, nil
}

// checkTokenAccounts refuses what cannot or must not be sent, from the
// states of the wallet's token account, the recipient's and the recipient
// owner's address; create reports that the recipient's does not exist.
func checkTokenAccounts(t TokenTransfer, wallet, src, dst solana.PublicKey, srcAcct, dstAcct, toAcct *rpc.Account) (create bool, err error) {
	s, d, to := readAccount(srcAcct), readAccount(dstAcct), readAccount(toAcct)
	switch {
	case to.token != nil:
		return false, fmt.Errorf("%w: to %s is itself a token account (of mint %s); give the owner's address, and solgate sends to the owner's associated token account", ErrInvalidTransfer, t.To, to.token.mint)
	case s.token == nil || !s.token.mint.Equals(t.Mint) || !s.token.owner.Equals(wallet):
		return false, fmt.Errorf("%w: the wallet %s has no associated token account for mint %s (expected %s)", ErrInvalidTransfer, wallet, t.Mint, src)
	case frozen(srcAcct):
		return false, fmt.Errorf("%w: the wallet's token account %s is frozen by the mint's freeze authority", ErrTokenRefused, src)
	case s.token.amount < t.Amount:
		return false, fmt.Errorf("%w: the wallet holds %d base units of %s, fewer than the %d asked", ErrInvalidTransfer, s.token.amount, t.Mint, t.Amount)
	case d.exists && (d.token == nil || !d.token.mint.Equals(t.Mint) || !d.token.owner.Equals(t.To)):
		return false, fmt.Errorf("%w: the recipient's associated token account %s exists but is not a %s account owned by %s", ErrTokenRefused, dst, t.Mint, t.To)
	case d.exists && frozen(dstAcct):
		return false, fmt.Errorf("%w: the recipient's token account %s is frozen by the mint's freeze authority", ErrTokenRefused, dst)
	}
	return !d.exists, nil
}

// frozen reads a token account's state byte (2 = frozen).
func frozen(a *rpc.Account) bool {
	if a == nil || a.Data == nil {
		return false
	}
	d := a.Data.GetBinary()
	return len(d) > 108 && d[108] == 2
}

// tokenInstructions builds the optional idempotent account creation and the
// TransferChecked, under the mint's own token program: solana-go's token
// package encodes TransferChecked for SPL Token, and Token-2022 shares the
// instruction's layout and accounts, so the same bytes go to its program id.
func tokenInstructions(payer solana.PublicKey, t TokenTransfer, info *TokenInfo, src, dst solana.PublicKey, create bool) ([]solana.Instruction, error) {
	var out []solana.Instruction
	if create {
		out = append(out, solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
			solana.Meta(payer).WRITE().SIGNER(),
			solana.Meta(dst).WRITE(),
			solana.Meta(t.To),
			solana.Meta(t.Mint),
			solana.Meta(solana.SystemProgramID),
			solana.Meta(info.Program),
		}, []byte{ataCreateIdempotent}))
	}
	tc, err := token.NewTransferCheckedInstruction(t.Amount, info.Decimals, src, t.Mint, dst, payer, nil).ValidateAndBuild()
	if err != nil {
		return nil, fmt.Errorf("token transfer: build TransferChecked: %w", err)
	}
	data, err := tc.Data()
	if err != nil {
		return nil, fmt.Errorf("token transfer: encode TransferChecked: %w", err)
	}
	return withMemo(append(out, solana.NewInstruction(info.Program, tc.Accounts(), data)), t.Memo), nil
}

func (e *Executor) prepareToken(ctx context.Context, t TokenTransfer, maxAge time.Duration, approved *Budget) (*PreparedToken, error) {
	if err := e.checkTokenTransfer(t); err != nil {
		return nil, err
	}
	ctx, meter := withMeter(ctx)
	start := time.Now()
	payer := e.key.PublicKey()
	if maxAge > 0 && approved == nil {
		if shape, ok := e.tokenShapes.get(t); ok {
			built, err := e.tokenInOneRound(ctx, t, maxAge, shape)
			if err == nil {
				return e.preparedToken(t, built, start, meter)
			}
			// The guess did not hold (or anything failed): the long way
			// reads first and reports its own errors.
			e.tokenShapes.forget(t)
		}
	}
	info, src, dst, create, err := e.tokenAccounts(ctx, t)
	if err != nil {
		return nil, err
	}
	ixs, err := tokenInstructions(payer, t, info, src, dst, create)
	if err != nil {
		return nil, err
	}
	tx, _, bh, preview, sim, err := e.budgetedSimulation(ctx, "token transfer", ixs, maxAge, approved, nil)
	if err != nil {
		return nil, err
	}
	e.tokenShapes.put(t, tokenShape{program: info.Program, decimals: info.Decimals, create: create})
	return e.preparedToken(t, builtToken{info: info, src: src, dst: dst, create: create, tx: tx, bh: bh, preview: preview, sim: sim}, start, meter)
}

// builtToken is a token transfer built and simulated, with what it was
// built from.
type builtToken struct {
	info     *TokenInfo
	src, dst solana.PublicKey
	create   bool
	tx       *solana.Transaction
	bh       rpc.LatestBlockhashResult
	preview  Preview
	sim      simulation
}

// preparedToken measures the token movement of b and holds it to t.
func (e *Executor) preparedToken(t TokenTransfer, b builtToken, start time.Time, meter *ctxMeter) (*PreparedToken, error) {
	payer := e.key.PublicKey()
	info, src, dst, create, tx, bh, preview, sim := b.info, b.src, b.dst, b.create, b.tx, b.bh, b.preview, b.sim
	tp, err := measureToken(t, info, src, dst, preview.Effects, sim)
	if err != nil {
		return nil, err
	}
	e.tokenShapes.putMint(info)
	tp.CreatesAccount = create
	for _, w := range info.Warnings {
		if _, refused := refusedExtensions[w.Kind]; !refused {
			tp.Flags = append(tp.Flags, w)
		}
	}
	stats := meter.stats()
	preview.RPC = stats
	pt := &PreparedToken{
		Prepared: &Prepared{
			// The landed effects may take no more SOL than the fees and the
			// rent, and no more of the mint than the amount.
			limits:               &Limits{SOLOut: addOrMax(preview.Effects.Fee(), tp.Rent), TokensOut: map[solana.PublicKey]uint64{t.Mint: t.Amount}},
			Tx:                   tx,
			LastValidBlockHeight: bh.LastValidBlockHeight,
			Preview:              preview,
			simulateTook:         time.Since(start),
			stats:                stats,
		},
		Token:        t,
		TokenPreview: tp,
	}
	pt.checkLanded = func(got *rpc.GetTransactionResult, res *Result) error {
		return checkTokenLanded(got, res, payer, t, pt.TokenPreview)
	}
	return pt, nil
}

// measureToken reads the token movement and the rent from the effects
// engine's measure: the wallet must lose exactly the amount; the recipient
// (not the wallet's, so read from the simulated accounts) gains what is left
// after any transfer fee.
func measureToken(t TokenTransfer, info *TokenInfo, src, dst solana.PublicKey, eff Effects, sim simulation) (TokenPreview, error) {
	tp := TokenPreview{Mint: info, Source: src, Destination: dst, Rent: eff.RentPaid}
	var dstBefore, dstAfter *accountState
	for i, k := range sim.Keys {
		if k.Equals(dst) {
			b, a := readAccount(sim.Before[i]), readAccount(sim.After[i])
			dstBefore, dstAfter = &b, &a
		}
	}
	if dstAfter == nil || dstAfter.token == nil {
		return tp, errors.New("preview: the simulation did not leave the recipient's token account readable")
	}
	if out := eff.TokensOut[t.Mint]; out != t.Amount || eff.TokensIn[t.Mint] != 0 {
		return tp, fmt.Errorf("%w: the simulation moves %d base units of %s out of the wallet, not exactly the %d asked", ErrTokenRefused, out, t.Mint, t.Amount)
	}
	var before uint64
	if dstBefore.token != nil {
		before = dstBefore.token.amount
	}
	if dstAfter.token.amount < before {
		return tp, fmt.Errorf("%w: the simulation lowers the recipient's balance", ErrTokenRefused)
	}
	tp.Sent = t.Amount
	tp.Received = dstAfter.token.amount - before
	if tp.Received > tp.Sent {
		return tp, fmt.Errorf("%w: the simulation credits the recipient %d, more than the %d sent", ErrTokenRefused, tp.Received, tp.Sent)
	}
	tp.TransferFee = tp.Sent - tp.Received
	if tp.TransferFee > 0 && info.TransferFee == nil {
		return tp, fmt.Errorf("%w: %d base units vanish in the simulation, yet the mint declares no transfer fee", ErrTokenRefused, tp.TransferFee)
	}
	return tp, nil
}

// checkTokenLanded judges the re-fetched transaction by the chain's own
// record: the wallet's token account lost exactly the amount and the
// recipient's gained exactly the net shown at approval (amount − transfer
// fee), both for this mint.
func checkTokenLanded(tx *rpc.GetTransactionResult, res *Result, wallet solana.PublicKey, t TokenTransfer, tp TokenPreview) error {
	keys := make([]solana.PublicKey, len(res.Changes))
	for i, c := range res.Changes {
		keys[i] = c.Account
	}
	pre, err := tokenAmounts(tx.Meta.PreTokenBalances, keys, t.Mint)
	if err != nil {
		return err
	}
	post, err := tokenAmounts(tx.Meta.PostTokenBalances, keys, t.Mint)
	if err != nil {
		return err
	}
	if _, ok := post[tp.Source]; !ok {
		return fmt.Errorf("the wallet's token account %s has no %s balance after the transaction", tp.Source, t.Mint)
	}
	if _, ok := post[tp.Destination]; !ok {
		return fmt.Errorf("the recipient's token account %s has no %s balance after the transaction", tp.Destination, t.Mint)
	}
	if a, b := pre[tp.Source], post[tp.Source]; a < b || a-b != t.Amount {
		return fmt.Errorf("wallet token account %s went from %d to %d base units, expected −%d", tp.Source, a, b, t.Amount)
	}
	if a, b := pre[tp.Destination], post[tp.Destination]; b < a || b-a != tp.Received {
		return fmt.Errorf("recipient token account %s went from %d to %d base units, expected +%d (amount %d − transfer fee %d)", tp.Destination, a, b, tp.Received, t.Amount, tp.TransferFee)
	}
	// The wallet's SOL (fees and rent) is held to the approval by the
	// landed effects against the prepared limits, in verify.
	return nil
}

// tokenAmounts maps account → amount for the mint's entries of a
// pre/postTokenBalances list.
func tokenAmounts(bals []rpc.TokenBalance, keys []solana.PublicKey, mint solana.PublicKey) (map[solana.PublicKey]uint64, error) {
	out := map[solana.PublicKey]uint64{}
	for _, b := range bals {
		if !b.Mint.Equals(mint) {
			continue
		}
		if int(b.AccountIndex) >= len(keys) || b.UiTokenAmount == nil {
			return nil, fmt.Errorf("token balance at index %d does not match the transaction's %d accounts", b.AccountIndex, len(keys))
		}
		n, err := strconv.ParseUint(b.UiTokenAmount.Amount, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("token balance %q: %w", b.UiTokenAmount.Amount, err)
		}
		out[keys[b.AccountIndex]] = n
	}
	return out, nil
}
