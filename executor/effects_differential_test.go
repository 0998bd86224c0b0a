package executor_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
)

// The differential test of the effects engine against the chain: random
// transactions from localnet's building blocks (SOL and token transfers,
// wraps and unwraps, associated token account creation, closes, approvals,
// freezes and thaws; and what the wallet controls without owning it: nonce
// accounts it is authority of (created, authorised away, withdrawn from), a
// 1-of-1 multisig's token account, a mint it is mint authority of (minted,
// burnt, its authority set away), lamports above rent in its Token-2022
// account (withdrawn as excess), a holder's tokens of a mint whose permanent
// delegate it is, a transfer-fee mint (transfer checked with fee), mints it
// may close (to itself or someone), a mint whose new accounts open frozen (opened, thawed, closed),
// lookup tables (created, extended, deactivated, closed with the refund to
// the wallet)). For each, the effects predicted from the simulation
// before sending must equal, to the lamport and the base unit, both the
// landed transaction's effects (from its own meta) and the ledger's actual
// change, which the test reads and parses itself. Every approval and freeze
// the ledger shows must be among the predicted changes.
//
// SOLGATE_EFFECTS_DIFF=N runs N transactions (make fuzz runs 1000);
// SOLGATE_EFFECTS_SEED fixes the seed.

// Published program ids, spelled out (never the product's constants).
var (
	diffToken2022    = solana.MustPublicKeyFromBase58("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
	diffALTProgram   = solana.MustPublicKeyFromBase58("AddressLookupTab1e1111111111111111111111111")
	diffSystem       = solana.MustPublicKeyFromBase58("11111111111111111111111111111111")
	diffTokenProgram = solana.MustPublicKeyFromBase58("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
	diffATAProgram   = solana.MustPublicKeyFromBase58("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
	diffNativeMint   = solana.MustPublicKeyFromBase58("So11111111111111111111111111111111111111112")
)

func diffATA(t *testing.T, owner, mint solana.PublicKey) solana.PublicKey {
	t.Helper()
	a, _, err := solana.FindProgramAddress([][]byte{owner[:], diffTokenProgram[:], mint[:]}, diffATAProgram)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func tokenIx(data []byte, accounts ...*solana.AccountMeta) solana.Instruction {
	return solana.NewInstruction(diffTokenProgram, accounts, data)
}

func token2022Ix(data []byte, accounts ...*solana.AccountMeta) solana.Instruction {
	return solana.NewInstruction(diffToken2022, accounts, data)
}

func diffATA2022(t *testing.T, owner, mint solana.PublicKey) solana.PublicKey {
	t.Helper()
	a, _, err := solana.FindProgramAddress([][]byte{owner[:], diffToken2022[:], mint[:]}, diffATAProgram)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func createATA2022(payer, ata, owner, mint solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(diffATAProgram, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(), solana.Meta(ata).WRITE(), solana.Meta(owner), solana.Meta(mint),
		solana.Meta(diffSystem), solana.Meta(diffToken2022),
	}, []byte{1}) // CreateIdempotent
}

// diffRent is the rent-exempt minimum of n bytes of data: (n + 128) × 3480 × 2.
func diffRent(n int) uint64 { return uint64(n+128) * 3480 * 2 }

func altIx(tag uint32, payload []byte, accounts ...*solana.AccountMeta) solana.Instruction {
	return solana.NewInstruction(diffALTProgram, accounts, append(binary.LittleEndian.AppendUint32(nil, tag), payload...))
}

func u64(tag byte, n uint64, extra ...byte) []byte {
	d := []byte{tag}
	d = binary.LittleEndian.AppendUint64(d, n)
	return append(d, extra...)
}

func createATA(payer, ata, owner, mint solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(diffATAProgram, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(), solana.Meta(ata).WRITE(), solana.Meta(owner), solana.Meta(mint),
		solana.Meta(solana.MustPublicKeyFromBase58("11111111111111111111111111111111")), solana.Meta(diffTokenProgram),
	}, []byte{1}) // CreateIdempotent
}

// ledgerView is the wallet as the ledger shows it, parsed by the test.
type ledgerView struct {
	sol      uint64                      // lamports + wrapped-SOL accounts' lamports + the nonce account's above its rent
	lamports uint64                      // the wallet's own lamports
	tokens   map[solana.PublicKey]uint64 // the wallet's and the multisig's, per mint
	// outside is what the other wallet holds, per mint; supply the
	// controlled mint's supply.
	outside map[solana.PublicKey]uint64
	supply  uint64
	// otherLamports are the other wallet's own lamports.
	otherLamports uint64
	// control maps each token account of the wallet to its delegate,
	// delegated amount and state bytes (and each nonce account the test
	// created to its authority, each mint of authMints to its authority);
	// frozen are the wallet's frozen token accounts.
	control map[solana.PublicKey]string
	frozen  map[solana.PublicKey]bool
}

// controlled is what the wallet controls in the differential test, besides
// what it owns: nonce accounts (nonces, those the test created), a
// multisig, a mint (and mints whose authority the test may set away:
// authMints), the holder of a mint whose permanent delegate it is.
type controlled struct {
	nonce, multisig, mint, other, holder solana.PublicKey
	nonces, authMints                    []solana.PublicKey
}

// Rent-exempt minimum of an 80-byte nonce account: (80 + 128) × 3480 × 2.
const diffNonceRent = 1_447_680

func (f *ledgerFixture) view(t *testing.T, c controlled) ledgerView {
	t.Helper()
	w := f.key.PublicKey()
	v := ledgerView{sol: f.balance(t, w), tokens: map[solana.PublicKey]uint64{}, outside: map[solana.PublicKey]uint64{}, control: map[solana.PublicKey]string{}, frozen: map[solana.PublicKey]bool{}}
	v.lamports = v.sol
	v.otherLamports = f.balance(t, c.other)
	if n := f.balance(t, c.nonce); n > diffNonceRent {
		v.sol += n - diffNonceRent
	}
	read := func(k solana.PublicKey) *rpc.Account {
		res, err := f.chain.GetAccountInfoWithOpts(context.Background(), k, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			return nil // not found: closed or never created
		}
		return res.Value
	}
	// The nonce accounts the test created: the wallet's while it is their
	// authority (bytes 8..40 of the 80-byte nonce state).
	for _, k := range c.nonces {
		if a := read(k); a != nil {
			d := a.Data.GetBinary()
			v.control[k] = fmt.Sprintf("nonce authority %x", d[8:40])
			if solana.PublicKeyFromBytes(d[8:40]).Equals(w) && a.Lamports > diffNonceRent {
				v.sol += a.Lamports - diffNonceRent
			}
		}
	}
	for _, k := range c.authMints {
		if a := read(k); a != nil {
			v.control[k] = fmt.Sprintf("mint authority %x", a.Data.GetBinary()[0:36])
		}
	}
	accounts := func(owner solana.PublicKey) []*rpc.TokenAccount {
		var out []*rpc.TokenAccount
		for _, prog := range []solana.PublicKey{diffTokenProgram, diffToken2022} {
			res, err := f.chain.GetTokenAccountsByOwner(context.Background(), owner, &rpc.GetTokenAccountsConfig{ProgramId: &prog},
				&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res.Value...)
		}
		return out
	}
	// The holder's tokens of the mint whose permanent delegate the wallet is
	// are the wallet's to move: counted with its own.
	for _, a := range accounts(c.holder) {
		d := a.Account.Data.GetBinary()
		v.tokens[solana.PublicKeyFromBytes(d[0:32])] += binary.LittleEndian.Uint64(d[64:72])
	}
	for _, a := range accounts(c.multisig) {
		d := a.Account.Data.GetBinary()
		v.tokens[solana.PublicKeyFromBytes(d[0:32])] += binary.LittleEndian.Uint64(d[64:72])
	}
	for _, a := range accounts(c.other) {
		d := a.Account.Data.GetBinary()
		v.outside[solana.PublicKeyFromBytes(d[0:32])] += binary.LittleEndian.Uint64(d[64:72])
	}
	mint, err := f.chain.GetAccountInfoWithOpts(context.Background(), c.mint, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	v.supply = binary.LittleEndian.Uint64(mint.Value.Data.GetBinary()[36:44]) // supply: u64 after the 36-byte COption mint authority
	for _, a := range accounts(w) {
		d := a.Account.Data.GetBinary()
		mint := solana.PublicKeyFromBytes(d[0:32])
		if mint.Equals(diffNativeMint) {
			v.sol += a.Account.Lamports
		} else {
			v.tokens[mint] += binary.LittleEndian.Uint64(d[64:72])
			// Lamports above its rent are the wallet's too (Token-2022's
			// WithdrawExcessLamports moves them).
			if r := diffRent(len(d)); a.Account.Lamports > r {
				v.sol += a.Account.Lamports - r
			}
		}
		// delegate (COption<Pubkey>), state, delegated amount
		v.control[a.Pubkey] = fmt.Sprintf("%x/%d/%d", d[72:108], d[108], binary.LittleEndian.Uint64(d[121:129]))
		if d[108] == 2 {
			v.frozen[a.Pubkey] = true
		}
	}
	return v
}

func diffCount(t *testing.T) int {
	if s := os.Getenv("SOLGATE_EFFECTS_DIFF"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("SOLGATE_EFFECTS_DIFF=%q: want a positive count", s)
		}
		return n
	}
	return 16
}

func TestEffectsMatchTheLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, 1_000*solana.LAMPORTS_PER_SOL, executor.Options{})
	w := f.key.PublicKey()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SOLGATE_EFFECTS_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (SOLGATE_EFFECTS_SEED reproduces it)", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))

	// Mint A: the wallet holds it. Mint F: the wallet is its freeze
	// authority. Mint B: empty accounts to open and close.
	mintA, err := f.ledger.CreateMint(ctx, 6, "")
	if err != nil {
		t.Fatal(err)
	}
	mintF, err := f.ledger.CreateFreezableMint(ctx, 0, "", w.String())
	if err != nil {
		t.Fatal(err)
	}
	mintB, err := f.ledger.CreateMint(ctx, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	other := freshAddress(t)
	if err := f.ledger.Fund(ctx, other.String(), solana.LAMPORTS_PER_SOL); err != nil {
		t.Fatal(err)
	}
	f.mintTo(t, mintA, w, 1_000_000_000)
	f.mintTo(t, mintF, w, 1_000_000)
	f.mintTo(t, mintA, other, 1)
	f.mintTo(t, diffNativeMint.String(), w, 5*solana.LAMPORTS_PER_SOL)
	f.mintTo(t, diffNativeMint.String(), other, 1)
	A, F, B := solana.MustPublicKeyFromBase58(mintA), solana.MustPublicKeyFromBase58(mintF), solana.MustPublicKeyFromBase58(mintB)
	wA, wF, wB, wW := diffATA(t, w, A), diffATA(t, w, F), diffATA(t, w, B), diffATA(t, w, diffNativeMint)
	oA, oW := diffATA(t, other, A), diffATA(t, other, diffNativeMint)
	delegate := freshAddress(t)

	// What the wallet controls without owning it, set up by localnet's
	// @solana/kit builders (their own transactions are not sent): a nonce
	// account of which it is authority, holding 1 SOL above rent; a 1-of-1
	// multisig of which it is the signer, holding tokens of mint S; mint M,
	// of which it is mint authority.
	outside := func(kind string, o localnet.OutsideOptions) localnet.Outside {
		out, err := f.ledger.BuildOutside(ctx, kind, w.String(), o)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	nonceAcct := solana.MustPublicKeyFromBase58(outside("nonce-withdraw", localnet.OutsideOptions{Lamports: solana.LAMPORTS_PER_SOL}).Accounts["nonceAccount"])
	ms := outside("multisig-transfer", localnet.OutsideOptions{Amount: 1_000_000_000})
	S, msig, msA := solana.MustPublicKeyFromBase58(ms.Accounts["mint"]), solana.MustPublicKeyFromBase58(ms.Accounts["multisig"]), solana.MustPublicKeyFromBase58(ms.Accounts["source"])
	M := solana.MustPublicKeyFromBase58(outside("mint-to", localnet.OutsideOptions{Amount: 1}).Accounts["mint"])
	f.mintTo(t, S.String(), other, 1)
	f.mintTo(t, M.String(), other, 1)
	f.mintTo(t, M.String(), w, 1_000_000)
	oS, oM, wM := diffATA(t, other, S), diffATA(t, other, M), diffATA(t, w, M)
	ctl := controlled{nonce: nonceAcct, multisig: msig, mint: M, other: other, holder: freshAddress(t)}

	// Token-2022 mints: T charges a 1% transfer fee (at most 5,000 base
	// units); P's permanent delegate is the wallet (holder holds it); D's
	// new accounts open frozen (the wallet is its freeze authority); the
	// closable ones' close authority is the wallet. And SPL mints whose
	// mint authority the wallet may set away.
	mint2022 := func(m localnet.Mint2022) solana.PublicKey {
		k, err := f.ledger.CreateMint2022(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return solana.MustPublicKeyFromBase58(k)
	}
	T := mint2022(localnet.Mint2022{Decimals: 6, TransferFee: true, TransferFeeBps: 100, TransferFeeMax: 5_000})
	P := mint2022(localnet.Mint2022{PermanentDelegate: w.String()})
	D := mint2022(localnet.Mint2022{FreezeAuthority: w.String(), DefaultFrozen: true})
	var closable []solana.PublicKey
	for range 16 {
		closable = append(closable, mint2022(localnet.Mint2022{CloseAuthority: w.String()}))
	}
	for range 4 {
		m, err := f.ledger.CreateMint(ctx, 0, w.String())
		if err != nil {
			t.Fatal(err)
		}
		ctl.authMints = append(ctl.authMints, solana.MustPublicKeyFromBase58(m))
	}
	f.mintTo(t, T.String(), w, 1_000_000_000)
	f.mintTo(t, T.String(), other, 1)
	f.mintTo(t, P.String(), ctl.holder, 1_000_000_000)
	f.mintTo(t, P.String(), other, 1)
	f.mintTo(t, P.String(), w, 0)
	wT, oT := diffATA2022(t, w, T), diffATA2022(t, other, T)
	hP, oP, wP, wD := diffATA2022(t, ctl.holder, P), diffATA2022(t, other, P), diffATA2022(t, w, P), diffATA2022(t, w, D)
	recentBlockhashes := solana.MustPublicKeyFromBase58("SysvarRecentB1ockHashes11111111111111111111")
	rentSysvar := solana.MustPublicKeyFromBase58("SysvarRent111111111111111111111111111111111")

	// What a block changes in the test's own records, applied once its
	// transaction lands (dropped when it does not).
	var pending []func()
	var liveNonces []solana.PublicKey // created, the wallet still their authority
	nonceSeq, closed := 0, 0
	authSet := map[solana.PublicKey]bool{}
	type table struct {
		key   solana.PublicKey
		state int // 0 active, 1 deactivated, 2 closed
	}
	var tables []*table
	pickTable := func(state int) *table {
		var c []*table
		for _, tb := range tables {
			if tb.state == state {
				c = append(c, tb)
			}
		}
		if len(c) == 0 {
			return nil
		}
		return c[rng.IntN(len(c))]
	}
	altAccounts := func(tb solana.PublicKey) []*solana.AccountMeta {
		return []*solana.AccountMeta{solana.Meta(tb).WRITE(), solana.Meta(w).SIGNER(), solana.Meta(w).WRITE().SIGNER(), solana.Meta(diffSystem)}
	}

	type block struct {
		name string
		ixs  func() []solana.Instruction
	}
	blocks := []block{
		{"transfer SOL", func() []solana.Instruction {
			return []solana.Instruction{system.NewTransferInstruction(1+rng.Uint64N(5_000_000), w, other).Build()}
		}},
		{"transfer token", func() []solana.Instruction {
			return []solana.Instruction{tokenIx(u64(12, 1+rng.Uint64N(1_000), 6), solana.Meta(wA).WRITE(), solana.Meta(A), solana.Meta(oA).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"transfer wrapped SOL", func() []solana.Instruction {
			return []solana.Instruction{tokenIx(u64(12, 1+rng.Uint64N(1_000_000), 9), solana.Meta(wW).WRITE(), solana.Meta(diffNativeMint), solana.Meta(oW).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"wrap", func() []solana.Instruction {
			return []solana.Instruction{
				createATA(w, wW, w, diffNativeMint),
				system.NewTransferInstruction(1+rng.Uint64N(10_000_000), w, wW).Build(),
				tokenIx([]byte{17}, solana.Meta(wW).WRITE()), // SyncNative
			}
		}},
		{"unwrap", func() []solana.Instruction {
			return []solana.Instruction{tokenIx([]byte{9}, solana.Meta(wW).WRITE(), solana.Meta(w).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"open an account for someone", func() []solana.Instruction {
			o := freshAddress(t)
			return []solana.Instruction{createATA(w, diffATA(t, o, A), o, A)}
		}},
		{"open an empty account", func() []solana.Instruction { return []solana.Instruction{createATA(w, wB, w, B)} }},
		{"close an empty account", func() []solana.Instruction {
			return []solana.Instruction{tokenIx([]byte{9}, solana.Meta(wB).WRITE(), solana.Meta(w).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"approve", func() []solana.Instruction {
			return []solana.Instruction{tokenIx(u64(4, rng.Uint64N(1_000_000)), solana.Meta(wA).WRITE(), solana.Meta(delegate), solana.Meta(w).SIGNER())}
		}},
		{"revoke", func() []solana.Instruction {
			return []solana.Instruction{tokenIx([]byte{5}, solana.Meta(wA).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"freeze", func() []solana.Instruction {
			return []solana.Instruction{tokenIx([]byte{10}, solana.Meta(wF).WRITE(), solana.Meta(F), solana.Meta(w).SIGNER())}
		}},
		{"thaw", func() []solana.Instruction {
			return []solana.Instruction{tokenIx([]byte{11}, solana.Meta(wF).WRITE(), solana.Meta(F), solana.Meta(w).SIGNER())}
		}},
		{"withdraw from the nonce account", func() []solana.Instruction {
			return []solana.Instruction{system.NewWithdrawNonceAccountInstruction(1+rng.Uint64N(5_000_000), nonceAcct, other,
				solana.MustPublicKeyFromBase58("SysvarRecentB1ockHashes11111111111111111111"), solana.MustPublicKeyFromBase58("SysvarRent111111111111111111111111111111111"), w).Build()}
		}},
		{"fund the nonce account", func() []solana.Instruction {
			return []solana.Instruction{system.NewTransferInstruction(1+rng.Uint64N(5_000_000), w, nonceAcct).Build()}
		}},
		{"multisig transfer", func() []solana.Instruction {
			return []solana.Instruction{tokenIx(u64(12, 1+rng.Uint64N(1_000), 9), solana.Meta(msA).WRITE(), solana.Meta(S), solana.Meta(oS).WRITE(), solana.Meta(msig), solana.Meta(w).SIGNER())}
		}},
		{"mint to someone", func() []solana.Instruction {
			return []solana.Instruction{tokenIx(u64(7, 1+rng.Uint64N(1_000)), solana.Meta(M).WRITE(), solana.Meta(oM).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"mint to the wallet", func() []solana.Instruction {
			return []solana.Instruction{tokenIx(u64(7, 1+rng.Uint64N(1_000)), solana.Meta(M).WRITE(), solana.Meta(wM).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"burn", func() []solana.Instruction {
			return []solana.Instruction{tokenIx(u64(8, 1+rng.Uint64N(1_000)), solana.Meta(wM).WRITE(), solana.Meta(M).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"create a nonce account", func() []solana.Instruction {
			nonceSeq++
			seed := fmt.Sprintf("diff-nonce-%d", nonceSeq)
			k, err := solana.CreateWithSeed(w, seed, diffSystem)
			if err != nil {
				t.Fatal(err)
			}
			pending = append(pending, func() { ctl.nonces, liveNonces = append(ctl.nonces, k), append(liveNonces, k) })
			return []solana.Instruction{
				system.NewCreateAccountWithSeedInstruction(w, seed, diffNonceRent+rng.Uint64N(5_000_000), 80, diffSystem, w, k, w).Build(),
				system.NewInitializeNonceAccountInstruction(w, k, recentBlockhashes, rentSysvar).Build(),
			}
		}},
		{"authorize a nonce account to someone", func() []solana.Instruction {
			if len(liveNonces) == 0 {
				return nil
			}
			i := rng.IntN(len(liveNonces))
			k := liveNonces[i]
			pending = append(pending, func() { liveNonces = append(liveNonces[:i:i], liveNonces[i+1:]...) })
			return []solana.Instruction{system.NewAuthorizeNonceAccountInstruction(other, k, w).Build()}
		}},
		{"set a mint's authority away", func() []solana.Instruction {
			var free []solana.PublicKey
			for _, m := range ctl.authMints {
				if !authSet[m] {
					free = append(free, m)
				}
			}
			if len(free) == 0 {
				return nil
			}
			m := free[rng.IntN(len(free))]
			pending = append(pending, func() { authSet[m] = true })
			// SetAuthority: type 0 (mint tokens), COption<Pubkey> as 1 + 32 bytes.
			return []solana.Instruction{tokenIx(append([]byte{6, 0, 1}, other[:]...), solana.Meta(m).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"fund the Token-2022 account", func() []solana.Instruction {
			return []solana.Instruction{system.NewTransferInstruction(1+rng.Uint64N(5_000_000), w, wT).Build()}
		}},
		{"withdraw excess lamports from the Token-2022 account", func() []solana.Instruction {
			return []solana.Instruction{token2022Ix([]byte{38}, solana.Meta(wT).WRITE(), solana.Meta(other).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"transfer with the transfer fee", func() []solana.Instruction {
			amount := 1 + rng.Uint64N(1_000_000)
			fee := min(5_000, (amount*100+9_999)/10_000) // 1%, rounded up, at most the maximum
			// TransferFeeExtension (26), TransferCheckedWithFee (1): amount, decimals, fee.
			data := binary.LittleEndian.AppendUint64([]byte{26, 1}, amount)
			data = binary.LittleEndian.AppendUint64(append(data, 6), fee)
			return []solana.Instruction{token2022Ix(data, solana.Meta(wT).WRITE(), solana.Meta(T), solana.Meta(oT).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"transfer a transfer-fee token", func() []solana.Instruction {
			return []solana.Instruction{token2022Ix(u64(12, 1+rng.Uint64N(1_000_000), 6), solana.Meta(wT).WRITE(), solana.Meta(T), solana.Meta(oT).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"permanent delegate moves a holder's tokens away", func() []solana.Instruction {
			return []solana.Instruction{token2022Ix(u64(12, 1+rng.Uint64N(1_000), 0), solana.Meta(hP).WRITE(), solana.Meta(P), solana.Meta(oP).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"permanent delegate moves a holder's tokens to the wallet", func() []solana.Instruction {
			return []solana.Instruction{token2022Ix(u64(12, 1+rng.Uint64N(1_000), 0), solana.Meta(hP).WRITE(), solana.Meta(P), solana.Meta(wP).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"close a mint", func() []solana.Instruction {
			// Each mint is taken once, landed or not (a failed
			// combination may leave one unclosed: never reused).
			if closed >= len(closable) {
				return nil
			}
			closed++
			return []solana.Instruction{token2022Ix([]byte{9}, solana.Meta(closable[closed-1]).WRITE(), solana.Meta(w).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"close a mint to someone", func() []solana.Instruction {
			// Each mint is taken once, landed or not (a failed
			// combination may leave one unclosed: never reused).
			if closed >= len(closable) {
				return nil
			}
			closed++
			return []solana.Instruction{token2022Ix([]byte{9}, solana.Meta(closable[closed-1]).WRITE(), solana.Meta(other).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"open a default-frozen account", func() []solana.Instruction { return []solana.Instruction{createATA2022(w, wD, w, D)} }},
		{"thaw the default-frozen account", func() []solana.Instruction {
			return []solana.Instruction{token2022Ix([]byte{11}, solana.Meta(wD).WRITE(), solana.Meta(D), solana.Meta(w).SIGNER())}
		}},
		{"close the default-frozen account", func() []solana.Instruction {
			return []solana.Instruction{token2022Ix([]byte{9}, solana.Meta(wD).WRITE(), solana.Meta(w).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"create a lookup table", func() []solana.Instruction {
			// recent_slot must be in the SlotHashes sysvar: the slot before
			// the current one is.
			slot, err := f.chain.GetSlot(ctx, rpc.CommitmentConfirmed)
			if err != nil {
				t.Fatal(err)
			}
			recent := binary.LittleEndian.AppendUint64(nil, slot-1)
			k, bump, err := solana.FindProgramAddress([][]byte{w[:], recent}, diffALTProgram)
			if err != nil {
				t.Fatal(err)
			}
			pending = append(pending, func() { tables = append(tables, &table{key: k}) })
			return []solana.Instruction{altIx(0, append(recent, bump), altAccounts(k)...)}
		}},
		{"extend a lookup table", func() []solana.Instruction {
			tb := pickTable(0)
			if tb == nil {
				return nil
			}
			n := 1 + rng.IntN(3)
			payload := binary.LittleEndian.AppendUint64(nil, uint64(n))
			for range n {
				k := freshAddress(t)
				payload = append(payload, k[:]...)
			}
			return []solana.Instruction{altIx(2, payload, altAccounts(tb.key)...)}
		}},
		{"deactivate a lookup table", func() []solana.Instruction {
			tb := pickTable(0)
			if tb == nil {
				return nil
			}
			pending = append(pending, func() { tb.state = 1 })
			return []solana.Instruction{altIx(3, nil, solana.Meta(tb.key).WRITE(), solana.Meta(w).SIGNER())}
		}},
		{"close a lookup table", func() []solana.Instruction {
			tb := pickTable(1)
			if tb == nil {
				return nil
			}
			// Closable once its deactivation slot has left SlotHashes
			// (512 entries): the ledger produces the slots.
			if err := f.ledger.AdvanceSlots(ctx, 513); err != nil {
				t.Fatal(err)
			}
			pending = append(pending, func() { tb.state = 2 })
			return []solana.Instruction{altIx(4, nil, solana.Meta(tb.key).WRITE(), solana.Meta(w).SIGNER(), solana.Meta(w).WRITE())}
		}},
	}

	// A fixed start, so even a short run lands every block at least once
	// (several to a transaction): a delegate set and its allowance moved,
	// a freeze and a thaw, wrapped SOL wrapped, sent and unwrapped, and
	// each thing the wallet controls moved.
	script := [][]string{
		{"approve"},
		{"approve", "freeze"},
		{"thaw", "wrap", "transfer wrapped SOL"},
		{"unwrap", "withdraw from the nonce account", "fund the nonce account"},
		{"wrap", "multisig transfer", "mint to someone", "mint to the wallet", "burn"},
		{"create a nonce account", "fund the Token-2022 account", "set a mint's authority away", "open a default-frozen account"},
		{"authorize a nonce account to someone", "withdraw excess lamports from the Token-2022 account", "transfer with the transfer fee", "thaw the default-frozen account"},
		{"permanent delegate moves a holder's tokens away", "permanent delegate moves a holder's tokens to the wallet", "close a mint", "close a mint to someone", "transfer a transfer-fee token", "create a lookup table"},
		{"extend a lookup table", "deactivate a lookup table", "close the default-frozen account", "transfer SOL", "transfer token"},
		{"close a lookup table", "open an account for someone", "open an empty account"},
		{"close an empty account", "revoke", "transfer SOL"},
	}
	n := diffCount(t)
	landed, refusedBySim, withChanges, withWSOL := 0, 0, 0, 0
	seenBlocks := map[string]bool{}
	for i := 0; landed < n; i++ {
		if i > 20*n {
			t.Fatalf("only %d of %d transactions simulated cleanly in %d tries", landed, n, i)
		}
		var ixs []solana.Instruction
		var names []string
		pending = nil
		if i < len(script) {
			for _, name := range script[i] {
				for _, b := range blocks {
					if b.name == name {
						ixs, names = append(ixs, b.ixs()...), append(names, b.name)
					}
				}
			}
			if len(names) != len(script[i]) {
				t.Fatalf("scripted tx %d names a block that does not exist: %v", i, script[i])
			}
		} else {
			for range 1 + rng.IntN(3) {
				b := blocks[rng.IntN(len(blocks))]
				ixs = append(ixs, b.ixs()...)
				names = append(names, b.name)
			}
		}
		if len(ixs) == 0 {
			continue // the blocks had nothing left to act on
		}
		bh, err := f.chain.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := solana.NewTransaction(ixs, bh.Value.Blockhash, solana.TransactionPayer(w))
		if err != nil {
			t.Fatal(err)
		}
		predicted, err := f.ex.MeasureEffects(ctx, tx, 0)
		if err != nil && i < len(script) {
			t.Fatalf("scripted tx %d %v: %v", i, names, err)
		}
		if err != nil {
			refusedBySim++ // an invalid combination (closing a non-empty account, ...)
			continue
		}
		before := f.view(t, ctl)
		res, err := f.ex.SubmitMeasured(ctx, tx, predicted, bh.Value.LastValidBlockHeight, executor.Limits{SOLOut: ^uint64(0), TokensOut: map[solana.PublicKey]uint64{A: ^uint64(0), B: ^uint64(0), F: ^uint64(0), S: ^uint64(0), M: ^uint64(0), T: ^uint64(0), P: ^uint64(0), D: ^uint64(0)}}, nil, nil)
		if err != nil {
			t.Fatalf("tx %d %v: not sent: %v", i, names, err)
		}
		if res.Effects == nil || (res.Outcome != executor.Executed && res.Outcome != executor.ExecutedWithUnexpectedEffects) {
			t.Fatalf("tx %d %v: %s: %s", i, names, res.Outcome, res.Reason)
		}
		if res.ChainErr != nil {
			t.Fatalf("tx %d %v: simulated cleanly, then failed on chain: %v", i, names, res.ChainErr)
		}
		for _, apply := range pending {
			apply()
		}
		for _, name := range names {
			seenBlocks[name] = true
		}
		after := f.view(t, ctl)
		landed++
		got := *res.Effects
		where := fmt.Sprintf("tx %d %v (seed %d)", i, names, seed)

		// Predicted against the landed transaction's own meta.
		if predicted.SOLOut() != got.SOLOut() || predicted.SOLIn() != got.SOLIn() {
			t.Fatalf("%s: SOL out/in predicted %d/%d, landed %d/%d", where, predicted.SOLOut(), predicted.SOLIn(), got.SOLOut(), got.SOLIn())
		}
		if predicted.Fee() != got.Fee() || predicted.RentPaid != got.RentPaid || predicted.RentRefunded != got.RentRefunded {
			t.Fatalf("%s: fee/rent paid/refunded predicted %d/%d/%d, landed %d/%d/%d", where, predicted.Fee(), predicted.RentPaid, predicted.RentRefunded, got.Fee(), got.RentPaid, got.RentRefunded)
		}
		if !sameMints(predicted.TokensOut, got.TokensOut) || !sameMints(predicted.TokensIn, got.TokensIn) {
			t.Fatalf("%s: tokens out/in predicted %v/%v, landed %v/%v", where, predicted.TokensOut, predicted.TokensIn, got.TokensOut, got.TokensIn)
		}
		if keyList(predicted.Created) != keyList(got.Created) || len(predicted.Closed) != len(got.Closed) {
			t.Fatalf("%s: created/closed predicted %v/%v, landed %v/%v", where, predicted.Created, predicted.Closed, got.Created, got.Closed)
		}
		// Gross, not net: whatever the other wallet gained came out of the
		// wallet's sphere (a transfer, a nonce withdrawal, lamports above
		// rent, a closed mint's rent), so SOL out beyond the fee covers it
		// however much came back in the same transaction (refunds).
		if gained, out := after.otherLamports-before.otherLamports, predicted.SOLOut()-min(predicted.SOLOut(), predicted.Fee()); gained > out {
			t.Fatalf("%s: the other wallet gained %d lamports from the wallet's sphere; predicted SOL out beyond the fee %d", where, gained, out)
		}
		// Every block closes to the wallet (token accounts, lookup tables,
		// mints) or to the other wallet (a mint): the engine must know
		// where the lamports went, and the ledger shows they arrived.
		for _, c := range predicted.Closed {
			if !c.To.Equals(w) && !c.To.Equals(other) {
				t.Fatalf("%s: %s closed, its lamports predicted to go to %s", where, c.Account, c.To)
			}
			if c.To.Equals(other) && after.otherLamports-before.otherLamports < c.Lamports {
				t.Fatalf("%s: %s closed to %s with %d lamports; the ledger shows it gained %d", where, c.Account, other, c.Lamports, after.otherLamports-before.otherLamports)
			}
		}

		// Predicted against the ledger, read and parsed by the test.
		if int64(after.sol)-int64(before.sol) != int64(predicted.SOLIn())-int64(predicted.SOLOut()) {
			t.Fatalf("%s: the ledger's SOL and wrapped SOL moved %d, predicted in %d out %d", where, int64(after.sol)-int64(before.sol), predicted.SOLIn(), predicted.SOLOut())
		}
		for _, m := range []solana.PublicKey{A, B, F, S, M, T, P, D} {
			// From the ledger: in is what the wallet's holdings rose; out
			// is gross, what they fell or, larger, what the other wallet
			// gained of it (at most what the wallet lost plus the new
			// supply of the mint it controls).
			var in, out, gain, supply uint64
			if after.tokens[m] > before.tokens[m] {
				in = after.tokens[m] - before.tokens[m]
			} else {
				out = before.tokens[m] - after.tokens[m]
			}
			if after.outside[m] > before.outside[m] {
				gain = after.outside[m] - before.outside[m]
			}
			if m == M && after.supply > before.supply {
				supply = after.supply - before.supply
			}
			out = max(out, min(gain, out+supply))
			if predicted.TokensIn[m] != in || predicted.TokensOut[m] != out {
				t.Fatalf("%s: the ledger's %s: in %d, out %d; predicted in %d out %d", where, m, in, out, predicted.TokensIn[m], predicted.TokensOut[m])
			}
		}
		changed := map[solana.PublicKey]bool{}
		for _, c := range predicted.Changes {
			changed[c.Account] = true
		}
		if len(predicted.Changes) > 0 {
			withChanges++
		}
		if before.sol-before.lamports != after.sol-after.lamports {
			withWSOL++
		}
		for acct, b := range before.control {
			a, ok := after.control[acct]
			if ok && a != b && !changed[acct] {
				t.Fatalf("%s: the ledger shows %s's delegate/state/delegated amount go %s → %s, and the engine predicted no change", where, acct, b, a)
			}
			if ok && a == b && changed[acct] {
				t.Fatalf("%s: the engine predicted a change on %s that the ledger does not show", where, acct)
			}
		}
		// An account opened for the wallet frozen (a default-frozen mint's)
		// is a change of control the engine must name.
		for acct := range after.frozen {
			if _, existed := before.control[acct]; !existed && !changed[acct] {
				t.Fatalf("%s: the ledger shows %s opened frozen, and the engine predicted no change", where, acct)
			}
		}
	}
	t.Logf("%d transactions landed and matched (%d with approvals, freezes or thaws; %d moving wrapped SOL; %d of %d blocks); %d combinations failed their simulation and were not sent", landed, withChanges, withWSOL, len(seenBlocks), len(blocks), refusedBySim)
	if landed >= len(script) && len(seenBlocks) != len(blocks) {
		t.Errorf("only %d of the %d blocks landed", len(seenBlocks), len(blocks))
	}
	if withChanges == 0 || withWSOL == 0 {
		t.Errorf("the run exercised no change of control (%d) or no wrapped SOL (%d): it proves too little", withChanges, withWSOL)
	}
}

func sameMints(a, b map[solana.PublicKey]uint64) bool {
	for k, v := range a {
		if v != b[k] {
			return false
		}
	}
	for k, v := range b {
		if v != a[k] {
			return false
		}
	}
	return true
}

func keyList(keys []solana.PublicKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = k.String()
	}
	sort.Strings(s)
	return fmt.Sprint(s)
}

// Verification reads the landed transaction's own effects: a transaction
// that lands doing more than its limits allow is "executed with unexpected
// effects", with the difference, never "executed" — and the ledger shows
// what it did.
func TestLandedEffectsPastTheLimitsAreNeverExecuted(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{})
	w, to := f.key.PublicKey(), freshAddress(t)
	bh, err := f.chain.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	send := func(lamports, allowed uint64) *executor.Result {
		t.Helper()
		tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(lamports, w, to).Build()}, bh.Value.Blockhash, solana.TransactionPayer(w))
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.ex.SubmitMeasured(ctx, tx, executor.Effects{}, bh.Value.LastValidBlockHeight, executor.Limits{SOLOut: allowed}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := send(1_000_000, 1_000_000+fee-1)
	if res.Outcome != executor.ExecutedWithUnexpectedEffects || !strings.Contains(res.Reason, "1005000 lamports of SOL and wrapped SOL left the wallet") || !strings.Contains(res.Reason, "1 more than the 1004999 allowed") {
		t.Fatalf("one lamport past the limit: %s: %s", res.Outcome, res.Reason)
	}
	if got := f.balance(t, to); got != 1_000_000 {
		t.Fatalf("the ledger shows %d at the recipient: the transaction did not land as measured", got)
	}
	if res := send(1_000_001, 1_000_001+fee); res.Outcome != executor.Executed || res.Effects.SOLOut() != 1_000_001+fee {
		t.Fatalf("within the limit: %s %s (effects %+v)", res.Outcome, res.Reason, res.Effects)
	}
}
