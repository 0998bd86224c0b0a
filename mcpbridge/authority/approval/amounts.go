package approval

import (
	"strconv"
	"strings"

	"github.com/solgate/solgate/executor"
)

// Amounts are rendered here, exactly (integers, string arithmetic), for
// every kind and for the console alike.

// GroupDigits puts thousands separators into a string of digits.
func GroupDigits(s string) string {
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Grouped renders 50000000 as "50,000,000".
func Grouped(n uint64) string { return GroupDigits(strconv.FormatUint(n, 10)) }

// LamportsText renders 50000000 as "50,000,000 lamports".
func LamportsText(l uint64) string { return Grouped(l) + " lamports" }

// SOLText renders lamports as "0.05 SOL".
func SOLText(l uint64) string { return executor.FormatSOL(l) + " SOL" }

// SOLSigned renders a signed lamport delta as "+0.05 SOL" / "−0.050005 SOL".
func SOLSigned(d int64) string {
	switch {
	case d < 0:
		return "−" + executor.FormatSOL(uint64(-d)) + " SOL"
	case d > 0:
		return "+" + executor.FormatSOL(uint64(d)) + " SOL"
	}
	return "0 SOL"
}

// TokenAmount renders base units with a mint's decimals, exactly (string
// arithmetic, never floats): 1237500000 at 6 decimals is "1,237.5".
func TokenAmount(units uint64, decimals uint8) string {
	s := strconv.FormatUint(units, 10)
	d := int(decimals)
	if d == 0 {
		return GroupDigits(s)
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	whole, frac := s[:len(s)-d], strings.TrimRight(s[len(s)-d:], "0")
	if frac == "" {
		return GroupDigits(whole)
	}
	return GroupDigits(whole) + "." + frac
}

// TokenDelta renders post − pre in base units as a signed token amount,
// without converting to a signed type (no overflow at any size).
func TokenDelta(pre, post uint64, decimals uint8) string {
	switch {
	case post > pre:
		return "+" + TokenAmount(post-pre, decimals)
	case post < pre:
		return "−" + TokenAmount(pre-post, decimals)
	}
	return "0"
}
