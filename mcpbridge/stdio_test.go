package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"math"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// stdioStep is one frame an MCP client sends and how many answer lines it
// waits for before the next.
type stdioStep struct {
	frame   string
	answers int
}

// holdingConsole answers get_balance and transfer_sol with valid console
// answers and holds every proposal_status call until its request ends,
// telling held when one arrived: a long-poll that only a cancellation ends.
func holdingConsole(t *testing.T, held chan<- struct{}) string {
	t.Helper()
	pending, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		t.Fatal(err)
	}
	ln, sock := listenConsoleSocket(t)
	mux := http.NewServeMux()
	mux.HandleFunc(wire.CallPath, func(w http.ResponseWriter, r *http.Request) {
		var req wire.CallRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var body []byte
		switch req.Tool {
		case "proposal_status":
			held <- struct{}{}
			<-r.Context().Done()
			return
		case "get_balance":
			// Naming the caller puts the client info the session kept
			// into the comparison.
			body = answerWith(t, false, "1 SOL, asked by "+req.Client.Name+" "+req.Client.Version,
				`{"address":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":"1000000000","sol":"1","slot":42,"network":"localnet"}`)
		default:
			body = pending
		}
		writeAnswer(w, body)
	})
	serveFakeConsole(t, ln, mux)
	return sock
}

// driveStdio runs listen (a transport serving a fresh bridge on sock) and
// sends steps, returning each step's answers decoded.
func driveStdio(t *testing.T, listen func(ctx context.Context, b *Bridge, in io.Reader, out io.Writer) error, sock string, held <-chan struct{}, steps []stdioStep) [][]any {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	b := NewBridge(sock, "test")
	go func() { b.life = ctx; done <- listen(ctx, b, inR, outW) }()
	defer func() { inW.Close(); outR.Close(); cancel(); <-done }()
	lines := bufio.NewReader(outR)
	var got [][]any
	for _, s := range steps {
		if _, err := io.WriteString(inW, s.frame+"\n"); err != nil {
			t.Fatal(err)
		}
		if s.answers < 0 {
			// The held call: wait until the console has it, so that the
			// cancellation that follows finds it in flight.
			<-held
			got = append(got, nil)
			continue
		}
		var answers []any
		for range s.answers {
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatalf("after %s: %v", s.frame, err)
			}
			var v any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("answer to %s is not JSON: %v\n%s", s.frame, err, line)
			}
			answers = append(answers, v)
		}
		got = append(got, answers)
	}
	return got
}

