package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// connCounter is a test server's connection log: how many it accepted,
// and a signal each time one is closed.
type connCounter struct {
	mu       sync.Mutex
	accepted int
	closed   chan struct{}
}

func newCountingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *connCounter) {
	t.Helper()
	cc := &connCounter{closed: make(chan struct{}, 100)}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			cc.mu.Lock()
			cc.accepted++
			cc.mu.Unlock()
		case http.StateClosed, http.StateHijacked:
			cc.closed <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, cc
}

func (cc *connCounter) count() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.accepted
}

func plainClient(t *testing.T, endpoint string, timeout time.Duration) *http.Client {
	t.Helper()
	dial := (&net.Dialer{}).DialContext
	c := newRPCHTTPClient(endpoint, &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: dial}, timeout, dial)
	if _, ok := c.Transport.(*plainTransport); !ok {
		t.Fatalf("%s: transport %T, want the plain transport", endpoint, c.Transport)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func post(c *http.Client, ctx context.Context, endpoint, body string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return string(b), fmt.Errorf("HTTP %d", res.StatusCode)
	}
	return string(b), err
}

// Calls go one after another over one kept connection, answers with a
// length and chunked alike, and each gets its own answer.
func TestPlainTransportKeepsItsConnection(t *testing.T) {
	srv, cc := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.HasPrefix(string(b), "chunk") {
			w.Write([]byte("chunked:"))
			w.(http.Flusher).Flush() // no length: the answer goes chunked
		}
		w.Write(b)
	})
	c := plainClient(t, srv.URL, 10*time.Second)
	for i := range 50 {
		body := fmt.Sprintf("call %d", i)
		want := body
		if i%3 == 0 {
			body = fmt.Sprintf("chunk %d", i)
			want = "chunked:" + body
		}
		got, err := post(c, context.Background(), srv.URL, body)
		if err != nil || got != want {
			t.Fatalf("call %d: %q (%v), want %q", i, got, err, want)
		}
	}
	if n := cc.count(); n != 1 {
		t.Fatalf("50 calls one after another took %d connections, want 1", n)
	}
}

// A node that closes its idle connections (Node's HTTP server does after
// 5 s) costs the next call a new connection, not an error.
func TestPlainTransportRedialsAConnectionTheNodeClosed(t *testing.T) {
	srv, cc := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { io.Copy(w, r.Body) })
	c := plainClient(t, srv.URL, 10*time.Second)
	if got, err := post(c, context.Background(), srv.URL, "one"); err != nil || got != "one" {
		t.Fatalf("first call: %q (%v)", got, err)
	}
	srv.CloseClientConnections() // as an idle timeout would
	<-cc.closed                  // the server has closed it
	for i := range 3 {
		if got, err := post(c, context.Background(), srv.URL, "again"); err != nil || got != "again" {
			t.Fatalf("call %d after the node closed the connection: %q (%v)", i, got, err)
		}
	}
	if n := cc.count(); n != 2 {
		t.Fatalf("%d connections, want 2 (one redial)", n)
	}
}

// A call whose context ends, or whose time is up, returns at once with
// that error, and its connection is not handed to the next call.
func TestPlainTransportEndsWithItsContextAndTimeout(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	srv, cc := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			entered <- struct{}{}
			<-release
		}
		io.Copy(w, r.Body)
	})
	defer close(release)
	c := plainClient(t, srv.URL, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := post(c, ctx, srv.URL+"/hang", "x")
		done <- err
	}()
	<-entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v, want context.Canceled", err)
	}
	if got, err := post(c, context.Background(), srv.URL, "next"); err != nil || got != "next" {
		t.Fatalf("the call after a cancelled one: %q (%v)", got, err)
	}
	if n := cc.count(); n != 2 {
		t.Fatalf("%d connections, want 2: the cancelled call's is not reused", n)
	}

	// The transport's own bound, as http.Client's Timeout was: a timeout
	// error, which the RPC client retries.
	short := plainClient(t, srv.URL, 300*time.Millisecond)
	_, err := post(short, context.Background(), srv.URL+"/hang", "x")
	<-entered
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !retryable(err) {
		t.Fatalf("call past the timeout: %v, want a retryable timeout", err)
	}
}

// Only plain HTTP that no proxy serves takes the plain transport.
func TestPlainTransportOnlyForPlainHTTP(t *testing.T) {
	dial := (&net.Dialer{}).DialContext
	proxy := func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy.invalid:3128") }
	for _, tc := range []struct {
		endpoint string
		proxy    func(*http.Request) (*url.URL, error)
		plain    bool
	}{
		{"http://127.0.0.1:8899", nil, true},
		{"http://localhost:8899/rpc", http.ProxyFromEnvironment, true},
		{"https://api.mainnet-beta.solana.com", nil, false},
		{"http://10.0.0.5:8899", proxy, false},
	} {
		c := newRPCHTTPClient(tc.endpoint, &http.Transport{Proxy: tc.proxy, DialContext: dial}, time.Second, dial)
		_, plain := c.Transport.(*plainTransport)
		if plain != tc.plain {
			t.Errorf("%s: plain transport %v, want %v", tc.endpoint, plain, tc.plain)
		}
		if !plain && c.Timeout != time.Second {
			t.Errorf("%s: net/http client without its timeout", tc.endpoint)
		}
	}
}

// A plain-HTTP endpoint that redirects to HTTPS is refused with what to do,
// not followed over a transport that does no TLS.
func TestPlainTransportRefusesARedirectToHTTPS(t *testing.T) {
	srv, _ := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://rpc.example.invalid/", http.StatusTemporaryRedirect)
	})
	c := plainClient(t, srv.URL, 10*time.Second)
	_, err := post(c, context.Background(), srv.URL, "x")
	if err == nil || !strings.Contains(err.Error(), "give that URL as the RPC endpoint") || !strings.Contains(err.Error(), "https://rpc.example.invalid/") {
		t.Fatalf("redirect to https: %v", err)
	}
}
