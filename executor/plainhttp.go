package executor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// plainTransport makes a plain-HTTP round trip on the calling goroutine,
// over a kept-alive connection. net/http's Transport hands every request
// to two goroutines of the connection's (one writes, one reads) and wakes
// the caller with the answer: three hand-offs a call, which with the
// Transport's own work were about a tenth of the console's CPU a proposal
// on a node over plain HTTP (a local validator, localnet).
//
// The HTTP itself is net/http's: the request is written by
// (*http.Request).Write and the answer read by http.ReadResponse, so
// framing (lengths, chunks) is what it always was. Only endpoints a proxy
// does not serve and that are not TLS come here (newRPCHTTPClient); the
// rest keep net/http's Transport.
type plainTransport struct {
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	timeout time.Duration // one round trip, as http.Client's Timeout
	mu      sync.Mutex
	idle    map[string][]*plainConn // by host:port
	maxIdle int
}

type plainConn struct {
	net.Conn
	addr string
	br   *bufio.Reader
	bw   *bufio.Writer
}

// newRPCHTTPClient is the RPC client's HTTP client for endpoint: net/http's
// Transport (std, with timeout as the client's Timeout), or the plain
// transport where the endpoint is plain HTTP that no proxy serves.
func newRPCHTTPClient(endpoint string, std *http.Transport, timeout time.Duration, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Client {
	u, err := url.Parse(endpoint)
	if err == nil && u.Scheme == "http" && u.Host != "" {
		var proxy *url.URL
		if std.Proxy != nil {
			proxy, err = std.Proxy(&http.Request{URL: u})
		}
		if err == nil && proxy == nil {
			// No Timeout on the client: on a transport it does not know,
			// http.Client would start a goroutine a call to enforce it; the
			// transport bounds each round trip itself.
			return &http.Client{Transport: &plainTransport{dial: dial, timeout: timeout, maxIdle: 64}}
		}
	}
	return &http.Client{Timeout: timeout, Transport: std}
}

func (t *plainTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" {
		closeBody(req)
		// A plain-HTTP endpoint that redirects elsewhere (to HTTPS, say):
		// the RPC URL should name where the node answers.
		return nil, fmt.Errorf("the RPC endpoint sent the call on to %s: give that URL as the RPC endpoint", req.URL.Redacted())
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		closeBody(req)
		return nil, err
	}
	deadline := time.Now().Add(t.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	addr := canonicalAddr(req.URL)
	for {
		c, reused, err := t.conn(ctx, addr)
		if err != nil {
			closeBody(req)
			return nil, err
		}
		res, written, err := t.roundTrip(ctx, c, req, deadline)
		if err == nil {
			return res, nil
		}
		c.Close()
		if reused && !written && req.GetBody != nil {
			// The kept connection failed before the request left (the node
			// closed it): nothing reached the node, so it goes again on a
			// fresh one, as net/http does.
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			r2 := *req
			r2.Body = body
			req = &r2
			continue
		}
		closeBody(req)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// roundTrip writes req on c and reads its answer; written reports that the
// request was written whole.
func (t *plainTransport) roundTrip(ctx context.Context, c *plainConn, req *http.Request, deadline time.Time) (res *http.Response, written bool, err error) {
	if err := c.SetDeadline(deadline); err != nil {
		return nil, false, err
	}
	// A cancelled context ends the wait at once: the connection's deadline
	// moves to the past, and the connection is dropped.
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	if err := req.Write(c.bw); err != nil {
		stop()
		return nil, false, err
	}
	if err := c.bw.Flush(); err != nil {
		stop()
		return nil, false, err
	}
	res, err = http.ReadResponse(c.br, req)
	if err != nil {
		stop()
		return nil, true, err
	}
	keep := !res.Close && !req.Close && res.ProtoAtLeast(1, 1)
	res.Body = &plainBody{ReadCloser: res.Body, t: t, c: c, stop: stop, keep: keep}
	return res, true, nil
}

// plainBody gives the connection back for the next call once the answer
// has been read to its end and closed, or drops it.
type plainBody struct {
	io.ReadCloser
	t    *plainTransport
	c    *plainConn
	stop func() bool
	keep bool
	eof  bool
	done bool
}

func (b *plainBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, errors.New("read on a closed answer")
	}
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *plainBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	if !b.eof {
		// What is left of a body read to its length is nothing; anything
		// more is not worth waiting for, and the connection goes.
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n == 0 && err == io.EOF {
			b.eof = true
		}
	}
	err := b.ReadCloser.Close()
	cancelled := !b.stop() // the context ended: the deadline may be in the past
	if b.keep && b.eof && !cancelled && b.c.br.Buffered() == 0 {
		b.t.put(b.c)
	} else {
		b.c.Close()
	}
	return err
}

// conn is an idle connection to addr that is still open, or a new one.
func (t *plainTransport) conn(ctx context.Context, addr string) (c *plainConn, reused bool, err error) {
	for {
		t.mu.Lock()
		list := t.idle[addr]
		if n := len(list); n > 0 {
			c = list[n-1]
			t.idle[addr] = list[:n-1]
		}
		t.mu.Unlock()
		if c == nil {
			break
		}
		if open(c.Conn) {
			return c, true, nil
		}
		c.Close()
		c = nil
	}
	nc, err := t.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return &plainConn{Conn: nc, addr: addr, br: bufio.NewReaderSize(nc, 16<<10), bw: bufio.NewWriterSize(nc, 8<<10)}, false, nil
}

func (t *plainTransport) put(c *plainConn) {
	if err := c.SetDeadline(time.Time{}); err != nil {
		c.Close()
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.idle[c.addr]) >= t.maxIdle {
		c.Close()
		return
	}
	if t.idle == nil {
		t.idle = map[string][]*plainConn{}
	}
	t.idle[c.addr] = append(t.idle[c.addr], c)
}

// CloseIdleConnections closes the kept connections (http.Client calls it).
func (t *plainTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.Close()
		}
	}
}

// open reports whether a kept connection is still open and quiet: a node
// that closed it (an idle timeout) has sent an end of stream, and one that
// sent anything unasked is not to be trusted with the next answer. One
// non-blocking peek, no wait.
func open(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing to read yet is an open connection; an end of stream (0)
		// or data (1) is not.
		_ = n
		alive = rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && alive
}

// canonicalAddr is u's host:port, port 80 when none is given.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
