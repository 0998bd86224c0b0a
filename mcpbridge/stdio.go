package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The bridge's stdio transport: lines in, mcp-go's MCPServer.HandleMessage,
// lines out. The protocol (initialize and version negotiation, tools/list,
// tools/call, ping, notifications, cancellation, errors) stays mcp-go's;
// only the loop around it is ours. mcp-go's StdioServer reads each line in a
// new goroutine, decodes it five times before HandleMessage does (a copy,
// three probes for answers to server-initiated requests, which this bridge
// never makes, and the dispatch; ours decodes it once, for the dispatch) and
// hands tool calls to a pool of five workers, so a sixth long-polling
// proposal_status waits behind the others.
// TestStdioTransportAnswersAsMCPGoStdioServer holds the two to the same
// answers.

// maxConcurrentRequests bounds the requests served at once. Past it a
// request is served on the reading goroutine, as StdioServer does when its
// queue is full: the client that floods waits for its own answers.
const maxConcurrentRequests = 64

// serveLines speaks MCP over in/out for srv until in ends (nil) or ctx ends
// (ctx's error).
func serveLines(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, logger *log.Logger) error {
	sess := &stdioSession{notifications: make(chan mcp.JSONRPCNotification, 100)}
	if err := srv.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	defer srv.UnregisterSession(ctx, sess.SessionID())
	ctx = srv.WithContext(ctx, sess)
	// Ending the session releases every handler still waiting on it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// A client that closed our stdout reads no answer again: the session
	// ends, rather than forward calls whose answers nobody will read (the
	// runtime's SIGPIPE did this while stdout was os.Stdout).
	closed := make(chan struct{})
	var closeOnce sync.Once
	w := &frameWriter{out: out, logger: logger, closed: func() { closeOnce.Do(func() { close(closed) }) }}
	go func() {
		for {
			select {
			case n := <-sess.notifications:
				w.write(n)
			case <-ctx.Done():
				return
			}
		}
	}()

	pool := &requestPool{work: make(chan func()), quit: make(chan struct{})}
	read := make(chan error, 1)
	// One reader for the bridge's life. A read blocked on a silent client
	// cannot be interrupted; when ctx ends first it is left behind, as
	// StdioServer leaves its own.
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				// A last line without its newline is dropped, as
				// StdioServer drops it.
				if err == io.EOF {
					err = nil
				} else {
					logger.Printf("Error reading input: %v", err)
				}
				read <- err
				return
			}
			if ctx.Err() != nil {
				read <- ctx.Err()
				return
			}
			// JSON's own white space only, as json.Unmarshal skips it.
			serveLine(ctx, srv, bytes.Trim(line, " \t\r\n"), w, pool)
		}
	}()
	var err error
	select {
	case err = <-read:
	case <-closed:
		logger.Printf("stdout closed by the client: ending")
	case <-ctx.Done():
		err = ctx.Err()
	}
	// The requests still in flight end with the session, as StdioServer
	// ends them, rather than hold the bridge open for a long-poll.
	cancel()
	pool.stop()
	return err
}

// serveLine answers one line: a parse error for what is not JSON, requests
// on their own goroutine (a proposal_status long-poll must not hold the
// next line), notifications in order on the reading goroutine, so that a
// notifications/cancelled is acted on before the next line is read.
func serveLine(ctx context.Context, srv *server.MCPServer, line []byte, w *frameWriter, pool *requestPool) {
	route := routeLine(line)
	if route.syntaxErr {
		w.write(mcp.JSONRPCError{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(nil),
			Error:   mcp.NewJSONRPCErrorDetails(mcp.PARSE_ERROR, "Parse error", nil),
		})
		return
	}
	if route.decoded && route.hasID() && pool.run(func() { w.answer(ctx, srv, route, line) }) {
		return
	}
	w.answer(ctx, srv, route, line)
}

// lineRoute is what serveLine reads of a line before mcp-go does: whether
// it is JSON at all, whether its method and id decode, and its id.
type lineRoute struct {
	syntaxErr bool
	decoded   bool   // {"method": a string, "id": any} decoded without error
	id        any    // the id, from json.Unmarshal (the slow way)
	rawID     []byte // the id as written (the fast way)
}

func (r lineRoute) hasID() bool {
	if r.rawID != nil {
		return string(r.rawID) != "null"
	}
	return r.id != nil
}

