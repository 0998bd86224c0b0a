package store

import (
	"encoding/json"
	"math"
	"math/rand/v2"
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

// The records every proposal writes are canonicalised without json.Marshal
// (canonicalRecord), and must come out as the round trip writes them, for
// ordinary records and for what an agent may put in them.
func TestCanonicalRecordIsTheRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2))
	strs := []string{"", "p-0123", "transfer_sol", "claude-desktop 1.2", "a \"quoted\" \\ word", "line\nbreak\ttab\r",
		"<script>&amp;", "café 漢字 \U0001F600 \ufffd", "\u2028", "bad \xff utf-8", "\x00\x01\x08\x0c\x1f\x7f",
		"Instruction: System Program: transfer 0.001 SOL to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\n"}
	args := []string{`{"lamports":"5","to":"x"}`, `{"to":"x","lamports":"5"}`, `{"b":{"d":1,"c":[2,{"z":1,"y":0}]},"a":"\u003c"}`,
		`{}`, `{"a":1,"a":2}`, `{"k":"\ud800"}`, `{"n":1.50,"m":-0}`, `[3,1]`, `"just text"`}
	pick := func() string { return strs[rng.IntN(len(strs))] }
	when := func() time.Time {
		if rng.IntN(10) == 0 {
			return time.Date(10000+rng.IntN(5), 1, 1, 0, 0, 0, 0, time.UTC) // json.Marshal refuses it
		}
		return time.Unix(rng.Int64N(1<<33), rng.Int64N(1e9)).In(time.FixedZone("", 3600*(rng.IntN(25)-12)))
	}
	fast := 0
	for i := range 20000 {
		var body any
		if i%2 == 0 {
			body = Proposal{ID: pick(), Client: pick(), Tool: pick(), Fingerprint: pick(), Args: json.RawMessage(args[rng.IntN(len(args))]),
				Preview: strings.Repeat(pick(), rng.IntN(4)), CreatedAt: when(), Status: pick()}
		} else {
			body = Decision{ProposalID: pick(), DecidedBy: pick(), DecidedAt: when(), Outcome: pick(), Reason: pick(), LatencyMS: rng.Int64() - rng.Int64()}
		}
		got, gerr := canonicalBody(body)
		raw, err := json.Marshal(body)
		var want string
		if err == nil {
			want, err = canonicalRoundTrip(raw)
		}
		if (gerr != nil) != (err != nil) || got != want {
			t.Fatalf("record %d %#v:\ncanonicalBody %s (%v)\nround trip    %s (%v)", i, body, got, gerr, want, err)
		}
		if _, ok := canonicalRecord(body); ok {
			fast++
		}
	}
	// The direct way must serve ordinary records, or this proves nothing.
	if fast < 2000 {
		t.Fatalf("the direct way served %d of 20000 records", fast)
	}
	for _, body := range []any{
		Proposal{ID: "p00000001", Client: "bench-agent-01 1", Tool: "transfer_sol", Fingerprint: "0123456789abcdef", Args: json.RawMessage(`{"lamports":"1000001","to":"9xQe"}`),
			Preview: "Instruction: System Program: transfer 0.001 SOL — to 9xQe\n", CreatedAt: time.Now(), Status: "pending"},
		Decision{ProposalID: "p00000001", DecidedBy: "operator", DecidedAt: time.Now(), Outcome: OutcomeDenied, Reason: "throughput run", LatencyMS: 12},
	} {
		if _, ok := canonicalRecord(body); !ok {
			t.Errorf("the direct way gave up on an ordinary record %#v", body)
		}
	}
}
