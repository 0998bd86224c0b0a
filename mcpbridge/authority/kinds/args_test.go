package kinds

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/wire"
)

const (
	addrA = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
	addrB = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	wSOL  = "So11111111111111111111111111111111111111112"
)

func TestParseTransferArgsAccepts(t *testing.T) {
	cases := []struct {
		name     string
		lamports any
		want     uint64
	}{
		{"json integer", float64(5), 5},
		{"digit string", "5", 5},
		{"json.Number", json.Number("5"), 5},
		{"json.Number exponent of an integer", json.Number("5e0"), 5},
		{"json.Number 1e9", json.Number("1e9"), 1_000_000_000},
		{"json.Number trailing zero fraction", json.Number("5.000"), 5},
		{"json.Number 1.5e1", json.Number("1.5e1"), 15},
		{"float 1e9", 1e9, 1_000_000_000},
		{"largest safe JSON integer", float64(wire.MaxJSONSafeInteger), wire.MaxJSONSafeInteger},
		{"largest safe json.Number", json.Number("9007199254740991"), wire.MaxJSONSafeInteger},
		{"max uint64 as string", "18446744073709551615", math.MaxUint64},
		{"go int", 7, 7},
		{"go uint64", uint64(math.MaxUint64), math.MaxUint64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseTransferArgs(map[string]any{"to": addrA, "lamports": c.lamports})
			if err != nil {
				t.Fatalf("ParseTransferArgs: %v", err)
			}
			if a.Lamports != c.want || a.To.String() != addrA || a.Confirm != "" {
				t.Fatalf("got %+v, want lamports %d to %s", a, c.want, addrA)
			}
		})
	}
}

