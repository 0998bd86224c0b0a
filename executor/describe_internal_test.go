package executor

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestDescribeFastPathsAsDecoded: the byte-level readings of a transfer and
// of the compute budget's limit and price give what solana-go's decoders
// give, on 100,000 instructions of those shapes and of shapes near them
// (other lengths, tags, account counts) that the fast paths leave alone.
func TestDescribeFastPathsAsDecoded(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 9))
	key := func() solana.PublicKey {
		var k solana.PublicKey
		for i := range k {
			k[i] = byte(r.Uint32())
		}
		return k
	}
	payer := key()
	var fastSystem, fastBudget int
	for i := range 100_000 {
		n := []int{0, 1, 2, 2, 2, 3}[r.IntN(6)]
		metas := make([]*solana.AccountMeta, n)
		for j := range metas {
			k := key()
			if j == 0 && r.IntN(2) == 0 {
				k = payer
			}
			metas[j] = &solana.AccountMeta{PublicKey: k, IsWritable: r.IntN(2) == 0, IsSigner: j == 0}
		}
		data := make([]byte, []int{12, 12, 12, 5, 9, 0, 4, 11, 13, 8}[r.IntN(10)])
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		if len(data) >= 4 && r.IntN(4) > 0 {
			binary.LittleEndian.PutUint32(data, []uint32{2, 2, 0, 3, 1 << 8}[r.IntN(5)])
		}
		if len(data) > 0 && r.IntN(3) > 0 {
			data[0] = []byte{2, 3, 1, 4}[r.IntN(4)]
		}
		if len(data) >= 12 && i%7 == 0 {
			binary.LittleEndian.PutUint64(data[4:], uint64(r.IntN(3))*solana.LAMPORTS_PER_SOL)
		}
		got, gotOut := describeSystem(metas, data, payer)
		want, wantOut := describeSystemDecoded(metas, data, payer)
		if got != want || gotOut != wantOut {
			t.Fatalf("system %x, %d accounts: %q %d, decoded %q %d", data, n, got, gotOut, want, wantOut)
		}
		if len(data) == 12 && n == 2 && binary.LittleEndian.Uint32(data) == 2 {
			fastSystem++
		}
		budgetMetas := metas
		if r.IntN(4) > 0 {
			budgetMetas = nil
		}
		if g, w := describeComputeBudget(budgetMetas, data), describeComputeBudgetDecoded(budgetMetas, data); g != w {
			t.Fatalf("compute budget %x, %d accounts: %q, decoded %q", data, len(budgetMetas), g, w)
		}
		if len(budgetMetas) == 0 && (len(data) == 5 && data[0] == 2 || len(data) == 9 && data[0] == 3) {
			fastBudget++
		}
	}
	if fastSystem < 1000 || fastBudget < 1000 {
		t.Fatalf("the fast paths were taken %d and %d times: the test does not test them", fastSystem, fastBudget)
	}
}

// TestDescribeTransferMissingAnAccount: a message whose system transfer
// names one account (hostile bytes; the runtime would fail it) is
// described, not a panic in the console.
func TestDescribeTransferMissingAnAccount(t *testing.T) {
	payer := solana.MustPublicKeyFromBase58("9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin")
	data := make([]byte, 13) // one byte longer than a plain transfer: past the fast path
	binary.LittleEndian.PutUint32(data, 2)
	binary.LittleEndian.PutUint64(data[4:], 5)
	ix := solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{{PublicKey: payer, IsSigner: true, IsWritable: true}}, data)
	tx, err := solana.NewTransaction([]solana.Instruction{ix}, solana.Hash{1}, solana.TransactionPayer(payer))
	if err != nil {
		t.Fatal(err)
	}
	got := describeInstructions(tx)
	if len(got) != 1 || got[0].Summary != "system transfer with accounts missing" {
		t.Fatalf("described %+v", got)
	}
}

// The instructions the effects engine counts as moving what the wallet
// controls are described with their amounts, accounts and authorities,
// from bytes spelled here per the published layouts.
func TestDescribeWhatMovesControl(t *testing.T) {
	k := func(b byte) solana.PublicKey { return solana.PublicKey{b, 1} }
	metas := func(keys ...solana.PublicKey) []*solana.AccountMeta {
		var out []*solana.AccountMeta
		for _, key := range keys {
			out = append(out, solana.Meta(key))
		}
		return out
	}
	src, mint, dst, auth, to := k(1), k(2), k(3), k(4), k(5)
	// TransferFeeExtension 26, TransferCheckedWithFee 1, amount 1000, 6 decimals, fee 10.
	fee := []byte{26, 1, 0xe8, 3, 0, 0, 0, 0, 0, 0, 6, 10, 0, 0, 0, 0, 0, 0, 0}
	// SetAuthority 6, type 0 (mint tokens), Some(to).
	set := append([]byte{6, 0, 1}, to[:]...)
	// AuthorizeNonceAccount: u32 7, new authority.
	authorize := append([]byte{7, 0, 0, 0}, to[:]...)
	for _, c := range []struct {
		got, want string
	}{
		{describeToken(metas(src, mint, dst, auth), fee), fmt.Sprintf("transfer 1000 base units (6 decimals) of mint %s from %s to %s, a fee of 10 of them withheld, signed by %s", mint, src, dst, auth)},
		{describeToken(metas(mint, auth), set), fmt.Sprintf("set the mint authority of %s to %s, by %s", mint, to, auth)},
		{describeToken(metas(mint, auth), []byte{6, 1, 0}), fmt.Sprintf("set the freeze authority of %s to none, by %s", mint, auth)},
	} {
		if c.got != c.want {
			t.Errorf("described as\n  %q\nwant\n  %q", c.got, c.want)
		}
	}
	if got, _ := describeSystem(metas(src, auth), authorize, auth); got != fmt.Sprintf("hand the authority of nonce account %s to %s, by %s", src, to, auth) {
		t.Errorf("AuthorizeNonceAccount described as %q", got)
	}
}
