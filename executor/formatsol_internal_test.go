package executor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// formatSOLFmt is FormatSOL as it was spelt with fmt.
func formatSOLFmt(lamports uint64) string {
	whole, frac := lamports/solana.LAMPORTS_PER_SOL, lamports%solana.LAMPORTS_PER_SOL
	if frac == 0 {
		return fmt.Sprintf("%d", whole)
	}
	s := fmt.Sprintf("%d.%09d", whole, frac)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return s
}

// TestFormatSOLAsFmt: the strconv spelling is the fmt one, on the edges
// and on 200,000 amounts of every magnitude.
func TestFormatSOLAsFmt(t *testing.T) {
	check := func(v uint64) {
		if got, want := FormatSOL(v), formatSOLFmt(v); got != want {
			t.Fatalf("FormatSOL(%d) = %q, fmt spelling %q", v, got, want)
		}
	}
	for _, v := range []uint64{0, 1, 9, 10, 100_000_000, 999_999_999, 1_000_000_000, 1_000_000_001, 1_500_000_000, 10_000_000_000, math.MaxUint64, math.MaxUint64 - 1} {
		check(v)
	}
	r := rand.New(rand.NewPCG(24, 4))
	for range 200_000 {
		v := r.Uint64() >> r.IntN(64)
		check(v)
		check(v - v%uint64(math.Pow10(r.IntN(10))))
	}
}