func TestParseTransferArgsRefuses(t *testing.T) {
	ok := func() map[string]any { return map[string]any{"to": addrA, "lamports": "5"} }
	with := func(k string, v any) map[string]any { m := ok(); m[k] = v; return m }
	without := func(k string) map[string]any { m := ok(); delete(m, k); return m }
	cases := []struct {
		name    string
		raw     map[string]any
		wantArg string
		wantMsg []string
	}{
		{"fraction", with("lamports", 0.5), "lamports", []string{"lamports must be a whole number of lamports", "1 SOL = 1000000000 lamports", "got 0.5"}},
		{"fraction json.Number", with("lamports", json.Number("1.5")), "lamports", []string{"whole number", "got 1.5"}},
		{"tiny fraction json.Number", with("lamports", json.Number("1.0000000000000000001")), "lamports", []string{"whole number"}},
		{"zero", with("lamports", float64(0)), "lamports", []string{"from 1 to", "got 0"}},
		{"zero string", with("lamports", "0"), "lamports", []string{"got \"0\""}},
		{"negative", with("lamports", float64(-5)), "lamports", []string{"got -5"}},
		{"negative json.Number", with("lamports", json.Number("-5")), "lamports", []string{"got -5"}},
		{"negative go int", with("lamports", -5), "lamports", []string{"got -5"}},
		{"negative string", with("lamports", "-5"), "lamports", []string{"got \"-5\""}},
		{"plus sign", with("lamports", "+5"), "lamports", nil},
		{"leading space", with("lamports", " 5"), "lamports", nil},
		{"trailing newline", with("lamports", "5\n"), "lamports", []string{`"5\n"`}},
		{"hex", with("lamports", "0x10"), "lamports", nil},
		{"leading zero", with("lamports", "05"), "lamports", nil},
		{"exponent in a string", with("lamports", "1e9"), "lamports", nil},
		{"decimal in a string", with("lamports", "5.0"), "lamports", nil},
		{"empty string", with("lamports", ""), "lamports", nil},
		{"unicode digits", with("lamports", "٥"), "lamports", nil},
		{"2^53 as JSON number", with("lamports", float64(1<<53)), "lamports", []string{"pass it as a string of digits"}},
		{"2^53+1 as json.Number", with("lamports", json.Number("9007199254740993")), "lamports", []string{"pass it as a string"}},
		{"1e20 as json.Number", with("lamports", json.Number("1e20")), "lamports", []string{"pass it as a string"}},
		{"huge exponent", with("lamports", json.Number("1e999999999999")), "lamports", []string{"pass it as a string"}},
		{"over uint64 as string", with("lamports", "18446744073709551616"), "lamports", []string{"18446744073709551615"}},
		{"bool", with("lamports", true), "lamports", []string{"got true"}},
		{"object", with("lamports", map[string]any{"v": 1}), "lamports", []string{"got an object"}},
		{"missing lamports", without("lamports"), "lamports", []string{"missing required argument lamports"}},
		{"null lamports", with("lamports", nil), "lamports", []string{"missing required argument lamports"}},
		{"missing to", without("to"), "to", []string{"missing required argument to"}},
		{"bad address", with("to", "not-an-address"), "to", []string{"to must be a base58 Solana address", `got "not-an-address"`}},
		{"address too long", with("to", addrA+"1"), "to", nil},
		{"address with 0", with("to", "0"+addrA[1:]), "to", nil},
		{"address as number", with("to", float64(12)), "to", []string{"got 12"}},
		{"empty address", with("to", ""), "to", nil},
		{"unknown field", with("amount", "5"), "amount", []string{`unknown argument "amount" for transfer_sol; accepted arguments: to, lamports, confirm`}},
		{"case matters", with("Lamports", "5"), "Lamports", []string{"accepted arguments"}},
		{"short confirm", with("confirm", "abc"), "confirm", []string{"confirm must be the 12-character token", `got "abc"`}},
		{"confirm outside alphabet", with("confirm", "kR3nT9xQm2v0"), "confirm", nil},
		{"confirm as number", with("confirm", float64(123456789012)), "confirm", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseTransferArgs(c.raw)
			if err == nil {
				t.Fatalf("accepted %v as %+v", c.raw, a)
			}
			var ae *args.ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T %v is not an *args.ArgError", err, err)
			}
			if ae.Arg != c.wantArg || ae.Tool != wire.ToolTransferSOL {
				t.Errorf("error names tool %q arg %q, want %q %q: %v", ae.Tool, ae.Arg, wire.ToolTransferSOL, c.wantArg, err)
			}
			if !strings.Contains(err.Error(), c.wantArg) {
				t.Errorf("message does not name %s: %v", c.wantArg, err)
			}
			for _, w := range c.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestParseTransferArgsConfirm(t *testing.T) {
	for _, absent := range []any{nil, ""} {
		a, err := ParseTransferArgs(map[string]any{"to": addrA, "lamports": "5", "confirm": absent})
		if err != nil || a.Confirm != "" {
			t.Fatalf("confirm %#v: got %+v, %v; want a proposal", absent, a, err)
		}
	}
	a, err := ParseTransferArgs(map[string]any{"to": addrA, "lamports": "5", "confirm": "kR3nT9xQm2vP"})
	if err != nil || a.ConfirmToken() != "kR3nT9xQm2vP" {
		t.Fatalf("got %+v, %v", a, err)
	}
	if _, ok := a.Normalized()["confirm"]; ok {
		t.Fatal("normalised form contains confirm")
	}
}

func TestParseSwapArgs(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{"input_mint": wSOL, "output_mint": addrB, "amount": "1000", "slippage_bps": float64(50)}
	}
	a, err := ParseSwapArgs(base())
	if err != nil {
		t.Fatal(err)
	}
	want := SwapArgs{InputMint: solana.MustPublicKeyFromBase58(wSOL), OutputMint: solana.MustPublicKeyFromBase58(addrB), Amount: 1000, SlippageBps: 50}
	if a != want {
		t.Fatalf("got %+v want %+v", a, want)
	}
	if q := a.Quote(); q.Fingerprint() == a.Fingerprint() || q.Normalized()["amount"] != "1000" {
		t.Fatalf("quote %+v: a quote must share the terms but not the fingerprint of a swap", q)
	}
	bad := []struct {
		k       string
		v       any
		wantArg string
	}{
		{"output_mint", wSOL, "output_mint"},
		{"slippage_bps", float64(0), "slippage_bps"},
		{"slippage_bps", float64(10001), "slippage_bps"},
		{"slippage_bps", 50.5, "slippage_bps"},
		{"slippage_bps", "1e2", "slippage_bps"},
		{"amount", float64(-1), "amount"},
		{"input_mint", "So1111111111111111111111111111111111111111I", "input_mint"},
		{"lamports", "5", "lamports"},
	}
	for _, b := range bad {
		raw := base()
		raw[b.k] = b.v
		_, err := ParseSwapArgs(raw)
		var ae *args.ArgError
		if !errors.As(err, &ae) || ae.Arg != b.wantArg {
			t.Errorf("%s=%#v: got %v, want an error naming %s", b.k, b.v, err, b.wantArg)
		}
	}
	raw := base()
	raw["slippage_bps"] = "10000"
	if a, err := ParseSwapArgs(raw); err != nil || a.SlippageBps != 10000 {
		t.Errorf("slippage_bps \"10000\": %+v %v", a, err)
	}
}

// An exact but unsafe JSON number (past 2^53) reaches the kind's parser
// as the exact json.Number DecodeArgs keeps, and is still refused there:
// lamports come as a string of digits past that.
func TestAnExactButUnsafeJSONNumberIsRefused(t *testing.T) {
	m, err := args.DecodeArgs([]byte(`{"to":"` + addrA + `","lamports":12345678901234567}`))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := m["lamports"].(json.Number); !ok || n != "12345678901234567" {
		t.Fatalf("lamports decoded as %#v, want the exact json.Number", m["lamports"])
	}
	if _, err := ParseTransferArgs(m); err == nil || !strings.Contains(err.Error(), "string") {
		t.Fatalf("an exact but unsafe JSON number must still be refused: %v", err)
	}
}

func TestErrorsDoNotEchoControlCharacters(t *testing.T) {
	evil := "\x1b[2J\x1b[31mMAINNET\u202e" + strings.Repeat("A", 500)
	_, err := ParseTransferArgs(map[string]any{"to": evil, "lamports": "5"})
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\x1b\u202e") || len(msg) > 300 {
		t.Fatalf("error echoes untrusted text raw or in full (%d bytes): %q", len(msg), msg)
	}
}

