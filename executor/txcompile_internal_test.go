package executor

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

// newTransaction must compile what solana-go's NewTransaction compiles,
// byte for byte, and leave the instructions' account metas as it leaves
// them (it merges flags into them): random instruction lists over a few
// keys, so accounts repeat with different flags, programs are also
// accounts, and the payer is among them or not.
func TestNewTransactionIsSolanaGos(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	pool := make([]solana.PublicKey, 6)
	for i := range pool {
		pool[i] = solana.NewWallet().PublicKey()
	}
	pool = append(pool, solana.SystemProgramID, solana.ComputeBudget)
	type spec struct {
		program solana.PublicKey
		metas   []solana.AccountMeta
		data    []byte
	}
	build := func(specs []spec) []solana.Instruction {
		var out []solana.Instruction
		for _, s := range specs {
			var metas solana.AccountMetaSlice
			for _, m := range s.metas {
				m := m
				metas = append(metas, &m)
			}
			out = append(out, solana.NewInstruction(s.program, metas, s.data))
		}
		return out
	}
	var bh solana.Hash
	for round := range 3000 {
		var specs []spec
		for range 1 + rng.IntN(4) {
			s := spec{program: pool[rng.IntN(len(pool))], data: []byte{byte(rng.IntN(256)), byte(rng.IntN(256))}}
			for range rng.IntN(5) {
				s.metas = append(s.metas, solana.AccountMeta{PublicKey: pool[rng.IntN(len(pool))], IsSigner: rng.IntN(3) == 0, IsWritable: rng.IntN(2) == 0})
			}
			specs = append(specs, s)
		}
		payer := pool[rng.IntN(len(pool))]
		if rng.IntN(4) == 0 {
			payer = solana.NewWallet().PublicKey()
		}
		for i := range bh {
			bh[i] = byte(rng.IntN(256))
		}
		theirsIx, oursIx := build(specs), build(specs)
		theirs, terr := solana.NewTransaction(theirsIx, bh, solana.TransactionPayer(payer))
		ours, oerr := newTransaction(oursIx, bh, payer)
		if (terr != nil) != (oerr != nil) {
			t.Fatalf("round %d: error %v, solana-go's %v", round, oerr, terr)
		}
		if terr != nil {
			continue
		}
		tb, err := theirs.Message.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		ob, err := ours.Message.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tb, ob) {
			t.Fatalf("round %d: message\n%x\nsolana-go's\n%x", round, ob, tb)
		}
		for i := range theirsIx {
			tm, om := theirsIx[i].Accounts(), oursIx[i].Accounts()
			for j := range tm {
				if *tm[j] != *om[j] {
					t.Fatalf("round %d: instruction %d account %d left as %+v, solana-go leaves %+v", round, i, j, *om[j], *tm[j])
				}
			}
		}
	}
}

func BenchmarkNewTransaction(b *testing.B) {
	payer, to := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	var bh solana.Hash
	ixs := func() []solana.Instruction {
		return append(budgetInstructions(Budget{UnitLimit: 450, UnitPrice: 1000}), system.NewTransferInstruction(1_000_000, payer, to).Build())
	}
	for _, bc := range []struct {
		name  string
		build func() (*solana.Transaction, error)
	}{
		{"solana-go", func() (*solana.Transaction, error) {
			return solana.NewTransaction(ixs(), bh, solana.TransactionPayer(payer))
		}},
		{"newTransaction", func() (*solana.Transaction, error) { return newTransaction(ixs(), bh, payer) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.build(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
