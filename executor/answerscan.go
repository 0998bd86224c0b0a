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
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "context":
			return s.context(&out.Context)
		case "value":
			return s.accountList(&out.Value)
		}
		return false
	}) && s.End()
}

// scanSimulationAnswer decodes a simulateTransaction answer of the plain
// shape into out; false: not of that shape. A failed simulation (err not
// null) or one with inner instructions is left to encoding/json.
func scanSimulationAnswer(b []byte, out *simulationAnswer) bool {
	s := answerReader{plainjson.Scanner{B: b}}
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "context":
			return s.context(&out.Context)
		case "value":
			if s.Null() {
				out.Value = nil
				return true
			}
			out.Value = new(simulateValue)
			return s.simulateValue(out.Value)
		}
		return false
	}) && s.End()
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
	return s.Object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "slot":
			c.Slot, ok = s.Uint64()
		case "apiVersion":
			ok = s.Skip(0)
		}
		return ok
	})
}

// accountList reads a list of accounts or nulls (null: no list).
func (s *answerReader) accountList(out *wireAccounts) bool {
	list, ok := plainjson.List(&s.Scanner, func() (*wireAccount, bool) {
		if s.Null() {
			return nil, true
		}
		a := new(wireAccount)
		return a, s.account(a)
	})
	*out = list
	return ok
}

func (s *answerReader) account(a *wireAccount) bool {
	return s.Object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "lamports":
			a.Lamports, ok = s.Uint64()
		case "owner":
			a.Owner, ok = s.plainString()
		case "data":
			ok = s.strings(&a.Data)
		case "executable", "rentEpoch", "space":
			ok = s.Skip(0)
		}
		return ok
	})
}

// strings reads null or a list of plain strings.
func (s *answerReader) strings(out *[]string) bool {
	list, ok := plainjson.List(&s.Scanner, s.plainString)
	*out = list
	return ok
}

func (s *answerReader) simulateValue(v *simulateValue) bool {
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "err":
			v.Err = nil
			return s.Null()
		case "logs":
			return s.strings(&v.Logs)
		case "accounts":
			return s.accountList(&v.Accounts)
		case "unitsConsumed":
			if s.Null() {
				v.UnitsConsumed = nil
				return true
			}
			u, ok := s.Uint64()
			v.UnitsConsumed = &u
			return ok
		case "innerInstructions":
			if s.Null() {
				v.InnerInstructions = nil
				return true
			}
			v.InnerInstructions = []rpc.InnerInstruction{}
			return s.Byte('[') && s.Byte(']')
		case "returnData", "fee", "preBalances", "postBalances", "loadedAccountsDataSize", "replacementBlockhash":
			return s.Skip(2)
		}
		return false
	})
}
