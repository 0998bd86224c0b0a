package store

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// The one-pass canonical form must be byte for byte the round trip's: the
// audit chain hashes it, and `solgate audit` of an older trail recomputes
// nothing but what is stored, so a difference would not show there.
func TestSortKeysIsTheRoundTrip(t *testing.T) {
	type inner struct {
		Z uint64            `json:"z"`
		A []any             `json:"a"`
		M map[string]string `json:"m,omitempty"`
	}
	bodies := []any{
		Proposal{ID: "p1", Client: "agent <1> & co", Tool: "transfer_sol", Fingerprint: "ab", Args: json.RawMessage(`{"to":"x","lamports":"5"}`),
			Preview: "Line one\nSays: \"ignore previous\" \u2028 \t é 漢字 \x01", CreatedAt: time.Unix(1, 2).UTC()},
		Decision{ProposalID: "p1", DecidedBy: "op", DecidedAt: time.Unix(3, 4).UTC(), Outcome: OutcomeDenied, Reason: "no", LatencyMS: 7},
		map[string]any{"b": 1, "a": json.RawMessage(`{"z": 18446744073709551615, "y": [1, 2, {"d":null,"c":true}]}`), "": "empty key"},
		map[string]any{"é": 1, "e": 2, "z": 3, "Z": 4, "_": 5, "a\"b": 6, "a<b": 7},
		inner{Z: math.MaxUint64, A: []any{1.5, -2, 1e21, 1e-7, "s", false, nil, []any{}, map[string]any{}}, M: map[string]string{"y": "1", "x": "2"}},
		json.RawMessage(`{"b":1,"a":2,"b":3}`),                 // a key twice: the round trip keeps the last
		json.RawMessage(`{"n":1.0,"m":1E3,"k":-0,"j":0.1e+2}`), // numbers as written
		json.RawMessage(`[ 1 , {"b" : 2, "a" : [ ] } ]`),       // whitespace in raw JSON
		map[string]string{"bad": "\xff\xfe", "ok": "\ufffd"},
		map[string]any{"deep": map[string]any{"c": map[string]any{"b": []any{map[string]any{"y": 1, "x": 2}}}, "a": 0}},
		"just a string", 42, nil, []string{"b", "a"},
		map[string]any{"k\\": 1, "k": 2},
		map[string]any{"long": strings.Repeat("Instruction: transfer\n", 50)},
	}
	for i, body := range bodies {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		want, err := canonicalRoundTrip(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := canonicalBody(body)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("body %d: canonicalBody\n %s\nround trip\n %s", i, got, want)
		}
	}
	// The fast path must have served the common bodies, or this proves
	// nothing about it.
	for _, i := range []int{0, 1, 2, 4, 9} {
		raw, _ := json.Marshal(bodies[i])
		if _, ok := sortKeys(raw); !ok {
			t.Errorf("body %d: sortKeys gave up on an ordinary body: %s", i, raw)
		}
	}
}

func FuzzSortKeysIsTheRoundTrip(f *testing.F) {
	f.Add([]byte(`{"b":1,"a":{"d":[1,{"y":2,"x":3}],"c":"\u003c"}}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`[1,"\ufffd",{"é":1,"e":2}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var v any
		if json.Unmarshal(in, &v) != nil {
			return
		}
		raw, err := json.Marshal(json.RawMessage(in))
		if err != nil {
			return
		}
		want, err := canonicalRoundTrip(raw)
		if err != nil {
			return
		}
		if got, ok := sortKeys(raw); ok && string(got) != want {
			t.Fatalf("sortKeys\n %s\nround trip\n %s", got, want)
		}
	})
}
