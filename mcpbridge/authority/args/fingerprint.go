package args

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"unicode/utf8"
)

// FingerprintLength is the length of a fingerprint in hex characters (128 bits).
const FingerprintLength = 32

// Fingerprint binds a confirmation token to one exact call:
//
//	hex(sha256(tool + " " + canonical_json(normalized)))[:32]
//
// normalized is an Args.Normalized() form. A "confirm" key is ignored: the
// token must never be part of what it authorises.
func Fingerprint(tool string, normalized map[string]string) string {
	msg := make([]byte, 0, 128)
	msg = append(append(msg, tool...), ' ')
	return FingerprintOf(appendCanonicalJSON(msg, normalized))
}

// FingerprintOf is the fingerprint of its message, tool + " " +
// canonical_json(normalized).
func FingerprintOf(msg []byte) string {
	sum := sha256.Sum256(msg)
	var out [FingerprintLength]byte
	hex.Encode(out[:], sum[:FingerprintLength/2])
	return string(out[:])
}

// CanonicalJSON encodes a normalised argument map with its keys sorted and no
// whitespace, e.g. {"lamports":"5","to":"9xQe…"}. Without a "confirm" key.
//
// The encoding must be injective (different maps, different bytes), so it does
// not go through encoding/json, which replaces invalid UTF-8 by U+FFFD and would
// make "\xff" and "\xfe" collide. Each invalid byte is written instead as the
// escape of a lone low surrogate \udcXX (Python's "surrogateescape"), which no
// valid UTF-8 text can produce. Parsed arguments are plain ASCII, so in practice
// the output is ordinary JSON.
func CanonicalJSON(normalized map[string]string) []byte {
	return appendCanonicalJSON(nil, normalized)
}

func appendCanonicalJSON(buf []byte, normalized map[string]string) []byte {
	keys := make([]string, 0, len(normalized))
	for k := range normalized {
		if k != "confirm" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, ':')
		buf = appendJSONString(buf, normalized[k])
	}
	return append(buf, '}')
}

func appendJSONString(buf []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			buf = append(buf, `\udc`...)
			buf = append(buf, hexDigits[s[i]>>4], hexDigits[s[i]&0xF])
		case r == '"' || r == '\\':
			buf = append(buf, '\\', byte(r))
		case r < 0x20:
			buf = append(buf, `\u00`...)
			buf = append(buf, hexDigits[r>>4], hexDigits[r&0xF])
		default:
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// ValidFingerprint reports whether s has the form Fingerprint returns.
func ValidFingerprint(s string) bool {
	if len(s) != FingerprintLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}
