package executor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// This file holds the one outflow budget a swap must fit. It is measured
// from account states, before and after: the simulation of the exact bytes
// to be signed, and again from the chain after landing. SOL and wrapped SOL
// are counted together, every token of the wallet is counted, and a token
// account of the wallet may not change hands, gain a delegate or close.

// SwapBudget is what a swap may cost the wallet: the approved input of the
// input mint, plus fees, plus rent for token accounts it opens for the wallet.
type SwapBudget struct {
	InputMint solana.PublicKey
	InAmount  uint64
	// Fee is network + priority fee; Rent the lamports the swap may move into
	// token accounts it opens for the wallet.
	Fee  uint64
	Rent uint64
}

// Lamports is the most SOL (wrapped SOL included) that may leave the wallet.
func (b SwapBudget) Lamports() uint64 {
	// A bound only: past 2^64-1 it is held at the maximum, which no
	// balance can exceed, so it never wraps to a small allowance.
	if b.InputMint.Equals(WrappedSOL) {
		return addOrMax(b.Fee, b.Rent, b.InAmount)
	}
	return addOrMax(b.Fee, b.Rent)
}

// WalletEffect is what a transaction does to the wallet, measured from
// account states before and after.
type WalletEffect struct {
	// SOLBefore and SOLAfter are the wallet's lamports plus the lamports of
	// its wrapped-SOL token accounts: SOL and WSOL counted together.
	SOLBefore, SOLAfter uint64
	// Rent is the lamports in token accounts of the wallet that did not exist
	// before (wrapped-SOL accounts excluded: their lamports are in SOLAfter).
	Rent uint64
	// TokensOut and TokensIn sum each mint's decreases and increases over
	// the wallet's token accounts (wrapped SOL excluded: it is in SOL*).
	TokensOut map[solana.PublicKey]uint64
	TokensIn  map[solana.PublicKey]uint64
	// Tokens are the wallet's token accounts whose amount changed.
	Tokens []TokenChange
	// Violations are changes no swap may make: a token account of the wallet
	// closed, given to another owner, or given a delegate or close authority.
	Violations []string
}

// SOLOut is the lamports (SOL and WSOL together) that left the wallet; zero
// when it gained.
func (e WalletEffect) SOLOut() uint64 {
	if e.SOLBefore > e.SOLAfter {
		return e.SOLBefore - e.SOLAfter
	}
	return 0
}

// Check reports the first way the effect does not fit the budget, or nil.
func (b SwapBudget) Check(e WalletEffect) error {
	if len(e.Violations) > 0 {
		return errors.New(e.Violations[0])
	}
	if out, allowed := e.SOLOut(), b.Lamports(); out > allowed {
		in := uint64(0)
		if b.InputMint.Equals(WrappedSOL) {
			in = b.InAmount
		}
		return fmt.Errorf("%d lamports of SOL and wrapped SOL would leave the wallet, more than the %d allowed (input %d + fees %d + rent %d)", out, allowed, in, b.Fee, b.Rent)
	}
	mints := make([]solana.PublicKey, 0, len(e.TokensOut))
	for m := range e.TokensOut {
		mints = append(mints, m)
	}
	sort.Slice(mints, func(i, j int) bool { return bytes.Compare(mints[i][:], mints[j][:]) < 0 })
	for _, m := range mints {
		out := e.TokensOut[m]
		switch {
		case out == 0:
		case !m.Equals(b.InputMint):
			return fmt.Errorf("%d base units of mint %s would leave the wallet, which the swap does not spend", out, m)
		case out > b.InAmount:
			return fmt.Errorf("%d base units of the input mint %s would leave the wallet, more than the approved input of %d", out, m, b.InAmount)
		}
	}
	return nil
}

// tokenState is what the budget reads from an account: lamports, and for a
// token account its base layout (the first 165 bytes, shared by SPL Token
// and Token-2022).
type tokenState struct {
	exists   bool
	lamports uint64
	token    bool
	mint     solana.PublicKey
	owner    solana.PublicKey
	amount   uint64
	delegate []byte // COption<Pubkey>, raw
	closeBy  []byte // close authority, COption<Pubkey>, raw
}

