package policy

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// LamportsPerSOL is the fixed ratio between SOL and its base unit.
const LamportsPerSOL uint64 = 1_000_000_000

// solDecimals is how many decimal places a SOL amount can carry; anything
// finer than a lamport does not exist on chain, so it is refused rather than
// rounded.
const solDecimals = 9

// ParseSOL converts a decimal SOL amount such as "0.1" or "12" into lamports
// exactly. It parses the digits itself instead of going through float64,
// because 0.1 SOL must be 100000000 lamports, not 99999999. Signs, exponents,
// separators and more than nine decimals are refused.
func ParseSOL(s string) (uint64, error) {
	if s == "" {
		return 0, errors.New("empty amount: want a decimal number of SOL such as 0.1")
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if hasDot && whole == "" && frac == "" {
		return 0, fmt.Errorf("%q is not a number of SOL", s)
	}
	if !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("%q is not a plain decimal number of SOL (digits and at most one '.', no sign or exponent)", s)
	}
	if len(frac) > solDecimals {
		return 0, fmt.Errorf("%q has %d decimals; SOL has at most 9 (1 lamport = 0.000000001 SOL)", s, len(frac))
	}
	var lamports uint64
	if whole != "" {
		w, err := strconv.ParseUint(whole, 10, 64)
		if err != nil || w > math.MaxUint64/LamportsPerSOL {
			return 0, fmt.Errorf("%q SOL is too large to count in lamports", s)
		}
		lamports = w * LamportsPerSOL
	}
	if frac != "" {
		// Right-pad to nine digits so "05" means 0.05 SOL = 50000000 lamports.
		f, err := strconv.ParseUint(frac+strings.Repeat("0", solDecimals-len(frac)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number of SOL", s)
		}
		if lamports > math.MaxUint64-f {
			return 0, fmt.Errorf("%q SOL is too large to count in lamports", s)
		}
		lamports += f
	}
	return lamports, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatSOL renders lamports as a decimal SOL string with no trailing zeros:
// 50000000 → "0.05", 1000000000 → "1". It never goes through float64.
func FormatSOL(lamports uint64) string {
	whole := lamports / LamportsPerSOL
	frac := lamports % LamportsPerSOL
	if frac == 0 {
		return strconv.FormatUint(whole, 10)
	}
	f := fmt.Sprintf("%09d", frac)
	return strconv.FormatUint(whole, 10) + "." + strings.TrimRight(f, "0")
}

// describeLamports is the form every reason uses: both units, so a model can
// do arithmetic in lamports and a human can read SOL.
func describeLamports(lamports uint64) string {
	return FormatSOL(lamports) + " SOL (" + strconv.FormatUint(lamports, 10) + " lamports)"
}

// ParsePercentBps converts a percentage such as "1.5" into basis points (150)
// exactly. At most two decimals are accepted, since a basis point is 0.01%.
func ParsePercentBps(s string) (uint32, error) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if s == "" || (hasDot && whole == "" && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("%q is not a plain decimal percentage such as 1.5", s)
	}
	if len(frac) > 2 {
		return 0, fmt.Errorf("%q has %d decimals; at most 2 are allowed (0.01%% is one basis point)", s, len(frac))
	}
	var bps uint64
	if whole != "" {
		w, err := strconv.ParseUint(whole, 10, 32)
		if err != nil || w > 100 {
			return 0, fmt.Errorf("%q is more than 100%%", s)
		}
		bps = w * 100
	}
	if frac != "" {
		f, _ := strconv.ParseUint(frac+strings.Repeat("0", 2-len(frac)), 10, 32)
		bps += f
	}
	if bps > 10_000 {
		return 0, fmt.Errorf("%q is more than 100%%", s)
	}
	return uint32(bps), nil
}

// FormatPercentBps renders basis points as a percentage: 150 → "1.5".
func FormatPercentBps(bps uint32) string {
	if bps%100 == 0 {
		return strconv.FormatUint(uint64(bps/100), 10)
	}
	return strings.TrimRight(fmt.Sprintf("%d.%02d", bps/100, bps%100), "0")
}
