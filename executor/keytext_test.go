package executor_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
)

// The cached text is the address's own, whichever keys share a slot and in
// whatever order they come: a wrong hit would put another address in a
// preview or an RPC call.
func TestKeyStringIsTheAddressText(t *testing.T) {
	// Published addresses, spelled out: the System Program and SPL Token.
	if got := executor.KeyString(solana.PublicKey{}); got != "11111111111111111111111111111111" {
		t.Fatalf("System Program: %q", got)
	}
	token := solana.MustPublicKeyFromBase58("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
	if got := executor.KeyString(token); got != "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" {
		t.Fatalf("SPL Token: %q", got)
	}
	// Keys that differ only outside the slot's bytes share a slot.
	var keys []solana.PublicKey
	for i := range 64 {
		var k solana.PublicKey
		k[0], k[1], k[30], k[31] = byte(i), byte(i>>3), 7, 9
		keys = append(keys, k)
		if i%3 == 0 {
			keys = append(keys, solana.NewWallet().PublicKey())
		}
	}
	for round := range 3 {
		for i, k := range keys {
			if got, want := executor.KeyString(k), k.String(); got != want {
				t.Fatalf("round %d key %d: %q, want %q", round, i, got, want)
			}
		}
	}
}

func BenchmarkKeyString(b *testing.B) {
	k := solana.MustPublicKeyFromBase58("9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin")
	b.ReportAllocs()
	for b.Loop() {
		_ = executor.KeyString(k)
	}
}
