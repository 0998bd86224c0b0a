package mcpbridge

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// connConsole is a fake console that tells which connection carried each
// call, and reports when a connection goes idle between requests.
type connConsole struct {
	srv     *http.Server
	mu      sync.Mutex
	callers []net.Conn // the connection of each call, in order
	idle    chan net.Conn
	closed  chan net.Conn
}

type connKey struct{}

func startConnConsole(t *testing.T, answer []byte) (*connConsole, string) {
	t.Helper()
	ln, sock := listenConsoleSocket(t)
	cc := &connConsole{idle: make(chan net.Conn, 64), closed: make(chan net.Conn, 64)}
	mux := http.NewServeMux()
	mux.HandleFunc(wire.CallPath, func(w http.ResponseWriter, r *http.Request) {
		cc.mu.Lock()
		cc.callers = append(cc.callers, r.Context().Value(connKey{}).(net.Conn))
		cc.mu.Unlock()
		_, _ = w.Write(answer)
	})
	mux.HandleFunc(wire.PresencePath, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	cc.srv = &http.Server{
		Handler:     mux,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
		ConnState: func(c net.Conn, s http.ConnState) {
			switch s {
			case http.StateIdle:
				cc.idle <- c
			case http.StateClosed:
				cc.closed <- c
			}
		},
	}
	go cc.srv.Serve(ln)
	t.Cleanup(func() { cc.srv.Close() })
	return cc, sock
}

func (cc *connConsole) calls() []net.Conn {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return append([]net.Conn(nil), cc.callers...)
}

// The bridge keeps its connection to the console open between calls: one
// connection carries them all (dialling and checking the console's
// credentials again for every call would cost more than the call).
func TestBridgeCallsShareOneConnection(t *testing.T) {
	answer, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		t.Fatal(err)
	}
	console, sock := startConnConsole(t, answer)
	p := startBridge(t, sock)
	for range 5 {
		if res := p.call(t, wire.ToolTransferSOL, `{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":10000000}`); res.Result.IsError {
			t.Fatalf("tool error: %+v", res.Result)
		}
	}
	calls := console.calls()
	if len(calls) != 5 {
		t.Fatalf("the console saw %d calls, want 5", len(calls))
	}
	for i, c := range calls {
		if c != calls[0] {
			t.Errorf("call %d came on another connection than the first", i+1)
		}
	}
}

// A connection the console closed while it was idle (its idle timeout, a
// restart) is not written into: the next call goes on a new connection and
// succeeds, so the agent never sees the console's housekeeping.
func TestBridgeRedialsAConnectionTheConsoleClosed(t *testing.T) {
	answer, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		t.Fatal(err)
	}
	console, sock := startConnConsole(t, answer)
	p := startBridge(t, sock)
	const args = `{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":10000000}`
	if res := p.call(t, wire.ToolTransferSOL, args); res.Result.IsError {
		t.Fatalf("tool error: %+v", res.Result)
	}
	first := console.calls()[0]
	for c := range console.idle {
		if c == first {
			break // the console holds the call's connection idle now
		}
	}
	// Turning keep-alives off closes the idle connections at once.
	console.srv.SetKeepAlivesEnabled(false)
	console.srv.SetKeepAlivesEnabled(true)

	res := p.call(t, wire.ToolTransferSOL, args)
	if res.Result.IsError {
		t.Fatalf("the call after the console closed the idle connection failed: %+v", res.Result)
	}
	if calls := console.calls(); len(calls) != 2 || calls[1] == first {
		t.Fatalf("the second call did not come on a new connection (%d calls)", len(calls))
	}
}

// A call whose MCP client went away (stdin closed) is abandoned at the
// console too: the bridge closes that connection, so the console's handler
// sees its request end instead of holding a long-poll for nobody.
func TestBridgeAbandonedCallEndsAtTheConsole(t *testing.T) {
	ended := make(chan struct{})
	sock := fakeConsole(t, nil, 0)
	// fakeConsole's own handler answers at once; this one waits.
	mux := http.NewServeMux()
	var called sync.WaitGroup
	called.Add(1)
	mux.HandleFunc(wire.CallPath, func(w http.ResponseWriter, r *http.Request) {
		// As the console does: the body is read before the wait (net/http
		// notices a client gone only once it has).
		_, _ = io.Copy(io.Discard, r.Body)
		called.Done()
		<-r.Context().Done()
		close(ended)
	})
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	serveFakeConsole(t, ln, mux)

	p := startBridge(t, sock)
	p.send(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"proposal_status","arguments":{"proposal_id":"p_1","wait_seconds":45}}}`)
	called.Wait()
	p.in.Close()
	select {
	case <-ended:
	case <-time.After(20 * time.Second): // a bound on failure only
		t.Fatal("the console still holds the call of a bridge whose client went away")
	}
}

// A connection no call has used for the client's idle timeout is closed:
// the console counts each uid's connections, and an agent that went quiet
// holds none. (The timeout is shortened here: the passage of time is the
// behaviour under test.)
func TestBridgeClosesAnIdleConnection(t *testing.T) {
	answer, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		t.Fatal(err)
	}
	console, sock := startConnConsole(t, answer)
	b := NewBridge(sock, "test")
	b.calls.Transport.(refusalTransport).base.(*http.Transport).IdleConnTimeout = 50 * time.Millisecond
	res, err := b.call(context.Background(), wire.CallRequest{Tool: wire.ToolTransferSOL, Arguments: []byte(`{}`)})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	first := console.calls()[0]
	bound := time.After(20 * time.Second) // a bound on failure only
	for waiting := true; waiting; {
		select {
		case c := <-console.closed:
			waiting = c != first
		case <-bound:
			t.Fatal("the bridge kept its idle connection open")
		}
	}
}

// A call the console never answers ends at the client's bound with the
// context's timeout error, said as the bridge says it. (The bound is
// shortened here: the passage of time is the behaviour under test.)
func TestCallEndsAtItsBoundWhenTheConsoleNeverAnswers(t *testing.T) {
	ln, sock := listenConsoleSocket(t)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go io.Copy(io.Discard, c) // reads the request, never answers
		}
	}()
	b := NewBridge(sock, "test")
	b.calls.Timeout = 200 * time.Millisecond
	start := time.Now()
	_, err := b.call(context.Background(), wire.CallRequest{Tool: wire.ToolTransferSOL, Arguments: []byte(`{}`)})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("a call to a console that never answers: %v, want its bound's timeout", err)
	}
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("the call ended after %v, before its bound", took)
	}
}
