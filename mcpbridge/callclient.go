package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// callClient posts the bridge's tool calls to the console's socket API. It
// speaks the same HTTP/1.1 as any client (the console's side is net/http),
// but writes each request and reads its answer on the calling goroutine,
// over connections it keeps open. net/http's client hands every request to
// two goroutines of its own per connection; in a relay that spends its life
// waiting, those hand-offs were the largest part of its CPU per call after
// mcp-go. Each connection is dialled like NewUnixHTTPClient's: the console's
// uid is checked (dialConsole), and a console that refuses our user is a
// *NotAdmittedError.
type callClient struct {
	path        string
	dialer      net.Dialer
	timeout     time.Duration // bounds each whole call
	idleTimeout time.Duration // how long an unused connection stays open

	mu   sync.Mutex
	idle []*callConn // kept-alive connections, the most recent last
}

// maxIdleCalls is how many idle connections a bridge keeps: its calls are
// few at a time (one agent), and the console bounds each uid's connections.
const maxIdleCalls = 4

// idleCallTimeout closes a connection no call has used for that long, as
// net/http's client did for the bridge: the console counts each uid's
// connections, and an agent that went quiet should not hold any.
const idleCallTimeout = 30 * time.Second

// maxAnswerBytes bounds a console's answer.
const maxAnswerBytes = 4 << 20

type callConn struct {
	c    *net.UnixConn
	rw   io.ReadWriter // c, through pollIO where there is one
	br   *bufio.Reader
	idle *time.Timer // closes it while it waits in the pool
}

func newCallClient(path string, timeout time.Duration) *callClient {
	cc := &callClient{path: path, timeout: timeout, idleTimeout: idleCallTimeout, dialer: net.Dialer{Timeout: consoleDialTimeout}}
	if timeout > 0 && timeout < consoleDialTimeout {
		cc.dialer.Timeout = timeout
	}
	return cc
}

// post sends body to the socket API's path and returns the answer's status
// and body. A failed connection is a *NoConsoleError or *NotAdmittedError,
// as from NewUnixHTTPClient.
func (cc *callClient) post(ctx context.Context, path string, body []byte) (int, []byte, error) {
	// The call's bound is a deadline on its connection, not a context with
	// a timeout: that made and stopped a runtime timer at every call.
	var deadline time.Time
	if cc.timeout > 0 {
		deadline = time.Now().Add(cc.timeout)
	}
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	conn, err := cc.conn(ctx)
	if err != nil {
		return 0, nil, err
	}
	status, ans, reuse, err := conn.roundTrip(ctx, deadline, path, body)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	case errors.Is(err, os.ErrDeadlineExceeded) && !deadline.IsZero() && !time.Now().Before(deadline):
		// Said as the context's timeout said it.
		err = fmt.Errorf("%w (%v)", context.DeadlineExceeded, err)
	}
	if err == nil && status == http.StatusForbidden && ans.refused {
		err = &NotAdmittedError{Path: cc.path, UID: uint32(os.Geteuid())}
	}
	if reuse && err == nil {
		cc.putIdle(conn)
	} else {
		conn.c.Close()
	}
	return status, ans.body, err
}

// conn is a kept-alive connection the console has not closed, or a new one.
func (cc *callClient) conn(ctx context.Context) (*callConn, error) {
	for {
		cc.mu.Lock()
		n := len(cc.idle)
		if n == 0 {
			cc.mu.Unlock()
			break
		}
		conn := cc.idle[n-1]
		cc.idle = cc.idle[:n-1]
		cc.mu.Unlock()
		// Out of the pool, the timer finds nothing to close.
		conn.idle.Stop()
		if conn.open() {
			return conn, nil
		}
		conn.c.Close()
	}
	c, err := dialConsole(ctx, &cc.dialer, cc.path)
	if err != nil {
		return nil, err
	}
	rc, err := c.SyscallConn()
	if err != nil {
		rc = nil
	}
	rw := pollReadWriter(rc, c)
	return &callConn{c: c, rw: rw, br: bufio.NewReaderSize(rw, 8<<10)}, nil
}

func (cc *callClient) putIdle(conn *callConn) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if len(cc.idle) >= maxIdleCalls {
		conn.c.Close()
		return
	}
	cc.idle = append(cc.idle, conn)
	// One timer a connection, re-armed at each return to the pool rather
	// than made anew at every call.
	if conn.idle != nil {
		conn.idle.Reset(cc.idleTimeout)
		return
	}
	conn.idle = time.AfterFunc(cc.idleTimeout, func() {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if i := slices.Index(cc.idle, conn); i >= 0 {
			cc.idle = slices.Delete(cc.idle, i, i+1)
			conn.c.Close()
		}
	})
}

// closeIdle closes the kept-alive connections.
func (cc *callClient) closeIdle() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for _, conn := range cc.idle {
		conn.idle.Stop()
		conn.c.Close()
	}
	cc.idle = nil
}

// open reports whether an idle connection can carry another request: the
// console has neither closed it (its idle timeout, a restart) nor sent
// anything unasked. It looks without waiting, so that a request is never
// written into a connection that is already gone.
func (conn *callConn) open() bool {
	if conn.br.Buffered() > 0 {
		return false
	}
	raw, err := conn.c.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	err = raw.Read(func(fd uintptr) bool {
		// Nothing to read is an open connection; 0 bytes is the console's
		// close, and bytes are an answer nobody asked for.
		alive = !peekClosed(fd)
		return true // look once, never wait
	})
	return err == nil && alive
}

// answer is what roundTrip read.
type answer struct {
	body    []byte
	refused bool // the console's refusal of our user (RefusalHeader)
}

