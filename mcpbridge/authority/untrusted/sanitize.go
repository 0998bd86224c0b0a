// Package untrusted makes attacker-controlled text safe to show: MCP client
// names, reasons relayed from outside, program logs, token names, symbols,
// URIs and memos. Such text must not be able to move the cursor, repaint the
// screen (an escape sequence in a token name must never redraw the MAINNET
// badge), reorder what the operator reads (bidi controls), hide characters
// (zero-width and other invisible format characters) or crowd out the rest of
// the screen (length cap).
package untrusted

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	esc = 0x1b
	bel = 0x07
	// C1 forms of the sequence introducers: a terminal that honours 8-bit
	// controls treats these runes exactly like their ESC-prefixed forms.
	c1DCS = 0x90
	c1SOS = 0x98
	c1CSI = 0x9b
	c1ST  = 0x9c
	c1OSC = 0x9d
	c1PM  = 0x9e
	c1APC = 0x9f
)

// Ellipsis marks text cut by Sanitize.
const Ellipsis = "…"

// Sanitize returns s with every escape sequence (CSI, OSC, DCS, SOS, PM, APC
// and plain ESC sequences, in their 7-bit and C1 forms) removed together with
// its parameters, every remaining C0/C1 control removed (newline, carriage
// return, tab and the Unicode line/paragraph separators become a space, so
// nothing moves the cursor), every bidi control, zero-width character and
// other invisible format character (category Cf) removed, invalid UTF-8
// replaced by U+FFFD, surrounding space trimmed, and the result capped at
// maxRunes runes, the last of which is "…" when cut. maxRunes <= 0 means no
// cap. Sanitize is idempotent.
//
// An unterminated OSC/DCS/SOS/PM/APC string swallows the rest of s: showing
// half of a hidden payload is worse than showing none of it.
func Sanitize(s string, maxRunes int) string {
	if isPlain(s) {
		// Fast path: printable ASCII only needs trimming and the cap.
		return capRunes(strings.TrimSpace(s), maxRunes)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteRune(utf8.RuneError)
			i += size
			if size == 0 {
				break
			}
			continue
		}
		switch {
		case r == esc:
			i = skipEscape(s, i+size)
			continue
		case r == c1CSI:
			i = skipCSI(s, i+size)
			continue
		case r == c1OSC || r == c1DCS || r == c1SOS || r == c1PM || r == c1APC:
			i = skipString(s, i+size, r == c1OSC)
			continue
		}
		i += size
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			b.WriteByte(' ')
		case Hidden(r):
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return capRunes(strings.TrimSpace(b.String()), maxRunes)
}

// Hidden reports whether r is never shown by Sanitize: a C0/C1 control or
// DEL, a bidi control, a zero-width character, any other format character
// (Unicode category Cf, which includes the tag characters used to smuggle
// invisible ASCII), or an invisible filler letter.
func Hidden(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidi embeddings, overrides, isolates and marks
	case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff:
		return true // zero-width space, non-joiner, joiner, word joiner, BOM
	case r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
		return true // Hangul fillers: letters that render as nothing
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators (Sanitize turns them into spaces)
	}
	return unicode.Is(unicode.Cf, r)
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// skipEscape skips what follows an ESC (at i) and returns the index after the
// sequence. A lone ESC at the end is dropped.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']':
		return skipString(s, i+1, true)
	case 'P', 'X', '^', '_':
		return skipString(s, i+1, false)
	}
	// nF sequences: intermediates 0x20–0x2F then one final byte 0x30–0x7E
	// (e.g. ESC ( B, ESC # 8). Fp/Fe/Fs: a single byte 0x30–0x7E (ESC 7,
	// ESC c). Anything else ends the "sequence" at the ESC alone.
	j := i
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
		return j + 1
	}
	if j > i {
		return j // intermediates without a final byte: drop them too
	}
	return i
}

// skipCSI skips parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F and
// the final byte 0x40–0x7E. A malformed sequence ends at the first byte that
// fits none of these, which is then shown (or filtered) as ordinary text.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips a control string up to and including its terminator:
// ST (ESC \ or C1 ST), or BEL for OSC. Unterminated: to the end of s.
func skipString(s string, i int, belEnds bool) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == bel && belEnds:
			return i + size
		case r == c1ST:
			return i + size
		case r == esc && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		}
		i += max(size, 1)
	}
	return i
}

func capRunes(s string, maxRunes int) string {
	if maxRunes <= 0 || utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == maxRunes-1 {
			return s[:i] + Ellipsis
		}
		n++
	}
	return s
}
