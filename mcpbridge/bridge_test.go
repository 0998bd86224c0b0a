package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// listenConsoleSocket listens on a fresh Unix socket in a short temporary
// directory (socket paths are limited to about 100 bytes, too few for a
// test's TempDir), removed when the test ends.
func listenConsoleSocket(tb testing.TB) (net.Listener, string) {
	tb.Helper()
	dir, err := os.MkdirTemp("", "sgcs")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "console.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	return ln, sock
}

// serveFakeConsole serves mux on ln, with presence requests held open as the
// console holds them, until the test ends.
func serveFakeConsole(tb testing.TB, ln net.Listener, mux *http.ServeMux) {
	mux.HandleFunc(wire.PresencePath, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
}

// writeAnswer sends a call's answer with its length, as the console sends
// its answers (authority/server), not chunked.
func writeAnswer(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// fakeConsole serves the socket API on a fresh socket, answering each call
// with answer's bytes after delay, and holds presence requests open: the
// console's side at no cost worth measuring, so that a benchmark of the
// bridge measures the bridge, and so that a test can send what a console
// would not.
func fakeConsole(tb testing.TB, answer func(wire.CallRequest) []byte, delay time.Duration) string {
	tb.Helper()
	return fakeConsoleOfContract(tb, "", answer, delay)
}

// fakeConsoleOfContract is fakeConsole saying, as a real console does, that
// its answers are held to contract (wire.OutputContractHeader; "" says
// nothing, as a console from before the header).
func fakeConsoleOfContract(tb testing.TB, contract string, answer func(wire.CallRequest) []byte, delay time.Duration) string {
	tb.Helper()
	ln, sock := listenConsoleSocket(tb)
	mux := http.NewServeMux()
	mux.HandleFunc(wire.CallPath, func(w http.ResponseWriter, r *http.Request) {
		var req wire.CallRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if delay > 0 {
			// Stands for the console's work on other agents' calls.
			time.Sleep(delay)
		}
		if contract != "" {
			w.Header().Set(wire.OutputContractHeader, contract)
		}
		writeAnswer(w, answer(req))
	})
	serveFakeConsole(tb, ln, mux)
	return sock
}

// stdioPeer is an MCP client's end of a bridge's stdio, speaking raw lines.
type stdioPeer struct {
	in  *io.PipeWriter
	out *bufio.Reader
}

func startBridge(tb testing.TB, sock string) *stdioPeer {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- NewBridge(sock, "bench").ServeStdio(ctx, inR, outW, io.Discard) }()
	// The answers nobody reads any more must not hold the bridge's writes.
	tb.Cleanup(func() { inW.Close(); outR.Close(); cancel(); <-done })
	p := &stdioPeer{in: inW, out: bufio.NewReader(outR)}
	p.roundTrip(tb, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	p.send(tb, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *stdioPeer) send(tb testing.TB, line string) {
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		tb.Fatal(err)
	}
}

func (p *stdioPeer) roundTrip(tb testing.TB, line string) string {
	p.send(tb, line)
	got, err := p.out.ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

// cannedAnswer answers every call with the same bytes.
func cannedAnswer(raw []byte) func(wire.CallRequest) []byte {
	return func(wire.CallRequest) []byte { return raw }
}

// toolResult is one tools/call answer line as an MCP client reads it.
type toolResult struct {
	Result struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (p *stdioPeer) call(t *testing.T, tool, args string) toolResult {
	t.Helper()
	line := p.roundTrip(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
	var res toolResult
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("answer line is not JSON: %v\n%s", err, line)
	}
	if res.Error != nil {
		t.Fatalf("protocol error: %s", res.Error.Message)
	}
	return res
}

// answerWith is a console answer whose structured content is structured.
func answerWith(t *testing.T, isError bool, text, structured string) []byte {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"isError": isError, "text": text, "structured": json.RawMessage(structured)})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// The bridge relays the console's answer: its text, then its structured
// content both as structuredContent and serialised in a second text block,
// and the values exactly as the console wrote them. An integer above 2^53
// used to come out rounded, as the bridge decoded it into a float64 and
// encoded it again.
func TestBridgeRelaysTheConsolesAnswer(t *testing.T) {
	pending, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		t.Fatal(err)
	}
	var console struct {
		Text       string          `json:"text"`
		Structured json.RawMessage `json:"structured"`
	}
	if err := json.Unmarshal(pending, &console); err != nil {
		t.Fatal(err)
	}
	const bigSlot = `{"found":true,"signature":"5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW","slot":9007199254740993}`
	sock := fakeConsole(t, func(req wire.CallRequest) []byte {
		if req.Tool == wire.ToolGetTransaction {
			return answerWith(t, false, "landed", bigSlot)
		}
		return pending
	}, 0)
	p := startBridge(t, sock)

	res := p.call(t, wire.ToolTransferSOL, `{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":10000000}`)
	if res.Result.IsError || len(res.Result.Content) != 2 {
		t.Fatalf("want a result with two text blocks, got %+v", res.Result)
	}
	if got := res.Result.Content[0].Text; got != console.Text {
		t.Errorf("text block: got %q, want the console's text %q", got, console.Text)
	}
	if !sameJSON(t, res.Result.StructuredContent, console.Structured) {
		t.Errorf("structuredContent %s is not the console's %s", res.Result.StructuredContent, console.Structured)
	}
	if !sameJSON(t, []byte(res.Result.Content[1].Text), console.Structured) {
		t.Errorf("the second text block %s is not the console's structured content %s", res.Result.Content[1].Text, console.Structured)
	}

	res = p.call(t, wire.ToolGetTransaction, `{"signature":"5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"}`)
	for where, raw := range map[string]string{"structuredContent": string(res.Result.StructuredContent), "text block": res.Result.Content[len(res.Result.Content)-1].Text} {
		if !strings.Contains(raw, `"slot":9007199254740993`) {
			t.Errorf("%s changed the slot 9007199254740993: %s", where, raw)
		}
	}
}

// sameJSON compares two JSON texts as values, numbers by their digits.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	decode := func(raw []byte) any {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("not JSON: %v: %s", err, raw)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// A console that says its answers are held to the bridge's own output
// contract is not checked again: its tests judged every answer with the
// same check. One of another contract, and one that says nothing, is
// checked on every answer.
func TestBridgeChecksTheAnswersOfAnotherContract(t *testing.T) {
	const args = `{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":10000000}`
	malformed := answerWith(t, false, "looks fine", `{"status":"approved_by_model","proposal_id":"p_1"}`)
	for _, tc := range []struct {
		name, contract string
		checked        bool
	}{
		{"no contract said", "", true},
		{"another contract", strings.Repeat("0", 64), true},
		{"the bridge's own contract", wire.OutputContract(), false},
	} {
		p := startBridge(t, fakeConsoleOfContract(t, tc.contract, cannedAnswer(malformed), 0))
		res := p.call(t, wire.ToolTransferSOL, args)
		refused := res.Result.IsError && strings.Contains(res.Result.Content[0].Text, "output schema")
		relayed := !res.Result.IsError && sameJSON(t, res.Result.StructuredContent, []byte(`{"status":"approved_by_model","proposal_id":"p_1"}`))
		if tc.checked && !refused {
			t.Errorf("%s: want the answer refused by the output check, got %+v", tc.name, res.Result)
		}
		if !tc.checked && !relayed {
			t.Errorf("%s: want the answer relayed as the console wrote it, got %+v", tc.name, res.Result)
		}
	}
}

// A console answer that breaks the tool's declared outputSchema never
// reaches the model as a result: it becomes a tool error that says so. A
// tool error is relayed as it is when its tool declares it, and with its
// message alone when not; an answer whose structured content is no object
// is unreadable.
func TestBridgeRefusesAnAnswerThatBreaksItsOutputSchema(t *testing.T) {
	var mu sync.Mutex
	next := ""
	sock := fakeConsole(t, func(wire.CallRequest) []byte {
		mu.Lock()
		defer mu.Unlock()
		return []byte(next)
	}, 0)
	p := startBridge(t, sock)
	answer := func(raw []byte) {
		mu.Lock()
		next = string(raw)
		mu.Unlock()
	}
	const args = `{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":10000000}`
	for name, structured := range map[string]string{
		"a status transfer_sol does not declare": `{"status":"approved_by_model","proposal_id":"p_1"}`,
		"an amount as a JSON number":             `{"status":"pending_approval","spend_lamports":10005000}`,
		"no status":                              `{"proposal_id":"p_1"}`,
		"retryable as a string":                  `{"status":"denied","retryable":"no"}`,
	} {
		answer(answerWith(t, false, "looks fine", structured))
		res := p.call(t, wire.ToolTransferSOL, args)
		text := ""
		for _, c := range res.Result.Content {
			text += c.Text
		}
		if !res.Result.IsError || !strings.Contains(text, "output schema") {
			t.Errorf("%s: want a tool error about the output schema, got isError=%v %q", name, res.Result.IsError, text)
		}
	}

	const msg = "lamports: must be a positive integer"
	answer(answerWith(t, true, msg, `{"status":"error","error":"`+msg+`"}`))
	res := p.call(t, wire.ToolTransferSOL, args)
	if !res.Result.IsError || res.Result.Content[0].Text != msg || !sameJSON(t, res.Result.StructuredContent, []byte(`{"status":"error","error":"`+msg+`"}`)) {
		t.Errorf("a tool error was not relayed as it is: %+v", res.Result)
	}
	// A tool error whose structured content its schema does not list keeps
	// its message, without that content: a client's SDK would throw the
	// whole answer away.
	answer(answerWith(t, true, msg, `{"status":"error"}`))
	res = p.call(t, wire.ToolTransferSOL, args)
	if !res.Result.IsError || len(res.Result.Content) != 1 || res.Result.Content[0].Text != msg || res.Result.StructuredContent != nil {
		t.Errorf("a tool error with undeclared structured content: %+v", res.Result)
	}

	answer(answerWith(t, false, "a list", `["pending_approval"]`))
	res = p.call(t, wire.ToolTransferSOL, args)
	if !res.Result.IsError || !strings.Contains(res.Result.Content[0].Text, "unreadable answer") {
		t.Errorf("structured content that is no object: want an unreadable-answer error, got %+v", res.Result)
	}
}
