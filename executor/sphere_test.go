package executor

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// What the wallet controls is its own: value leaving a nonce account it is
// authority of, the token account of a multisig its signature satisfies, a
// token account it is delegate of, lamports above rent in its token
// accounts, or new supply of a mint it may mint, counts as its outflow,
// gross, per asset. The account layouts are spelled from the published
// sources (solana-program's nonce state, spl-token's Multisig and Mint),
// never from the engine's constants.

// Rent exemption as published: 890,880 lamports for an empty account and
// 6,960 per byte (3,480 per byte-year × 2 years, over 128 bytes of overhead).
func TestRentExemptAsPublished(t *testing.T) {
	for n, want := range map[int]uint64{0: 890_880, 80: 1_447_680, 165: 2_039_280, 82: 1_461_600, 355: 3_361_680} {
		if got := rentExempt(n); got != want {
			t.Errorf("rent exemption of %d bytes: %d, want %d", n, got, want)
		}
	}
}

// nonceAt is a system nonce account as published: version u32 (1 =
// current), state u32 (1 = initialized), authority, durable nonce, fee
// calculator u64 — 80 bytes.
func nonceAt(authority solana.PublicKey, lamports uint64) *rpc.Account {
	d := make([]byte, 80)
	binary.LittleEndian.PutUint32(d[0:4], 1)
	binary.LittleEndian.PutUint32(d[4:8], 1)
	copy(d[8:40], authority[:])
	binary.LittleEndian.PutUint64(d[72:80], 5000)
	return &rpc.Account{Owner: solana.MustPublicKeyFromBase58("11111111111111111111111111111111"), Lamports: lamports, Data: rpc.DataBytesOrJSONFromBytes(d)}
}

// multisigAt is an SPL Token multisig as published: m u8, n u8,
// is_initialized u8, 11 signer keys — 355 bytes.
func multisigAt(m byte, signers ...solana.PublicKey) *rpc.Account {
	d := make([]byte, 355)
	d[0], d[1], d[2] = m, byte(len(signers)), 1
	for i, s := range signers {
		copy(d[3+32*i:35+32*i], s[:])
	}
	return &rpc.Account{Owner: solana.MustPublicKeyFromBase58("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"), Lamports: 3_361_680, Data: rpc.DataBytesOrJSONFromBytes(d)}
}

// mintAt is an SPL mint as published: mint authority COption (4 + 32),
// supply u64 at 36, decimals at 44, is_initialized at 45, freeze authority.
func mintAt(authority solana.PublicKey, supply uint64) *rpc.Account {
	d := make([]byte, 82)
	d[0] = 1
	copy(d[4:36], authority[:])
	binary.LittleEndian.PutUint64(d[36:44], supply)
	d[44], d[45] = 6, 1
	return &rpc.Account{Owner: solana.MustPublicKeyFromBase58("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"), Lamports: 1_461_600, Data: rpc.DataBytesOrJSONFromBytes(d)}
}

func withLamports(a *rpc.Account, lamports uint64) *rpc.Account {
	c := *a
	c.Lamports = lamports
	return &c
}