// roundTrip writes one request and reads its answer by deadline. reuse
// says whether the connection may carry another request.
func (conn *callConn) roundTrip(ctx context.Context, deadline time.Time, path string, body []byte) (status int, ans answer, reuse bool, err error) {
	// The deadline bounds the call (zero: no bound). A cancelled context
	// ends the wait by ending the connection's deadline; the connection is
	// then not reused.
	conn.c.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.c.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if !stop() {
			reuse = false
		}
	}()

	req := make([]byte, 0, 128+len(path)+len(body))
	req = append(req, "POST "...)
	req = append(req, path...)
	req = append(req, " HTTP/1.1\r\nHost: solgate\r\nContent-Type: application/json\r\nContent-Length: "...)
	req = strconv.AppendInt(req, int64(len(body)), 10)
	req = append(req, "\r\n\r\n"...)
	req = append(req, body...)
	if _, err := conn.rw.Write(req); err != nil {
		return 0, ans, false, err
	}
	if head, ok := readHead(conn.br); ok {
		return readBody(conn.br, head)
	}
	return readResponse(conn.br)
}

// readBody reads the body readHead announced.
func readBody(br *bufio.Reader, head answerHead) (status int, ans answer, reuse bool, err error) {
	ans.refused = head.refused
	ans.body = make([]byte, head.length)
	if _, err := io.ReadFull(br, ans.body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // as a body cut short reads
		}
		return head.status, answer{refused: head.refused}, false, err
	}
	return head.status, ans, !head.close, nil
}

// readResponse reads any answer, with net/http's parser.
func readResponse(br *bufio.Reader) (status int, ans answer, reuse bool, err error) {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, ans, false, err
	}
	defer resp.Body.Close()
	ans.refused = resp.Header.Get(RefusalHeader) != ""
	if resp.ContentLength > maxAnswerBytes {
		return resp.StatusCode, ans, false, fmt.Errorf("answer larger than %d bytes", maxAnswerBytes)
	}
	ans.body, err = readAnswer(resp)
	if err != nil {
		return resp.StatusCode, ans, false, err
	}
	if len(ans.body) > maxAnswerBytes {
		return resp.StatusCode, ans, false, fmt.Errorf("answer larger than %d bytes", maxAnswerBytes)
	}
	return resp.StatusCode, ans, !resp.Close, nil
}

// answerHead is an answer's status line and headers, as readHead reads them.
type answerHead struct {
	status  int
	length  int  // Content-Length
	refused bool // RefusalHeader present
	close   bool // Connection: close
}

// readHead reads the head of an answer written as the console's net/http
// server writes it: HTTP/1.1, a status with a body (not 1xx, 204 or 304),
// and nothing but Content-Length (required, once), Content-Type, Date,
// RefusalHeader (once) and Connection: close. It consumes the head (ok),
// or leaves anything else unread for http.ReadResponse.
// net/http's parser builds a header map, canonicalises every key and
// allocates each value: a few per cent of a bridge's CPU per call.
func readHead(br *bufio.Reader) (h answerHead, ok bool) {
	// Wait for the answer's first bytes; an error is left for
	// http.ReadResponse to meet again and report as it does.
	if _, err := br.Peek(1); err != nil {
		return h, false
	}
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, []byte("\r\n\r\n"))
	if end < 0 {
		return h, false
	}
	line, rest, _ := bytes.Cut(buf[:end+2], []byte("\r\n"))
	status, ok := statusOf(line)
	if !ok {
		return h, false
	}
	length, refusal := -1, false
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found || len(name) == 0 || bytes.ContainsAny(name, " \t") {
			return h, false
		}
		value = bytes.Trim(value, " \t")
		switch {
		case asciiEqualFold(name, "Content-Length"):
			n, ok := lengthOf(value)
			if !ok || length >= 0 {
				return h, false
			}
			length = n
		case asciiEqualFold(name, RefusalHeader):
			if refusal {
				return h, false
			}
			refusal, h.refused = true, len(value) > 0
		case asciiEqualFold(name, "Connection"):
			if !asciiEqualFold(value, "close") {
				return h, false
			}
			h.close = true
		case asciiEqualFold(name, "Content-Type"), asciiEqualFold(name, "Date"):
		default:
			return h, false
		}
	}
	if length < 0 || length > maxAnswerBytes {
		return h, false
	}
	_, _ = br.Discard(end + 4)
	h.status, h.length = status, length
	return h, true
}

// statusOf is the code of a status line "HTTP/1.1 NNN reason" whose answer
// carries a body.
func statusOf(line []byte) (int, bool) {
	rest, found := bytes.CutPrefix(line, []byte("HTTP/1.1 "))
	if !found || len(rest) < 3 || (len(rest) > 3 && rest[3] != ' ') {
		return 0, false
	}
	code, ok := lengthOf(rest[:3])
	if !ok || code < 200 || code == http.StatusNoContent || code == http.StatusNotModified || code > 599 {
		return 0, false
	}
	return code, true
}

// lengthOf is a decimal of at most 9 digits.
func lengthOf(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// readAnswer reads an answer's body. The console sends its length, so the
// body is read into one buffer of that size; io.ReadAll's growing from 512
// bytes, copying as it goes, was a few per cent of a bridge's CPU per call.
// An answer without a length is read as before, to its end.
func readAnswer(resp *http.Response) ([]byte, error) {
	if resp.ContentLength < 0 {
		return io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	}
	body := make([]byte, resp.ContentLength)
	if _, err := io.ReadFull(resp.Body, body); err != nil {
		return nil, err
	}
	return body, nil
}
