package executor

import (
	"encoding/base64"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// The effects engine reads accounts from every proposal's batch: the
// watched accounts before and after, and their simulated post-state.
// Decoding them as solana-go's rpc.Account (a big.Int for the rent epoch,
// a method for the data wrapper, so each value scanned twice) was most of
// the batch's JSON cost, and the engine reads only lamports, owner and
// data. wireAccounts decodes just those as plain fields, and accounts()
// turns them into rpc.Account strictly: data must be base64, as the engine
// asks, and anything unreadable is an error, never an empty account.

// wireAccounts is a node's list of accounts (null: no such account).
type wireAccounts []*wireAccount

// wireAccount is an account as the engine reads it from an answer.
type wireAccount struct {
	Lamports uint64   `json:"lamports"`
	Owner    string   `json:"owner"`
	Data     []string `json:"data"` // [base64, "base64"]
}

func (l wireAccounts) accounts() ([]*rpc.Account, error) {
	out := make([]*rpc.Account, len(l))
	for i, w := range l {
		if w == nil {
			continue
		}
		a, err := w.account()
		if err != nil {
			return nil, fmt.Errorf("account %d: %w", i, err)
		}
		out[i] = a
	}
	return out, nil
}

func (w *wireAccount) account() (*rpc.Account, error) {
	owner, err := solana.PublicKeyFromBase58(w.Owner)
	if err != nil {
		return nil, fmt.Errorf("owner %q: %w", w.Owner, err)
	}
	if len(w.Data) != 2 || w.Data[1] != "base64" {
		return nil, fmt.Errorf("data is not [base64, \"base64\"] (%d parts)", len(w.Data))
	}
	data, err := base64.StdEncoding.DecodeString(w.Data[0])
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	return &rpc.Account{Lamports: w.Lamports, Owner: owner, Data: rpc.DataBytesOrJSONFromBytes(data)}, nil
}

// accountsAnswer is getMultipleAccounts' answer as the engine reads it.
type accountsAnswer struct {
	Context rpc.Context  `json:"context"`
	Value   wireAccounts `json:"value"`
}
