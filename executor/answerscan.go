package executor

import (
	"math"

	"github.com/gagliardetto/solana-go/rpc"
)

// Every proposal's batch brings two getMultipleAccounts answers and one
// simulateTransaction answer, and encoding/json's reflective decoding of
// them was the largest JSON cost left in the effects engine. The scanners
// here read the plain shape a node sends (the keys spelt as the node spells
// them, numbers as plain integers, strings without escapes) directly into
// the same structs. They never decide anything themselves: on the first
// byte outside that shape they decline, and the answer goes to
// encoding/json, which then gives its result or its error as before. A
// scanner that accepts an answer gives exactly what json.Unmarshal gives
// (held to it by TestAnswerScannersAgreeWithEncodingJSON and
// FuzzAnswerScanners).

// simulationAnswer is simulateTransaction's answer as the engine reads it.
type simulationAnswer struct {
	Context rpc.Context    `json:"context"`
	Value   *simulateValue `json:"value"`
}

// scanAccountsAnswer decodes a getMultipleAccounts answer of the plain
// shape into out; false: not of that shape (out is then undefined).
func scanAccountsAnswer(b []byte, out *accountsAnswer) bool {
	s := answerScanner{b: b}
	mark, ok := s.open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.next(mark, n); !ok || !more {
			break
		}
		switch string(key) {
		case "context":
			ok = s.context(&out.Context)
		case "value":
			ok = s.accountList(&out.Value)
		default:
			ok = false
		}
	}
	return ok && s.end()
}

// scanSimulationAnswer decodes a simulateTransaction answer of the plain
// shape into out; false: not of that shape. A failed simulation (err not
// null) or one with inner instructions is left to encoding/json.
func scanSimulationAnswer(b []byte, out *simulationAnswer) bool {
	s := answerScanner{b: b}
	mark, ok := s.open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.next(mark, n); !ok || !more {
			break
		}
		switch string(key) {
		case "context":
			ok = s.context(&out.Context)
		case "value":
			if s.null() {
				out.Value = nil
			} else {
				out.Value = new(simulateValue)
				ok = s.simulateValue(out.Value)
			}
		default:
			ok = false
		}
	}
	return ok && s.end()
}

type answerScanner struct {
	b    []byte
	i    int
	keys [24][]byte // the keys of the objects being read, outermost first
	n    int        // how many of keys are in use
}

