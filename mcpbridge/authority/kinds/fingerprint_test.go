package kinds

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// The formula is the contract between proposal and execution; pin it against
// an independent computation.
func TestFingerprintFormula(t *testing.T) {
	sum := sha256.Sum256([]byte(`transfer_sol {"lamports":"5","to":"` + addrA + `"}`))
	want := hex.EncodeToString(sum[:])[:32]
	got := args.Fingerprint(wire.ToolTransferSOL, map[string]string{"to": addrA, "lamports": "5"})
	if got != want {
		t.Fatalf("args.Fingerprint = %s, want %s", got, want)
	}
	a, err := ParseTransferArgs(map[string]any{"lamports": float64(5), "to": addrA})
	if err != nil || a.Fingerprint() != want {
		t.Fatalf("TransferArgs.Fingerprint = %s (%v), want %s", a.Fingerprint(), err, want)
	}
}

func TestFingerprintEqualAndDifferent(t *testing.T) {
	transfer := func(raw map[string]any) args.Args { return mustParse(t, wire.ToolTransferSOL, raw) }
	swap := func(in, out string, amount, bps any) args.Args {
		return mustParse(t, wire.ToolSwap, map[string]any{"input_mint": in, "output_mint": out, "amount": amount, "slippage_bps": bps})
	}
	same := []struct {
		name string
		a, b args.Args
	}{
		{"number vs digit string, key order",
			transfer(map[string]any{"lamports": float64(5), "to": addrA}),
			transfer(map[string]any{"to": addrA, "lamports": "5"})},
		{"json.Number exponent vs float",
			transfer(map[string]any{"to": addrA, "lamports": json.Number("5e0")}),
			transfer(map[string]any{"to": addrA, "lamports": float64(5)})},
		{"confirm is not part of it",
			transfer(map[string]any{"to": addrA, "lamports": "5", "confirm": "kR3nT9xQm2vP"}),
			transfer(map[string]any{"to": addrA, "lamports": "5"})},
		{"swap numbers as strings",
			swap(wSOL, addrB, float64(1000), float64(50)),
			swap(wSOL, addrB, "1000", "50")},
	}
	for _, c := range same {
		if c.a.Fingerprint() != c.b.Fingerprint() {
			t.Errorf("%s: %s != %s", c.name, c.a.Fingerprint(), c.b.Fingerprint())
		}
	}
	base := transfer(map[string]any{"to": addrA, "lamports": "5"})
	baseSwap := swap(wSOL, addrB, "1000", "50")
	different := []struct {
		name string
		a, b args.Args
	}{
		{"other amount", base, transfer(map[string]any{"to": addrA, "lamports": "6"})},
		{"amount ×10", base, transfer(map[string]any{"to": addrA, "lamports": "50"})},
		{"other recipient", base, transfer(map[string]any{"to": addrB, "lamports": "5"})},
		{"other slippage", baseSwap, swap(wSOL, addrB, "1000", "51")},
		{"mints swapped", baseSwap, swap(addrB, wSOL, "1000", "50")},
		{"quote vs swap, same terms", baseSwap, mustParse(t, wire.ToolGetQuote, map[string]any{"input_mint": wSOL, "output_mint": addrB, "amount": "1000", "slippage_bps": "50"})},
	}
	for _, c := range different {
		if c.a.Fingerprint() == c.b.Fingerprint() {
			t.Errorf("%s: both %s", c.name, c.a.Fingerprint())
		}
	}
	// The tool is part of the fingerprint even for identical maps.
	m := map[string]string{"k": "v"}
	if args.Fingerprint(wire.ToolTransferSOL, m) == args.Fingerprint(wire.ToolSwap, m) {
		t.Error("tool name does not change the fingerprint")
	}
	if args.Fingerprint(wire.ToolTransferSOL, map[string]string{"a": "1", "confirm": "x"}) != args.Fingerprint(wire.ToolTransferSOL, map[string]string{"a": "1"}) {
		t.Error("a confirm key changes the fingerprint")
	}
}

