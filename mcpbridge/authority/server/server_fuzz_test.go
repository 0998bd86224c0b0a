package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzDecodeCallRequest: whatever a peer sends, decoding never panics, and
// what it accepts survives a round trip unchanged and names a tool.
func FuzzDecodeCallRequest(f *testing.F) {
	for _, seed := range []string{
		`{"client":{"name":"c","version":"1"},"tool":"transfer_sol","arguments":{"to":"x","lamports":5}}`,
		`{"tool":"get_balance","arguments":null}`,
		`{"tool":"","arguments":{}}`,
		`{"tool":"t","extra":1}`,
		`{"tool":"t"} {"tool":"u"}`,
		`[]`, `null`, ``, `{"tool":"t","arguments":"\u0000"}`,
		`{"tool":"t","arguments":{"a":1e999}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := DecodeCallRequest(bytes.NewReader(data))
		if err != nil {
			if !strings.Contains(err.Error(), "request") {
				t.Fatalf("error does not say what was wrong: %v", err)
			}
			return
		}
		if req.Tool == "" {
			t.Fatal("accepted a request without a tool")
		}
		again, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("accepted request does not re-encode: %v", err)
		}
		back, err := DecodeCallRequest(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("re-encoded request refused: %v (%s)", err, again)
		}
		if back.Tool != req.Tool || back.Client != req.Client || !bytes.Equal(canonical(back.Arguments), canonical(req.Arguments)) {
			t.Fatalf("round trip changed the request: %+v vs %+v", back, req)
		}
	})
}

// canonical normalises JSON for comparison: absent arguments encode as
// null, and two spellings of one value compare equal (json.Marshal escapes
// "&" as \u0026; numbers keep their text).
func canonical(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return []byte("null")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return raw
		}
		return b.Bytes()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return raw
	}
	return bytes.TrimSpace(b.Bytes())
}
