package authority

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/solgate/solgate/executor/plainjson"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// maxRequestBytes bounds a forwarded call; real tool arguments are tiny.
const maxRequestBytes = 64 << 10

// Handler is the socket API: POST /v1/call, POST /v1/presence and GET
// /v1/health. Requests are
// only ever reached through a SocketListener, which already refused peers of
// another uid.
func (h *Hub) Handler() http.Handler {
	return newRoutes(h.handleCall, h.handlePresence, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, wire.Health{Network: string(h.opts.Network), Wallet: h.Wallet(), Version: Version})
	})
}

// callPattern is the route of every tool call.
const callPattern = "POST " + wire.CallPath

// newMux routes the socket API's three endpoints; it alone answers wrong
// methods (405), unknown paths (404) and unclean ones (redirects).
func newMux(call, presence, health http.HandlerFunc) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc(callPattern, call)
	mux.HandleFunc("POST "+wire.PresencePath, presence)
	mux.HandleFunc("GET "+wire.HealthPath, health)
	return mux
}

// newRoutes is newMux with the request every proposal makes sent straight
// to its handler, skipping the mux's pattern matching; that request is the
// one the mux would send there too (TestRoutesAgreeWithMux).
func newRoutes(call, presence, health http.HandlerFunc) http.Handler {
	return callFirst{call: call, mux: newMux(call, presence, health)}
}

type callFirst struct {
	call http.HandlerFunc
	mux  *http.ServeMux
}

func (c callFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// An escaped path (RawPath set) is left to the mux, which matches
	// segments unescaped; a clean, unescaped one is matched exactly.
	if r.Method == http.MethodPost && r.URL.Path == wire.CallPath && r.URL.RawPath == "" {
		r.Pattern = callPattern
		c.call(w, r)
		return
	}
	c.mux.ServeHTTP(w, r)
}

// Version is reported by /v1/health; cmd sets it at build time.
var Version = "dev"

// DecodeCallRequest parses a forwarded call strictly: one JSON object with
// known fields only and no trailing data. It is exported for the fuzz target.
func DecodeCallRequest(r io.Reader) (wire.CallRequest, error) {
	var req wire.CallRequest
	buf := callBodies.Get().(*bytes.Buffer)
	defer putCallBody(buf)
	_, err := buf.ReadFrom(&io.LimitedReader{R: r, N: maxRequestBytes + 1})
	if err != nil {
		return req, fmt.Errorf("read request: %w", err)
	}
	body := buf.Bytes()
	if len(body) > maxRequestBytes {
		return req, fmt.Errorf("request larger than %d bytes", maxRequestBytes)
	}
	if scanCallRequest(body, &req) && req.Tool != "" {
		return req, nil
	}
	return decodeCallRequestJSON(body)
}

// callBodies holds the buffers call bodies are read into, so a call does
// not grow a fresh one from 512 bytes. Nothing decoded from a body keeps a
// reference to it: strings and arguments are copied out
// (TestDecodedCallOutlivesItsBuffer).
var callBodies = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 4<<10)) }}

func putCallBody(b *bytes.Buffer) {
	if b.Cap() > 16<<10 { // a rare large call's buffer is not kept
		return
	}
	b.Reset()
	callBodies.Put(b)
}

// decodeCallRequestJSON is DecodeCallRequest by encoding/json alone.
func decodeCallRequestJSON(body []byte) (wire.CallRequest, error) {
	var req wire.CallRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("malformed call request: %v", err)
	}
	if dec.More() {
		return req, errors.New("malformed call request: trailing data")
	}
	if req.Tool == "" {
		return req, errors.New("malformed call request: tool is empty")
	}
	return req, nil
}

