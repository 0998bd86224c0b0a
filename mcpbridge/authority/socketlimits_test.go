package authority_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/server"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// slowConn opens a connection to the console and sends the start of a call:
// complete headers and half a body when body is true, half a header
// otherwise. It then sends nothing more, like a client holding the request.
func slowConn(t *testing.T, socket string, body bool) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if body {
		fmt.Fprint(c, "POST "+wire.CallPath+" HTTP/1.1\r\nHost: solgate\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"client\":{\"name\":\"slow\"},")
	} else {
		fmt.Fprint(c, "POST "+wire.CallPath+" HTTP/1.1\r\nHost: sol")
	}
	return c
}

// closedAt reads c until the console closes it and reports when, or the
// zero time if it is still open at deadline.
func closedAt(c net.Conn, deadline time.Time) time.Time {
	c.SetReadDeadline(deadline)
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return time.Time{}
	}
	return time.Now()
}

// 100 connections that hold a partial request (50 with half a body, 50
// with half a header) are cut when the read timeout passes, and a real
// bridge's calls are answered all the while.
func TestSlowConnectionsAreCutAndCallsGoOn(t *testing.T) {
	const timeout = 2 * time.Second
	w := newWorld(t, nil)
	// The world's hub served again, on a socket of its own with the short
	// read timeout; this test uses no other.
	socket := filepath.Join(testkit.SocketDir(t), "s")
	ln, err := host.ListenConfig{MaxConnsPerUID: 200, Logger: slog.New(slog.DiscardHandler)}.Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	go server.Serve(ln, w.authority, server.Options{ReadTimeout: timeout})
	t.Cleanup(func() { ln.Close() })
	a := startAgent(t, socket)
	start := time.Now()
	conns := make([]net.Conn, 100)
	for i := range conns {
		conns[i] = slowConn(t, socket, i%2 == 0)
	}

	// Normal calls while the slow ones are held.
	for i := 0; i < 3; i++ {
		if ans := a.Call("get_spend_status", nil); ans.IsError || ans.Str("network") == "" {
			t.Fatalf("a normal call failed while slow connections were open: %+v", ans)
		}
	}
	ans := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 1_000_000})
	if ans.Status() != "pending_approval" {
		t.Fatalf("a proposal failed while slow connections were open: %+v", ans)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var open, late int
	var slowest time.Duration
	limit := start.Add(timeout + 15*time.Second) // room for a busy machine: uncut, they would stay open for good
	for _, c := range conns {
		wg.Add(1)
		go func(c net.Conn) {
			defer wg.Done()
			at := closedAt(c, limit)
			mu.Lock()
			defer mu.Unlock()
			if at.IsZero() {
				open++
				return
			}
			if d := at.Sub(start); d > slowest {
				slowest = d
			}
			if at.Sub(start) < timeout-200*time.Millisecond {
				late-- // cut before the timeout: not what this test is about
			}
		}(c)
	}
	wg.Wait()
	if open > 0 {
		t.Fatalf("%d of 100 slow connections still open %s after they started (read timeout %s)", open, limit.Sub(start), timeout)
	}
	if late < 0 {
		t.Errorf("%d slow connections were cut before the read timeout", -late)
	}
	t.Logf("100 slow connections cut; the last after %s (read timeout %s)", slowest.Round(time.Millisecond), timeout)
	if ans := a.Call("get_spend_status", nil); ans.IsError {
		t.Fatalf("after the slow connections: %+v", ans)
	}
	// The presence long-poll is exempt: the bridge, connected for longer
	// than the read timeout, is still listed.
	if got := w.authority.Connected(); len(got) != 1 || got[0] != "e2e-agent 1.0" {
		t.Fatalf("connected agents after %s: %v", time.Since(start).Round(time.Millisecond), got)
	}
}

