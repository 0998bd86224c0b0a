package executor

import (
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor/plainjson"
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
	s := answerReader{plainjson.Scanner{B: b}}
	mark, ok := s.Open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.Next(mark, n); !ok || !more {
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
	return ok && s.End()
}

// scanSimulationAnswer decodes a simulateTransaction answer of the plain
// shape into out; false: not of that shape. A failed simulation (err not
// null) or one with inner instructions is left to encoding/json.
func scanSimulationAnswer(b []byte, out *simulationAnswer) bool {
	s := answerReader{plainjson.Scanner{B: b}}
	mark, ok := s.Open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.Next(mark, n); !ok || !more {
			break
		}
		switch string(key) {
		case "context":
			ok = s.context(&out.Context)
		case "value":
			if s.Null() {
				out.Value = nil
			} else {
				out.Value = new(simulateValue)
				ok = s.simulateValue(out.Value)
			}
		default:
			ok = false
		}
	}
	return ok && s.End()
}

// answerReader is a plainjson.Scanner with the answers' own readers.
type answerReader struct{ plainjson.Scanner }

// plainString reads a string of printable ASCII without escapes. The
// texts every answer repeats are given as constants, not copied.
func (s *answerReader) plainString() (string, bool) {
	b, ok := s.Text()
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

// context reads rpc.Context: the slot, and a node's apiVersion skipped.
func (s *answerReader) context(c *rpc.Context) bool {
	mark, ok := s.Open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.Next(mark, n); !ok || !more {
			return ok
		}
		switch string(key) {
		case "slot":
			c.Slot, ok = s.Uint64()
		case "apiVersion":
			ok = s.Skip(0)
		default:
			ok = false
		}
	}
	return false
}

// accountList reads a list of accounts or nulls (null: no list).
func (s *answerReader) accountList(out *wireAccounts) bool {
	if s.Null() {
		*out = nil
		return true
	}
	if !s.Byte('[') {
		return false
	}
	if s.Byte(']') {
		*out = wireAccounts{}
		return true
	}
	list := make(wireAccounts, 0, 4)
	for {
		if s.Null() {
			list = append(list, nil)
		} else {
			a := new(wireAccount)
			if !s.account(a) {
				return false
			}
			list = append(list, a)
		}
		if s.Byte(',') {
			continue
		}
		*out = list
		return s.Byte(']')
	}
}

func (s *answerReader) account(a *wireAccount) bool {
	mark, ok := s.Open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.Next(mark, n); !ok || !more {
			return ok
		}
		switch string(key) {
		case "lamports":
			a.Lamports, ok = s.Uint64()
		case "owner":
			a.Owner, ok = s.plainString()
		case "data":
			ok = s.strings(&a.Data)
		case "executable", "rentEpoch", "space":
			ok = s.Skip(0)
		default:
			ok = false
		}
	}
	return false
}

// strings reads null or a list of plain strings.
func (s *answerReader) strings(out *[]string) bool {
	if s.Null() {
		*out = nil
		return true
	}
	if !s.Byte('[') {
		return false
	}
	if s.Byte(']') {
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
		if s.Byte(',') {
			continue
		}
		*out = list
		return s.Byte(']')
	}
}

func (s *answerReader) simulateValue(v *simulateValue) bool {
	mark, ok := s.Open()
	for n := 0; ok; n++ {
		var key []byte
		var more bool
		if key, more, ok = s.Next(mark, n); !ok || !more {
			return ok
		}
		switch string(key) {
		case "err":
			v.Err = nil
			ok = s.Null()
		case "logs":
			ok = s.strings(&v.Logs)
		case "accounts":
			ok = s.accountList(&v.Accounts)
		case "unitsConsumed":
			if s.Null() {
				v.UnitsConsumed = nil
			} else {
				var u uint64
				u, ok = s.Uint64()
				v.UnitsConsumed = &u
			}
		case "innerInstructions":
			if s.Null() {
				v.InnerInstructions = nil
			} else {
				v.InnerInstructions = []rpc.InnerInstruction{}
				ok = s.Byte('[') && s.Byte(']')
			}
		case "returnData", "fee", "preBalances", "postBalances", "loadedAccountsDataSize", "replacementBlockhash":
			ok = s.Skip(2)
		default:
			ok = false
		}
	}
	return false
}