func readState(a *rpc.Account) tokenState {
	if a == nil || (a.Lamports == 0 && (a.Data == nil || len(a.Data.GetBinary()) == 0)) {
		return tokenState{}
	}
	s := tokenState{exists: true, lamports: a.Lamports}
	if !a.Owner.Equals(solana.TokenProgramID) && !a.Owner.Equals(solana.Token2022ProgramID) || a.Data == nil {
		return s
	}
	d := a.Data.GetBinary()
	// 165 bytes is an SPL token account; Token-2022 accounts with extensions
	// are longer and carry the account type at byte 165 (2 = account).
	if len(d) < 165 || (len(d) > 165 && d[165] != 2) || d[108] == 0 {
		return s
	}
	s.token = true
	s.mint = solana.PublicKeyFromBytes(d[0:32])
	s.owner = solana.PublicKeyFromBytes(d[32:64])
	s.amount = binary.LittleEndian.Uint64(d[64:72])
	s.delegate = d[72:108]
	s.closeBy = d[129:165]
	return s
}

func (s tokenState) ownedBy(w solana.PublicKey) bool { return s.token && s.owner.Equals(w) }
func (s tokenState) native() bool                    { return s.mint.Equals(WrappedSOL) }

// hasKey reports whether a COption<Pubkey> is Some.
func hasKey(opt []byte) bool { return len(opt) == 36 && binary.LittleEndian.Uint32(opt[:4]) != 0 }

// measureWallet reads what happened to the wallet between before and after.
// keys[0] is the wallet; the rest are accounts the transaction can write (an
// account it cannot write cannot change, so these are all that can).
func measureWallet(wallet solana.PublicKey, keys []solana.PublicKey, before, after []*rpc.Account) WalletEffect {
	e := WalletEffect{TokensOut: map[solana.PublicKey]uint64{}, TokensIn: map[solana.PublicKey]uint64{}}
	e.SOLBefore, e.SOLAfter = readState(before[0]).lamports, readState(after[0]).lamports
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		b, a := readState(before[i]), readState(after[i])
		was, is := b.ownedBy(wallet), a.ownedBy(wallet)
		if !was && !is {
			continue
		}
		if was {
			if b.native() {
				e.SOLBefore += b.lamports
			}
			switch {
			case !a.exists:
				// A wrapped-SOL account's whole value is in the SOL sums, so
				// closing one can only pass when its lamports came back.
				if !b.native() {
					e.Violations = append(e.Violations, fmt.Sprintf("the swap would close the wallet's token account %s (mint %s)", k, b.mint))
				}
				continue
			case !a.token || !a.mint.Equals(b.mint):
				e.Violations = append(e.Violations, fmt.Sprintf("the swap would turn the wallet's token account %s (mint %s) into something else", k, b.mint))
				continue
			case !is:
				e.Violations = append(e.Violations, fmt.Sprintf("the swap would give the wallet's token account %s (mint %s) to %s", k, b.mint, a.owner))
				continue
			case !bytes.Equal(a.delegate, b.delegate) && hasKey(a.delegate):
				e.Violations = append(e.Violations, fmt.Sprintf("the swap would set a delegate on the wallet's token account %s (mint %s)", k, b.mint))
			case !bytes.Equal(a.closeBy, b.closeBy):
				e.Violations = append(e.Violations, fmt.Sprintf("the swap would change who can close the wallet's token account %s (mint %s)", k, b.mint))
			}
		} else {
			// Opened by the swap for the wallet: it must come clean.
			if hasKey(a.delegate) || hasKey(a.closeBy) {
				e.Violations = append(e.Violations, fmt.Sprintf("the swap would open token account %s for the wallet with a delegate or close authority", k))
			}
			if !a.native() {
				e.Rent += a.lamports
			}
		}
		if a.native() {
			e.SOLAfter += a.lamports
			continue
		}
		var pre uint64
		if was {
			pre = b.amount
		}
		post := a.amount
		switch {
		case post < pre:
			e.TokensOut[a.mint] += pre - post
		case post > pre:
			e.TokensIn[a.mint] += post - pre
		}
		if post != pre {
			e.Tokens = append(e.Tokens, TokenChange{Account: k, Mint: a.mint, Pre: pre, Post: post})
		}
	}
	return e
}