func (s *answerScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end: nothing but white space after the value.
func (s *answerScanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

func (s *answerScanner) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// null consumes a null literal if one is next.
func (s *answerScanner) null() bool {
	s.space()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// open consumes the '{' of an object; mark is for next.
func (s *answerScanner) open() (mark int, ok bool) {
	return s.n, s.byte('{')
}

// next reads the n-th key of the object open began (more: false at its
// closing brace, which it consumes). A key seen twice in one object is
// declined: encoding/json's rules for repeated keys are its own.
func (s *answerScanner) next(mark, n int) (key []byte, more, ok bool) {
	if n == 0 {
		if s.byte('}') {
			return nil, false, true
		}
	} else if !s.byte(',') {
		s.n = mark
		return nil, false, s.byte('}')
	}
	key, ok = s.plainBytes()
	if !ok || !s.byte(':') {
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

// plainString reads a string of printable ASCII without escapes. The
// texts every answer repeats are given as constants, not copied.
func (s *answerScanner) plainString() (string, bool) {
	b, ok := s.plainBytes()
	switch string(b) {
	case "":
		return "", ok
	case "base64":
		return "base64", ok
	case systemProgramText:
		return systemProgramText, ok
	}
	return string(b), ok
}

const systemProgramText = "11111111111111111111111111111111"

// plainBytes is plainString's text, not copied.
func (s *answerScanner) plainBytes() ([]byte, bool) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// uint64 reads a plain non-negative integer that fits: digits, no
// leading zero, no fraction or exponent.
func (s *answerScanner) uint64() (uint64, bool) {
	s.space()
	start := s.i
	var v uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		d := uint64(s.b[s.i] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
		s.i++
	}
	if s.i == start || (s.b[start] == '0' && s.i-start > 1) {
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E', '-', '+':
			return 0, false
		}
	}
	return v, true
}

// literal consumes lit if it is next.
func (s *answerScanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// skip passes over a value the engine does not read: null, a boolean, a
// plain integer (signed), a plain string, or (depth > 0) an array or object
// of those, nested at most depth deep (a node's preBalances, returnData,
// replacementBlockhash). Anything else is declined.
func (s *answerScanner) skip(depth int) bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == 'n':
		return s.null()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == '"':
		_, ok := s.plainBytes()
		return ok
	case c == '-':
		s.i++
		if s.i >= len(s.b) || s.b[s.i] < '0' || s.b[s.i] > '9' {
			return false
		}
		_, ok := s.uint64()
		return ok
	case c >= '0' && c <= '9':
		_, ok := s.uint64()
		return ok
	case c == '[' && depth > 0:
		s.i++
		if s.byte(']') {
			return true
		}
		for {
			if !s.skip(depth - 1) {
				return false
			}
			if s.byte(',') {
				continue
			}
			return s.byte(']')
		}
	case c == '{' && depth > 0:
		mark, ok := s.open()
		for n := 0; ok; n++ {
			var more bool
			if _, more, ok = s.next(mark, n); !ok || !more {
				return ok
			}
			ok = s.skip(depth - 1)
		}
	}
	return false
}

// context reads rpc.Context: the slot, and a node's apiVersion skipped.
func (s *answerScanner) context(c *rpc.Context) bool {
	mark, ok := s.open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.next(mark, n); !ok || !more {
			return ok
		}
		switch string(key) {
		case "slot":
			c.Slot, ok = s.uint64()
		case "apiVersion":
			ok = s.skip(0)
		default:
			ok = false
		}
	}
	return false
}

// accountList reads a list of accounts or nulls (null: no list).
func (s *answerScanner) accountList(out *wireAccounts) bool {
	if s.null() {
		*out = nil
		return true
	}
	if !s.byte('[') {
		return false
	}
	if s.byte(']') {
		*out = wireAccounts{}
		return true
	}
	list := make(wireAccounts, 0, 4)
	for {
		if s.null() {
			list = append(list, nil)
		} else {
			a := new(wireAccount)
			if !s.account(a) {
				return false
			}
			list = append(list, a)
		}
		if s.byte(',') {
			continue
		}
		*out = list
		return s.byte(']')
	}
}

func (s *answerScanner) account(a *wireAccount) bool {
	mark, ok := s.open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.next(mark, n); !ok || !more {
			return ok
		}
		switch string(key) {
		case "lamports":
			a.Lamports, ok = s.uint64()
		case "owner":
			a.Owner, ok = s.plainString()
		case "data":
			ok = s.strings(&a.Data)
		case "executable", "rentEpoch", "space":
			ok = s.skip(0)
		default:
			ok = false
		}
	}
	return false
}

// strings reads null or a list of plain strings.
func (s *answerScanner) strings(out *[]string) bool {
	if s.null() {
		*out = nil
		return true
	}
	if !s.byte('[') {
		return false
	}
	if s.byte(']') {
		*out = []string{}
		return true
	}
	list := make([]string, 0, 4)
	for {
		v, ok := s.plainString()
		if !ok {
			return false
		}
		list = append(list, v)
		if s.byte(',') {
			continue
		}
		*out = list
		return s.byte(']')
	}
}

func (s *answerScanner) simulateValue(v *simulateValue) bool {
	mark, ok := s.open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.next(mark, n); !ok || !more {
			return ok
		}
		switch string(key) {
		case "err":
			v.Err = nil
			ok = s.null()
		case "logs":
			ok = s.strings(&v.Logs)
		case "accounts":
			ok = s.accountList(&v.Accounts)
		case "unitsConsumed":
			if s.null() {
				v.UnitsConsumed = nil
			} else {
				var u uint64
				u, ok = s.uint64()
				v.UnitsConsumed = &u
			}
		case "innerInstructions":
			if s.null() {
				v.InnerInstructions = nil
			} else {
				v.InnerInstructions = []rpc.InnerInstruction{}
				ok = s.byte('[') && s.byte(']')
			}
		case "returnData", "fee", "preBalances", "postBalances", "loadedAccountsDataSize", "replacementBlockhash":
			ok = s.skip(2)
		default:
			ok = false
		}
	}
	return false
}