func TestParseTransferTokenArgs(t *testing.T) {
	a, err := ParseTransferTokenArgs(map[string]any{"mint": addrB, "to": addrA, "amount": "1000000"})
	if err != nil || a.Mint.String() != addrB || a.To.String() != addrA || a.Amount != 1_000_000 || a.Confirm != "" {
		t.Fatalf("%+v %v", a, err)
	}
	if got := a.Normalized(); got["mint"] != addrB || got["to"] != addrA || got["amount"] != "1000000" || len(got) != 3 {
		t.Fatalf("normalized %v", got)
	}
	for _, c := range []struct {
		raw     map[string]any
		wantArg string
	}{
		{map[string]any{"to": addrA, "amount": 1}, "mint"},
		{map[string]any{"mint": addrB, "amount": 1}, "to"},
		{map[string]any{"mint": addrB, "to": addrA}, "amount"},
		{map[string]any{"mint": addrB, "to": addrA, "amount": 0}, "amount"},
		{map[string]any{"mint": addrB, "to": addrA, "amount": "1.5"}, "amount"},
		{map[string]any{"mint": addrB, "to": addrA, "amount": -3}, "amount"},
		{map[string]any{"mint": "So11111111111111111111111111111111111111112", "to": addrA, "amount": 1}, "mint"},
		{map[string]any{"mint": addrB, "to": "0xdead", "amount": 1}, "to"},
		{map[string]any{"mint": addrB, "to": addrA, "amount": 1, "decimals": 6}, "decimals"},
	} {
		_, err := authority.ParseArgs(wire.ToolTransferToken, c.raw)
		var ae *args.ArgError
		if !errors.As(err, &ae) || ae.Arg != c.wantArg || ae.Tool != wire.ToolTransferToken {
			t.Errorf("%v: err %v, want one naming %q", c.raw, err, c.wantArg)
		}
	}
}
