package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// Bridge is `solgate mcp`: an MCP stdio server that holds no key, no RPC
// connection and no state. Every tool call is forwarded to the console's hub
// over its Unix socket; if no console answers, every tool fails closed.
type Bridge struct {
	socket    string
	calls     *http.Client // NewUnixHTTPClient's, bounded by bridgeTimeout; used by this process alone
	presence  *http.Client // no overall timeout: its one request lasts as long as the bridge
	mcp       *server.MCPServer
	life      context.Context // ServeStdio's; ends the presence request with the bridge
	present   sync.Once
	announced atomic.Bool // set once the presence request has started
}

// bridgeTimeout must exceed the longest call the hub can hold open: an
// execute call (≤ 40 s) or a proposal_status long-poll (≤ 45 s).
const bridgeTimeout = 55 * time.Second

// maxAnswerBytes bounds a console's answer.
const maxAnswerBytes = 4 << 20

// presenceRetry is the pause before announcing again after the console went
// away (restarted, or not started yet).
const presenceRetry = 2 * time.Second

// notAdmittedRetry is the pause after the console refused this user.
const notAdmittedRetry = 30 * time.Second

// NewBridge builds the MCP server for the console listening on socket.
func NewBridge(socket, version string) *Bridge {
	b := &Bridge{socket: socket, calls: NewUnixHTTPClient(socket, bridgeTimeout), presence: NewUnixHTTPClient(socket, 0)}
	// Announce presence once the client has a name: at the legacy
	// initialize handshake, or at the first request of a client on the
	// stateless protocol, which names itself in every request.
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(_ context.Context, _ any, m *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		b.announce(wire.ClientInfo{Name: m.Params.ClientInfo.Name, Version: m.Params.ClientInfo.Version})
	})
	hooks.AddBeforeAny(func(ctx context.Context, _ any, _ mcp.MCPMethod, _ any) {
		// Once announced, a request costs only this load.
		if !b.announced.Load() {
			b.announce(clientInfo(ctx))
		}
	})
	b.mcp = server.NewMCPServer("solgate", version,
		server.WithHooks(hooks),
		server.WithToolCapabilities(false),
		// No WithOutputSchemaValidation: forward checks every result
		// against its tool's declaration itself (outputCheck), on the JSON
		// text as it came, where mcp-go would decode it into maps first.
		server.WithInstructions("solgate lets you propose Solana spends (SOL and SPL token transfers, swaps) that a human approves in the solgate console. "+
			"Write tools never execute on their first call: they return a proposal. Use proposal_status to wait for the human's decision, "+
			"then repeat the identical call with the confirm token. A denial is final for those arguments unless it says it is retryable."),
	)
	for _, tool := range bridgeTools() {
		b.mcp.AddTool(tool, b.forward)
	}
	return b
}

// ServeStdio speaks MCP on in/out until in closes or ctx ends. Only MCP
// frames are written to out; logs go to logw (stderr in production).
func (b *Bridge) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, logw io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer b.calls.CloseIdleConnections()
	b.life = ctx
	err := serveLines(ctx, b.mcp, in, out, log.New(logw, "solgate mcp: ", log.LstdFlags))
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func (b *Bridge) forward(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// The arguments as the client wrote them (mcp-go keeps them); encoding
	// the call checks and compacts them once, as encoding them here first
	// would again.
	args := req.Params.RawArguments
	if len(args) == 0 {
		var err error
		if args, err = json.Marshal(req.GetRawArguments()); err != nil {
			return mcp.NewToolResultError("arguments could not be encoded: " + err.Error()), nil
		}
	}
	stop := waitProgress(ctx, req)
	res, err := b.call(ctx, wire.CallRequest{Client: clientInfo(ctx), Tool: req.Params.Name, Arguments: args, Process: processSecret})
	stop()
	if err != nil {
		// Fail closed: without a console nothing can be proposed or executed.
		return mcp.NewToolResultError(err.Error()), nil
	}
	// A result that breaks its tool's declared outputSchema is a broken
	// invariant: the model gets an error, never the malformed result, which
	// a client's SDK would throw away as a schema error. A tool error keeps
	// its message, without the structured content. Tool errors are checked
	// too: clients validate the structured content of every answer.
	if res.Structured != nil {
		if err := CheckOutput(req.Params.Name, res.Structured); err != nil {
			if res.IsError {
				res.Structured = nil
			} else {
				return mcp.NewToolResultError("output schema validation failed: " + err.Error()), nil
			}
		}
	}
	return toMCPResult(res), nil
}

// relayedResult is a console answer (CallResult on the wire) as the bridge
// relays it: the structured content stays the console's JSON text. Decoding
// it into maps only to encode it again, as structuredContent and as the text
// block that repeats it, was a large part of a bridge's CPU per call.
type relayedResult struct {
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured,omitempty"`
}