func TestStdioTransportAnswersAsMCPGoStdioServer(t *testing.T) {
	held := make(chan struct{}, 1)
	sock := holdingConsole(t, held)
	steps := []stdioStep{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"diff","version":"1"}}}`, 1},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 1},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_balance","arguments":{}}}`, 1},
		{`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"transfer_sol","arguments":{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":10000000}}}`, 1},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`, 1},
		{`{"jsonrpc":"2.0","id":5,"method":"ping"}`, 1},
		{`{"jsonrpc":"2.0","id":6,"method":"no/such/method","params":{}}`, 1},
		{`{"jsonrpc":"2.0","id":7,"method":`, 1},
		{``, 1},
		{`[1,2]`, 1},
		{" \t{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"ping\"}\r", 1},
		{"{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"ping\"}\u00a0", 1},
		{`{"jsonrpc":"2.0","id":8,"method":5}`, 1},
		{`{"jsonrpc":"1.0","id":9,"method":"ping"}`, 1},
		{`{"jsonrpc":"2.0","id":10,"method":"logging/setLevel","params":{"level":"debug"}}`, 1},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"proposal_status","arguments":{"proposal_id":"p-1","wait_seconds":45}}}`, -1},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11,"reason":"the user gave up"}}`, 1},
		{`{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"diff","version":"2"}}}`, 1},
		{`{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"diff","version":"3"}}}`, 1},
		{`{"jsonrpc":"2.0","id":14,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"diff","version":"4"}}}`, 1},
		{`{"jsonrpc":"2.0","id":15,"result":{}}`, 0},
		{`{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"get_balance","arguments":{}}}`, 1},
	}
	theirs := driveStdio(t, func(ctx context.Context, b *Bridge, in io.Reader, out io.Writer) error {
		s := server.NewStdioServer(b.mcp)
		s.SetErrorLogger(log.New(io.Discard, "", 0))
		return s.Listen(ctx, in, out)
	}, sock, held, steps)
	ours := driveStdio(t, func(ctx context.Context, b *Bridge, in io.Reader, out io.Writer) error {
		return serveLines(ctx, b.mcp, in, out, log.New(io.Discard, "", 0))
	}, sock, held, steps)
	for i, s := range steps {
		if !reflect.DeepEqual(theirs[i], ours[i]) {
			t.Errorf("%s\nStdioServer answered %v\nours answered       %v", s.frame, theirs[i], ours[i])
		}
	}
	// The comparison must have seen real answers: a tool result and the
	// cancelled call's.
	if _, ok := ours[4][0].(map[string]any)["result"]; !ok {
		t.Errorf("transfer_sol's answer has no result: %v", ours[4])
	}
}

// toolResultFrame must write what json.Marshal writes of the same answer,
// as JSON, for every result the bridge builds, and leave the rest alone.
func TestToolResultFrameIsWhatJSONMarshalWrites(t *testing.T) {
	results := []*mcp.CallToolResult{
		toMCPResult(relayedResult{Text: "pending: <b>approve</b> & \u2028 \"quoted\"\n", Structured: json.RawMessage("{\"status\":\"pending_approval\",\n \"note\":\"a <tag> & \u00e9\" }")}),
		toMCPResult(relayedResult{IsError: true, Text: "no approval console is running"}),
		toMCPResult(relayedResult{Text: ""}),
		toMCPResult(relayedResult{Text: "bad \xff\xfe utf-8, \x00\x01\x1f\b\f\t\r control, \u2029 \\ back, \U0001F600 \u00e9 é"}),
		mcp.NewToolResultError("output schema validation failed: x"),
		{},
	}
	for _, res := range results {
		for _, id := range []any{7, "w", nil} {
			for _, result := range []any{*res, res} {
				msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), result)
				frame, ok := toolResultFrame(msg)
				if !ok {
					t.Fatalf("%#v: not written", msg)
				}
				want, err := json.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				var g, w any
				if err := json.Unmarshal(frame, &g); err != nil {
					t.Fatalf("%s: %v", frame, err)
				}
				if bytes.ContainsAny(frame, "\n\r") {
					t.Errorf("frame spans lines: %q", frame)
				}
				_ = json.Unmarshal(want, &w)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("ours %s\njson %s", frame, want)
				}
			}
		}
	}
	meta := toMCPResult(relayedResult{Text: "x"})
	meta.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": 1}}
	image := &mcp.CallToolResult{Content: []mcp.Content{mcp.ImageContent{Type: "image", Data: "AA==", MIMEType: "image/png"}}}
	for _, res := range []any{*meta, *image, mcp.InitializeResult{}, mcp.JSONRPCError{}} {
		if _, ok := toolResultFrame(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), res)); ok {
			t.Errorf("%#v written by the fast path", res)
		}
	}
}

// Long-polls run side by side, more of them than StdioServer's five
// workers, and closing stdin ends those still held instead of waiting out
// their 45 s.
func TestStdioTransportServesLongPollsTogetherAndEndsThemAtEOF(t *testing.T) {
	const polls = 8
	held := make(chan struct{}, polls)
	b := NewBridge(holdingConsole(t, held), "test")
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- b.ServeStdio(context.Background(), inR, io.Discard, io.Discard) }()
	for i := range polls {
		frame := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"proposal_status","arguments":{"proposal_id":"p-1","wait_seconds":45}}}` + "\n"
		if _, err := io.WriteString(inW, frame); err != nil {
			t.Fatal(err)
		}
	}
	for range polls {
		<-held // each call reached the console while the others are held
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("ServeStdio after EOF: %v", err)
	}
}

// writeJSONString writes the bytes json.Marshal writes for a string.
func TestWriteJSONStringIsJSONMarshals(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "<a href='x'>&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f", "\u2028\u2029\u00e9\U0001F600", "bad \xff\xfe\xc3 end", `{"status":"pending_approval","id":"p_1"}`} {
		var b bytes.Buffer
		writeJSONString(&b, s)
		want, _ := json.Marshal(s)
		if b.String() != string(want) {
			t.Errorf("%q: ours %s, json %s", s, b.String(), want)
		}
	}
}

// requestIDJSON writes every id as json.Marshal writes it: ids as mcp-go
// decodes them (a string, an int64, a float64 for a number in a request
// mcp-go re-reads as any) and the values it passes to json.Marshal. It went
// red with the 2^53 bound lifted (2^60 is written 1152921504606847000) and
// with -0 written as 0.
func TestRequestIDJSONIsJSONMarshal(t *testing.T) {
	for _, v := range []any{
		int64(0), int64(1), int64(-7), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 1.0, 7.0, -3.0, 1.5, 1e15, float64(1<<53 - 1), float64(-(1<<53 - 1)), float64(1 << 53), float64(1 << 60), 1e21, 1e-7, math.MaxFloat64,
		int(3), uint8(4),
		"", "a", "<&>", "\u2028\u2029", "quote \" and \\ and \n\t\x01", "\xff\xfe bad", "日本語 😀",
		nil, true,
	} {
		checkRequestID(t, v)
	}
}

