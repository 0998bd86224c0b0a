package executor

import (
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// MeasureWallet runs the effects engine on account states alone (no
// instructions), for the fuzz target's budget oracle.
func MeasureWallet(wallet solana.PublicKey, keys []solana.PublicKey, before, after []*rpc.Account) Effects {
	return measureStates(wallet, txView{}, keys, before, after, nil)
}