// toMCPResult is a console answer as the MCP spec wants a tool result: the
// human-readable text first, then structuredContent and, for clients that
// read only text, the same JSON serialised in a second text block. The
// structured content goes out as the console wrote it (forward has checked
// it against the tool's outputSchema).
func toMCPResult(res relayedResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent{Type: "text", Text: res.Text}},
		IsError: res.IsError,
	}
	if res.Structured != nil {
		out.StructuredContent = res.Structured
		out.Content = append(out.Content, mcp.TextContent{Type: "text", Text: string(res.Structured)})
	}
	return out
}

// ResultFromMCP reads an MCP tool result back into a CallResult: the inverse
// of what forward builds, for MCP clients of solgate (the demo agent, tests,
// the benchmark).
func ResultFromMCP(res *mcp.CallToolResult) wire.CallResult {
	out := wire.CallResult{IsError: res.IsError}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &out.Structured)
		// The last block is the structured content serialised (ToMCPResult);
		// the text a person reads is what comes before it.
		if n := len(texts); n > 1 && json.Valid([]byte(texts[n-1])) {
			texts = texts[:n-1]
		}
	}
	out.Text = strings.Join(texts, "")
	return out
}

// announce starts the presence request the first time the client's name is
// known.
func (b *Bridge) announce(ci wire.ClientInfo) {
	if ci.Name == "" || b.life == nil {
		return
	}
	b.present.Do(func() {
		b.announced.Store(true)
		go b.stayPresent(b.life, ci)
	})
}

// stayPresent holds a presence request open to the console for as long as
// the bridge runs, so the console lists this agent as connected exactly
// while it is; after a console restart it announces itself again.
func (b *Bridge) stayPresent(ctx context.Context, ci wire.ClientInfo) {
	body, _ := json.Marshal(ci)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://solgate"+wire.PresencePath, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		wait := presenceRetry
		if resp, err := b.presence.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
			resp.Body.Close()
		} else if errors.Is(err, ErrNotAdmitted) {
			// Each attempt is a refusal in the console's log; ask rarely
			// until its operator admits this user.
			wait = notAdmittedRetry
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// ErrUnreadableAnswer is an answer from the console that did not decode.
var ErrUnreadableAnswer = errors.New("unreadable answer")

// PostCall sends one tool call to the console's socket API, as a bridge
// does; c must come from NewUnixHTTPClient. A transport failure is returned
// as net/http reports it (a missing console wraps *NoConsoleError); an
// answer that does not decode wraps ErrUnreadableAnswer.
func PostCall(ctx context.Context, c *http.Client, req wire.CallRequest) (wire.CallResult, error) {
	var res wire.CallResult
	body, err := json.Marshal(req)
	if err != nil {
		return res, fmt.Errorf("encode call: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://solgate"+wire.CallPath, bytes.NewReader(body))
	if err != nil {
		return res, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(hreq)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes)).Decode(&res); err != nil {
		return res, fmt.Errorf("%w (HTTP %d): %v", ErrUnreadableAnswer, resp.StatusCode, err)
	}
	return res, nil
}

func (b *Bridge) call(ctx context.Context, req wire.CallRequest) (relayedResult, error) {
	var res relayedResult
	body, err := encodeCall(req)
	if err != nil {
		return res, fmt.Errorf("encode call: %w", err)
	}
	status, answer, err := b.post(ctx, body)
	if err == nil {
		if uerr := decodeAnswer(answer, &res); uerr != nil {
			err = fmt.Errorf("%w (HTTP %d): %v", ErrUnreadableAnswer, status, uerr)
		}
	}
	if err == nil && !structuredIsObject(res.Structured) {
		// What CallResult's map would not have decoded.
		err = fmt.Errorf("%w: its structured content is not a JSON object", ErrUnreadableAnswer)
	}
	if err == nil && string(res.Structured) == "null" {
		res.Structured = nil
	}
	var nc *NoConsoleError
	var na *NotAdmittedError
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		// The client went first (stdin closed, or the call cancelled): a
		// dial cut short by that is no missing console.
		return res, fmt.Errorf("call abandoned before the solgate console answered: the MCP client cancelled it or closed its input (stdin); if it was a confirmed write, proposal_status says whether it executed (%w)", ctx.Err())
	case errors.As(err, &nc):
		return res, nc
	case errors.As(err, &na):
		return res, na
	case errors.Is(err, ErrUnreadableAnswer):
		return res, fmt.Errorf("the solgate console at %s sent an %v", b.socket, err)
	}
	return res, fmt.Errorf("the solgate console at %s did not answer: %w", b.socket, err)
}

