package authority

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/solgate/solgate/executor"
)

// The console draws every kind through the kind's own lines (Kind.Detail):
// the kind says what each line is, the console how it looks. Amounts are
// rendered here, exactly (integers, string arithmetic), for every kind.

// LineRole is what a detail line is, for the console to place and style it.
type LineRole int

const (
	// LineField is a labelled line of the terms ("Action", "Recipient").
	// With Warn and no Label it is a warning about the field above it.
	LineField LineRole = iota
	// LineBanner is drawn first, across the pane: approving it means
	// something the numbers alone do not say (no cap applies).
	LineBanner
	// LineInstruction is one decoded instruction: Label is the program's
	// name, Value the summary. The console may abbreviate its own wallet in
	// it on narrow panes.
	LineInstruction
)

// DetailLine is one line of the console's detail pane. Warn marks a line to
// draw as a warning. Values may hold untrusted text; the console sanitises
// every one.
type DetailLine struct {
	Label, Value string
	Warn         bool
	Role         LineRole
}

// instructionLines lists decoded instructions as detail lines.
func instructionLines(list []executor.InstructionSummary) []DetailLine {
	out := make([]DetailLine, 0, len(list))
	for _, ins := range list {
		out = append(out, DetailLine{Label: ins.Name, Value: ins.Summary, Role: LineInstruction})
	}
	return out
}

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

// padRight pads s with spaces to width runes, never cutting it: the
// console's columns of simulated changes.
func padRight(s string, width int) string {
	if n := len([]rune(s)); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// padLeftTo right-aligns s in width runes, never cutting it.
func padLeftTo(s string, width int) string {
	if n := len([]rune(s)); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}

// changeRow is one row of simulated changes: who, the signed change, and
// before → after, in aligned columns.
func changeRow(who string, deltaWidth int, delta, pre, post string) string {
	return fmt.Sprintf("%s %s  %s → %s", padRight(who, 21), padLeftTo(delta, deltaWidth), pre, post)
}
