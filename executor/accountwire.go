package executor

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// The effects engine reads accounts from every proposal's batch: the
// watched accounts before and after, and their simulated post-state.
// Decoding them as solana-go's rpc.Account was most of the batch's JSON
// cost (a big.Int for the rent epoch, reflection for the data wrapper), and
// the engine reads only lamports, owner and data. accountList decodes just
// those, strictly: data must be base64, as the engine asks.

// accountList is a node's list of accounts (null: no such account).
type accountList []*rpc.Account

// wireAccount is an account as the engine reads it from an answer.
type wireAccount struct {
	Lamports uint64   `json:"lamports"`
	Owner    string   `json:"owner"`
	Data     []string `json:"data"` // [base64, "base64"]
}

func (l *accountList) UnmarshalJSON(b []byte) error {
	var wire []*wireAccount
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	out := make(accountList, len(wire))
	for i, w := range wire {
		if w == nil {
			continue
		}
		a, err := w.account()
		if err != nil {
			return fmt.Errorf("account %d: %w", i, err)
		}
		out[i] = a
	}
	*l = out
	return nil
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
	Context rpc.Context `json:"context"`
	Value   accountList `json:"value"`
}
