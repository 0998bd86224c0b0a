package authority

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// An answer is encoded as json.Marshal would: the bridge relays the
// console's bytes to the model as they are. Random answers built from what
// answers hold, and from what they might (strings needing escapes, invalid
// UTF-8, named types, floats, times), must come out identical.
func TestMarshalCallResultIsJSONMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	strs := []string{"", "pending_approval", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "a \"quoted\" word", `back\slash`,
		"line\nbreak\ttab\r", "<script>&amp;</script>", "caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf-8", "\x00\x01\x1f\x7f",
		"CONFIRMATION REQUIRED — nothing has been signed or sent.\n", strings.Repeat("x", 300)}
	type named string
	var value func(depth int) any
	value = func(depth int) any {
		switch n := rng.IntN(16); {
		case n < 4:
			return strs[rng.IntN(len(strs))]
		case n == 4:
			return rng.IntN(2) == 0
		case n == 5:
			return rng.Int64() - rng.Int64()
		case n == 6:
			return rng.Uint64()
		case n == 7:
			return []any{int(rng.Int32()), uint32(rng.Uint32()), int32(-rng.Int32()), uint(rng.Uint32()), nil}
		case n == 8:
			s := make([]string, rng.IntN(4))
			for i := range s {
				s[i] = strs[rng.IntN(len(strs))]
			}
			if rng.IntN(4) == 0 {
				s = nil
			}
			return s
		case n == 9 && depth < 3:
			m := map[string]string{}
			for range rng.IntN(4) {
				m[strs[rng.IntN(len(strs))]] = strs[rng.IntN(len(strs))]
			}
			if rng.IntN(5) == 0 {
				m = nil
			}
			return m
		case n == 10 && depth < 3:
			m := map[string]any{}
			for range rng.IntN(5) {
				m[strs[rng.IntN(len(strs))]] = value(depth + 1)
			}
			if rng.IntN(5) == 0 {
				m = nil
			}
			return m
		case n == 11:
			return named(strs[rng.IntN(len(strs))])
		case n == 12:
			return rng.Float64() * 1e6
		case n == 13:
			return time.Unix(rng.Int64N(1<<32), rng.Int64N(1e9)).UTC()
		case n == 14:
			return json.Number("12345678901234567890")
		default:
			return nil
		}
	}
	for i := range 20000 {
		r := wire.CallResult{IsError: rng.IntN(2) == 0, Text: strs[rng.IntN(len(strs))]}
		if rng.IntN(6) > 0 {
			r.Structured = map[string]any{}
			keys := []string{"status", "proposal_id", "to", "lamports", "effects", "flags", "<odd>", "key\nline"}
			for range rng.IntN(8) {
				k := keys[rng.IntN(len(keys)-2)]
				if rng.IntN(30) == 0 {
					k = keys[len(keys)-2+rng.IntN(2)]
				}
				r.Structured[k] = value(0)
			}
		}
		want, werr := json.Marshal(r)
		got, gerr := marshalCallResult(r)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("answer %d: %#v\ngot  %s (%v)\nwant %s (%v)", i, r, got, gerr, want, werr)
		}
	}
}

// BenchmarkMarshalCallResult is a proposal's answer.
func BenchmarkMarshalCallResult(b *testing.B) {
	r := wire.CallResult{Text: strings.Repeat("Instruction: System Program: transfer 0.001 SOL to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\n", 12),
		Structured: map[string]any{"status": "pending_approval", "proposal_id": "p-0123456789", "expires_at": "2026-12-01T22:00:00Z",
			"spend_lamports": "1005000", "network": "localnet", "flags": []string{}, "to": "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
			"lamports": "1000000", "fee_lamports": "5000", "network_fee_lamports": "5000", "priority_fee_lamports": "0",
			"priority_fee_source": "none", "priority_fee_capped": false, "compute_unit_limit": uint32(450), "compute_unit_price_micro_lamports": "0",
			"effects": map[string]any{"sol_out_lamports": "1005000", "sol_in_lamports": "0", "network_fee_lamports": "5000", "priority_fee_lamports": "0",
				"rent_paid_lamports": "0", "rent_refunded_lamports": "0", "tokens_out": map[string]string{}, "tokens_in": map[string]string{},
				"accounts_created": 0, "accounts_closed": 0, "changes_of_control": []string{}, "durable_nonce": false}}}
	for _, bc := range []struct {
		name string
		fn   func() ([]byte, error)
	}{{"json.Marshal", func() ([]byte, error) { return json.Marshal(r) }}, {"marshalCallResult", func() ([]byte, error) { return marshalCallResult(r) }}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
