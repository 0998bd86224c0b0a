package authority

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// checkCallRequestScanner holds scanCallRequest to encoding/json on b: it
// may decline anything, but what it accepts must decode under
// decodeCallRequestJSON too, to the same request. It reports whether the
// scanner took b.
func checkCallRequestScanner(t testing.TB, b []byte) bool {
	t.Helper()
	var got wire.CallRequest
	if !scanCallRequest(b, &got) || got.Tool == "" {
		return false
	}
	want, err := decodeCallRequestJSON(b)
	if err != nil {
		t.Fatalf("the scanner accepted a request encoding/json refuses (%v):\n%q", err, b)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the scanner differs from encoding/json on\n%q\nscanner: %+v arguments %q\njson:    %+v arguments %q", b, got, got.Arguments, want, want.Arguments)
	}
	// DecodeCallRequest is the scanner's answer for it.
	viaDecode, err := DecodeCallRequest(bytes.NewReader(b))
	if err != nil || !reflect.DeepEqual(viaDecode, want) {
		t.Fatalf("DecodeCallRequest gave %+v, %v; want %+v", viaDecode, err, want)
	}
	return true
}

type callGen struct{ r *rand.Rand }

func (g callGen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g callGen) ws() string { return g.pick("", "", "", " ", "\n", "\t ") }

func (g callGen) obj(fields []string) string {
	g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + g.ws() + strings.Join(fields, g.ws()+","+g.ws()) + g.ws() + "}"
}

func (g callGen) value(depth int) string {
	switch n := g.r.IntN(9); {
	case n == 0:
		return "null"
	case n == 1:
		return g.pick("true", "false")
	case n == 2:
		return fmt.Sprint(g.r.Uint64() >> g.r.IntN(64))
	case n == 3:
		return g.pick("-1", "0", "-0", "1000001")
	case n == 4 && depth > 0:
		var items []string
		for range g.r.IntN(3) {
			items = append(items, g.value(depth-1))
		}
		return "[" + strings.Join(items, ",") + "]"
	case n == 5 && depth > 0:
		return g.args(depth - 1)
	}
	return `"` + g.pick("", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "1.5", "USDC", "https://example.com/a?b=c") + `"`
}

func (g callGen) args(depth int) string {
	var f []string
	for i := range g.r.IntN(4) {
		f = append(f, `"`+g.pick("to", "lamports", "amount", "mint", "confirm", "k")+fmt.Sprint(i)+`":`+g.ws()+g.value(depth))
	}
	return g.obj(f)
}

// request is a call as a bridge sends it (encodeCall), keys in any order.
func (g callGen) request() string {
	f := []string{
		`"client":` + g.obj([]string{`"name":"` + g.pick("claude-code", "bench", "", "Cursor 1.2") + `"`, `"version":"` + g.pick("1", "0.2.3", "") + `"`}),
		`"tool":"` + g.pick("transfer_sol", "get_balance", "proposal_status", "solana_action") + `"`,
		`"arguments":` + g.ws() + g.pick("null", g.args(3), g.args(1), "{}"),
	}
	return g.obj(f)
}

func (g callGen) hostile(s string) string {
	b := []byte(s)
	i := g.r.IntN(len(b))
	switch g.r.IntN(11) {
	case 0:
		return string(b[:i]) + string(b[i+1:])
	case 1:
		return string(b[:i]) + string(b[i]) + string(b[i:])
	case 2:
		const repl = "{}[],:\"\\ 0123456789-+.eEnulltrefasx\x00\xff"
		b[i] = repl[g.r.IntN(len(repl))]
		return string(b)
	case 3:
		k := g.pick(`"tool"`, `"client"`, `"arguments"`, `"name"`, `"version"`)
		return strings.Replace(s, k, g.pick(strings.ToUpper(k), `"Tool"`, `"tool "`, `"t\u006fol"`, `"extra"`), 1)
	case 4:
		k := g.pick(`"tool":`, `"client":`, `"arguments":`, `"name":`)
		return strings.Replace(s, k, k+g.pick(`"x",`, `null,`, `{},`)+k, 1)
	case 5:
		return s + g.pick(" x", "}", "{}", "\n", " ", "null")
	case 6:
		return strings.Replace(s, `":"`, g.pick(`":"\u00e9`, `":"\n`, "\":\"\xff", `":"<`, `":"\"`), 1)
	case 7:
		return strings.Replace(s, `"arguments":`, `"arguments":`+g.pick("1.5", "1e3", "01", "-", `"s"`, "[", "[[[[[[1]]]]]]", `{"a":{"a":{"a":{"a":{"a":1}}}}}`)+g.pick("", ","), 1)
	case 8:
		return strings.Replace(s, "{", g.pick("[", " {", "{ ", `{"tool":"x",`), 1)
	case 9:
		return strings.Replace(s, g.pick("null", "true", "false"), g.pick("nul", "True", "fals", "nulll"), 1)
	case 10:
		for _, d := range "0123456789" {
			if strings.Contains(s, ":"+string(d)) {
				return strings.Replace(s, ":"+string(d), ":"+g.pick("0", "-", "+", "00", "-0")+string(d), 1)
			}
		}
	}
	return s
}

// TestCallRequestScannerAgreesWithEncodingJSON: on 20,000 requests of the
// bridge's shape and 20,000 hostile variants, the scanner either declines
// or decodes exactly what encoding/json decodes; and it takes the bridge's
// own requests (else it would save nothing).
func TestCallRequestScannerAgreesWithEncodingJSON(t *testing.T) {
	g := callGen{rand.New(rand.NewPCG(24, 3))}
	var taken int
	for range 20_000 {
		s := g.request()
		if !checkCallRequestScanner(t, []byte(s)) {
			t.Fatalf("the scanner declined a plain request:\n%s", s)
		}
		h := s
		for range 1 + g.r.IntN(3) {
			h = g.hostile(h)
		}
		if checkCallRequestScanner(t, []byte(h)) {
			taken++
		}
	}
	t.Logf("20000 hostile variants, %d taken by the scanner (the rest left to encoding/json)", taken)
	// The request the bridge writes (encodeCall) is taken.
	var req wire.CallRequest
	if !scanCallRequest([]byte(`{"client":{"name":"bench","version":"1"},"tool":"transfer_sol","arguments":{"lamports":1000001,"to":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"}}`), &req) {
		t.Fatal("the scanner declined the bridge's request")
	}
}

// FuzzCallRequestScanner: whatever a peer sends, the scanner declines or
// agrees with encoding/json.
func FuzzCallRequestScanner(f *testing.F) {
	g := callGen{rand.New(rand.NewPCG(1, 3))}
	for range 30 {
		f.Add([]byte(g.request()))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkCallRequestScanner(t, b)
	})
}
