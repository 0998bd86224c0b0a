package executor

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// checkAnswerScanners holds both scanners to encoding/json on b: a scanner
// may decline anything, but what it accepts, json.Unmarshal must accept too
// and decode to the same value. It reports which scanners accepted b.
func checkAnswerScanners(t testing.TB, b []byte) (accounts, simulation bool) {
	t.Helper()
	var gotA, wantA accountsAnswer
	if accounts = scanAccountsAnswer(b, &gotA); accounts {
		if err := json.Unmarshal(b, &wantA); err != nil {
			t.Fatalf("accounts scanner accepted what encoding/json refuses (%v):\n%s", err, b)
		}
		if !reflect.DeepEqual(gotA, wantA) {
			t.Fatalf("accounts scanner differs from encoding/json on\n%s\nscanner: %s\njson:    %s", b, dump(gotA), dump(wantA))
		}
	}
	var gotS, wantS simulationAnswer
	if simulation = scanSimulationAnswer(b, &gotS); simulation {
		if err := json.Unmarshal(b, &wantS); err != nil {
			t.Fatalf("simulation scanner accepted what encoding/json refuses (%v):\n%s", err, b)
		}
		if !reflect.DeepEqual(gotS, wantS) {
			t.Fatalf("simulation scanner differs from encoding/json on\n%s\nscanner: %s\njson:    %s", b, dump(gotS), dump(wantS))
		}
	}
	return accounts, simulation
}

func dump(v any) string { return fmt.Sprintf("%#v", v) }

// answerGen writes answers of the shapes nodes send (and localnet sends),
// with the key order, white space, nulls, empty lists and large integers
// varied.
type answerGen struct{ r *rand.Rand }

func (g answerGen) ws() string {
	return []string{"", "", "", " ", "\n", "\t", "\r\n  "}[g.r.IntN(7)]
}

func (g answerGen) uint() string {
	switch g.r.IntN(5) {
	case 0:
		return "0"
	case 1:
		return fmt.Sprint(uint64(math.MaxUint64))
	case 2:
		return fmt.Sprint(g.r.Uint64())
	default:
		return fmt.Sprint(g.r.IntN(1_000_000_000))
	}
}

func (g answerGen) obj(fields []string) string {
	g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	var b strings.Builder
	b.WriteString("{" + g.ws())
	for i, f := range fields {
		if i > 0 {
			b.WriteString(g.ws() + "," + g.ws())
		}
		b.WriteString(f)
	}
	b.WriteString(g.ws() + "}")
	return b.String()
}

func (g answerGen) list(n int, item func() string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item()
	}
	return "[" + g.ws() + strings.Join(parts, g.ws()+","+g.ws()) + g.ws() + "]"
}

func (g answerGen) context() string {
	f := []string{`"slot":` + g.ws() + g.uint()}
	if g.r.IntN(2) == 0 {
		f = append(f, `"apiVersion":"2.2.`+fmt.Sprint(g.r.IntN(20))+`"`)
	}
	return `"context":` + g.obj(f)
}

func (g answerGen) account() string {
	if g.r.IntN(4) == 0 {
		return "null"
	}
	data := []string{`""`, `"AQID"`, `"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="`}[g.r.IntN(3)]
	owner := []string{"11111111111111111111111111111111", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "0OIl"}[g.r.IntN(3)]
	f := []string{
		`"data":` + g.ws() + `[` + data + `,` + g.ws() + `"base64"]`,
		`"lamports":` + g.uint(),
		`"owner":"` + owner + `"`,
	}
	if g.r.IntN(3) > 0 {
		f = append(f, `"executable":`+[]string{"false", "true"}[g.r.IntN(2)], `"rentEpoch":`+g.uint(), `"space":`+g.uint())
	}
	return g.obj(f)
}

func (g answerGen) accounts() string {
	switch g.r.IntN(8) {
	case 0:
		return "null"
	case 1:
		return "[]"
	}
	return g.list(1+g.r.IntN(4), g.account)
}

func (g answerGen) accountsAnswer() string {
	return g.obj([]string{g.context(), `"value":` + g.ws() + g.accounts()})
}

