package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"runtime"
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
		// No WithOutputSchemaValidation: forward checks every result of
		// a console of another contract, tool errors too (mcp-go checks
		// successes only), with the JSON Schema library mcp-go uses
		// (CheckOutput).
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
// frames are written to out; logs go to logw (stderr in production). The
// transport is mcp-go's StdioServer; closing in ends the calls still in
// flight, a long-poll included.
func (b *Bridge) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, logw io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer b.calls.CloseIdleConnections()
	b.life = ctx
	s := server.NewStdioServer(b.mcp)
	for _, opt := range []server.StdioOption{
		server.WithErrorLogger(log.New(logw, "solgate mcp: ", log.LstdFlags)),
		server.WithWorkerPoolSize(toolCallWorkers),
	} {
		opt(s)
	}
	err := s.Listen(ctx, yieldFirst{in}, out)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// yieldFirst reads r after the goroutines already runnable have run. A
// bridge runs on one P (cmd/solgate's relayRuntime) and its stdin is a pipe
// in blocking mode, so a read that waits keeps that P. StdioServer starts
// a line's handler and then the read of the next line, which the scheduler
// runs first: without the yield the handler (the initialize answer, a call
// on its way to the console) waited until the runtime's monitor took the P
// back, 2-3 ms at start-up.
type yieldFirst struct{ r io.Reader }

func (y yieldFirst) Read(p []byte) (int, error) {
	runtime.Gosched()
	return y.r.Read(p)
}

// toolCallWorkers is how many tool calls a bridge serves at once. mcp-go's
// default of five let a sixth call (a get_balance, say) wait behind five
// proposal_status long-polls for up to 45 s each. The console admits 64
// connections of one user (DefaultMaxConnsPerUID), so more workers would
// only wait there instead.
const toolCallWorkers = 64

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
	// too: clients validate the structured content of every answer. The
	// answers of a console that says they are held to this bridge's own
	// contract (wire.OutputContractHeader) were checked by its tests.
	if res.Structured != nil && res.contract != wire.OutputContract() {
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
	// contract is the console's wire.OutputContractHeader ("" without).
	contract string
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
	body, err := json.Marshal(req)
	if err != nil {
		return res, fmt.Errorf("encode call: %w", err)
	}
	status, answer, contract, err := b.post(ctx, body)
	res.contract = contract
	if err == nil {
		if uerr := json.Unmarshal(answer, &res); uerr != nil {
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
func (b *Bridge) post(ctx context.Context, body []byte) (status int, answer []byte, contract string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://solgate"+wire.CallPath, bytes.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.calls.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	answer, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err == nil && len(answer) > maxAnswerBytes {
		err = fmt.Errorf("answer larger than %d bytes", maxAnswerBytes)
	}
	return resp.StatusCode, answer, resp.Header.Get(wire.OutputContractHeader), err
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
