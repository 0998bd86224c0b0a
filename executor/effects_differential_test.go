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
// freezes and thaws; and what the wallet controls without owning it: a
// nonce account it is authority of, a 1-of-1 multisig's token account, a
// mint it is mint authority of). For each, the effects predicted from the simulation
// before sending must equal, to the lamport and the base unit, both the
// landed transaction's effects (from its own meta) and the ledger's actual
// change, which the test reads and parses itself. Every approval and freeze
// the ledger shows must be among the predicted changes.
//
// SOLGATE_EFFECTS_DIFF=N runs N transactions (make fuzz runs 1000);
// SOLGATE_EFFECTS_SEED fixes the seed.

// Published program ids, spelled out (never the product's constants).
var (
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
	// control maps each token account of the wallet to its delegate,
	// delegated amount and state bytes.
	control map[solana.PublicKey]string
}

// controlled is what the wallet controls in the differential test, besides
// what it owns.
type controlled struct {
	nonce, multisig, mint, other solana.PublicKey
}

// Rent-exempt minimum of an 80-byte nonce account: (80 + 128) × 3480 × 2.
const diffNonceRent = 1_447_680

func (f *ledgerFixture) view(t *testing.T, c controlled) ledgerView {
	t.Helper()
	w := f.key.PublicKey()
	v := ledgerView{sol: f.balance(t, w), tokens: map[solana.PublicKey]uint64{}, outside: map[solana.PublicKey]uint64{}, control: map[solana.PublicKey]string{}}
	v.lamports = v.sol
	if n := f.balance(t, c.nonce); n > diffNonceRent {
		v.sol += n - diffNonceRent
	}
	prog := diffTokenProgram
	accounts := func(owner solana.PublicKey) rpc.GetTokenAccountsResult {
		res, err := f.chain.GetTokenAccountsByOwner(context.Background(), owner, &rpc.GetTokenAccountsConfig{ProgramId: &prog},
			&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatal(err)
		}
		return *res
	}
	for _, a := range accounts(c.multisig).Value {
		d := a.Account.Data.GetBinary()
		v.tokens[solana.PublicKeyFromBytes(d[0:32])] += binary.LittleEndian.Uint64(d[64:72])
	}
	for _, a := range accounts(c.other).Value {
		d := a.Account.Data.GetBinary()
		v.outside[solana.PublicKeyFromBytes(d[0:32])] += binary.LittleEndian.Uint64(d[64:72])
	}
	mint, err := f.chain.GetAccountInfoWithOpts(context.Background(), c.mint, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	v.supply = binary.LittleEndian.Uint64(mint.Value.Data.GetBinary()[36:44]) // supply: u64 after the 36-byte COption mint authority
	res := accounts(w)
	for _, a := range res.Value {
		d := a.Account.Data.GetBinary()
		mint := solana.PublicKeyFromBytes(d[0:32])
		if mint.Equals(diffNativeMint) {
			v.sol += a.Account.Lamports
		} else {
			v.tokens[mint] += binary.LittleEndian.Uint64(d[64:72])
		}
		// delegate (COption<Pubkey>), state, delegated amount
		v.control[a.Pubkey] = fmt.Sprintf("%x/%d/%d", d[72:108], d[108], binary.LittleEndian.Uint64(d[121:129]))
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
	ctl := controlled{nonce: nonceAcct, multisig: msig, mint: M, other: other}

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
	}

	script := []string{"approve", "approve", "freeze", "thaw", "wrap", "transfer wrapped SOL", "unwrap", "wrap",
		"withdraw from the nonce account", "fund the nonce account", "multisig transfer", "mint to someone", "mint to the wallet", "burn"}
	n := diffCount(t)
	landed, refusedBySim, withChanges, withWSOL := 0, 0, 0, 0
	for i := 0; landed < n; i++ {
		if i > 20*n {
			t.Fatalf("only %d of %d transactions simulated cleanly in %d tries", landed, n, i)
		}
		var ixs []solana.Instruction
		var names []string
		if i < len(script) {
			// A fixed start, so even a short run sees a delegate set and
			// its allowance moved, a freeze and a thaw, and wrapped SOL
			// wrapped, sent and unwrapped.
			for _, b := range blocks {
				if b.name == script[i] {
					ixs, names = b.ixs(), []string{b.name}
				}
			}
		} else {
			for range 1 + rng.IntN(3) {
				b := blocks[rng.IntN(len(blocks))]
				ixs = append(ixs, b.ixs()...)
				names = append(names, b.name)
			}
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
		res, err := f.ex.SubmitMeasured(ctx, tx, predicted, bh.Value.LastValidBlockHeight, executor.Limits{SOLOut: ^uint64(0), TokensOut: map[solana.PublicKey]uint64{A: ^uint64(0), B: ^uint64(0), F: ^uint64(0), S: ^uint64(0), M: ^uint64(0)}}, nil, nil)
		if err != nil {
			t.Fatalf("tx %d %v: not sent: %v", i, names, err)
		}
		if res.Effects == nil || (res.Outcome != executor.Executed && res.Outcome != executor.ExecutedWithUnexpectedEffects) {
			t.Fatalf("tx %d %v: %s: %s", i, names, res.Outcome, res.Reason)
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

		// Predicted against the ledger, read and parsed by the test.
		if int64(after.sol)-int64(before.sol) != int64(predicted.SOLIn())-int64(predicted.SOLOut()) {
			t.Fatalf("%s: the ledger's SOL and wrapped SOL moved %d, predicted in %d out %d", where, int64(after.sol)-int64(before.sol), predicted.SOLIn(), predicted.SOLOut())
		}
		for _, m := range []solana.PublicKey{A, B, F, S, M} {
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
	}
	t.Logf("%d transactions landed and matched (%d with approvals, freezes or thaws; %d moving wrapped SOL); %d combinations failed their simulation and were not sent", landed, withChanges, withWSOL, refusedBySim)
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
