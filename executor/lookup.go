package executor

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Landing is what the chain says about a signature found after the fact,
// e.g. when a restarted console reconciles what was in flight.
type Landing struct {
	Found    bool
	Slot     uint64
	Fee      uint64
	ChainErr any
	// Outflow is what the wallet lost in that transaction, measured by the
	// effects engine from its own meta: SOL and wrapped SOL, fees and rent.
	Outflow uint64
	// Effects is that measure in full (nil when it could not be taken).
	Effects *Effects
	// Changes are the chain's balance changes for every account key of the
	// transaction, as a live execution's verify step records them.
	Changes []BalanceChange
	// Signature is the landed transaction's id when it was found by a
	// search (FindX402) rather than asked for by it.
	Signature solana.Signature
}

// Lookup searches the chain (history included) for a signature and, when it
// landed, re-fetches it to read what it cost the wallet. Found == false means
// the node does not know it; only the caller can tell whether it may still
// land (its blockhash lifetime has not yet passed).
func (e *Executor) Lookup(ctx context.Context, sig solana.Signature) (Landing, error) {
	st, err := e.status(ctx, sig, true)
	if err != nil {
		return Landing{}, fmt.Errorf("lookup %s: %s", sig, rpcErrorText(err))
	}
	if st == nil || !committed(st) {
		return Landing{}, nil
	}
	tx, err := e.fetchTransaction(ctx, sig)
	if err != nil {
		return Landing{}, fmt.Errorf("lookup %s: %w", sig, err)
	}
	l := Landing{Found: true, Slot: tx.Slot, Fee: tx.Meta.Fee, ChainErr: tx.Meta.Err, Outflow: tx.Meta.Fee}
	v, err := landedView(tx, 0)
	if err != nil {
		return l, nil
	}
	for i, k := range v.keys {
		if i >= len(tx.Meta.PreBalances) || i >= len(tx.Meta.PostBalances) {
			break
		}
		l.Changes = append(l.Changes, BalanceChange{Account: k, Pre: tx.Meta.PreBalances[i], Post: tx.Meta.PostBalances[i]})
	}
	// Nothing was measured before (a restart): what the wallet controlled
	// is read again, so a withdrawal from a nonce account or a multisig's
	// token account counts as it did live.
	sph, err := e.client.landedSphere(ctx, e.key.PublicKey(), v, tx)
	if err != nil {
		return Landing{}, fmt.Errorf("lookup %s: %w", sig, err)
	}
	if eff, err := landedEffects(e.key.PublicKey(), v, tx, sph); err == nil {
		l.Effects = &eff
		l.Outflow = max(eff.SOLOut(), tx.Meta.Fee)
		if len(v.keys) > 0 && !v.keys[0].Equals(e.key.PublicKey()) {
			// Someone else paid the fee (an x402 facilitator): the wallet
			// lost only what its own balances say.
			eff = eff.paidBy(v.keys[0])
			l.Effects, l.Outflow = &eff, eff.SOLOut()
		}
	}
	return l, nil
}

// BlockHeight is the node's current block height at confirmed commitment.
func (e *Executor) BlockHeight(ctx context.Context) (uint64, error) {
	h, err := e.client.rpc.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return 0, fmt.Errorf("getBlockHeight: %s", rpcErrorText(err))
	}
	return h, nil
}
