package untrusted

import (
	"strings"
	"unicode"

	"github.com/solgate/solgate/policy"
)

// instructionPhrases are fragments that have no business in a client name, a
// token name or a memo: text addressed to the model or to the operator rather
// than describing a thing. Matching is on lower-cased text with invisible
// characters removed and whitespace collapsed, so "IGNORE\u200b previous"
// still matches.
var instructionPhrases = []string{
	"ignore previous",
	"ignore all",
	"ignore the above",
	"ignore your",
	"ignore limits",
	"disregard",
	"system prompt",
	"new instructions",
	"you must",
	"you are now",
	"developer mode",
	"approve",
	"transfer all",
	"send all",
	"withdraw all",
	"test transaction",
	"is safe",
	"do not tell",
	"don't tell",
	"override",
	"jailbreak",
}

// Flags lists the instruction-like phrases found in s, case-insensitively,
// each once, in the order of the phrase list. Nil when none.
func Flags(s string) []string {
	norm := normalize(s)
	if norm == "" {
		return nil
	}
	var out []string
	for _, p := range instructionPhrases {
		if strings.Contains(norm, p) {
			out = append(out, p)
		}
	}
	return out
}

// normalize lower-cases s, drops what Sanitize would hide, and collapses
// every run of spaces and punctuation-free separators into one space.
func normalize(s string) string {
	clean := Sanitize(s, 0)
	var b strings.Builder
	b.Grow(len(clean))
	space := false
	for _, r := range clean {
		if unicode.IsSpace(r) || r == '_' || r == '-' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// LooksLike is policy.LooksLike: the one definition of an address-poisoning
// look-alike, which the policy's denial text uses too.
func LooksLike(a, b string) bool { return policy.LooksLike(a, b) }
