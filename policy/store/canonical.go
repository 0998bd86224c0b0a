package store

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/solgate/solgate/executor/plainjson"
)

// Every record's audit body is canonicalised, and doing it by marshalling,
// decoding into interfaces and marshalling again was a tenth of the store's
// CPU a proposal (the body holds the whole preview). sortKeys does the same
// in one pass over what json.Marshal wrote: every token is copied as
// written, and only the members of each object are put in key order. It
// gives up (ok false) wherever one pass could differ from the round trip,
// and canonicalBody then takes the round trip:
//   - a key with an escape (the round trip sorts on the decoded key);
//   - a key twice in one object (raw JSON can hold that; a map keeps one);
//   - invalid UTF-8 (a raw message may carry it), or an escaped U+FFFD:
//     json.Marshal writes invalid UTF-8 in a string as \ufffd, which the
//     round trip writes back as the character itself;
//   - a string json.Marshal would not have written so (a raw message may
//     carry "\/" or a bare "<"; see marshalledString).
//
// Strings are written back with json.Marshal's own escaping, and numbers
// verbatim (the round trip decodes them with UseNumber), so for everything
// else the bytes are the round trip's; a test holds the two to that.

// sortKeys returns src (compact JSON from json.Marshal) with the members
// of every object sorted by key.
func sortKeys(src []byte) (out []byte, ok bool) {
	if !utf8.Valid(src) || bytes.Contains(src, []byte(`\ufffd`)) {
		return nil, false
	}
	out, rest, ok := appendSorted(make([]byte, 0, len(src)), src)
	if !ok || len(rest) != 0 {
		return nil, false
	}
	return out, true
}

// appendSorted appends the canonical form of the value at the start of s
// to dst, and returns what follows it.
func appendSorted(dst, s []byte) ([]byte, []byte, bool) {
	if len(s) == 0 {
		return dst, s, false
	}
	switch s[0] {
	case '{':
		return appendObject(dst, s)
	case '[':
		dst = append(dst, '[')
		s = s[1:]
		if len(s) > 0 && s[0] == ']' {
			return append(dst, ']'), s[1:], true
		}
		for {
			var ok bool
			if dst, s, ok = appendSorted(dst, s); !ok || len(s) == 0 {
				return dst, s, false
			}
			dst = append(dst, s[0])
			switch s[0] {
			case ',':
				s = s[1:]
			case ']':
				return dst, s[1:], true
			default:
				return dst, s, false
			}
		}
	case '"':
		n := marshalledStringLen(s)
		if n < 0 {
			return dst, s, false
		}
		return append(dst, s[:n]...), s[n:], true
	}
	// A number, true, false or null; whatever follows must be a delimiter
	// (the callers check), so whitespace fails here.
	n := 0
	for n < len(s) && literalByte(s[n]) {
		n++
	}
	if n == 0 {
		return dst, s, false
	}
	return append(dst, s[:n]...), s[n:], true
}

// member is one object member's key, and where its "key":value is in dst.
type member struct {
	key        []byte
	start, end int
}

func appendObject(dst, s []byte) ([]byte, []byte, bool) {
	s = s[1:]
	objStart := len(dst)
	dst = append(dst, '{')
	if len(s) > 0 && s[0] == '}' {
		return append(dst, '}'), s[1:], true
	}
	var (
		buf     [16]member
		members = buf[:0]
		sorted  = true
	)
	for {
		if len(s) == 0 || s[0] != '"' {
			return dst, s, false
		}
		n := marshalledStringLen(s)
		if n < 0 || n+1 > len(s) || s[n] != ':' {
			return dst, s, false
		}
		key := s[1 : n-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return dst, s, false
		}
		if k := len(members); k > 0 && bytes.Compare(members[k-1].key, key) >= 0 {
			sorted = false
		}
		if len(members) > 0 {
			dst = append(dst, ',')
		}
		start := len(dst)
		dst = append(dst, s[:n+1]...)
		var ok bool
		if dst, s, ok = appendSorted(dst, s[n+1:]); !ok || len(s) == 0 {
			return dst, s, false
		}
		members = append(members, member{key: key, start: start, end: len(dst)})
		if s[0] == '}' {
			s = s[1:]
			break
		}
		if s[0] != ',' {
			return dst, s, false
		}
		s = s[1:]
	}
	if !sorted {
		// Written in the order given: copy the members out and write them
		// back in key order.
		slices.SortFunc(members, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		for i := 1; i < len(members); i++ {
			if bytes.Equal(members[i-1].key, members[i].key) {
				return dst, s, false
			}
		}
		written := slices.Clone(dst[objStart:])
		dst = dst[:objStart+1]
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, written[m.start-objStart:m.end-objStart]...)
		}
	}
	return append(dst, '}'), s, true
}

