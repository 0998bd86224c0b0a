package executor

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
)

// An x402 `exact` payment (scheme_exact_svm.md): the client builds
//   [0] SetComputeUnitLimit, [1] SetComputeUnitPrice,
//   [2] TransferChecked of amount of the asset from the wallet's associated
//       token account to payTo's, the wallet as authority,
//   [3] a memo (the server's extra.memo, or a random nonce),
// with the facilitator (extra.feePayer) as fee payer, as a versioned (v0)
// message (legacy only when the server asks for it), and signs it as the
// token owner only; the facilitator co-signs and submits. solgate judges it
// by its measured effects: the wallet's only outflow must be exactly amount
// of the asset, with no SOL, no fee, and the wallet in no other role.

// X402ComputeUnitLimit and X402ComputeUnitPrice are the budget solgate
// asks for: the packages' client defaults (20,000 units at 1 micro-lamport),
// well inside what a facilitator accepts; the facilitator pays for them.
const (
	X402ComputeUnitLimit = 20_000
	X402ComputeUnitPrice = 1
)

// X402Payment is what a chosen x402 offer asks the wallet to pay.
type X402Payment struct {
	Mint, PayTo, FeePayer solana.PublicKey
	Amount                uint64
	// Memo is the server's extra.memo; empty: a random nonce.
	Memo string
	// Legacy builds a legacy message, for a server that asks for one
	// (extra.transactionVersions); otherwise the message is v0.
	Legacy bool
	// RecentBlockhash is the server's extra.recentBlockhash, if it gave one:
	// used when the cluster says it is still valid, else the console's own.
	RecentBlockhash *solana.Hash
}

// PreparedX402 is an x402 payment built and measured, not yet signed.
type PreparedX402 struct {
	Payment              X402Payment
	Tx                   *solana.Transaction
	LastValidBlockHeight uint64
	Effects              Effects
	Token                *TokenInfo
	Source, Destination  solana.PublicKey
	Memo                 string
	// BlockhashFrom says whose blockhash the message carries: the server's
	// (extra.recentBlockhash) or the console's.
	BlockhashFrom string
}

// Where an x402 payment's blockhash came from.
const (
	X402BlockhashServer  = "the server's extra.recentBlockhash, checked valid on the cluster"
	X402BlockhashConsole = "the console's own, fetched fresh"
)

// ErrX402Refused is matched by every refusal of an x402 payment's shape or
// effects: nothing was signed.
var ErrX402Refused = errors.New("x402 payment refused")

func x402Refusal(format string, args ...any) error {
	return fmt.Errorf("%w: %s (nothing was signed)", ErrX402Refused, fmt.Sprintf(format, args...))
}

// PrepareX402Payment builds the payment with a fresh blockhash and measures
// its exact bytes. The error wraps ErrX402Refused when the payment's shape
// or effects are ones solgate never signs.
func (e *Executor) PrepareX402Payment(ctx context.Context, p X402Payment) (*PreparedX402, error) {
	return e.prepareX402(ctx, p, nil)
}

// prepareX402 builds p, with extra instructions appended when a test asks
// for them (the hostile case of an instruction spending the wallet's SOL:
// the exact scheme gives a server no way to add one, so only the builder
// can, and the measure must still refuse it).
func (e *Executor) prepareX402(ctx context.Context, p X402Payment, extra []solana.Instruction) (*PreparedX402, error) {
	wallet := e.key.PublicKey()
	if err := e.CheckX402Payment(p); err != nil {
		return nil, err
	}
	info, err := e.client.TokenInfo(ctx, p.Mint)
	if err != nil {
		return nil, fmt.Errorf("x402: asset %s: %w", p.Mint, err)
	}
	src, err := AssociatedTokenAddress(wallet, p.Mint, info.Program)
	if err != nil {
		return nil, fmt.Errorf("x402: %w", err)
	}
	dst, err := AssociatedTokenAddress(p.PayTo, p.Mint, info.Program)
	if err != nil {
		return nil, fmt.Errorf("x402: %w", err)
	}
	memo := p.Memo
	if memo == "" {
		var nonce [16]byte
		if _, err := rand.Read(nonce[:]); err != nil {
			return nil, fmt.Errorf("x402: memo nonce: %w", err)
		}
		memo = hex.EncodeToString(nonce[:])
	}
	tc, err := token.NewTransferCheckedInstruction(p.Amount, info.Decimals, src, p.Mint, dst, wallet, nil).ValidateAndBuild()
	if err != nil {
		return nil, fmt.Errorf("x402: build TransferChecked: %w", err)
	}
	data, err := tc.Data()
	if err != nil {
		return nil, fmt.Errorf("x402: encode TransferChecked: %w", err)
	}
	ixs := []solana.Instruction{
		computebudget.NewSetComputeUnitLimitInstruction(X402ComputeUnitLimit).Build(),
		computebudget.NewSetComputeUnitPriceInstruction(X402ComputeUnitPrice).Build(),
		solana.NewInstruction(info.Program, tc.Accounts(), data),
		memoInstruction(memo),
	}
	ixs = append(ixs, extra...)
	hash, lastValid, from, err := e.x402Blockhash(ctx, p.RecentBlockhash)
	if err != nil {
		return nil, err
	}
	tx, err := solana.NewTransaction(ixs, hash, solana.TransactionPayer(p.FeePayer))
	if err != nil {
		return nil, fmt.Errorf("x402: build transaction: %w", err)
	}
	if !p.Legacy {
		tx.Message.SetVersion(solana.MessageVersionV0)
	}
	prep := &PreparedX402{Payment: p, Tx: tx, LastValidBlockHeight: lastValid, Token: info, Source: src, Destination: dst, Memo: memo, BlockhashFrom: from}
	eff, err := e.MeasureEffectsFeePayer(ctx, tx, priorityFee(X402ComputeUnitPrice, X402ComputeUnitLimit))
	if err != nil {
		var sim *SimulationError
		if errors.As(err, &sim) {
			return nil, x402Refusal("its simulation failed: %v", err)
		}
		return nil, fmt.Errorf("x402: %w", err)
	}
	prep.Effects = eff
	// Effects first, so that a payment that spends more says so by its
	// measure; then the shape, so the wallet signs nothing else either.
	if err := checkX402Effects(eff, p); err != nil {
		return nil, err
	}
	if err := checkX402Shape(tx, wallet, p, src); err != nil {
		return nil, err
	}
	return prep, nil
}

