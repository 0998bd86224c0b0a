package mcpbridge

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// answerSeeds are console answers as the console writes them and as it
// does not: other spellings, nulls, duplicates, wrong kinds, bad UTF-8,
// trailing bytes, white space.
func answerSeeds(t testing.TB) [][]byte {
	canned, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{
		canned,
		[]byte(`{"isError":false,"text":"ok","structured":{"a":1}}`),
		[]byte(`{"isError":true,"text":"denied: \u003cno\u003e \ud83d\ude00 \"q\"\n"}`),
		[]byte(` { "text" : "x" , "structured" :  { "b" : [ 1 , 2 ] } , "isError" : false } `),
		[]byte(`{"structured":null,"text":""}`),
		[]byte(`{"structured":[1],"text":"array"}`),
		[]byte(`{"structured":"s","text":"string"}`),
		[]byte(`{"structured":12345678901234567890123,"text":"big"}`),
		[]byte(`{"Text":"other case","IsError":true}`),
		[]byte(`{"text":"a","text":"twice"}`),
		[]byte(`{"isError":true,"isError":false}`),
		[]byte(`{"text":null,"isError":null}`),
		[]byte(`{"text":1}`),
		[]byte(`{"isError":"yes"}`),
		[]byte(`{"text":"bad \xff utf8"}`),
		[]byte(`{"text":"lone \ud800 and \udc00 halves"}`),
		[]byte(`{"text":"\u0000\/\b\f"}`),
		[]byte(`{"text":"x","other":{"deep":[true,null]}}`),
		[]byte(`{"text":"x"} trailing`),
		[]byte(`{"text":"x"}{"text":"y"}`),
		[]byte(`{"text":"x"`),
		[]byte(`[]`),
		[]byte(`null`),
		[]byte(``),
	}
}

// decodeAnswer decides every answer as json.Unmarshal does: the same
// result when it decodes, an error when json.Unmarshal gives one. It went
// red when the fast path took bytes after the object, kept the colon
// before the structured value, or took a text that is not a string.
func TestDecodeAnswerAgreesWithUnmarshal(t *testing.T) {
	fast := 0
	for _, a := range answerSeeds(t) {
		checkAnswerAgrees(t, a)
		var r relayedResult
		if fastAnswer(a, &r) {
			fast++
		}
	}
	// The answers the console writes take the fast path.
	if fast < 7 {
		t.Errorf("%d of the seeds took the fast path, want the console's 7", fast)
	}
}

func FuzzDecodeAnswer(f *testing.F) {
	for _, a := range answerSeeds(f) {
		f.Add(a)
	}
	f.Fuzz(checkAnswerAgrees)
}

func checkAnswerAgrees(t *testing.T, answer []byte) {
	t.Helper()
	var want, got relayedResult
	wantErr := json.Unmarshal(answer, &want)
	gotErr := decodeAnswer(answer, &got)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%q: error %v, json.Unmarshal says %v", answer, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if got.IsError != want.IsError || got.Text != want.Text || !bytes.Equal(got.Structured, want.Structured) || (got.Structured == nil) != (want.Structured == nil) {
		t.Fatalf("%q: decoded %+v, json.Unmarshal %+v", answer, got, want)
	}
}

// encodeCall writes what json.Marshal writes of a call, and fails where it
// fails. It went red without the HTML escaping of the arguments and with
// them left uncompacted.
func TestEncodeCallIsJSONMarshal(t *testing.T) {
	for _, args := range []string{
		`{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":10000000}`,
		` { "a" : [ 1 , 2 ] , "b" : "<&>\u2028" } `,
		`{"s":"` + "\u2028\u2029 raw" + `","n":1e400}`,
		"{\"bad\":\"\xff\"}",
		`{"a":1`,
		`[]`, `null`, `7`, ``,
	} {
		checkEncodeCall(t, "claude-code <x>", "1.0 & 2", "transfer_sol", []byte(args), "")
		checkEncodeCall(t, "claude-code <x>", "1.0 & 2", "transfer_sol", []byte(args), processSecret)
	}
	checkEncodeCall(t, "", "", "", nil, "")
}

func FuzzEncodeCall(f *testing.F) {
	f.Add("claude", "1", "transfer_sol", []byte(`{"to":"x","lamports":1}`), "")
	f.Add("<\u2028>\xff", "\"", "", []byte(" { \"a\" : \"<&>\" } "), processSecret)
	f.Fuzz(func(t *testing.T, name, version, tool string, args []byte, process string) {
		checkEncodeCall(t, name, version, tool, args, process)
	})
}

func checkEncodeCall(t *testing.T, name, version, tool string, args []byte, process string) {
	t.Helper()
	req := wire.CallRequest{Client: wire.ClientInfo{Name: name, Version: version}, Tool: tool, Arguments: args, Process: process}
	want, wantErr := json.Marshal(req)
	got, err := encodeCall(req)
	if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, want)) {
		t.Fatalf("%+v: %s, %v; json.Marshal: %s, %v", req, got, err, want, wantErr)
	}
}
