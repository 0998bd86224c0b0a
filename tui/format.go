package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// Money is integers end to end; SOL decimals appear only for display, and
// amounts are rendered by the authority's one implementation
// (authority/writekind/lines.go), so a kind's lines and the console's own
// agree to the digit.

// sol renders lamports as "0.05 SOL".
func sol(l uint64) string { return approval.SOLText(l) }

// lamports renders 50000000 as "50,000,000 lamports".
func lamports(l uint64) string { return approval.LamportsText(l) }

// tokenAmount renders base units with a mint's decimals, exactly.
func tokenAmount(units uint64, decimals uint8) string { return approval.TokenAmount(units, decimals) }

// tokenDelta renders post − pre in base units as a signed token amount.
func tokenDelta(pre, post uint64, decimals uint8) string {
	return approval.TokenDelta(pre, post, decimals)
}

// short abbreviates an address or hash to its first and last four characters.
func short(s string) string {
	if len(s) <= 11 {
		return s
	}
	return s[:4] + "…" + s[len(s)-4:]
}

// age renders a non-negative duration compactly: 9s, 4m05s, 2h03m, 3d.
func age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// countdown renders time left as m:ss, rounded up so "0:00" means gone.
func countdown(d time.Duration) string {
	if d <= 0 {
		return "0:00"
	}
	secs := int((d + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d:%02d", secs/60, secs%60)
}

// fit cuts s (which may carry styling) to width cells.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// pad cuts or pads s to exactly width cells.
func pad(s string, width int) string {
	s = fit(s, width)
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// padLeft right-aligns s in width cells.
func padLeft(s string, width int) string {
	s = fit(s, width)
	if w := ansi.StringWidth(s); w < width {
		s = strings.Repeat(" ", width-w) + s
	}
	return s
}

// wrap breaks plain text into lines of at most width cells, preferring
// spaces, hard-breaking long words such as addresses and signatures.
func wrap(s string, width int) []string {
	if width <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}

// rule is a section title followed by a line to the given width.
func rule(title string, width int) string {
	w := ansi.StringWidth(title)
	if w+2 >= width {
		return fit(title, width)
	}
	return title + " " + strings.Repeat("─", width-w-1)
}