// requestID is the id as json.Unmarshal decodes it into an any.
func (r lineRoute) requestID() any {
	if r.rawID == nil {
		return r.id
	}
	var id any
	_ = json.Unmarshal(r.rawID, &id)
	return id
}

// routeLine reads a line as json.Unmarshal into {Method string; ID any}
// would. A request as clients write it (an object of jsonrpc, id, method
// and params, each once and spelt so, the method a string, the id a string,
// a number or null) is read in one pass of a pooled decoder that only
// skips the params; anything else goes to json.Unmarshal, which decides as
// it always did. Reflection over that struct, on every line, was a
// twentieth of a bridge's CPU per call.
func routeLine(line []byte) lineRoute {
	if route, ok := fastRoute(line); ok {
		return route
	}
	var base struct {
		Method string `json:"method"`
		ID     any    `json:"id,omitempty"`
	}
	err := json.Unmarshal(line, &base)
	_, bad := errors.AsType[*json.SyntaxError](err)
	return lineRoute{syntaxErr: bad, decoded: err == nil, id: base.ID}
}

func fastRoute(line []byte) (lineRoute, bool) {
	r := checkReaders.Get().(*checkReader)
	defer r.put()
	r.src.Reset(line)
	r.dec.Reset(&r.src)
	dec := &r.dec
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return lineRoute{}, false
	}
	route := lineRoute{decoded: true}
	var seenID bool
	for dec.PeekKind() != '}' {
		name, err := dec.ReadValue()
		if err != nil {
			return lineRoute{}, false
		}
		switch string(name) {
		case `"id"`:
			kind := dec.PeekKind()
			raw, err := dec.ReadValue()
			if err != nil || seenID || (kind != '"' && kind != '0' && kind != 'n') {
				return lineRoute{}, false
			}
			if kind == '0' {
				// A number a float64 cannot hold is json.Unmarshal's error.
				if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
					return lineRoute{}, false
				}
			}
			// Kept past the decoder's reuse: a slice of the line.
			start := dec.InputOffset() - int64(len(raw))
			route.rawID, seenID = line[start:dec.InputOffset()], true
		case `"method"`:
			if dec.PeekKind() != '"' {
				return lineRoute{}, false
			}
			if dec.SkipValue() != nil {
				return lineRoute{}, false
			}
		case `"jsonrpc"`, `"params"`:
			if dec.SkipValue() != nil {
				return lineRoute{}, false
			}
		default:
			return lineRoute{}, false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return lineRoute{}, false
	}
	// One value, then nothing but white space.
	if _, err := dec.ReadToken(); err != io.EOF {
		return lineRoute{}, false
	}
	return route, true
}

// requestPool runs requests on goroutines that stay for the next one. A
// fresh goroutine per request grew its stack again through mcp-go's and
// encoding/json's frames each time: 8 % of a bridge's CPU per call.
type requestPool struct {
	work    chan func() // unbuffered: a send succeeds only to an idle worker
	quit    chan struct{}
	mu      sync.Mutex
	workers int
	stopped bool
	done    sync.WaitGroup
}

// run starts job on an idle worker, or on a new one while there are fewer
// than maxConcurrentRequests; false when all are busy.
func (p *requestPool) run(job func()) bool {
	select {
	case p.work <- job:
		return true
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || p.workers >= maxConcurrentRequests {
		return false
	}
	p.workers++
	p.done.Go(func() {
		for {
			job()
			select {
			case job = <-p.work:
			case <-p.quit:
				return
			}
		}
	})
	return true
}

// stop ends the workers once idle and waits for them.
func (p *requestPool) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	close(p.quit)
	p.done.Wait()
}

// frameWriter writes whole frames, one line each, one at a time.
type frameWriter struct {
	mu     sync.Mutex
	out    io.Writer
	logger *log.Logger
	closed func() // out's reader has gone (EPIPE, or ECONNRESET on a socket)
}