// post sends one encoded call to the console and reads its answer whole.
// A failed connection is a *NoConsoleError or *NotAdmittedError inside the
// *url.Error net/http wraps it in.
func (b *Bridge) post(ctx context.Context, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://solgate"+wire.CallPath, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.calls.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err == nil && len(answer) > maxAnswerBytes {
		err = fmt.Errorf("answer larger than %d bytes", maxAnswerBytes)
	}
	return resp.StatusCode, answer, err
}

// encodeCall is json.Marshal(req): the strings written as json.Marshal
// writes them, the arguments compacted and HTML-escaped as it does a
// json.RawMessage. json.Marshal's generic path over CallRequest was a
// sixtieth of a bridge's CPU per call.
func encodeCall(req wire.CallRequest) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(64 + len(req.Client.Name) + len(req.Client.Version) + len(req.Tool) + len(req.Arguments))
	b.WriteString(`{"client":{"name":`)
	writeJSONString(&b, req.Client.Name)
	b.WriteString(`,"version":`)
	writeJSONString(&b, req.Client.Version)
	b.WriteString(`},"tool":`)
	writeJSONString(&b, req.Tool)
	b.WriteString(`,"arguments":`)
	if req.Arguments == nil {
		b.WriteString("null")
	} else {
		var compact bytes.Buffer
		if err := json.Compact(&compact, req.Arguments); err != nil {
			return nil, err
		}
		json.HTMLEscape(&b, compact.Bytes())
	}
	if req.Process != "" {
		b.WriteString(`,"process":`)
		writeJSONString(&b, req.Process)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeAnswer is json.Unmarshal(answer, res) for a console's answer. The
// answer as the console writes it (each of isError, text and structured at
// most once, spelt so, and nothing else) is read in one pass of a pooled
// decoder, its structured content a slice of answer; anything else (another
// spelling, a null, a duplicate, a value of the wrong kind, invalid UTF-8)
// goes to json.Unmarshal, which decides as it always did. Reflection over
// relayedResult was about a twentieth of a bridge's CPU per call.
func decodeAnswer(answer []byte, res *relayedResult) error {
	if fastAnswer(answer, res) {
		return nil
	}
	*res = relayedResult{}
	return json.Unmarshal(answer, res)
}

func fastAnswer(answer []byte, res *relayedResult) bool {
	r := answerReaders.Get().(*answerReader)
	defer r.put()
	r.src.Reset(answer)
	r.dec.Reset(&r.src)
	dec := &r.dec
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	var out relayedResult
	var seenError, seenText, seenStructured bool
	for dec.PeekKind() != '}' {
		// A name as written: one spelt with escapes goes the slow way.
		name, err := dec.ReadValue()
		if err != nil {
			return false
		}
		switch string(name) {
		case `"isError"`:
			tok, err := dec.ReadToken()
			if err != nil || seenError || (tok.Kind() != 't' && tok.Kind() != 'f') {
				return false
			}
			out.IsError, seenError = tok.Bool(), true
		case `"text"`:
			if dec.PeekKind() != '"' || seenText {
				return false
			}
			quoted, err := dec.ReadValue()
			if err != nil {
				return false
			}
			// Unquoted into a kept buffer: one allocation, the string.
			if r.text, err = jsontext.AppendUnquote(r.text[:0], quoted); err != nil {
				return false
			}
			out.Text, seenText = string(r.text), true
		case `"structured"`:
			start := dec.InputOffset()
			if seenStructured || dec.SkipValue() != nil {
				return false
			}
			// The value's bytes as written, without the colon and white
			// space before it, as json.RawMessage holds them.
			raw := bytes.TrimLeft(answer[start:dec.InputOffset()], " \t\r\n:")
			out.Structured, seenStructured = json.RawMessage(raw), true
		default:
			return false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	// One value, then nothing but white space.
	if _, err := dec.ReadToken(); err != io.EOF {
		return false
	}
	*res = out
	return true
}

// answerReader is a checkReader with a buffer for the answer's text.
type answerReader struct {
	checkReader
	text []byte
}

var answerReaders = sync.Pool{New: func() any { return new(answerReader) }}

// put returns r to the pool holding nothing of the answer it read.
func (r *answerReader) put() {
	r.src.Reset(nil)
	r.dec.Reset(&r.src)
	if cap(r.text) > 64<<10 {
		r.text = nil
	}
	answerReaders.Put(r)
}

// structuredIsObject reports whether raw, a JSON value the decoder accepted,
// is an object, null or absent: the answers CallResult.Structured holds.
func structuredIsObject(raw json.RawMessage) bool {
	return len(raw) == 0 || raw[0] == '{' || string(raw) == "null"
}

// clientInfo is the MCP client's self-description from initialize.
func clientInfo(ctx context.Context) wire.ClientInfo {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		ci := s.GetClientInfo()
		return wire.ClientInfo{Name: ci.Name, Version: ci.Version}
	}
	return wire.ClientInfo{}
}
