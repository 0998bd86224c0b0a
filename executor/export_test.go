package executor

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// MeasureWallet runs the effects engine on account states alone (no
// instructions), for the fuzz target's budget oracle.
func MeasureWallet(wallet solana.PublicKey, keys []solana.PublicKey, before, after []*rpc.Account) Effects {
	return measureStates(wallet, txView{}, keys, before, after, nil)
}

// PrepareX402WithExtra builds an x402 payment with extra instructions
// appended: the hostile payment no server can ask for under the exact
// scheme, which the shape and effects checks must still refuse.
func (e *Executor) PrepareX402WithExtra(ctx context.Context, p X402Payment, extra ...solana.Instruction) (*PreparedX402, error) {
	return e.prepareX402(ctx, p, extra)
}