// answer runs HandleMessage and writes its response, if any. A panicking
// handler answers INTERNAL_ERROR, as in StdioServer, instead of ending the
// bridge.
func (w *frameWriter) answer(ctx context.Context, srv *server.MCPServer, route lineRoute, line []byte) {
	resp := func() (resp mcp.JSONRPCMessage) {
		defer func() {
			if r := recover(); r != nil {
				w.logger.Printf("panic recovered in stdio message handler: %v", r)
				if id := route.requestID(); id != nil {
					resp = mcp.JSONRPCError{
						JSONRPC: mcp.JSONRPC_VERSION,
						ID:      mcp.NewRequestId(id),
						Error:   mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil),
					}
				}
			}
		}()
		return srv.HandleMessage(ctx, line)
	}()
	if resp != nil {
		w.write(resp)
	}
}

func (w *frameWriter) write(msg any) {
	buf := frameBuffers.Get().(*[]byte)
	defer func() {
		// A frame far larger than a tool result is not kept.
		if cap(*buf) <= 64<<10 {
			frameBuffers.Put(buf)
		}
	}()
	frame, ok := appendToolResultFrame((*buf)[:0], msg)
	var err error
	if !ok {
		frame, err = json.Marshal(msg)
	}
	if err != nil {
		w.logger.Printf("Error writing response: %v", err)
		return
	}
	frame = append(frame, '\n')
	if ok {
		*buf = frame[:0]
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.out.Write(frame); err != nil {
		w.logger.Printf("Error writing response: %v", err)
		if (errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) && w.closed != nil {
			w.closed()
		}
	}
}

// frameBuffers keeps the buffers tool results are written into: the frame
// is written out and forgotten, and a new one of a few kilobytes a call
// was a fiftieth of a bridge's CPU.
var frameBuffers = sync.Pool{New: func() any { return new([]byte) }}

// stdioSession is the one client of a stdio bridge, as mcp-go's server
// sees it: its client info (which names the agent in the console), its
// capabilities, negotiated version and log level.
type stdioSession struct {
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	clientInfo    atomic.Pointer[mcp.Implementation]
	capabilities  atomic.Pointer[mcp.ClientCapabilities]
	version       atomic.Pointer[string]
	logLevel      atomic.Pointer[mcp.LoggingLevel]
}

var (
	_ server.SessionWithClientInfo      = (*stdioSession)(nil)
	_ server.SessionWithLogging         = (*stdioSession)(nil)
	_ server.SessionWithProtocolVersion = (*stdioSession)(nil)
)

func (s *stdioSession) SessionID() string { return "stdio" }

func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

func (s *stdioSession) Initialize() {
	level := mcp.LoggingLevelError
	s.logLevel.Store(&level)
	s.initialized.Store(true)
}

func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

func (s *stdioSession) GetClientInfo() mcp.Implementation {
	if ci := s.clientInfo.Load(); ci != nil {
		return *ci
	}
	return mcp.Implementation{}
}

func (s *stdioSession) SetClientInfo(ci mcp.Implementation) { s.clientInfo.Store(&ci) }

func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	if c := s.capabilities.Load(); c != nil {
		return *c
	}
	return mcp.ClientCapabilities{}
}

func (s *stdioSession) SetClientCapabilities(c mcp.ClientCapabilities) { s.capabilities.Store(&c) }

func (s *stdioSession) ProtocolVersion() string {
	if v := s.version.Load(); v != nil {
		return *v
	}
	return ""
}

// SetProtocolVersion is how mcp-go records the version initialize settled on.
func (s *stdioSession) SetProtocolVersion(v string) { s.version.Store(&v) }

func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.Store(&level) }

func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	if l := s.logLevel.Load(); l != nil {
		return *l
	}
	return mcp.LoggingLevelError
}

// toolResultFrame writes the answer to a tools/call as the bridge builds it
// (text blocks and the console's structured JSON) without going through
// CallToolResult.MarshalJSON, which puts it in a map, encodes that and has
// json.Marshal check the output again: a sixth of a bridge's CPU per call.
// Any other answer, or a result with a field this does not write, is left
// to json.Marshal (ok false). The keys come in the order MarshalJSON's map
// gives them.
func toolResultFrame(msg any) (frame []byte, ok bool) {
	return appendToolResultFrame(nil, msg)
}

