package executor_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
)

// inspectFixture builds swap transactions like localnet's (and hostile
// variants) without a ledger, for the inspector's unit and fuzz tests.
type inspectFixture struct {
	wallet, pool, thief     solana.PrivateKey
	mint, poolTA, walletTA  solana.PublicKey
	table                   solana.PublicKey
	tables                  executor.LookupTables
	blockhash               solana.Hash
	solRules, tokenRules    executor.InspectRules
	walletWSOL, unknownProg solana.PublicKey
}

func fixedKey(b byte) solana.PrivateKey {
	return solana.PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, 32)))
}

func fixedPub(b byte) solana.PublicKey {
	var pk solana.PublicKey
	for i := range pk {
		pk[i] = b
	}
	return pk
}

func newInspectFixture(tb testing.TB) *inspectFixture {
	tb.Helper()
	f := &inspectFixture{wallet: fixedKey(1), pool: fixedKey(2), thief: fixedKey(3), mint: fixedPub(4), table: fixedPub(5), blockhash: solana.Hash(fixedPub(6)), unknownProg: fixedPub(7)}
	var err error
	if f.poolTA, err = executor.AssociatedTokenAddress(f.pool.PublicKey(), f.mint, solana.TokenProgramID); err != nil {
		tb.Fatal(err)
	}
	if f.walletTA, err = executor.AssociatedTokenAddress(f.wallet.PublicKey(), f.mint, solana.TokenProgramID); err != nil {
		tb.Fatal(err)
	}
	if f.walletWSOL, err = executor.AssociatedTokenAddress(f.wallet.PublicKey(), executor.WrappedSOL, solana.TokenProgramID); err != nil {
		tb.Fatal(err)
	}
	f.tables = executor.LookupTables{f.table: {f.mint, f.poolTA, f.thief.PublicKey()}}
	f.solRules = executor.InspectRules{
		Wallet: f.wallet.PublicKey(), InputMint: executor.WrappedSOL, OutputMint: f.mint, InAmount: 50_000_000,
		Pools: []solana.PublicKey{f.pool.PublicKey()}, MaxPriorityFeeLamports: 1_000_000,
	}
	f.tokenRules = executor.InspectRules{
		Wallet: f.wallet.PublicKey(), InputMint: f.mint, OutputMint: executor.WrappedSOL, InAmount: 7_000_000,
		Pools: []solana.PublicKey{f.pool.PublicKey()}, MaxPriorityFeeLamports: 1_000_000,
	}
	return f
}

func u32(tag uint32, rest ...byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, tag)
	return append(b, rest...)
}

func u64le(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func cuLimit(units uint32) solana.Instruction {
	return solana.NewInstruction(solana.ComputeBudget, nil, append([]byte{2}, binary.LittleEndian.AppendUint32(nil, units)...))
}

func cuPrice(micro uint64) solana.Instruction {
	return solana.NewInstruction(solana.ComputeBudget, nil, append([]byte{3}, u64le(micro)...))
}

func sysTransfer(from, to solana.PublicKey, lamports uint64) solana.Instruction {
	return solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{solana.Meta(from).WRITE().SIGNER(), solana.Meta(to).WRITE()}, u32(2, u64le(lamports)...))
}

func tokTransfer(src, dst, auth solana.PublicKey, amount uint64) solana.Instruction {
	return solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{solana.Meta(src).WRITE(), solana.Meta(dst).WRITE(), solana.Meta(auth).SIGNER()}, append([]byte{3}, u64le(amount)...))
}

func ataCreate(payer, ata, owner, mint solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(), solana.Meta(ata).WRITE(), solana.Meta(owner), solana.Meta(mint),
		solana.Meta(solana.SystemProgramID), solana.Meta(solana.TokenProgramID),
	}, []byte{1})
}

// solSwap is the localnet SOL→token shape.
func (f *inspectFixture) solSwap() []solana.Instruction {
	w, p := f.wallet.PublicKey(), f.pool.PublicKey()
	return []solana.Instruction{
		cuLimit(60_000), cuPrice(10_000),
		ataCreate(w, f.walletTA, w, f.mint),
		sysTransfer(w, p, 50_000_000),
		tokTransfer(f.poolTA, f.walletTA, p, 7_000_000),
	}
}

