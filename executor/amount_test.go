package executor_test

import (
	"math"
	"testing"

	"github.com/solgate/solgate/executor"
)

// AddAmounts and MulAmount agree with exact arithmetic: the result when it
// fits in 64 bits, ErrAmountTooLarge otherwise, never a wrapped value.
func FuzzAmountArithmetic(f *testing.F) {
	f.Add(uint64(math.MaxUint64-4999), uint64(5000))
	f.Add(uint64(math.MaxUint64-5000), uint64(5000))
	f.Add(uint64(1<<32), uint64(1<<32))
	f.Add(uint64(0), uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		sum, err := executor.AddAmounts(a, b)
		if fits := a <= math.MaxUint64-b; fits != (err == nil) || (fits && sum != a+b) {
			t.Fatalf("AddAmounts(%d, %d) = %d, %v", a, b, sum, err)
		}
		prod, err := executor.MulAmount(a, b)
		if fits := a == 0 || b <= math.MaxUint64/a; fits != (err == nil) || (fits && prod != a*b) {
			t.Fatalf("MulAmount(%d, %d) = %d, %v", a, b, prod, err)
		}
	})
}