func (g answerGen) simulationAnswer() string {
	logs := g.list(g.r.IntN(5), func() string {
		return `"Program 11111111111111111111111111111111 ` + []string{"invoke [1]", "success", "consumed 150 of 200000 compute units"}[g.r.IntN(3)] + `"`
	})
	f := []string{
		`"err":null`,
		`"logs":` + logs,
		`"accounts":` + g.accounts(),
		`"unitsConsumed":` + []string{"null", g.uint()}[g.r.IntN(2)],
	}
	if g.r.IntN(2) == 0 {
		f = append(f, `"innerInstructions":`+[]string{"null", "[]"}[g.r.IntN(2)])
	}
	if g.r.IntN(2) == 0 {
		f = append(f, `"returnData":`+[]string{"null", `{"programId":"11111111111111111111111111111111","data":["AQ==","base64"]}`}[g.r.IntN(2)])
	}
	if g.r.IntN(2) == 0 {
		// localnet's extras
		f = append(f, `"fee":5000`, `"preBalances":`+g.list(g.r.IntN(3), g.uint), `"postBalances":[]`)
	}
	if g.r.IntN(3) == 0 {
		f = append(f, `"replacementBlockhash":{"blockhash":"EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k","lastValidBlockHeight":`+g.uint()+`}`, `"loadedAccountsDataSize":`+g.uint())
	}
	value := g.obj(f)
	if g.r.IntN(10) == 0 {
		value = "null"
	}
	return g.obj([]string{g.context(), `"value":` + g.ws() + value})
}

// hostile changes an answer the way a lying or broken node might: a byte
// dropped, doubled or replaced, a key's case changed or repeated, a string
// given an escape or invalid UTF-8, a number given a sign, fraction,
// exponent or leading zero, trailing data.
func (g answerGen) hostile(s string) string {
	b := []byte(s)
	if len(b) == 0 {
		return s
	}
	i := g.r.IntN(len(b))
	switch g.r.IntN(14) {
	case 0:
		return string(b[:i]) + string(b[i+1:])
	case 1:
		return string(b[:i]) + string(b[i]) + string(b[i:])
	case 2:
		const repl = "{}[],:\"\\ 0123456789-+.eEnulltrefasx\x00\xff\u017f"
		b[i] = repl[g.r.IntN(len(repl))]
		return string(b)
	case 3:
		for _, k := range []string{"lamports", "owner", "data", "slot", "value", "context", "logs", "accounts", "err", "unitsConsumed", "innerInstructions"} {
			if strings.Contains(s, `"`+k+`"`) && g.r.IntN(2) == 0 {
				return strings.Replace(s, `"`+k+`"`, `"`+strings.ToUpper(k[:1])+k[1:]+`"`, 1)
			}
		}
		return strings.Replace(s, `"lamports"`, `"lamport\u0073"`, 1)
	case 4:
		for _, k := range []string{`"lamports":`, `"owner":`, `"slot":`, `"logs":`, `"err":`, `"data":`} {
			if j := strings.Index(s, k); j >= 0 {
				return s[:j] + k + `1,` + s[j:]
			}
		}
	case 5:
		return strings.Replace(s, `"base64"`, []string{`"base\u0036\u0034"`, `"base64\n"`, "\"base64\xff\"", `"bas\"e64"`}[g.r.IntN(4)], 1)
	case 6:
		for _, k := range []string{`"lamports":`, `"slot":`, `"unitsConsumed":`, `"rentEpoch":`, `"fee":`} {
			if j := strings.Index(s, k); j >= 0 {
				j += len(k)
				return s[:j] + []string{"-", "0", "00", "1.0", "1e3", "-0", "+1", "18446744073709551616", "1E0", "0x1"}[g.r.IntN(10)] + s[j:]
			}
		}
	case 7:
		return s + []string{" x", "{}", "\n", " ", "null", ","}[g.r.IntN(6)]
	case 8:
		return strings.Replace(s, `"err":null`, []string{`"err":{"InstructionError":[0,{"Custom":1}]}`, `"err":"AccountNotFound"`, `"err" : null`, `"err":nul`}[g.r.IntN(4)], 1)
	case 9:
		return strings.Replace(s, `"innerInstructions":[]`, `"innerInstructions":[{"index":0,"instructions":[]}]`, 1)
	case 10:
		return strings.Replace(s, `"owner":"`, `"owner":"\u0031`, 1)
	case 11:
		return strings.Replace(s, `{`, `{"surprise":`+[]string{`1`, `{"a":{"b":{"c":1}}}`, `[[[1]]]`, `"x"`, `null`, `true`}[g.r.IntN(6)]+`,`, 1+g.r.IntN(3))
	case 12:
		return strings.Replace(s, `"data":[`, `"data":[`+[]string{`1,`, `null,`, `"",`, `[],`}[g.r.IntN(4)], 1)
	case 13:
		return strings.Replace(s, "null", []string{"Null", "nulll", "[]", "{}", `""`, "0"}[g.r.IntN(6)], 1)
	}
	return s
}

