package executor

import (
	"context"
	"errors"

	"github.com/gagliardetto/solana-go"
)

// A transaction whose fee payer is someone else (an x402 facilitator) is
// measured like any other: the wallet's lamports before and after are read
// from the simulation, so its SOL outflow is what it really loses. Only the
// fee lines change: the engine otherwise attributes the signatures' fee and
// the priority fee to the wallet, which here pays neither.

// MeasureEffectsFeePayer measures tx, whose fee payer (its first account)
// is not the wallet, by simulating its exact bytes. The result's FeePayer
// names that payer and its fees are zero. A transaction the wallet pays for
// is refused: MeasureEffects is for those.
func (e *Executor) MeasureEffectsFeePayer(ctx context.Context, tx *solana.Transaction, priorityFee uint64) (Effects, error) {
	if len(tx.Message.AccountKeys) == 0 {
		return Effects{}, errors.New("effects: the transaction names no accounts")
	}
	payer := tx.Message.AccountKeys[0]
	if payer.Equals(e.key.PublicKey()) {
		return Effects{}, errors.New("effects: the wallet is this transaction's fee payer; measure it with MeasureEffects")
	}
	eff, err := e.MeasureEffects(ctx, tx, priorityFee)
	if err != nil {
		return eff, err
	}
	return eff.paidBy(payer), nil
}

// paidBy is e with its fees charged to payer, not the wallet.
func (e Effects) paidBy(payer solana.PublicKey) Effects {
	if !payer.Equals(e.Wallet) {
		e.FeePayer, e.NetworkFee, e.PriorityFee = payer, 0, 0
	}
	return e
}