func TestTheSphereOfControlIsTheWallets(t *testing.T) {
	wallet, thief, friend := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	mint, msig, nonceKey := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	src, dst := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	const fee = 5000
	view := func(signers ...solana.PublicKey) txView {
		return txView{keys: append([]solana.PublicKey{wallet, src, dst, msig, mint, nonceKey, thief}, signers...), signers: append([]solana.PublicKey{wallet}, signers...)}
	}

	t.Run("nonce withdrawal", func(t *testing.T) {
		// WithdrawNonceAccount of 1 SOL to the thief: the nonce account's
		// lamports above rent are the wallet's.
		keys := []solana.PublicKey{wallet, nonceKey, thief}
		before := []*rpc.Account{systemAcct(1e9), nonceAt(wallet, 1_447_680+1e9), nil}
		after := []*rpc.Account{systemAcct(1e9 - fee), nonceAt(wallet, 1_447_680), systemAcct(1e9)}
		e := measureSphere(wallet, view(), keys, before, after, nil, nil)
		if e.SOLOut() != 1e9+fee {
			t.Fatalf("SOL out %d, want %d (the withdrawal and the fee)", e.SOLOut(), uint64(1e9+fee))
		}
		if len(e.Payees) != 1 || !e.Payees[0].Address.Equals(thief) || e.Payees[0].Lamports != 1e9 || !e.Payees[0].Wallet {
			t.Fatalf("payees %+v, want the thief's wallet with 1 SOL", e.Payees)
		}
		if e.RentPaid != 0 {
			t.Fatalf("a payment to a new account counted as rent %d", e.RentPaid)
		}
		// Someone else's nonce account is not the wallet's.
		before[1] = nonceAt(friend, 1_447_680+1e9)
		after[1] = nonceAt(friend, 1_447_680)
		if e := measureSphere(wallet, view(), keys, before, after, nil, nil); e.SOLOut() != fee {
			t.Fatalf("another's nonce account: SOL out %d, want only the fee", e.SOLOut())
		}
	})

	t.Run("multisig", func(t *testing.T) {
		keys := []solana.PublicKey{wallet, src, dst}
		before := []*rpc.Account{systemAcct(1e9), tokenAccount(mint, msig, 5_000_000, nil), tokenAccount(mint, thief, 0, nil)}
		after := []*rpc.Account{systemAcct(1e9 - fee), tokenAccount(mint, msig, 0, nil), tokenAccount(mint, thief, 5_000_000, nil)}
		for name, tc := range map[string]struct {
			ms      *rpc.Account
			signers []solana.PublicKey
			want    uint64
		}{
			"1 of 1, the wallet":              {multisigAt(1, wallet), nil, 5_000_000},
			"2 of 2, the wallet and a signer": {multisigAt(2, friend, wallet), []solana.PublicKey{friend}, 5_000_000},
			"2 of 2, the other one missing":   {multisigAt(2, friend, wallet), nil, 0},
			"1 of 1, someone else":            {multisigAt(1, friend), []solana.PublicKey{friend}, 0},
		} {
			e := measureSphere(wallet, view(tc.signers...), keys, before, after, nil, map[solana.PublicKey]*rpc.Account{msig: tc.ms})
			if e.TokensOut[mint] != tc.want {
				t.Errorf("%s: %d out, want %d", name, e.TokensOut[mint], tc.want)
			}
			if tc.want > 0 && (len(e.Payees) != 1 || !e.Payees[0].Address.Equals(thief) || e.Payees[0].Tokens[mint] != tc.want) {
				t.Errorf("%s: payees %+v, want the thief with %d", name, e.Payees, tc.want)
			}
		}
	})

	t.Run("mint supply", func(t *testing.T) {
		keys := []solana.PublicKey{wallet, mint, dst}
		before := []*rpc.Account{systemAcct(1e9), mintAt(wallet, 100), nil}
		after := []*rpc.Account{systemAcct(1e9 - fee - 2_039_280), mintAt(wallet, 100+1e12), tokenAccount(mint, thief, 1e12, nil)}
		e := measureSphere(wallet, view(), keys, before, after, nil, nil)
		if e.TokensOut[mint] != 1e12 {
			t.Fatalf("minted to the thief: %d out, want 10^12", e.TokensOut[mint])
		}
		// Minted by someone else's authority: not the wallet's outflow.
		before[1], after[1] = mintAt(friend, 100), mintAt(friend, 100+1e12)
		if e := measureSphere(wallet, view(), keys, before, after, nil, nil); e.TokensOut[mint] != 0 {
			t.Fatalf("another's mint: %d out", e.TokensOut[mint])
		}
	})

	t.Run("excess lamports", func(t *testing.T) {
		// Token-2022 WithdrawExcessLamports: 0.8 SOL above rent in the
		// wallet's token account, out to the thief.
		keys := []solana.PublicKey{wallet, src, thief}
		b := withLamports(tokenAccount(mint, wallet, 7, nil), 2_039_280+800_000_000)
		a := tokenAccount(mint, wallet, 7, nil)
		e := measureSphere(wallet, view(), keys, []*rpc.Account{systemAcct(1e9), b, nil}, []*rpc.Account{systemAcct(1e9 - fee), a, systemAcct(800_000_000)}, nil, nil)
		if e.SOLOut() != 800_000_000+fee {
			t.Fatalf("SOL out %d, want %d", e.SOLOut(), 800_000_000+fee)
		}
	})

	t.Run("delegate", func(t *testing.T) {
		keys := []solana.PublicKey{wallet, src, dst}
		before := []*rpc.Account{systemAcct(1e9), tokenAccount(mint, friend, 1_000, &wallet), tokenAccount(mint, thief, 0, nil)}
		after := []*rpc.Account{systemAcct(1e9 - fee), tokenAccount(mint, friend, 400, &wallet), tokenAccount(mint, thief, 600, nil)}
		if e := measureSphere(wallet, view(), keys, before, after, nil, nil); e.TokensOut[mint] != 600 {
			t.Fatalf("spent as delegate: %d out, want 600", e.TokensOut[mint])
		}
	})

	t.Run("refunds are not netted", func(t *testing.T) {
		// Five empty token accounts closed to the wallet, and as much sent
		// on to the thief: the wallet's net is the fee, its outflow the
		// payment.
		keys := []solana.PublicKey{wallet, thief}
		var before, after []*rpc.Account
		before = append(before, systemAcct(1e9), nil)
		after = append(after, systemAcct(1e9-fee), systemAcct(5*2_039_280))
		for range 5 {
			keys = append(keys, solana.NewWallet().PublicKey())
			before = append(before, tokenAccount(mint, wallet, 0, nil))
			after = append(after, nil)
		}
		e := measureSphere(wallet, view(), keys, before, after, nil, nil)
		if e.SOLOut() != 5*2_039_280+fee || e.SOLIn() != 5*2_039_280 || e.RentRefunded != 5*2_039_280 {
			t.Fatalf("SOL out %d in %d refunded %d; want out %d, in and refunded %d", e.SOLOut(), e.SOLIn(), e.RentRefunded, 5*2_039_280+fee, 5*2_039_280)
		}
		if len(e.Payees) != 1 || !e.Payees[0].Address.Equals(thief) {
			t.Fatalf("payees %+v, want the thief", e.Payees)
		}
	})
}