// scanCallRequest reads a call request of the plain shape a bridge sends
// (plainjson): client, tool and arguments, nothing else. It declines
// anything else, which DecodeCallRequest then leaves to encoding/json, so
// that what it accepts decodes exactly as json.Decoder with
// DisallowUnknownFields would (TestCallRequestScannerAgreesWithEncodingJSON).
func scanCallRequest(b []byte, req *wire.CallRequest) bool {
	s := plainjson.Scanner{B: b}
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "client":
			return scanClientInfo(&s, &req.Client)
		case "tool":
			t, ok := s.Text()
			req.Tool = string(t)
			return ok
		case "process":
			t, ok := s.Text()
			req.Process = string(t)
			return ok
		case "arguments":
			from := s.Pos()
			if !s.Skip(4) {
				return false
			}
			req.Arguments = bytes.Clone(b[from:s.Offset()])
			return true
		}
		return false
	}) && s.End()
}

func scanClientInfo(s *plainjson.Scanner, c *wire.ClientInfo) bool {
	return s.Object(func(key []byte) bool {
		var dst *string
		switch string(key) {
		case "name":
			dst = &c.Name
		case "version":
			dst = &c.Version
		default:
			return false
		}
		v, ok := s.Text()
		*dst = string(v)
		return ok
	})
}

func (h *Hub) handleCall(w http.ResponseWriter, r *http.Request) {
	h.seePeerOnce(r.Context())
	bodyRead := ReadBodyWithin(w, h.opts.ReadTimeout)
	req, err := DecodeCallRequest(r.Body)
	if err != nil {
		// The deadline stays: net/http drains what is left of the body
		// before it gives up the connection, and a trickle must not hold it.
		writeJSON(w, http.StatusBadRequest, wire.CallResult{IsError: true, Text: err.Error()})
		return
	}
	bodyRead()
	if pc := peerConnFrom(r.Context()); pc != nil {
		if uid, ok := pc.senders.foreign(); ok {
			// Admission judged the user that connected, not this one.
			writeJSON(w, http.StatusForbidden, wire.CallResult{IsError: true, Text: fmt.Sprintf(
				"this connection was opened by uid %d but written to by uid %d: each process must open its own connection to the console", pc.cred.UID, uid)})
			return
		}
	}
	writeJSON(w, http.StatusOK, h.Call(r.Context(), req))
}

// seePeerOnce is seePeer once a connection: the hub never forgets a user it
// has seen, so the connection's later requests would find theirs already
// noted, only after taking the hub's lock that proposals contend for.
func (h *Hub) seePeerOnce(ctx context.Context) {
	pc := peerConnFrom(ctx)
	if pc != nil && pc.seen.Load() {
		return
	}
	h.seePeer(ctx)
	if pc != nil {
		pc.seen.Store(true)
	}
}

// writeJSON answers v with its length given: a body written as it is
// encoded goes out chunked once it outgrows the server's buffer (a
// proposal's answer does), which costs both ends.
func writeJSON(w http.ResponseWriter, code int, v any) {
	var body []byte
	var err error
	if r, ok := v.(wire.CallResult); ok {
		body, err = marshalCallResult(r)
	} else {
		body, err = json.Marshal(v)
	}
	if err != nil {
		code = http.StatusInternalServerError
		body, _ = json.Marshal(wire.CallResult{IsError: true, Text: "the console could not encode its answer: " + err.Error()})
	}
	body = append(body, '\n')
	// Keys already canonical, set without Header.Set's canonicalising.
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// jsonContentType is shared by every answer's header: net/http copies
// header values before it writes them and never changes them.
var jsonContentType = []string{"application/json"}

// Serve answers bridges on l until it is closed.
func (h *Hub) Serve(l net.Listener) error {
	srv := NewSocketHTTPServer(h.Handler())
	srv.ReadHeaderTimeout = h.opts.ReadTimeout
	// net/http's own complaints go to the console's log, never to the
	// terminal the TUI draws on.
	srv.ErrorLog = slog.NewLogLogger(h.log.Handler(), slog.LevelWarn)
	err := srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
