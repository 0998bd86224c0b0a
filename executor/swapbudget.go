package executor

import (
	"errors"

	"github.com/gagliardetto/solana-go"
)

// SwapBudget is what a swap may cost the wallet: the approved input of the
// input mint, plus fees, plus rent for accounts it opens. It is held
// against the effects engine's measure (effects.go) of the exact bytes, in
// the simulation before signing and in the landed transaction after.
type SwapBudget struct {
	InputMint solana.PublicKey
	InAmount  uint64
	// Fee is network + priority fee; Rent the lamports the swap may move into
	// accounts it opens.
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

// Limits are the budget as effects limits: SOL out at most Lamports, the
// input mint out at most the input, no other mint out.
func (b SwapBudget) Limits() Limits {
	l := Limits{SOLOut: b.Lamports(), TokensOut: map[solana.PublicKey]uint64{}}
	if !b.InputMint.Equals(WrappedSOL) {
		l.TokensOut[b.InputMint] = b.InAmount
	}
	return l
}

// Check reports the first way the effects do not fit the budget, or nil:
// anything Effects.Refusal refuses, or more out than the limits allow.
func (b SwapBudget) Check(e Effects) error {
	if err := e.Refusal(); err != nil {
		var r *EffectsRefusal
		if errors.As(err, &r) {
			return errors.New(r.Reason)
		}
		return err
	}
	if d := e.Exceeds(b.Limits()); d != "" {
		return errors.New(d)
	}
	return nil
}
