package executor

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Changes of control are read from account states, so they are seen however
// they were made: at the top level or by a call inside an aggregator program
// (which localnet's aggregator, a copy of the memo program, cannot make).
// Each one is refused before signing, and the refusal names it.
func TestEffectsSeeEveryChangeOfControl(t *testing.T) {
	wallet, thief, delegate := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	mint, acct := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	withToken := func(a *rpc.Account, edit func(d []byte)) *rpc.Account {
		d := append([]byte(nil), a.Data.GetBinary()...)
		edit(d)
		return &rpc.Account{Owner: a.Owner, Lamports: a.Lamports, Data: rpc.DataBytesOrJSONFromBytes(d)}
	}
	delegated := func(amount uint64) func(d []byte) {
		return func(d []byte) {
			d[72] = 1
			copy(d[76:108], delegate[:])
			binary.LittleEndian.PutUint64(d[121:129], amount)
		}
	}
	base := tokenAccount(mint, wallet, 1_000, nil)
	mintAcct := func(mintAuth, freezeAuth *solana.PublicKey) *rpc.Account {
		d := make([]byte, 82)
		if mintAuth != nil {
			d[0] = 1
			copy(d[4:36], mintAuth[:])
		}
		d[44], d[45] = 6, 1
		if freezeAuth != nil {
			d[46] = 1
			copy(d[50:82], freezeAuth[:])
		}
		return &rpc.Account{Owner: solana.TokenProgramID, Lamports: 1_461_600, Data: rpc.DataBytesOrJSONFromBytes(d)}
	}
	nonce := func(authority solana.PublicKey) *rpc.Account {
		d := make([]byte, 80)
		d[0], d[4] = 1, 1
		copy(d[8:40], authority[:])
		return &rpc.Account{Owner: solana.SystemProgramID, Lamports: 1_447_680, Data: rpc.DataBytesOrJSONFromBytes(d)}
	}
	for name, tc := range map[string]struct {
		before, after *rpc.Account
		want          string // "" no change
	}{
		"a delegate's allowance raised":   {withToken(base, delegated(10)), withToken(base, delegated(1_000)), "delegated amount changed from 10 to 1000"},
		"a new delegate":                  {base, withToken(base, delegated(5)), "delegate changed from none to " + delegate.String()},
		"frozen":                          {base, withToken(base, func(d []byte) { d[108] = 2 }), "token account frozen"},
		"thawed":                          {withToken(base, func(d []byte) { d[108] = 2 }), base, "token account thawed"},
		"given away":                      {base, tokenAccount(mint, thief, 1_000, nil), "owner changed from " + wallet.String() + " to " + thief.String()},
		"the wallet's mint authority":     {mintAcct(&wallet, nil), mintAcct(&thief, nil), "mint authority changed from " + wallet.String() + " to " + thief.String()},
		"the wallet's freeze authority":   {mintAcct(nil, &wallet), mintAcct(nil, nil), "freeze authority changed from " + wallet.String() + " to none"},
		"a nonce authority of the wallet": {nonce(wallet), nonce(thief), "an authority the wallet holds (its key at byte 8"},
		"someone else's nonce":            {nonce(thief), nonce(delegate), ""},
		"only the amount moves":           {base, tokenAccount(mint, wallet, 400, nil), ""},
	} {
		eff := measureStates(wallet, txView{}, []solana.PublicKey{wallet, acct}, []*rpc.Account{systemAcct(1e9), tc.before}, []*rpc.Account{systemAcct(1e9), tc.after}, nil)
		err := eff.Refusal()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a refusal naming %q", name, err, tc.want)
		}
	}

	// The wallet account itself reassigned to another program, with data.
	reassigned := &rpc.Account{Owner: thief, Lamports: 1e9, Data: rpc.DataBytesOrJSONFromBytes(make([]byte, 8))}
	eff := measureStates(wallet, txView{}, []solana.PublicKey{wallet}, []*rpc.Account{systemAcct(1e9)}, []*rpc.Account{reassigned}, nil)
	if err := eff.Refusal(); err == nil || !strings.Contains(err.Error(), "the wallet account reassigned to program "+thief.String()) {
		t.Errorf("the wallet reassigned: %v", err)
	}

	// A durable nonce advanced by an inner call is seen in the inner
	// instructions the simulation reports.
	v := txView{keys: []solana.PublicKey{wallet, acct, solana.SystemProgramID, thief}}
	inner := []rpc.InnerInstruction{{Index: 0, Instructions: []rpc.CompiledInstruction{{ProgramIDIndex: 2, Accounts: []uint16{1, 3}, Data: []byte{4, 0, 0, 0}}}}}
	eff = measureStates(wallet, v, []solana.PublicKey{wallet}, []*rpc.Account{systemAcct(1e9)}, []*rpc.Account{systemAcct(1e9)}, inner)
	if err := eff.Refusal(); err == nil || !strings.Contains(err.Error(), "durable nonce (AdvanceNonceAccount on "+acct.String()) {
		t.Errorf("a nonce advanced by an inner call: %v", err)
	}
	if len(eff.InnerPrograms) != 1 || !eff.InnerPrograms[0].Equals(solana.SystemProgramID) {
		t.Errorf("inner programs %v, want the system program", eff.InnerPrograms)
	}
}

// The before/after agreement around a simulation looks at what the measure
// reads: the wallet, accounts naming it, and whether each account exists. A
// pool's state written by other traders every slot does not stop a swap from
// being measured; a change to the wallet's own token account does.
func TestSimulationSnapshotIgnoresOnlyWhatIsNotMeasured(t *testing.T) {
	wallet, other, mint := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	pool := func(n byte) *rpc.Account {
		return &rpc.Account{Owner: other, Lamports: 5_000_000, Data: rpc.DataBytesOrJSONFromBytes([]byte{n, 1, 2, 3})}
	}
	before := []*rpc.Account{systemAcct(1e9), pool(1), tokenAccount(mint, wallet, 10, nil), nil}
	for name, tc := range map[string]struct {
		after []*rpc.Account
		same  bool
	}{
		"a busy pool moved":                {[]*rpc.Account{systemAcct(1e9), pool(2), tokenAccount(mint, wallet, 10, nil), nil}, true},
		"the wallet's lamports moved":      {[]*rpc.Account{systemAcct(1e9 - 1), pool(1), tokenAccount(mint, wallet, 10, nil), nil}, false},
		"the wallet's token account moved": {[]*rpc.Account{systemAcct(1e9), pool(1), tokenAccount(mint, wallet, 9, nil), nil}, false},
		"an account came into existence":   {[]*rpc.Account{systemAcct(1e9), pool(1), tokenAccount(mint, wallet, 10, nil), systemAcct(1)}, false},
	} {
		if got := sameStates(wallet, before, tc.after); got != tc.same {
			t.Errorf("%s: same = %v, want %v", name, got, tc.same)
		}
	}
}
