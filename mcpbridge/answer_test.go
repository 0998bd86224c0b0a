package mcpbridge

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
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
