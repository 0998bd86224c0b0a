// Package plainjson reads and writes JSON on hot paths exactly as
// encoding/json does. AppendString writes any string as json.Marshal does.
// The Scanner reads JSON of one plain shape quickly: keys spelt exactly,
// numbers as plain integers, strings of printable ASCII without escapes,
// no key twice in an object. A reader built on it declines (returns false)
// at the first byte outside that shape and leaves the input to
// encoding/json, which then gives its own result or error; so the shape
// may be narrower than JSON, never wider. Each reader is held to
// encoding/json by a differential test.
package plainjson

import "math"

// Scanner reads B from its start: Scanner{B: b}.
type Scanner struct {
	B    []byte
	i    int        // the next byte to read
	keys [24][]byte // the keys of the objects being read, outermost first
	n    int        // how many of keys are in use
}

func (s *Scanner) space() {
	for s.i < len(s.B) {
		switch s.B[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// End: nothing but white space after the value.
func (s *Scanner) End() bool {
	s.space()
	return s.i == len(s.B)
}

// Byte consumes c if it is next (after white space).
func (s *Scanner) Byte(c byte) bool {
	s.space()
	if s.i < len(s.B) && s.B[s.i] == c {
		s.i++
		return true
	}
	return false
}

// Null consumes a null literal if one is next.
func (s *Scanner) Null() bool {
	s.space()
	if len(s.B)-s.i >= 4 && string(s.B[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// Open consumes the '{' of an object; mark is for Next.
func (s *Scanner) Open() (mark int, ok bool) {
	return s.n, s.Byte('{')
}

// Object reads an object, calling member with each key to read its value
// (false: decline). It is Open and Next in the loop every reader needs.
func (s *Scanner) Object(member func(key []byte) bool) bool {
	mark, ok := s.Open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.Next(mark, n); !ok || !more {
			return ok
		}
		ok = member(key)
	}
	return false
}

// List reads null (a nil list) or an array, reading each element with elem
// (false: decline). An empty array is an empty list, not nil, as
// encoding/json gives it.
func List[T any](s *Scanner, elem func() (T, bool)) ([]T, bool) {
	if s.Null() {
		return nil, true
	}
	if !s.Byte('[') {
		return nil, false
	}
	if s.Byte(']') {
		return []T{}, true
	}
	list := make([]T, 0, 4)
	for {
		v, ok := elem()
		if !ok {
			return nil, false
		}
		list = append(list, v)
		if !s.Byte(',') {
			return list, s.Byte(']')
		}
	}
}

// Next reads the n-th key of the object Open began (more: false at its
// closing brace, which it consumes). A key seen twice in one object is
// declined: encoding/json's rules for repeated keys are its own.
func (s *Scanner) Next(mark, n int) (key []byte, more, ok bool) {
	if n == 0 {
		if s.Byte('}') {
			return nil, false, true
		}
	} else if !s.Byte(',') {
		s.n = mark
		return nil, false, s.Byte('}')
	}
	key, ok = s.Text()
	if !ok || !s.Byte(':') {
		return nil, false, false
	}
	for _, k := range s.keys[mark:s.n] {
		if string(k) == string(key) {
			return nil, false, false
		}
	}
	if s.n == len(s.keys) {
		return nil, false, false
	}
	s.keys[s.n] = key
	s.n++
	return key, true, true
}

// Text reads a string of printable ASCII without escapes; the bytes are
// the input's own, not copied.
func (s *Scanner) Text() ([]byte, bool) {
	s.space()
	if s.i >= len(s.B) || s.B[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.B); j++ {
		c := s.B[j]
		switch {
		case c == '"':
			s.i = j + 1
			return s.B[start:j], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// Uint64 reads a plain non-negative integer that fits: digits, no
// leading zero, no fraction or exponent.
func (s *Scanner) Uint64() (uint64, bool) {
	s.space()
	start := s.i
	var v uint64
	for s.i < len(s.B) && s.B[s.i] >= '0' && s.B[s.i] <= '9' {
		d := uint64(s.B[s.i] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
		s.i++
	}
	if s.i == start || (s.B[start] == '0' && s.i-start > 1) {
		return 0, false
	}
	if s.i < len(s.B) {
		switch s.B[s.i] {
		case '.', 'e', 'E', '-', '+':
			return 0, false
		}
	}
	return v, true
}

// literal consumes lit if it is next.
func (s *Scanner) literal(lit string) bool {
	if len(s.B)-s.i >= len(lit) && string(s.B[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// Skip passes over a value the engine does not read: null, a boolean, a
// plain integer (signed), a plain string, or (depth > 0) an array or object
// of those, nested at most depth deep (a node's preBalances, returnData,
// replacementBlockhash). Anything else is declined.
func (s *Scanner) Skip(depth int) bool {
	s.space()
	if s.i >= len(s.B) {
		return false
	}
	switch c := s.B[s.i]; {
	case c == 'n':
		return s.Null()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == '"':
		_, ok := s.Text()
		return ok
	case c == '-':
		s.i++
		if s.i >= len(s.B) || s.B[s.i] < '0' || s.B[s.i] > '9' {
			return false
		}
		_, ok := s.Uint64()
		return ok
	case c >= '0' && c <= '9':
		_, ok := s.Uint64()
		return ok
	case c == '[' && depth > 0:
		s.i++
		if s.Byte(']') {
			return true
		}
		for {
			if !s.Skip(depth - 1) {
				return false
			}
			if s.Byte(',') {
				continue
			}
			return s.Byte(']')
		}
	case c == '{' && depth > 0:
		return s.Object(func([]byte) bool { return s.Skip(depth - 1) })
	}
	return false
}

// Pos skips white space and gives the offset of the next byte: where the
// next value starts.
func (s *Scanner) Pos() int {
	s.space()
	return s.i
}

// Offset is the offset of the next byte, white space not skipped: right
// after a value Skip has passed.
func (s *Scanner) Offset() int { return s.i }
