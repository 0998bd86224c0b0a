package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge/wire"
)

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

// Long-polls run side by side, more of them than mcp-go's StdioServer
// serves by default (five workers), a read is answered while they are all
// held, and closing stdin ends those still held instead of waiting out
// their 45 s.
func TestStdioServesOtherCallsWhileLongPollsWait(t *testing.T) {
	const polls = 8
	held := make(chan struct{}, polls)
	b := NewBridge(holdingConsole(t, held), "test")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- b.ServeStdio(context.Background(), inR, outW, io.Discard) }()
	defer outR.Close()
	lines := make(chan string, polls+4)
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	send := func(frame string) {
		t.Helper()
		if _, err := io.WriteString(inW, frame+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// A bound on a hang, not a wait: each step waits for its event.
	bound := time.After(30 * time.Second)
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"poller","version":"1"}}}`)
	for i := range polls {
		send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"proposal_status","arguments":{"proposal_id":"p-1","wait_seconds":45}}}`)
	}
	for i := range polls {
		select {
		case <-held: // each call reached the console while the others are held
		case <-bound:
			t.Fatalf("%d of %d long-polls reached the console within 30 s: the rest wait behind them", i, polls)
		}
	}
	send(`{"jsonrpc":"2.0","id":"read","method":"tools/call","params":{"name":"get_balance","arguments":{}}}`)
	for answered := false; !answered; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the bridge's output ended")
			}
			if strings.Contains(line, `"id":"read"`) {
				if !strings.Contains(line, "1 SOL, asked by poller 1") {
					t.Fatalf("get_balance's answer: %s", line)
				}
				answered = true
			}
		case <-bound:
			t.Fatal("get_balance was not answered within 30 s while long-polls were held")
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio after EOF: %v", err)
		}
	case <-bound:
		t.Fatal("ServeStdio still runs 30 s after its stdin closed: the held long-polls were not ended")
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
