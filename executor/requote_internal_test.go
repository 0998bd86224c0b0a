package executor

import (
	"math/big"
	"testing"
)

// tightenedSlippage must never give a slippage whose minimum falls below
// the one asked for: min = floor(out × (10000 − bps) / 10000) ≥ minimum.
func TestTightenedSlippageKeepsTheMinimum(t *testing.T) {
	cases := []struct {
		out, minimum uint64
		want         uint16
		ok           bool
	}{
		{out: 1_000_000, minimum: 990_000, want: 100, ok: true},
		{out: 1_000_000, minimum: 990_001, want: 99, ok: true},
		{out: 1_000_000, minimum: 1_000_000, want: 0, ok: true},
		{out: 999_999, minimum: 1_000_000, ok: false},
		{out: 0, minimum: 1, ok: false},
		{out: ^uint64(0), minimum: ^uint64(0) - 1, want: 0, ok: true},
	}
	for _, c := range cases {
		got, ok := tightenedSlippage(c.out, c.minimum)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("tightenedSlippage(%d, %d) = %d, %v; want %d, %v", c.out, c.minimum, got, ok, c.want, c.ok)
			continue
		}
		if !ok {
			continue
		}
		min := new(big.Int).Mul(new(big.Int).SetUint64(c.out), big.NewInt(int64(10_000-int(got))))
		min.Quo(min, big.NewInt(10_000))
		if min.Cmp(new(big.Int).SetUint64(c.minimum)) < 0 {
			t.Errorf("out %d at %d bps gives minimum %s, below %d", c.out, got, min, c.minimum)
		}
	}
}
