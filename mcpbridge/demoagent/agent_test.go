package demoagent

import (
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestLookAlikeKeepsBothEnds(t *testing.T) {
	for i := 0; i < 200; i++ {
		real := solana.NewWallet().PublicKey()
		fake := LookAlike(real)
		r, f := real.String(), fake.String()
		if f == r {
			t.Fatalf("no look-alike found for %s", r)
		}
		if len(f) != len(r) || f[:4] != r[:4] || f[len(f)-4:] != r[len(r)-4:] {
			t.Fatalf("%s does not look like %s", f, r)
		}
	}
}