func TestCanonicalJSON(t *testing.T) {
	got := string(args.CanonicalJSON(map[string]string{"b": "2", "a": "x\"\\\n<>&é"}))
	want := `{"a":"x\"\\\u000a<>&é","b":"2"}`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	// Invalid UTF-8 must not collapse: encoding/json would turn both into U+FFFD.
	pairs := [][2]string{{"\xff", "\xfe"}, {"\xff", "ÿ"}, {"\xff", "\ufffd"}, {"\xed\xa0\x80", "\ufffd\ufffd\ufffd"}}
	for _, p := range pairs {
		a := args.CanonicalJSON(map[string]string{"k": p[0]})
		b := args.CanonicalJSON(map[string]string{"k": p[1]})
		if string(a) == string(b) {
			t.Errorf("%q and %q encode alike: %s", p[0], p[1], a)
		}
	}
}

func mustParse(t testing.TB, tool string, raw map[string]any) args.Args {
	t.Helper()
	a, err := authority.ParseArgs(tool, raw)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, raw, err)
	}
	return a
}

// checkParsed holds for every successful parse: normalising and parsing again
// is a fixed point, and the fingerprint is the formula over the normal form.
func checkParsed(t *testing.T, tool string, a args.Args) {
	t.Helper()
	norm := a.Normalized()
	if _, ok := norm["confirm"]; ok {
		t.Fatalf("normal form %v contains confirm", norm)
	}
	again := map[string]any{}
	for k, v := range norm {
		again[k] = v
	}
	if w, ok := a.(args.WriteArgs); ok && w.ConfirmToken() != "" {
		again["confirm"] = w.ConfirmToken()
	}
	b, err := authority.ParseArgs(tool, again)
	if err != nil {
		t.Fatalf("normal form %v of %+v does not parse: %v", norm, a, err)
	}
	if !argsEqual(a, b) {
		t.Fatalf("re-parse changed %+v into %+v", a, b)
	}
	if !maps.Equal(b.Normalized(), norm) {
		t.Fatalf("normal form not a fixed point: %v then %v", norm, b.Normalized())
	}
	if fp := a.Fingerprint(); fp != args.Fingerprint(tool, norm) || !args.ValidFingerprint(fp) {
		t.Fatalf("fingerprint %q is not the formula over %v", fp, norm)
	}
}

// argsEqual compares parsed structs, following the optional address pointers.
func argsEqual(a, b args.Args) bool {
	switch x := a.(type) {
	case args.GetBalanceArgs:
		y := b.(args.GetBalanceArgs)
		return (x.Address == nil) == (y.Address == nil) && (x.Address == nil || *x.Address == *y.Address)
	case args.GetTokenBalancesArgs:
		y := b.(args.GetTokenBalancesArgs)
		return (x.Owner == nil) == (y.Owner == nil) && (x.Owner == nil || *x.Owner == *y.Owner)
	}
	return a == b
}

func checkRefusal(t *testing.T, err error) {
	t.Helper()
	var ae *args.ArgError
	if !errors.As(err, &ae) {
		t.Fatalf("refusal %T %v is not an *args.ArgError", err, err)
	}
	msg := err.Error()
	named := strings.Contains(msg, ae.Arg) || strings.Contains(msg, args.QuoteUntrusted(ae.Arg))
	if ae.Arg != "" && !named {
		t.Fatalf("message %q does not name argument %q", msg, ae.Arg)
	}
	for _, r := range msg {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			t.Fatalf("message carries a control or invalid character: %q", msg)
		}
	}
}