// An account of a program the engine does not read whose data names the
// wallet (here a stake account of which it is withdrawer, at the published
// Meta offsets: rent reserve u64 at 4, staker at 12, withdrawer at 44) is
// shown as a change that cannot be valued, refused unless its program is
// allowed, and what leaves it counts as the wallet's.
func TestAnAccountThatNamesTheWalletCannotBeValued(t *testing.T) {
	wallet, thief := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	stakeProgram := solana.MustPublicKeyFromBase58("Stake11111111111111111111111111111111111111")
	acct := solana.NewWallet().PublicKey()
	stake := func(lamports uint64) *rpc.Account {
		d := make([]byte, 200)
		binary.LittleEndian.PutUint32(d[0:4], 1) // Initialized
		binary.LittleEndian.PutUint64(d[4:12], 2_282_880)
		copy(d[12:44], thief[:])
		copy(d[44:76], wallet[:])
		return &rpc.Account{Owner: stakeProgram, Lamports: lamports, Data: rpc.DataBytesOrJSONFromBytes(d)}
	}
	keys := []solana.PublicKey{wallet, acct, thief}
	v := txView{keys: keys, signers: []solana.PublicKey{wallet}}
	e := measureSphere(wallet, v, keys,
		[]*rpc.Account{systemAcct(1e9), stake(2_282_880 + 3e9), nil},
		[]*rpc.Account{systemAcct(1e9 - 5000), stake(2_282_880), systemAcct(3e9)}, nil, nil)
	if e.SOLOut() != 3e9+5000 {
		t.Fatalf("SOL out %d, want the 3 SOL withdrawn and the fee", e.SOLOut())
	}
	if len(e.Unvalued) != 1 || !e.Unvalued[0].Account.Equals(acct) || !e.Unvalued[0].Program.Equals(stakeProgram) {
		t.Fatalf("unvalued %+v, want the stake account", e.Unvalued)
	}
	if err := e.UnvaluedRefusal(map[solana.PublicKey]string{solana.SystemProgramID: ""}); err == nil || !strings.Contains(err.Error(), "cannot be valued") || !strings.Contains(err.Error(), "--allow-program "+stakeProgram.String()) {
		t.Fatalf("refusal %v, want one naming the program to allow", err)
	}
	if err := e.UnvaluedRefusal(map[solana.PublicKey]string{stakeProgram: "stake"}); err != nil {
		t.Fatalf("the program allowed: %v", err)
	}
	// Lamports going into it left what can be valued: an outflow.
	e = measureSphere(wallet, v, keys,
		[]*rpc.Account{systemAcct(1e9), stake(2_282_880), nil},
		[]*rpc.Account{systemAcct(1e9 - 5000 - 1e8), stake(2_282_880 + 1e8), nil}, nil, nil)
	if e.SOLOut() != 1e8+5000 {
		t.Fatalf("deposit: SOL out %d, want 0.1 SOL and the fee", e.SOLOut())
	}
}