// TestAnswerScannersAgreeWithEncodingJSON: on 40,000 generated answers and
// as many hostile variants, each scanner either declines or decodes
// exactly what encoding/json decodes; and the plain answers, the ones a
// node sends, are not declined (else the scanners would save nothing).
func TestAnswerScannersAgreeWithEncodingJSON(t *testing.T) {
	g := answerGen{rand.New(rand.NewPCG(24, 2))}
	var hostile, hostileTaken int
	for range 20_000 {
		for _, kind := range []string{"accounts", "simulation"} {
			var s string
			if kind == "accounts" {
				s = g.accountsAnswer()
			} else {
				s = g.simulationAnswer()
			}
			acc, sim := checkAnswerScanners(t, []byte(s))
			if kind == "accounts" && !acc || kind == "simulation" && !sim {
				t.Fatalf("the %s scanner declined a plain answer:\n%s", kind, s)
			}
			h := s
			for range 1 + g.r.IntN(3) {
				h = g.hostile(h)
			}
			acc, sim = checkAnswerScanners(t, []byte(h))
			hostile++
			if acc || sim {
				hostileTaken++
			}
		}
	}
	t.Logf("%d hostile variants, %d taken by a scanner (the rest left to encoding/json)", hostile, hostileTaken)
}

// FuzzAnswerScanners: whatever the bytes, a scanner declines or agrees
// with encoding/json.
func FuzzAnswerScanners(f *testing.F) {
	g := answerGen{rand.New(rand.NewPCG(1, 2))}
	for range 20 {
		f.Add([]byte(g.accountsAnswer()))
		f.Add([]byte(g.simulationAnswer()))
	}
	f.Add([]byte(`{"context":{"slot":1},"value":[{"data":["","base64"],"lamports":1,"owner":"1","Lamports":2}]}`))
	f.Add([]byte(`{"context":{"slot":1},"value":{"err":null,"logs":["a"],"accounts":null,"unitsConsumed":0}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAnswerScanners(t, b)
	})
}

// BenchmarkAnswerDecoding: a transfer's three answers (two account lists,
// one simulation), by the scanners and by encoding/json.
func BenchmarkAnswerDecoding(b *testing.B) {
	acc := []byte(`{"context":{"apiVersion":"2.2.0","slot":812},"value":[{"data":["","base64"],"executable":false,"lamports":499985000,"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":0},{"data":["","base64"],"executable":false,"lamports":1000000,"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":0}]}`)
	sim := []byte(`{"context":{"apiVersion":"2.2.0","slot":812},"value":{"err":null,"logs":["Program ComputeBudget111111111111111111111111111111 invoke [1]","Program ComputeBudget111111111111111111111111111111 success","Program 11111111111111111111111111111111 invoke [1]","Program 11111111111111111111111111111111 success"],"accounts":[{"data":["","base64"],"executable":false,"lamports":498980000,"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":0},{"data":["","base64"],"executable":false,"lamports":2000000,"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":0}],"unitsConsumed":450,"returnData":null,"fee":5000,"preBalances":[499985000,1000000],"postBalances":[498980000,2000000],"innerInstructions":[]}}`)
	b.Run("scanner", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var a1, a2 accountsAnswer
			var s simulationAnswer
			if !scanAccountsAnswer(acc, &a1) || !scanSimulationAnswer(sim, &s) || !scanAccountsAnswer(acc, &a2) {
				b.Fatal("declined")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var a1, a2 accountsAnswer
			var s simulationAnswer
			if json.Unmarshal(acc, &a1) != nil || json.Unmarshal(sim, &s) != nil || json.Unmarshal(acc, &a2) != nil {
				b.Fatal("refused")
			}
		}
	})
}