// x402Blockhash is the blockhash the payment carries and the block height
// it is valid until. The server's (extra.recentBlockhash) is used only when
// the cluster says it is still valid; its lifetime is then bounded by 150
// blocks from now, which is never earlier than its true end (a valid hash is
// at most as young as the latest one), so the reservation is never released
// while the payment could still land. Otherwise the console's own.
func (e *Executor) x402Blockhash(ctx context.Context, server *solana.Hash) (solana.Hash, uint64, string, error) {
	if server != nil {
		height, err := e.client.rpc.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
		if err != nil {
			return solana.Hash{}, 0, "", fmt.Errorf("x402: getBlockHeight: %s", rpcErrorText(err))
		}
		ok, err := e.client.rpc.IsBlockhashValid(ctx, *server, rpc.CommitmentConfirmed)
		if err != nil {
			return solana.Hash{}, 0, "", fmt.Errorf("x402: isBlockhashValid: %s", rpcErrorText(err))
		}
		if ok != nil && ok.Value {
			return *server, height + 150, X402BlockhashServer, nil
		}
	}
	bh, err := e.client.rpc.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return solana.Hash{}, 0, "", fmt.Errorf("x402: getLatestBlockhash: %s", rpcErrorText(err))
	}
	return bh.Value.Blockhash, bh.Value.LastValidBlockHeight, X402BlockhashConsole, nil
}

// checkX402Shape: the wallet signs only as the TransferChecked authority,
// and its token account is only that transfer's source; no instruction but
// the four of the scheme.
func checkX402Shape(tx *solana.Transaction, wallet solana.PublicKey, p X402Payment, src solana.PublicKey) error {
	keys := tx.Message.AccountKeys
	for i, ci := range tx.Message.Instructions {
		prog := keys[ci.ProgramIDIndex]
		if i >= 4 {
			return x402Refusal("instruction %d (program %s) is not part of the exact scheme", i, ProgramName(prog))
		}
		for pos, a := range ci.Accounts {
			k := keys[a]
			transfer := i == 2 && isTokenProgram(prog)
			if k.Equals(wallet) && !(transfer && pos == 3) {
				return x402Refusal("the wallet appears in instruction %d (program %s) other than as the transfer's authority", i, ProgramName(prog))
			}
			if k.Equals(src) && !(transfer && pos == 0) {
				return x402Refusal("the wallet's token account appears in instruction %d (program %s) other than as the transfer's source", i, ProgramName(prog))
			}
		}
	}
	return nil
}

// checkX402Effects: exactly amount of the asset out, nothing else.
func checkX402Effects(eff Effects, p X402Payment) error {
	if err := eff.Refusal(); err != nil {
		return x402Refusal("%v", err)
	}
	switch {
	case eff.SOLOut() > 0:
		return x402Refusal("it would take %d lamports of SOL (or wrapped SOL) from the wallet; an x402 payment moves only the asset, the facilitator paying the fee", eff.SOLOut())
	case eff.Fee() > 0:
		return x402Refusal("the wallet would pay a fee of %d lamports", eff.Fee())
	case eff.TokensOut[p.Mint] != p.Amount:
		return x402Refusal("it would move %d base units of %s from the wallet, not the %d offered", eff.TokensOut[p.Mint], p.Mint, p.Amount)
	case len(eff.Created) > 0 || len(eff.Closed) > 0:
		return x402Refusal("it would create or close accounts (%d created, %d closed)", len(eff.Created), len(eff.Closed))
	}
	for m, out := range eff.TokensOut {
		if !m.Equals(p.Mint) && out > 0 {
			return x402Refusal("it would also move %d base units of %s from the wallet", out, m)
		}
	}
	return nil
}

