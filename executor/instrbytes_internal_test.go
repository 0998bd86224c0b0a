package executor

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/system"
)

func sameInstruction(t *testing.T, what string, got, want solana.Instruction) {
	t.Helper()
	gd, err1 := got.Data()
	wd, err2 := want.Data()
	if err1 != nil || err2 != nil || !bytes.Equal(gd, wd) {
		t.Fatalf("%s: data %x (%v), solana-go %x (%v)", what, gd, err1, wd, err2)
	}
	if !got.ProgramID().Equals(want.ProgramID()) {
		t.Fatalf("%s: program %s, solana-go %s", what, got.ProgramID(), want.ProgramID())
	}
	ga, wa := got.Accounts(), want.Accounts()
	if len(ga) != len(wa) {
		t.Fatalf("%s: %d accounts, solana-go %d", what, len(ga), len(wa))
	}
	for i := range ga {
		if !reflect.DeepEqual(*ga[i], *wa[i]) {
			t.Fatalf("%s: account %d %+v, solana-go %+v", what, i, *ga[i], *wa[i])
		}
	}
}

// TestInstructionBytesAsSolanaGo: the instructions written as bytes are
// solana-go's builders' (data, program, accounts), and a transaction
// compiled from them is byte for byte the one compiled from the builders.
func TestInstructionBytesAsSolanaGo(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 6))
	key := func() solana.PublicKey {
		var k solana.PublicKey
		for i := range k {
			k[i] = byte(r.Uint32())
		}
		return k
	}
	for i := range 5_000 {
		from, to := key(), key()
		if i%5 == 0 {
			to = from // to oneself: one account, both roles
		}
		lamports := r.Uint64() >> r.IntN(64)
		limit := r.Uint32() >> r.IntN(32)
		price := r.Uint64() >> r.IntN(64)
		if i == 0 {
			lamports, limit, price = math.MaxUint64, math.MaxUint32, math.MaxUint64
		}
		mine := []solana.Instruction{unitLimitInstruction(limit), unitPriceInstruction(price), transferInstruction(lamports, from, to)}
		theirs := []solana.Instruction{
			computebudget.NewSetComputeUnitLimitInstruction(limit).Build(),
			computebudget.NewSetComputeUnitPriceInstruction(price).Build(),
			system.NewTransferInstruction(lamports, from, to).Build(),
		}
		for j := range mine {
			sameInstruction(t, []string{"unit limit", "unit price", "transfer"}[j], mine[j], theirs[j])
		}
		bh := solana.Hash(key())
		a, err := newTransaction(mine, bh, from)
		if err != nil {
			t.Fatal(err)
		}
		b, err := newTransaction(theirs, bh, from)
		if err != nil {
			t.Fatal(err)
		}
		ab, _ := a.MarshalBinary()
		bb, _ := b.MarshalBinary()
		if !bytes.Equal(ab, bb) {
			t.Fatalf("transactions differ:\n%x\n%x", ab, bb)
		}
	}
}
