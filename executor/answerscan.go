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
	ok := s.object(func(key string) bool {
		switch key {
		case "context":
			return s.context(&out.Context)
		case "value":
			return s.accountList(&out.Value)
		}
		return false
	})
	return ok && s.end()
}

// scanSimulationAnswer decodes a simulateTransaction answer of the plain
// shape into out; false: not of that shape. A failed simulation (err not
// null) or one with inner instructions is left to encoding/json.
func scanSimulationAnswer(b []byte, out *simulationAnswer) bool {
	s := answerScanner{b: b}
	ok := s.object(func(key string) bool {
		switch key {
		case "context":
			return s.context(&out.Context)
		case "value":
			if s.null() {
				out.Value = nil
				return true
			}
			out.Value = new(simulateValue)
			return s.simulateValue(out.Value)
		}
		return false
	})
	return ok && s.end()
}

type answerScanner struct {
	b []byte
	i int
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

// object reads an object, calling field for each key; field consumes the
// value or declines. A key seen twice is declined: encoding/json's rules
// for repeated keys are its own.
func (s *answerScanner) object(field func(key string) bool) bool {
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return true
	}
	var seen [16]string
	n := 0
	for {
		key, ok := s.plainString()
		if !ok || !s.byte(':') {
			return false
		}
		for _, k := range seen[:n] {
			if k == key {
				return false
			}
		}
		if n == len(seen) {
			return false
		}
		seen[n] = key
		n++
		if !field(key) {
			return false
		}
		if s.byte(',') {
			continue
		}
		return s.byte('}')
	}
}

// plainString reads a string of printable ASCII without escapes.
func (s *answerScanner) plainString() (string, bool) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return string(s.b[start:j]), true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", false
		}
	}
	return "", false
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
	case c == 't' || c == 'f':
		for _, lit := range []string{"true", "false"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return true
			}
		}
		return false
	case c == '"':
		_, ok := s.plainString()
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
		return s.object(func(string) bool { return s.skip(depth - 1) })
	}
	return false
}

// context reads rpc.Context: the slot, and a node's apiVersion skipped.
func (s *answerScanner) context(c *rpc.Context) bool {
	return s.object(func(key string) bool {
		switch key {
		case "slot":
			v, ok := s.uint64()
			c.Slot = v
			return ok
		case "apiVersion":
			return s.skip(0)
		}
		return false
	})
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
	list := wireAccounts{}
	if s.byte(']') {
		*out = list
		return true
	}
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
	return s.object(func(key string) bool {
		switch key {
		case "lamports":
			v, ok := s.uint64()
			a.Lamports = v
			return ok
		case "owner":
			v, ok := s.plainString()
			a.Owner = v
			return ok
		case "data":
			return s.strings(&a.Data)
		case "executable", "rentEpoch", "space":
			return s.skip(0)
		}
		return false
	})
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
	list := []string{}
	if s.byte(']') {
		*out = list
		return true
	}
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
	return s.object(func(key string) bool {
		switch key {
		case "err":
			v.Err = nil
			return s.null()
		case "logs":
			return s.strings(&v.Logs)
		case "accounts":
			return s.accountList(&v.Accounts)
		case "unitsConsumed":
			if s.null() {
				v.UnitsConsumed = nil
				return true
			}
			n, ok := s.uint64()
			v.UnitsConsumed = &n
			return ok
		case "innerInstructions":
			if s.null() {
				v.InnerInstructions = nil
				return true
			}
			v.InnerInstructions = []rpc.InnerInstruction{}
			return s.byte('[') && s.byte(']')
		case "returnData", "fee", "preBalances", "postBalances", "loadedAccountsDataSize", "replacementBlockhash":
			return s.skip(2)
		}
		return false
	})
}
