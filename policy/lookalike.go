package policy

import "unicode/utf8"

// LooksLike reports whether a and b share their first four and last four
// characters without being equal: the shape of an address-poisoning
// look-alike, made to pass a glance at both ends of an address.
func LooksLike(a, b string) bool {
	const n = 4
	if a == b || utf8.RuneCountInString(a) < 2*n || utf8.RuneCountInString(b) < 2*n {
		return false
	}
	ra, rb := []rune(a), []rune(b)
	return string(ra[:n]) == string(rb[:n]) && string(ra[len(ra)-n:]) == string(rb[len(rb)-n:])
}

// lookAlikeOf is the allowlisted address id imitates, or "".
func lookAlikeOf(allowed []string, id string) string {
	for _, a := range allowed {
		if LooksLike(a, id) {
			return a
		}
	}
	return ""
}
