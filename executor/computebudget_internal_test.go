package executor

import "testing"

// The arithmetic behind the priority fee, against the published rule
// (fee = ceil(price micro-lamports × limit / 1 000 000)) and nearest-rank
// percentiles, spelled out by hand.
func TestPriorityFeeArithmetic(t *testing.T) {
	for _, tc := range []struct {
		price uint64
		limit uint32
		fee   uint64
	}{
		{0, 1450, 0},
		{1, 1450, 1},          // 0.00145 rounds up
		{800_000, 1450, 1160}, // exact
		{689_655, 1450, 1000}, // 999.99975 rounds up
		{1_000_000, 1_400_000, 1_400_000},
		{^uint64(0), 1_400_000, ^uint64(0)}, // saturates instead of wrapping
	} {
		if got := priorityFee(tc.price, tc.limit); got != tc.fee {
			t.Errorf("priorityFee(%d, %d) = %d, want %d", tc.price, tc.limit, got, tc.fee)
		}
	}
	// priceFor is the highest price within a budget.
	for _, tc := range []struct {
		lamports uint64
		limit    uint32
		price    uint64
	}{{1000, 1450, 689_655}, {100_000, 1450, 68_965_517}, {0, 1450, 0}, {5, 0, 0}} {
		got := priceFor(tc.lamports, tc.limit)
		if got != tc.price {
			t.Errorf("priceFor(%d, %d) = %d, want %d", tc.lamports, tc.limit, got, tc.price)
		}
		if tc.limit > 0 && (priorityFee(got, tc.limit) > tc.lamports || priorityFee(got+1, tc.limit) <= tc.lamports && tc.lamports > 0) {
			t.Errorf("priceFor(%d, %d) = %d is not the highest price within the budget", tc.lamports, tc.limit, got)
		}
	}
	for _, tc := range []struct {
		units uint64
		limit uint32
	}{{450, 1450}, {10_000, 11_000}, {50_000, 55_000}, {1_399_000, 1_400_000}} {
		if got := unitLimitFor(tc.units); got != tc.limit {
			t.Errorf("unitLimitFor(%d) = %d, want %d", tc.units, got, tc.limit)
		}
	}
	fees := []uint64{0, 300, 100, 0, 1000, 200, 900, 400, 500, 600, 700, 800}
	for _, tc := range []struct {
		p    int
		want uint64
	}{{75, 800}, {50, 500}, {1, 100}, {100, 1000}, {90, 900}, {91, 1000}} {
		if got, n, ok := percentile(fees, tc.p); !ok || n != 10 || got != tc.want {
			t.Errorf("p%d = %d (n %d, ok %v), want %d", tc.p, got, n, ok, tc.want)
		}
	}
	if _, _, ok := percentile([]uint64{0, 0}, 75); ok {
		t.Error("a percentile of no non-zero fees")
	}
}