func FuzzRequestIDJSON(f *testing.F) {
	f.Add("id-1", int64(1), 1.0)
	f.Add("<\u2028>\xff", int64(-1), math.Copysign(0, -1))
	f.Fuzz(func(t *testing.T, s string, i int64, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 0 // json.Marshal refuses them, and no JSON id holds one
		}
		for _, v := range []any{s, i, x} {
			checkRequestID(t, v)
		}
	})
}

func checkRequestID(t *testing.T, v any) {
	t.Helper()
	id := mcp.NewRequestId(v)
	want, wantErr := json.Marshal(id)
	got, err := requestIDJSON(id)
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Fatalf("id %#v: %s, %v; json.Marshal: %s, %v", v, got, err, want, wantErr)
	}
}

// routeLine reads every line as json.Unmarshal into {Method string; ID any}
// does: a syntax error or not, decoded or not, with or without an id, and
// the same id. It went red when the fast path took an id of 1e400 (beyond
// a float64), a method that is not a string, bytes after the object, or
// skipped a name it does not know ("ID" is the id to json.Unmarshal).
func TestRouteLineAgreesWithUnmarshal(t *testing.T) {
	fast := 0
	for _, line := range routeSeeds {
		checkRoute(t, []byte(line))
		if _, ok := fastRoute([]byte(line)); ok {
			fast++
		}
	}
	// The requests clients write take the fast path.
	if fast < 6 {
		t.Errorf("%d of the seeds took the fast path, want at least the 6 requests", fast)
	}
}

var routeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"transfer_sol","arguments":{"to":"x","lamports":1}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"tools/list"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"method":"ping","id":-0.5,"jsonrpc":"2.0"}`,
	` { "jsonrpc" : "2.0" , "id" : 7 , "method" : "ping" } `,
	`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":7}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","ID":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"x":1e400}}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":"\u00e9\ud83d\ude00","method":"ping"}`,
	`{"jsonrpc":"2.0","id":"\ud800 lone","method":"p\u0069ng"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
	`{"jsonrpc":"2.0","id":1,"method":"ping"} x`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}{}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`"ping"`,
	`null`,
	``,
	`not json`,
}

func FuzzRouteLine(f *testing.F) {
	for _, line := range routeSeeds {
		f.Add([]byte(line))
	}
	f.Fuzz(checkRoute)
}

func checkRoute(t *testing.T, line []byte) {
	t.Helper()
	var base struct {
		Method string `json:"method"`
		ID     any    `json:"id,omitempty"`
	}
	err := json.Unmarshal(line, &base)
	_, syntaxErr := errors.AsType[*json.SyntaxError](err)
	got := routeLine(line)
	if got.syntaxErr != syntaxErr || got.decoded != (err == nil) || got.hasID() != (base.ID != nil) || !reflect.DeepEqual(got.requestID(), base.ID) {
		t.Fatalf("%q: syntax error %v, decoded %v, id %#v (has %v); json.Unmarshal: %v, id %#v",
			line, got.syntaxErr, got.decoded, got.requestID(), got.hasID(), err, base.ID)
	}
}

// FuzzWriteJSONString holds writeJSONString to json.Marshal on any string.
func FuzzWriteJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "<a href='x'>&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f", "\u2028\u2029\u00e9\U0001F600", "bad \xff\xfe\xc3 end", "\xed\xa0\x80 surrogate", `{"status":"pending_approval","id":"p_1"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		writeJSONString(&b, s)
		want, _ := json.Marshal(s)
		if b.String() != string(want) {
			t.Errorf("%q: ours %s, json %s", s, b.String(), want)
		}
	})
}

// BenchmarkWriteJSONString writes a pending transfer's structured content
// as the text block that repeats it.
func BenchmarkWriteJSONString(b *testing.B) {
	raw, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	var buf bytes.Buffer
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf.Reset()
		writeJSONString(&buf, s)
	}
}

// A call whose client has gone (it closed stdin, or cancelled the call)
// before the console answered is told so: never that the console is not
// running, which sends its user looking for a problem that is not there.
func TestAbandonedCallIsNotReportedAsNoConsole(t *testing.T) {
	held := make(chan struct{}, 1)
	b := NewBridge(holdingConsole(t, held), "test")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client went before the call was sent
	_, err := b.call(ctx, wire.CallRequest{Tool: "get_balance", Arguments: json.RawMessage(`{}`)})
	if err == nil || errors.Is(err, ErrNoConsole) {
		t.Fatalf("call after the client went: %v, want an abandoned call, not a missing console", err)
	}
	for _, want := range []string{"abandoned", "closed its input"} {
		if !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
