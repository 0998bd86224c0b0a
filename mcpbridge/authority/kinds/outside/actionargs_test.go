package outside

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/authority/args"
)

func TestSolanaActionArgsNormaliseToOneFingerprint(t *testing.T) {
	parse := func(js string) SolanaActionArgs {
		t.Helper()
		raw, err := args.DecodeArgs([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		a, err := ParseSolanaActionArgs(raw)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return a
	}
	a := parse(`{"url": " https://x.example/api/tip ", "input": {"b": "2", "amount": 5000}}`)
	b := parse(`{"url": "https://x.example/api/tip", "input": {"amount": "5000", "b": "2"}, "confirm": "kR3nT9xQm2vP"}`)
	if a.Fingerprint() != b.Fingerprint() {
		t.Fatalf("same call, two fingerprints: %v / %v", a.Normalized(), b.Normalized())
	}
	if got := a.Normalized()["input"]; got != `{"amount":"5000","b":"2"}` {
		t.Fatalf("input normalised to %s", got)
	}
	// No input and an empty one are the same call; another value is not.
	if parse(`{"url": "https://x.example/a"}`).Fingerprint() != parse(`{"url": "https://x.example/a", "input": {}}`).Fingerprint() {
		t.Fatal("{} and no input differ")
	}
	if parse(`{"url": "https://x.example/a", "input": {"amount": "1.0"}}`).Fingerprint() == parse(`{"url": "https://x.example/a", "input": {"amount": "1"}}`).Fingerprint() {
		t.Fatal("different input values share a fingerprint")
	}
	// A list is kept in order; one value given alone or as a list of one
	// asks the server the same, so it is the same call.
	if got := parse(`{"url": "https://x.example/a", "input": {"jars": ["b", "a"]}}`).Normalized()["input"]; got != `{"jars":["b","a"]}` {
		t.Fatalf("list normalised to %s", got)
	}
	if parse(`{"url": "https://x.example/a", "input": {"jars": ["a"]}}`).Fingerprint() != parse(`{"url": "https://x.example/a", "input": {"jars": "a"}}`).Fingerprint() {
		t.Fatal(`"a" and ["a"] differ`)
	}
	if parse(`{"url": "https://x.example/a", "input": {"jars": ["a", "b"]}}`).Fingerprint() == parse(`{"url": "https://x.example/a", "input": {"jars": "a,b"}}`).Fingerprint() {
		t.Fatal(`["a","b"] and "a,b" share a fingerprint`)
	}
	// A number is passed as written: 1e3 is not turned into 1000.
	if got := parse(`{"url": "https://x.example/a", "input": {"n": 1e3}}`).Input["n"]; len(got) != 1 || got[0] != "1e3" {
		t.Fatalf("number passed as %q", got)
	}
}

func TestSolanaActionArgsRefused(t *testing.T) {
	for _, tc := range []struct {
		args map[string]any
		arg  string
		says string
	}{
		{map[string]any{"url": "http://actions.example.com/api"}, "url", "plain http is accepted on loopback only"},
		{map[string]any{"url": "ftp://x"}, "url", "an origin is https://host[:port]"},
		{map[string]any{"url": 5}, "url", "url must be a string"},
		{map[string]any{"url": "https://x.example/a", "input": "amount=5"}, "input", "input must be an object"},
		{map[string]any{"url": "https://x.example/a", "input": map[string]any{"a": map[string]any{"b": "1"}}}, "input", "input.a must be a string, a number, a boolean or a list of strings"},
		{map[string]any{"url": "https://x.example/a", "input": map[string]any{"a": []any{"1", 2}}}, "input", "each of its values must be a string"},
		{map[string]any{"url": "https://x.example/a", "input": map[string]any{"a": []any{"x\x1b[2J"}}}, "input", "printable text"},
		{map[string]any{"url": "https://x.example/a", "input": map[string]any{"a": make([]any, 33)}}, "input", "at most 32 are accepted"},
		{map[string]any{"url": "https://x.example/a", "input": map[string]any{"a": "x\x1b[2J"}}, "input", "printable text"},
		{map[string]any{"url": "https://x.example/a", "input": map[string]any{"a b": "1"}}, "input", "not a parameter name"},
		{map[string]any{"url": "https://x.example/a", "input": map[string]any{"a": strings.Repeat("9", 1025)}}, "input", "at most 1024 bytes"},
	} {
		raw, _ := json.Marshal(tc.args)
		m, err := args.DecodeArgs(raw)
		if err != nil {
			t.Fatal(err)
		}
		wantArgError(t, "solana_action", m, tc.arg, tc.says)
	}
}