// appendToolResultFrame is toolResultFrame written into dst's room.
func appendToolResultFrame(dst []byte, msg any) (frame []byte, ok bool) {
	resp, isResp := msg.(mcp.JSONRPCResponse)
	if !isResp {
		return nil, false
	}
	var res *mcp.CallToolResult
	switch r := resp.Result.(type) {
	case mcp.CallToolResult:
		res = &r
	case *mcp.CallToolResult:
		res = r
	default:
		return nil, false
	}
	structured, rawStructured := res.StructuredContent.(json.RawMessage)
	if res.Meta != nil || res.ResultType != "" || len(res.InputRequests) > 0 || res.RequestState != "" ||
		len(res.RawStructuredContent) > 0 || (res.StructuredContent != nil && !rawStructured) || resp.JSONRPC != mcp.JSONRPC_VERSION {
		return nil, false
	}
	id, err := requestIDJSON(resp.ID)
	if err != nil {
		return nil, false
	}
	// Room for the whole frame and its newline (frameWriter adds it), so
	// that neither makes the buffer grow and copy what it holds: the text
	// blocks, one of them the structured JSON quoted, and that JSON again.
	size := len(id) + len(structured) + 96
	for _, c := range res.Content {
		if tc, isText := c.(mcp.TextContent); isText {
			size += len(tc.Text) + len(tc.Text)/4 + 32
		}
	}
	b := bytes.NewBuffer(dst[:0])
	b.Grow(size)
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"result":{"content":[`)
	for i, c := range res.Content {
		tc, isText := c.(mcp.TextContent)
		if !isText || tc.Annotations != nil || tc.Meta != nil || tc.Type != "text" {
			return nil, false
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":`)
		writeJSONString(b, tc.Text)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if res.IsError {
		b.WriteString(`,"isError":true`)
	}
	if structured != nil {
		b.WriteString(`,"structuredContent":`)
		// Compact also keeps the frame on one line whatever the console's
		// spacing, and refuses what is not JSON.
		if json.Compact(b, structured) != nil {
			return nil, false
		}
	}
	b.WriteString("}}")
	return b.Bytes(), true
}

// requestIDJSON is json.Marshal(id): the request's id as the client sent it,
// which mcp-go holds as a string, an int64 or a float64. The common ones are
// written here; json.Marshal's generic path was a twentieth of the frame.
func requestIDJSON(id mcp.RequestId) ([]byte, error) {
	switch v := id.Value().(type) {
	case int64:
		return strconv.AppendInt(nil, v, 10), nil
	case float64:
		// An integer a float64 holds exactly is written as that integer,
		// as json.Marshal writes it; -0 and the rest go to json.Marshal.
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 && (v != 0 || !math.Signbit(v)) {
			return strconv.AppendInt(nil, int64(v), 10), nil
		}
	case string:
		var b bytes.Buffer
		b.Grow(len(v) + 2)
		writeJSONString(&b, v)
		return b.Bytes(), nil
	}
	return json.Marshal(id)
}

// writeJSONString writes s as a JSON string the way json.Marshal does:
// HTML characters, U+2028 and U+2029 escaped, invalid UTF-8 made U+FFFD. The
// second text block of a result is the structured JSON itself, quotes and
// all, and json.Marshal's generic path cost more than the escaping. The
// text is appended to the buffer's own bytes, grown once, and a byte that
// needs no escape costs one table look-up: through bytes.Buffer's methods,
// a byte at a time, this was about a twentieth of a bridge's own CPU a
// call. FuzzWriteJSONString holds it to json.Marshal.
func writeJSONString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	out := b.AvailableBuffer()
	if cap(out) < len(s)+len(s)/8+2 {
		b.Grow(len(s) + len(s)/8 + 2)
		out = b.AvailableBuffer()
	}
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, s[start:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\n':
				out = append(out, `\n`...)
			case '\r':
				out = append(out, `\r`...)
			case '\t':
				out = append(out, `\t`...)
			case '\b':
				out = append(out, `\b`...)
			case '\f':
				out = append(out, `\f`...)
			default:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, s[start:i]...)
			out = append(out, "\ufffd"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			out = append(out, s[start:i]...)
			out = append(out, `\u202`...)
			out = append(out, hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	out = append(out, s[start:]...)
	out = append(out, '"')
	b.Write(out)
}

// jsonPlain[c] is whether json.Marshal writes the byte c of a string as it
// is: ASCII but the control characters, the quote, the backslash and the
// HTML characters <, > and &. Other bytes start an escape or a UTF-8
// sequence.
var jsonPlain = func() (plain [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return plain
}()
