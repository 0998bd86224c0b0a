package executor

import (
	"encoding/binary"
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
	lamports := uint64(TokenAccountRent)
	if mint.Equals(WrappedSOL) {
		d[109] = 1 // is_native: Some(rent)
		binary.LittleEndian.PutUint64(d[113:121], TokenAccountRent)
		lamports += amount
	}
	return &rpc.Account{Owner: solana.TokenProgramID, Lamports: lamports, Data: rpc.DataBytesOrJSONFromBytes(d)}
}

func withCloseAuthority(a *rpc.Account, by solana.PublicKey) *rpc.Account {
	d := append([]byte(nil), a.Data.GetBinary()...)
	d[129] = 1
	copy(d[133:165], by[:])
	return &rpc.Account{Owner: a.Owner, Lamports: a.Lamports, Data: rpc.DataBytesOrJSONFromBytes(d)}
}

func systemAcct(lamports uint64) *rpc.Account {
	return &rpc.Account{Owner: solana.SystemProgramID, Lamports: lamports, Data: rpc.DataBytesOrJSONFromBytes(nil)}
}

// The budget counts SOL and wrapped SOL together and every token of the
// wallet; no token account of the wallet may change hands, gain a delegate
// or a close authority, or close to anyone but the wallet (the effects
// engine's refusals).
func TestSwapBudget(t *testing.T) {
	wallet, thief := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	usdc, other := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	wsolTA, usdcTA, otherTA := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	keys := []solana.PublicKey{wallet, wsolTA, usdcTA, otherTA}
	const in, fee = 50_000_000, 10_000
	solIn := SwapBudget{InputMint: WrappedSOL, InAmount: in, Fee: fee}
	usdcIn := SwapBudget{InputMint: usdc, InAmount: 1_000, Fee: fee}
	before := []*rpc.Account{systemAcct(10_000_000_000), tokenAccount(WrappedSOL, wallet, in, nil), tokenAccount(usdc, wallet, 5_000, nil), tokenAccount(other, wallet, 777, nil)}
	noWSOL := []*rpc.Account{systemAcct(10_000_000_000), nil, nil, tokenAccount(other, wallet, 777, nil)}
	for name, tc := range map[string]struct {
		budget        SwapBudget
		before, after []*rpc.Account
		want          string // "" accepted
		// closed is keys[closed] closed to closeTo by a CloseAccount the
		// message holds (0: none).
		closed  int
		closeTo solana.PublicKey
	}{
		"honest SOL in, WSOL opened and closed by the swap, USDC account created": {solIn, noWSOL,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee - TokenAccountRent), nil, tokenAccount(usdc, wallet, 7_000, nil), tokenAccount(other, wallet, 777, nil)}, "", 0, solana.PublicKey{}},
		"SOL in and the wallet's WSOL drained too": {solIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee), tokenAccount(WrappedSOL, wallet, 0, nil), tokenAccount(usdc, wallet, 7_000, nil), tokenAccount(other, wallet, 777, nil)},
			"more than the 50010000 allowed", 0, solana.PublicKey{}},
		"pre-existing WSOL closed back to the wallet": {solIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 + TokenAccountRent - fee), nil, tokenAccount(usdc, wallet, 7_000, nil), tokenAccount(other, wallet, 777, nil)}, "", 1, wallet},
		"pre-existing WSOL closed to the thief": {solIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee), nil, tokenAccount(usdc, wallet, 7_000, nil), tokenAccount(other, wallet, 777, nil)},
			"and send its 52039280 lamports to " + thief.String() + ", not to the wallet", 1, thief},
		"another token account drained": {solIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee), before[1], tokenAccount(usdc, wallet, 7_000, nil), tokenAccount(other, wallet, 1, nil)},
			"776 base units of " + other.String() + " left the wallet, 776 more than the 0 allowed", 0, solana.PublicKey{}},
		"input token over the approved amount": {usdcIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 + 3_000), before[1], tokenAccount(usdc, wallet, 3_999, nil), before[3]},
			"1001 base units of " + usdc.String() + " left the wallet, 1 more than the 1000 allowed", 0, solana.PublicKey{}},
		"input token within the approved amount": {usdcIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 + 3_000), before[1], tokenAccount(usdc, wallet, 4_000, nil), before[3]}, "", 0, solana.PublicKey{}},
		"a token account closed": {solIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee + TokenAccountRent), before[1], before[2], nil}, "would close " + otherTA.String() + " and send its", 3, thief},
		"an empty token account closed to the wallet": {solIn, []*rpc.Account{before[0], before[1], before[2], tokenAccount(other, wallet, 0, nil)},
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee + TokenAccountRent), before[1], before[2], nil}, "", 3, wallet},
		"a token account given away": {solIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee), before[1], before[2], tokenAccount(other, thief, 777, nil)}, "token account owner changed from " + wallet.String() + " to " + thief.String() + " on " + otherTA.String(), 0, solana.PublicKey{}},
		"a delegate set": {solIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee), before[1], before[2], tokenAccount(other, wallet, 777, &thief)}, "token account delegate changed from none to " + thief.String(), 0, solana.PublicKey{}},
		"a close authority set": {solIn, before,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee), before[1], before[2], withCloseAuthority(before[3], thief)}, "token account close authority changed from none to " + thief.String(), 0, solana.PublicKey{}},
		"fee above the budget": {solIn, noWSOL,
			[]*rpc.Account{systemAcct(10_000_000_000 - in - fee - 1), nil, nil, before[3]}, "more than the 50010000 allowed", 0, solana.PublicKey{}},
	} {
		v := txView{keys: keys}
		if tc.closed > 0 {
			v.keys = append(append([]solana.PublicKey{}, keys...), solana.TokenProgramID, tc.closeTo)
			v.ixs = []viewIx{{program: len(keys), accounts: []int{tc.closed, len(keys) + 1}, data: []byte{9}}}
		}
		eff := measureStates(wallet, v, keys, tc.before, tc.after, nil)
		b := tc.budget
		b.Rent = eff.RentPaid // as PrepareSwap sets it: rent of the accounts opened for the wallet
		err := b.Check(eff)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want one containing %q", name, err, tc.want)
		}
	}
}