func FuzzNormalizeTransfer(f *testing.F) {
	for _, s := range []string{
		`{"to":"` + addrA + `","lamports":5}`,
		`{"lamports":"5","to":"` + addrA + `"}`,
		`{"to":"` + addrA + `","lamports":5e0,"confirm":"kR3nT9xQm2vP"}`,
		`{"to":"` + addrA + `","lamports":0.5}`,
		`{"to":"` + addrA + `","lamports":"18446744073709551615"}`,
		`{"to":"` + addrA + `","lamports":9007199254740993}`,
		`{"to":"` + addrA + `","lamports":-0}`,
		`{"to":"11111111111111111111111111111111","lamports":1}`,
		`{"to":"` + addrA + `","lamports":1,"lamports":2}`,
		`{"to":"` + addrA + `","lamports":1,"x":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		exact, err := args.DecodeArgs(data)
		if err != nil {
			return
		}
		a, err := ParseTransferArgs(exact)
		if err != nil {
			checkRefusal(t, err)
			return
		}
		checkParsed(t, wire.ToolTransferSOL, a)
		// The bridge may get float64s instead of json.Numbers; a call the exact
		// path accepts must mean the same there.
		var floats map[string]any
		if err := json.Unmarshal(data, &floats); err != nil {
			t.Fatalf("args.DecodeArgs accepted what encoding/json refuses: %v", err)
		}
		b, err := ParseTransferArgs(floats)
		if err != nil || b != a {
			t.Fatalf("float64 decoding gives %+v, %v; exact decoding %+v", b, err, a)
		}
	})
}

// FuzzParseArgs covers every tool's parser with the same properties.
func FuzzParseArgs(f *testing.F) {
	sig := `"` + solana.Signature{1, 2, 3, 250}.String() + `"`
	for tool, s := range map[string]string{
		wire.ToolGetBalance:       `{"address":"` + addrA + `"}`,
		wire.ToolGetTokenBalances: `{}`,
		wire.ToolGetQuote:         `{"input_mint":"` + wSOL + `","output_mint":"` + addrB + `","amount":"1000","slippage_bps":50}`,
		wire.ToolGetTokenInfo:     `{"mint":"` + addrB + `"}`,
		wire.ToolGetSpendStatus:   `{}`,
		wire.ToolGetTransaction:   `{"signature":` + sig + `}`,
		wire.ToolProposalStatus:   `{"proposal_id":"p-1","wait_seconds":45}`,
		wire.ToolSwap:             `{"input_mint":"` + wSOL + `","output_mint":"` + addrB + `","amount":1e3,"slippage_bps":"50","confirm":"kR3nT9xQm2vP"}`,
		wire.ToolTransferToken:    `{"mint":"` + addrB + `","to":"` + addrA + `","amount":"1000000"}`,
	} {
		for i, name := range wire.ToolNames() {
			if name == tool {
				f.Add(uint8(i), []byte(s))
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tool := wire.ToolNames()[int(which)%len(wire.ToolNames())]
		raw, err := args.DecodeArgs(data)
		if err != nil {
			return
		}
		a, err := authority.ParseArgs(tool, raw)
		if err != nil {
			checkRefusal(t, err)
			return
		}
		checkParsed(t, tool, a)
	})
}

// FuzzFingerprint: equal normal forms ⇔ equal fingerprints, for any strings,
// and the canonical form is JSON that decodes back to the map.
func FuzzFingerprint(f *testing.F) {
	f.Add("transfer_sol", "lamports", "5", "to", addrA, "lamports", "5")
	f.Add("transfer_sol", "lamports", "5", "to", addrA, "lamports", "6")
	f.Add("swap", "a", "\xff", "b", "", "a", "\xfe")
	f.Add("swap", "a\"", "b", "a", "\"b", "confirm", "x")
	f.Fuzz(func(t *testing.T, tool, k1, v1, k2, v2, k3, v3 string) {
		m1 := map[string]string{k1: v1, k2: v2}
		m2 := map[string]string{k1: v1, k3: v3}
		eq := func(a, b map[string]string) bool {
			a, b = maps.Clone(a), maps.Clone(b)
			delete(a, "confirm")
			delete(b, "confirm")
			return maps.Equal(a, b)
		}
		if eq(m1, m2) != (args.Fingerprint(tool, m1) == args.Fingerprint(tool, m2)) {
			t.Fatalf("%q vs %q: maps equal=%v, fingerprints %s %s", m1, m2, eq(m1, m2), args.Fingerprint(tool, m1), args.Fingerprint(tool, m2))
		}
		if fp := args.Fingerprint(tool, m1); !args.ValidFingerprint(fp) {
			t.Fatalf("malformed fingerprint %q", fp)
		}
		valid := true
		for k, v := range m1 {
			valid = valid && utf8.ValidString(k) && utf8.ValidString(v)
		}
		if valid {
			var back map[string]string
			if err := json.Unmarshal(args.CanonicalJSON(m1), &back); err != nil {
				t.Fatalf("canonical form %s is not JSON: %v", args.CanonicalJSON(m1), err)
			}
			want := maps.Clone(m1)
			delete(want, "confirm")
			if !maps.Equal(back, want) {
				t.Fatalf("canonical form %s decodes to %q, want %q", args.CanonicalJSON(m1), back, want)
			}
		}
	})
}
