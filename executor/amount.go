package executor

import (
	"errors"
	"math/bits"
)

// ErrAmountTooLarge: a sum or product of amounts (lamports, token base
// units, fees, rent) does not fit in 64 bits. Amounts never wrap: a wrapped
// sum reads as a small number and would slip under every cap.
var ErrAmountTooLarge = errors.New("amount too large")

// AddAmounts adds amounts, or fails with ErrAmountTooLarge past 2^64-1.
func AddAmounts(xs ...uint64) (uint64, error) {
	var sum uint64
	for _, x := range xs {
		s, carry := bits.Add64(sum, x, 0)
		if carry != 0 {
			return 0, ErrAmountTooLarge
		}
		sum = s
	}
	return sum, nil
}

// MulAmount multiplies an amount, or fails with ErrAmountTooLarge past 2^64-1.
func MulAmount(a, b uint64) (uint64, error) {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return 0, ErrAmountTooLarge
	}
	return lo, nil
}

// addOrMax is AddAmounts for bounds that only limit: a bound past 2^64-1 is
// one no uint64 amount can cross, so it is exact to hold it at the maximum.
func addOrMax(xs ...uint64) uint64 {
	s, err := AddAmounts(xs...)
	if err != nil {
		return ^uint64(0)
	}
	return s
}
