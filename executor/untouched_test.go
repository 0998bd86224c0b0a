package executor

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// tokenAccount is a 165-byte SPL token account: mint, owner, amount, delegate.
func tokenAccount(mint, owner solana.PublicKey, amount uint64, delegate *solana.PublicKey) *rpc.Account {
	d := make([]byte, 165)
	copy(d[0:32], mint[:])
	copy(d[32:64], owner[:])
	binary.LittleEndian.PutUint64(d[64:72], amount)
	if delegate != nil {
		d[72] = 1
		copy(d[76:108], delegate[:])
	}
	d[108] = 1 // initialized
	return &rpc.Account{Owner: solana.TokenProgramID, Lamports: TokenAccountRent, Data: rpc.DataBytesOrJSONFromBytes(d)}
}

// With a configured swap program the wallet's other token accounts are
// watched in simulation: any loss, closure, change of owner or new delegate
// is refused before signing.
func TestUntouchedTokenAccount(t *testing.T) {
	key := solana.NewWallet().PublicKey()
	mint, wallet, thief := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	before := tokenAccount(mint, wallet, 1_000, nil)
	for name, tc := range map[string]struct {
		after *rpc.Account
		want  string
	}{
		"unchanged":       {tokenAccount(mint, wallet, 1_000, nil), ""},
		"gained":          {tokenAccount(mint, wallet, 2_000, nil), ""},
		"drained":         {tokenAccount(mint, wallet, 1, nil), "would take 999 base units"},
		"closed":          {nil, "would close"},
		"owner changed":   {tokenAccount(mint, thief, 1_000, nil), "would give"},
		"delegate set":    {tokenAccount(mint, wallet, 1_000, &thief), "would set a delegate"},
		"emptied account": {&rpc.Account{Owner: solana.SystemProgramID}, "would close"},
	} {
		err := untouchedTokenAccount(key, before, tc.after)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrUnsafeTransaction)):
			t.Errorf("%s: err = %v, want an unsafe-transaction refusal containing %q", name, err, tc.want)
		}
	}
	if err := untouchedTokenAccount(key, nil, tokenAccount(mint, wallet, 5, nil)); err != nil {
		t.Errorf("an account that did not exist before cannot lose anything: %v", err)
	}
}