// drainWSOL is the SOL→token shape plus the wallet's wrapped SOL sent to the
// pool's wrapped-SOL account: each transfer within the input on its own, the
// two together twice the input. Only the outflow budget refuses it.
func (f *inspectFixture) drainWSOL() []solana.Instruction {
	poolWSOL, _ := executor.AssociatedTokenAddress(f.pool.PublicKey(), executor.WrappedSOL, solana.TokenProgramID)
	return append(f.solSwap(), tokTransfer(f.walletWSOL, poolWSOL, f.wallet.PublicKey(), 50_000_000))
}

// tokenSwap is the localnet token→SOL shape.
func (f *inspectFixture) tokenSwap() []solana.Instruction {
	w, p := f.wallet.PublicKey(), f.pool.PublicKey()
	return []solana.Instruction{
		cuLimit(60_000),
		tokTransfer(f.walletTA, f.poolTA, w, 7_000_000),
		sysTransfer(p, w, 40_000_000),
	}
}

// build compiles (v0 with the fixture's table unless legacy), signs with the
// given cosigners and returns the wire bytes; the payer's slot stays empty.
func (f *inspectFixture) build(tb testing.TB, payer solana.PublicKey, ixs []solana.Instruction, legacy bool, cosigners ...solana.PrivateKey) []byte {
	tb.Helper()
	opts := []solana.TransactionOption{solana.TransactionPayer(payer)}
	if !legacy {
		opts = append(opts, solana.TransactionAddressTables(map[solana.PublicKey]solana.PublicKeySlice{f.table: f.tables[f.table]}))
	}
	tx, err := solana.NewTransaction(ixs, f.blockhash, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := tx.PartialSign(func(k solana.PublicKey) *solana.PrivateKey {
		for i := range cosigners {
			if cosigners[i].PublicKey().Equals(k) {
				return &cosigners[i]
			}
		}
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func (f *inspectFixture) inspect(raw []byte, r executor.InspectRules) (*executor.Inspection, error) {
	ft, err := executor.DecodeTransaction(raw)
	if err != nil {
		return nil, err
	}
	return executor.Inspect(ft, f.tables, r)
}

func TestInspectAcceptsLocalnetShapes(t *testing.T) {
	f := newInspectFixture(t)
	for _, legacy := range []bool{false, true} {
		raw := f.build(t, f.wallet.PublicKey(), f.solSwap(), legacy, f.pool)
		in, err := f.inspect(raw, f.solRules)
		if err != nil {
			t.Fatalf("legacy=%v: %v", legacy, err)
		}
		if in.SOLOut != 50_000_000 || in.CreatesAccounts != 1 || in.PriorityFee != 600 || in.Fee != 2*5000+600 || len(in.Cosigners) != 1 {
			t.Errorf("legacy=%v inspection %+v", legacy, in)
		}
		if !legacy && in.Loaded != 2 {
			t.Errorf("v0: %d accounts loaded from the table, want 2 (mint and pool token account)", in.Loaded)
		}
	}
	raw := f.build(t, f.wallet.PublicKey(), f.tokenSwap(), false, f.pool)
	in, err := f.inspect(raw, f.tokenRules)
	if err != nil || in.TokensOut != 7_000_000 || in.SOLOut != 0 {
		t.Fatalf("token swap: %v %+v", err, in)
	}
}

func TestInspectRefusals(t *testing.T) {
	f := newInspectFixture(t)
	w, p := f.wallet.PublicKey(), f.pool.PublicKey()
	thief := f.thief.PublicKey()
	replace := func(ixs []solana.Instruction, i int, ix solana.Instruction) []solana.Instruction {
		out := append([]solana.Instruction(nil), ixs...)
		out[i] = ix
		return out
	}
	insert := func(ixs []solana.Instruction, i int, ix solana.Instruction) []solana.Instruction {
		out := append([]solana.Instruction(nil), ixs[:i]...)
		return append(append(out, ix), ixs[i:]...)
	}
	withProgram := f.solRules
	withProgram.SwapPrograms = []solana.PublicKey{f.unknownProg}
	for _, tc := range []struct {
		name  string
		raw   []byte
		rules executor.InspectRules
		want  string // "" = accepted
	}{
		{"fee payer", f.build(t, thief, f.solSwap(), false, f.pool, f.thief), f.solRules, "fee payer is " + thief.String() + ", not the wallet"},
		{"pool signature missing", f.build(t, w, f.solSwap(), false), f.solRules, "signature 1 (signer " + p.String() + ") is missing or invalid"},
		{"unknown program", f.build(t, w, insert(f.solSwap(), 2, solana.NewInstruction(f.unknownProg, solana.AccountMetaSlice{solana.Meta(w).WRITE().SIGNER()}, []byte{0})), false, f.pool), f.solRules, "instruction 2 invokes unknown program " + f.unknownProg.String()},
		{"configured program", f.build(t, w, insert(f.solSwap(), 2, solana.NewInstruction(f.unknownProg, solana.AccountMetaSlice{solana.Meta(w).WRITE().SIGNER()}, []byte{0})), false, f.pool), withProgram, ""},
		{"SOL to a stranger", f.build(t, w, replace(f.solSwap(), 3, sysTransfer(w, fixedPub(9), 50_000_000)), false, f.pool), f.solRules, "instruction 3 sends 50000000 lamports of the wallet's SOL to " + fixedPub(9).String() + ", which is not the pool"},
		{"SOL to a table address", f.build(t, w, replace(f.solSwap(), 3, sysTransfer(w, thief, 50_000_000)), false, f.pool), f.solRules, thief.String() + ", which is not the pool"},
		{"SOL to own wrapped-SOL account", f.build(t, w, replace(f.solSwap(), 3, sysTransfer(w, f.walletWSOL, 50_000_000)), false, f.pool), f.solRules, ""},
		{"more SOL than the input", f.build(t, w, insert(f.solSwap(), 3, sysTransfer(w, p, 1)), false, f.pool), f.solRules, "add up to more than the swap's input of 50000000"},
		{"SOL out on a token swap", f.build(t, w, insert(f.tokenSwap(), 1, sysTransfer(w, p, 1)), false, f.pool), f.tokenRules, "but the swap's input is"},
		{"tokens to a stranger", f.build(t, w, replace(f.tokenSwap(), 1, tokTransfer(f.walletTA, fixedPub(9), w, 7_000_000)), false, f.pool), f.tokenRules, "which is not the pool's"},
		{"more tokens than the input", f.build(t, w, replace(f.tokenSwap(), 1, tokTransfer(f.walletTA, f.poolTA, w, 7_000_001)), false, f.pool), f.tokenRules, "add up to more than the swap's input of 7000000"},
		{"approve a delegate", f.build(t, w, insert(f.tokenSwap(), 1, solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{solana.Meta(f.walletTA).WRITE(), solana.Meta(thief), solana.Meta(w).SIGNER()}, append([]byte{4}, u64le(1<<60)...))), false, f.pool), f.tokenRules, "token instruction 4 with the wallet is not allowed"},
		{"assign the wallet", f.build(t, w, insert(f.solSwap(), 2, solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{solana.Meta(w).WRITE().SIGNER()}, u32(1, thief[:]...))), false, f.pool), f.solRules, "system instruction 1 on the wallet is not allowed"},
		{"priority fee", f.build(t, w, replace(f.solSwap(), 1, cuPrice(1_000_000_000)), false, f.pool), f.solRules, "priority fee of 60000000 lamports"},
		{"rent for someone else", f.build(t, w, replace(f.solSwap(), 2, ataCreate(w, fixedPub(9), thief, f.mint)), false, f.pool), f.solRules, "pay rent for a token account owned by " + thief.String()},
		{"close to a stranger", f.build(t, w, append(f.tokenSwap(), solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{solana.Meta(f.walletTA).WRITE(), solana.Meta(thief).WRITE(), solana.Meta(w).SIGNER()}, []byte{9})), false, f.pool), f.tokenRules, "sends its balance to " + thief.String()},
		{"second compute limit", f.build(t, w, insert(f.solSwap(), 1, cuLimit(1)), false, f.pool), f.solRules, "sets the compute unit limit a second time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.inspect(tc.raw, tc.rules)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, executor.ErrUnsafeTransaction) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
		})
	}

	// An unresolved or too-short lookup table.
	raw := f.build(t, w, f.solSwap(), false, f.pool)
	ft, err := executor.DecodeTransaction(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := executor.Inspect(ft, executor.LookupTables{}, f.solRules); err == nil || !strings.Contains(err.Error(), "was not resolved") {
		t.Errorf("unresolved table: %v", err)
	}
	if _, err := executor.Inspect(ft, executor.LookupTables{f.table: {f.mint}}, f.solRules); err == nil || !strings.Contains(err.Error(), "asks for index") {
		t.Errorf("short table: %v", err)
	}
}

func TestDecodeTransactionRefusesMalformed(t *testing.T) {
	f := newInspectFixture(t)
	good := f.build(t, f.wallet.PublicKey(), f.solSwap(), false, f.pool)
	if _, err := executor.DecodeTransaction(good); err != nil {
		t.Fatal(err)
	}
	v1 := append([]byte(nil), good...)
	v1[1+2*64] = 0x81
	nonCanonical := append([]byte{0x82, 0x00}, good[1:]...)
	for name, raw := range map[string][]byte{
		"empty":          nil,
		"trailing bytes": append(append([]byte(nil), good...), 0),
		"truncated":      good[:len(good)-1],
		"too large":      make([]byte, 1233),
		"version 1":      v1,
		"non-canonical":  nonCanonical,
		"no signatures":  {0},
	} {
		if _, err := executor.DecodeTransaction(raw); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzInspect: random bytes and mutated swap transactions never panic the
// decoder or the inspector, and whatever the inspector accepts satisfies the
// rules when checked independently through solana-go's decoding; and when
// the outflow budget (measured as PrepareSwap does, on a model of the
// simulation) lets it through too, the wallet's outflow over every account
// is within approved input + fee + rent. With
// resign set, the cosigner's signature is recomputed after mutation so the
// fuzzer gets past the signature check into the instruction rules.
func FuzzInspect(f *testing.F) {
	fx := newInspectFixture(f)
	w := fx.wallet.PublicKey()
	for _, legacy := range []bool{false, true} {
		f.Add(fx.build(f, w, fx.solSwap(), legacy, fx.pool), false, false)
		f.Add(fx.build(f, w, fx.solSwap(), legacy, fx.pool), true, false)
		f.Add(fx.build(f, w, fx.tokenSwap(), legacy, fx.pool), true, true)
		f.Add(fx.build(f, w, fx.drainWSOL(), legacy, fx.pool), true, false)
	}
	f.Add([]byte{1, 2, 3}, false, false)
	f.Fuzz(func(t *testing.T, raw []byte, resign, tokenIn bool) {
		rules := fx.solRules
		if tokenIn {
			rules = fx.tokenRules
		}
		ft, err := executor.DecodeTransaction(raw)
		if err != nil {
			return
		}
		if resign {
			raw = fx.resign(raw, ft)
			if ft, err = executor.DecodeTransaction(raw); err != nil {
				t.Fatalf("re-signed transaction no longer decodes: %v", err)
			}
		}
		in, err := executor.Inspect(ft, fx.tables, rules)
		if err != nil {
			if !errors.Is(err, executor.ErrUnsafeTransaction) {
				t.Fatalf("inspection error is not a refusal: %v", err)
			}
			return
		}
		tx := fx.checkAccepted(t, raw, ft, in, rules)
		fx.checkBudget(t, tx, in, rules)
	})
}

// resign recomputes the signatures of signers whose keys the fixture holds
// (except the wallet's slot, which stays as it is).
func (f *inspectFixture) resign(raw []byte, ft *executor.ForeignTx) []byte {
	out := append([]byte(nil), raw...)
	n := ft.NumSignatures()
	off := 1
	if n >= 0x80 {
		off = 2
	}
	keys := ft.Tx.Message.AccountKeys
	for i := 1; i < n; i++ {
		for _, k := range []solana.PrivateKey{f.pool, f.thief} {
			if keys[i].Equals(k.PublicKey()) {
				sig := ed25519.Sign(ed25519.PrivateKey(k), ft.MessageBytes)
				copy(out[off+64*i:], sig)
			}
		}
	}
	return out
}

// checkAccepted re-derives the rules from solana-go's decoding of the bytes.
func (f *inspectFixture) checkAccepted(t *testing.T, raw []byte, ft *executor.ForeignTx, in *executor.Inspection, r executor.InspectRules) *solana.Transaction {
	t.Helper()
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		t.Fatalf("accepted bytes solana-go cannot decode: %v", err)
	}
	msg := tx.Message
	if msg.IsVersioned() && len(msg.AddressTableLookups) > 0 {
		tabs := map[solana.PublicKey]solana.PublicKeySlice{}
		for k, v := range f.tables {
			tabs[k] = v
		}
		if err := msg.SetAddressTables(tabs); err != nil {
			t.Fatal(err)
		}
		if err := msg.ResolveLookups(); err != nil {
			t.Fatalf("accepted, but lookups do not resolve: %v", err)
		}
	}
	keys := msg.AccountKeys
	wallet := r.Wallet
	if !keys[0].Equals(wallet) {
		t.Fatalf("accepted with fee payer %s", keys[0])
	}
	seen := map[solana.PublicKey]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Fatalf("accepted with duplicate key %s", k)
		}
		seen[k] = true
	}
	for i := 1; i < len(tx.Signatures); i++ {
		if !tx.Signatures[i].Verify(keys[i], ft.MessageBytes) {
			t.Fatalf("accepted with invalid signature %d", i)
		}
	}
	isPool := func(k solana.PublicKey) bool { return k.Equals(f.pool.PublicKey()) }
	var solOut, tokOut uint64
	for i, ix := range msg.Instructions {
		prog := keys[ix.ProgramIDIndex]
		switch {
		case prog.Equals(solana.SystemProgramID), prog.Equals(solana.ComputeBudget), prog.Equals(solana.TokenProgramID),
			prog.Equals(solana.Token2022ProgramID), prog.Equals(solana.SPLAssociatedTokenAccountProgramID):
		default:
			t.Fatalf("accepted instruction %d for program %s", i, prog)
		}
		acc := func(n int) solana.PublicKey { return keys[ix.Accounts[n]] }
		uses := false
		for _, a := range ix.Accounts {
			uses = uses || keys[a].Equals(wallet)
		}
		d := []byte(ix.Data)
		if prog.Equals(solana.SystemProgramID) && uses {
			if len(d) != 12 || binary.LittleEndian.Uint32(d) != 2 {
				t.Fatalf("accepted system instruction %d on the wallet that is not a transfer", i)
			}
			if acc(0).Equals(wallet) {
				to := acc(1)
				if !isPool(to) && !to.Equals(f.walletWSOL) {
					t.Fatalf("accepted the wallet's SOL going to %s", to)
				}
				solOut += binary.LittleEndian.Uint64(d[4:])
			}
		}
		if (prog.Equals(solana.TokenProgramID) || prog.Equals(solana.Token2022ProgramID)) && uses {
			switch d[0] {
			case 3:
				if poolInput, _ := executor.AssociatedTokenAddress(f.pool.PublicKey(), r.InputMint, prog); !acc(1).Equals(poolInput) {
					t.Fatalf("accepted the wallet's tokens going to %s", acc(1))
				}
				tokOut += binary.LittleEndian.Uint64(d[1:9])
			case 12:
				tokOut += binary.LittleEndian.Uint64(d[1:9])
			case 9:
				if !acc(1).Equals(wallet) {
					t.Fatalf("accepted closing to %s", acc(1))
				}
			case 1, 16, 17, 18:
			default:
				t.Fatalf("accepted token instruction %d with the wallet", d[0])
			}
		}
	}
	if solOut > r.InAmount || tokOut > r.InAmount || solOut != in.SOLOut || tokOut != in.TokensOut {
		t.Fatalf("accepted outflows SOL %d tokens %d (inspector said %d/%d) for input %d", solOut, tokOut, in.SOLOut, in.TokensOut, r.InAmount)
	}
	if solOut > 0 && !r.InputMint.Equals(executor.WrappedSOL) {
		t.Fatal("accepted SOL out of the wallet on a token swap")
	}
	if in.PriorityFee > r.MaxPriorityFeeLamports {
		t.Fatalf("accepted a priority fee of %d", in.PriorityFee)
	}
	tx.Message = msg // with its lookups resolved
	return tx
}

// A swap transaction with a memo (the SPL Memo program, v2, spelled as
// published) is accepted: a memo moves nothing. The inspection names it.
func TestInspectAcceptsAMemo(t *testing.T) {
	f := newInspectFixture(t)
	memo := solana.MustPublicKeyFromBase58("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
	ixs := append(f.solSwap(), solana.NewInstruction(memo, nil, []byte("order 42")))
	in, err := f.inspect(f.build(t, f.wallet.PublicKey(), ixs, false, f.pool), f.solRules)
	if err != nil {
		t.Fatal(err)
	}
	last := in.Instructions[len(in.Instructions)-1]
	if in.SOLOut != 50_000_000 || !last.Program.Equals(memo) || last.Name != "Memo" || !strings.Contains(last.Summary, `memo "order 42"`) {
		t.Errorf("inspection of a swap with a memo: %+v, last instruction %+v", in, last)
	}
}
