package plainjson

import "unicode/utf8"

// AppendString appends s as json.Marshal writes a string, byte for byte:
// HTML characters (<, > and &) and U+2028/U+2029 escaped, invalid UTF-8 as
// U+FFFD. Only the socket server's answers (mcpbridge/authority's
// answerjson.go and server.go) still use this package; it goes when they
// are back on encoding/json. FuzzAppendString holds it to json.Marshal. The bridge has its own (mcpbridge's writeJSONString),
// as it may import nothing of the privileged side.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++ // the common case, kept tight: most strings are text
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default: // other control characters, <, > and &
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plain[c] is whether json.Marshal writes the byte c of a string as it is:
// ASCII but the control characters, the quote, the backslash and the HTML
// characters. Other bytes start an escape or a UTF-8 sequence.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendArray appends list as json.Marshal writes a slice: null when it is
// nil, else each element as elem writes it.
func AppendArray[T any](b []byte, list []T, elem func([]byte, T) ([]byte, error)) ([]byte, error) {
	if list == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = elem(b, e); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// AppendStrings appends list as json.Marshal writes a []string.
func AppendStrings(b []byte, list []string) []byte {
	b, _ = AppendArray(b, list, func(b []byte, s string) ([]byte, error) { return AppendString(b, s), nil })
	return b
}