// SignX402 signs the prepared payment as the token owner only (the fee
// payer's slot stays empty for the facilitator) and returns its wire bytes
// in base64, for the retry's payment header. These bytes go to the approved
// origin only, never to the agent.
func (e *Executor) SignX402(p *PreparedX402) (string, solana.Signature, error) {
	wallet := e.key.PublicKey()
	if _, err := p.Tx.PartialSign(func(k solana.PublicKey) *solana.PrivateKey {
		if k.Equals(wallet) {
			return e.key.signer(k)
		}
		return nil
	}); err != nil {
		return "", solana.Signature{}, fmt.Errorf("x402: sign: %w", err)
	}
	raw, err := p.Tx.MarshalBinary()
	if err != nil {
		return "", solana.Signature{}, fmt.Errorf("x402: encode: %w", err)
	}
	var own solana.Signature
	for i, k := range p.Tx.Message.AccountKeys[:p.Tx.Message.Header.NumRequiredSignatures] {
		if k.Equals(wallet) {
			own = p.Tx.Signatures[i]
		}
	}
	return base64.StdEncoding.EncodeToString(raw), own, nil
}

// X402Landing is what the chain says of a signed x402 payment.
type X402Landing struct {
	Found bool
	// TokensOut is the asset that left the wallet, measured from the landed
	// transaction's own balances; Failed: it landed with an error.
	TokensOut uint64
	Failed    bool
	Slot      uint64
	// Effects is the landed transaction's measure, its fees charged to
	// the facilitator.
	Effects Effects
}

// LookupX402 looks for the payment under sig (the facilitator's, the
// transaction's id) and, when it landed, checks that the landed message is
// the one the wallet signed and measures it. A signature that landed with
// another message is an error: the facilitator reported someone else's.
func (e *Executor) LookupX402(ctx context.Context, p *PreparedX402, sig solana.Signature) (X402Landing, error) {
	st, err := e.status(ctx, sig, true)
	if err != nil {
		return X402Landing{}, fmt.Errorf("x402 lookup %s: %s", sig, rpcErrorText(err))
	}
	if st == nil || !committed(st) {
		return X402Landing{}, nil
	}
	tx, err := e.fetchTransaction(ctx, sig)
	if err != nil {
		return X402Landing{}, fmt.Errorf("x402 lookup %s: %w", sig, err)
	}
	landed, err := tx.Transaction.GetTransaction()
	if err != nil {
		return X402Landing{}, fmt.Errorf("x402 lookup %s: decode: %w", sig, err)
	}
	want, _ := p.Tx.Message.MarshalBinary()
	got, _ := landed.Message.MarshalBinary()
	if !bytes.Equal(want, got) {
		return X402Landing{}, fmt.Errorf("x402 lookup %s: the transaction under that signature is not the payment the wallet signed", sig)
	}
	v, err := landedView(tx, 0)
	if err != nil {
		return X402Landing{}, fmt.Errorf("x402 lookup %s: %w", sig, err)
	}
	eff, err := landedEffects(e.key.PublicKey(), v, tx, p.Effects.sphere)
	if err != nil {
		return X402Landing{}, fmt.Errorf("x402 lookup %s: %w", sig, err)
	}
	eff = eff.paidBy(p.Payment.FeePayer)
	return X402Landing{Found: true, TokensOut: eff.TokensOut[p.Payment.Mint], Failed: tx.Meta.Err != nil, Slot: tx.Slot, Effects: eff}, nil
}

// Preview is the payment as the console shows it: its instructions, the
// hash of the exact message and the measured effects (no SOL, no fee).
func (p *PreparedX402) Preview() Preview {
	msg, _ := p.Tx.Message.MarshalBinary()
	sum := sha256.Sum256(msg)
	return Preview{
		From: p.Tx.Message.AccountKeys[0], Instructions: describeInstructions(p.Tx),
		MessageSHA256: hex.EncodeToString(sum[:]), Effects: p.Effects,
		Budget: Budget{UnitLimit: X402ComputeUnitLimit, UnitPrice: X402ComputeUnitPrice, Source: "paid by the facilitator"},
	}
}

// CheckX402Payment refuses, before anything is built, an offer whose terms
// alone are never paid: the wallet as fee payer or payee, wrapped SOL (it
// would spend the wallet's SOL), a zero amount, an oversized memo.
func (e *Executor) CheckX402Payment(p X402Payment) error {
	wallet := e.key.PublicKey()
	switch {
	case p.Amount == 0:
		return x402Refusal("the amount is zero")
	case p.FeePayer.Equals(wallet):
		return x402Refusal("the offer names the wallet %s as fee payer: in x402 the facilitator pays the fee, and the wallet pays only the amount", wallet)
	case p.Mint.Equals(WrappedSOL):
		return x402Refusal("the offer asks for wrapped SOL (%s): that payment would spend the wallet's SOL, and solgate pays x402 only in tokens", WrappedSOL)
	case p.PayTo.Equals(wallet):
		return x402Refusal("the offer's payTo is the wallet itself")
	case len(p.Memo) > 256:
		return x402Refusal("the memo is %d bytes, more than the scheme's 256", len(p.Memo))
	}
	return nil
}