// One user may hold at most MaxConnsPerUID connections, all its processes
// together; the next is answered 429 with a plain reason and closed, a real
// bridge of the same user (another process) is refused too, and a freed
// slot can be used again. (Another user is served during such a flood:
// TestFloodOfOneUserLeavesAnotherServed, as root.)
func TestConnectionsPerPeerAreLimited(t *testing.T) {
	const max = 5
	w := newWorldListen(t, nil, host.ListenConfig{MaxConnsPerUID: max})
	a := startAgent(t, w.socket)
	// The bridge holds its presence connection; the rest are ours.
	var held []net.Conn
	for i := 0; i < max-1; i++ {
		held = append(held, slowConn(t, w.socket, true))
	}
	testkit.Eventually(t, 20*time.Second, "the console accepting all held connections", func() bool { return authority.MostConnsOfOnePeer(w.ln) == max }, nil)
	c, err := net.Dial("unix", w.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(c, "GET "+wire.HealthPath+" HTTP/1.1\r\nHost: solgate\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("the connection over the limit got no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "too many connections from this user") {
		t.Fatalf("over the limit: %s %s", resp.Status, body)
	}
	if ans := a.Call("get_spend_status", nil); !ans.IsError || !strings.Contains(ans.Text, "too many connections") {
		t.Fatalf("another process of the same user got a fresh allowance: %+v", ans)
	}
	held[0].Close()
	testkit.Eventually(t, 20*time.Second, "the console seeing the close", func() bool { return authority.MostConnsOfOnePeer(w.ln) == max-1 }, nil)
	resp2, err := mcpbridge.NewUnixHTTPClient(w.socket, 5*time.Second).Get("http://solgate" + wire.HealthPath)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusOK {
		t.Fatalf("after a slot was freed: %s", resp2.Status)
	}
}

// What a peer sends that is not one call of at most 64 KiB is refused with
// a 400 that says why, before the hub sees it; the routes answer wrong
// methods and unknown paths as HTTP does.
func TestSocketRefusesWhatIsNotOneCall(t *testing.T) {
	w := newWorld(t, nil)
	c := mcpbridge.NewUnixHTTPClient(w.socket, 10*time.Second)
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, "http://solgate"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(text)
	}
	call := func(args string) string {
		return `{"client":{"name":"t","version":"1"},"tool":"get_balance","arguments":` + args + `}`
	}
	// The largest call taken, and one byte more.
	pad := func(total int) string {
		base := call(`{"note":""}`)
		return call(`{"note":"` + strings.Repeat("a", total-len(base)) + `"}`)
	}
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		says                     string
	}{
		{"a call", "POST", wire.CallPath, call(`{}`), 200, `"network"`},
		{"64 KiB", "POST", wire.CallPath, pad(64 << 10), 200, `unknown argument \"note\"`},
		{"64 KiB and a byte", "POST", wire.CallPath, pad(64<<10 + 1), 400, "request larger than 65536 bytes"},
		{"white space past the bound", "POST", wire.CallPath, call(`{}`) + strings.Repeat(" ", 64<<10), 400, "request larger than 65536 bytes"},
		{"an unknown field", "POST", wire.CallPath, `{"tool":"get_balance","arguments":{},"admin":true}`, 400, `unknown field \"admin\"`},
		{"two calls", "POST", wire.CallPath, call(`{}`) + call(`{}`), 400, "trailing data"},
		{"a stray brace", "POST", wire.CallPath, call(`{}`) + "}", 400, "trailing data"},
		{"no tool", "POST", wire.CallPath, `{"arguments":{}}`, 400, "tool is empty"},
		{"not JSON", "POST", wire.CallPath, `tool=get_balance`, 400, "malformed call request"},
		{"GET a call", "GET", wire.CallPath, "", 405, ""},
		{"an unknown path", "POST", "/v1/approve", call(`{}`), 404, ""},
		{"health", "GET", wire.HealthPath, "", 200, `"network":"localnet"`},
	} {
		code, text := do(tc.method, tc.path, tc.body)
		if code != tc.code || !strings.Contains(text, tc.says) {
			t.Errorf("%s: %d %.300s, want %d with %q", tc.name, code, text, tc.code, tc.says)
		}
	}
}