// marshalledStringLen is the length of the JSON string at the start of
// s, quotes included, or -1 when it does not end or is not written exactly
// as json.Marshal writes its value (then decoding and marshalling it again
// would not give it back). json.Marshal escapes control characters (\b \t
// \n \f \r, the others as \u00xx), the quote, the backslash, <, > and &
// (as \u003c \u003e \u0026) and U+2028, U+2029, and nothing else.
func marshalledStringLen(s []byte) int {
	for i := 1; i < len(s); i++ {
		for i < len(s) && plainByte[s[i]] {
			i++ // the common case, kept tight: previews are long
		}
		if i >= len(s) {
			return -1
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c == 0xE2:
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				return -1 // U+2028, U+2029 raw
			}
			continue
		case c != '\\':
			return -1 // a control character, <, > or & raw
		}
		i++
		if i >= len(s) {
			return -1
		}
		switch s[i] {
		case '"', '\\', 'b', 't', 'n', 'f', 'r':
			continue
		case 'u':
		default:
			return -1
		}
		if i+4 >= len(s) || !marshalledU(string(s[i+1:i+5])) {
			return -1
		}
		i += 4
	}
	return -1
}

// marshalledU reports whether \u followed by hex is how json.Marshal
// writes that character.
func marshalledU(hex string) bool {
	switch hex {
	case "0026", "003c", "003e", "2028", "2029":
		return true
	case "0008", "0009", "000a", "000c", "000d":
		return false // written short: \b \t \n \f \r
	}
	if hex[:3] != "000" && hex[:3] != "001" {
		return false
	}
	return hex[3] >= '0' && hex[3] <= '9' || hex[3] >= 'a' && hex[3] <= 'f'
}

// plainByte marks the bytes json.Marshal writes in a string as they are
// (0xE2 starts U+2028 and U+2029, so it is looked at).
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = true
	}
	for _, c := range []byte{'"', '\\', '<', '>', '&', 0xE2} {
		t[c] = false
	}
	return t
}()

func literalByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '+' || c == '.'
}

// Every proposal writes two records, its insert and its decision, and
// marshalling them by reflection before the pass above was most of what
// canonicalising cost. canonicalRecord writes their canonical form
// directly: the members in key order, each value as the round trip would
// write it. It gives up (ok false) on anything it does not write plainly
// (a string that needs more than \" \\ \n \r \t, a time json.Marshal
// refuses, arguments the pass above gives up on), and canonicalBody then
// takes the general way; TestCanonicalRecordIsTheRoundTrip holds the two
// to the same bytes.
func canonicalRecord(body any) (string, bool) {
	var b []byte
	ok := true
	str := func(s string) { b, ok = appendPlainString(b, s, ok) }
	when := func(t time.Time) {
		raw, err := t.MarshalJSON()
		ok = ok && err == nil
		b = append(b, raw...)
	}
	switch r := body.(type) {
	case Proposal:
		args, err := json.Marshal(r.Args)
		if err != nil {
			return "", false
		}
		if args, ok = sortKeys(args); !ok {
			return "", false
		}
		b = make([]byte, 0, 256+len(args)+len(r.Preview)+len(r.Preview)/16)
		b = append(b, `{"args":`...)
		b = append(b, args...)
		b = append(b, `,"client":`...)
		str(r.Client)
		b = append(b, `,"created_at":`...)
		when(r.CreatedAt)
		b = append(b, `,"fingerprint":`...)
		str(r.Fingerprint)
		b = append(b, `,"id":`...)
		str(r.ID)
		b = append(b, `,"preview":`...)
		str(r.Preview)
		b = append(b, `,"status":`...)
		str(r.Status)
		b = append(b, `,"tool":`...)
		str(r.Tool)
	case Decision:
		b = make([]byte, 0, 256+len(r.Reason))
		b = append(b, `{"decided_at":`...)
		when(r.DecidedAt)
		b = append(b, `,"decided_by":`...)
		str(r.DecidedBy)
		b = append(b, `,"latency_ms":`...)
		b = strconv.AppendInt(b, r.LatencyMS, 10)
		b = append(b, `,"outcome":`...)
		str(r.Outcome)
		b = append(b, `,"proposal_id":`...)
		str(r.ProposalID)
		b = append(b, `,"reason":`...)
		str(r.Reason)
	default:
		return "", false
	}
	if !ok {
		return "", false
	}
	return string(append(b, '}')), true
}

// appendPlainString writes s as json.Marshal does (and so as the round
// trip after it does), once nothing before it gave up.
func appendPlainString(b []byte, s string, ok bool) ([]byte, bool) {
	if !ok {
		return b, false
	}
	return plainjson.AppendString(b, s), true
}
