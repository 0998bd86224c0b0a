package server

import (
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
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// maxRequestBytes bounds a forwarded call; real tool arguments are tiny.
const maxRequestBytes = 64 << 10

// Core is what the routes need of the approval core: the hub answers it,
// and it is all of the hub the socket reaches.
type Core interface {
	// Call answers one forwarded tool call; the caller is read from the
	// connection in ctx (host.PeerConnFrom), never from the request.
	Call(ctx context.Context, req wire.CallRequest) wire.CallResult
	// SeePeer notes the user on the other end of ctx's connection and
	// raises the warnings it calls for; it returns once they are raised.
	SeePeer(ctx context.Context)
	// Arrive notes a bridge of the agent ci as present until leave is
	// called; stop is closed when the core shuts down. ok is false when
	// the core is already closed, and then there is nothing to leave.
	Arrive(ctx context.Context, ci wire.ClientInfo) (leave func(), stop <-chan struct{}, ok bool)
	// Network and Wallet are reported by the health check.
	Network() executor.Network
	Wallet() string
}

// Options tune the socket's HTTP server; the zero value is the default.
type Options struct {
	// ReadTimeout bounds reading a request's headers and body (default
	// host.RequestReadTimeout).
	ReadTimeout time.Duration
	// Logger gets net/http's own complaints (default: discarded), never the
	// terminal the TUI draws on.
	Logger *slog.Logger
}

// routes are the handlers of one served core.
type routes struct {
	core        Core
	readTimeout time.Duration
}

// handler is the socket API: POST /v1/call, POST /v1/presence and GET
// /v1/health, routed by http.ServeMux, which alone answers wrong methods
// (405), unknown paths (404) and unclean ones (redirects). Requests are
// only ever reached through a SocketListener, which already refused peers of
// another uid.
func (rt routes) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+wire.CallPath, rt.handleCall)
	mux.HandleFunc("POST "+wire.PresencePath, rt.handlePresence)
	mux.HandleFunc("GET "+wire.HealthPath, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, wire.Health{Network: string(rt.core.Network()), Wallet: rt.core.Wallet(), Version: Version})
	})
	return mux
}

// Version is reported by /v1/health; cmd sets it at build time.
var Version = "dev"

// DecodeCallRequest parses a forwarded call strictly: one JSON object with
// known fields only and no trailing data, at most maxRequestBytes. It is
// exported for the fuzz target.
func DecodeCallRequest(r io.Reader) (wire.CallRequest, error) {
	var req wire.CallRequest
	lr := &io.LimitedReader{R: r, N: maxRequestBytes + 1}
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	if err == nil {
		// White space only, then the end, within the bound.
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("trailing data")
		}
	}
	switch {
	case lr.N <= 0:
		return req, fmt.Errorf("request larger than %d bytes", maxRequestBytes)
	case err != nil:
		return req, fmt.Errorf("malformed call request: %v", err)
	case req.Tool == "":
		return req, errors.New("malformed call request: tool is empty")
	}
	return req, nil
}

func (rt routes) handleCall(w http.ResponseWriter, r *http.Request) {
	rt.seePeerOnce(r.Context())
	w.Header()[wire.OutputContractHeader] = outputContract()
	bodyRead := host.ReadBodyWithin(w, rt.readTimeout)
	req, err := DecodeCallRequest(r.Body)
	if err != nil {
		// The deadline stays: net/http drains what is left of the body
		// before it gives up the connection, and a trickle must not hold it.
		writeJSON(w, http.StatusBadRequest, wire.CallResult{IsError: true, Text: err.Error()})
		return
	}
	bodyRead()
	if pc := host.PeerConnFrom(r.Context()); pc != nil {
		if uid, ok := pc.Foreign(); ok {
			// Admission judged the user that connected, not this one.
			writeJSON(w, http.StatusForbidden, wire.CallResult{IsError: true, Text: fmt.Sprintf(
				"this connection was opened by uid %d but written to by uid %d: each process must open its own connection to the console", pc.Cred().UID, uid)})
			return
		}
	}
	writeJSON(w, http.StatusOK, rt.core.Call(r.Context(), req))
}

// seePeerOnce is SeePeer once a connection: the core never forgets a user
// it has seen, so the connection's later requests would find theirs already
// noted, only after taking the hub's lock that proposals contend for.
func (rt routes) seePeerOnce(ctx context.Context) {
	pc := host.PeerConnFrom(ctx)
	if pc != nil && pc.Seen() {
		return
	}
	rt.core.SeePeer(ctx)
	if pc != nil {
		pc.MarkSeen()
	}
}

// writeJSON answers v with its length given: a body written as it is
// encoded goes out chunked once it outgrows the server's buffer (a
// proposal's answer does), which costs both ends.
func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
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

// outputContract is the value of every call answer's
// wire.OutputContractHeader: the contract this console's answers are held
// to by its tests, which spares a bridge of the same contract its check.
var outputContract = sync.OnceValue(func() []string { return []string{wire.OutputContract()} })

// jsonContentType is shared by every answer's header: net/http copies
// header values before it writes them and never changes them.
var jsonContentType = []string{"application/json"}

// Serve answers bridges on l for core until l is closed.
func Serve(l net.Listener, core Core, o Options) error {
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = host.RequestReadTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	srv := host.NewSocketHTTPServer(routes{core: core, readTimeout: o.ReadTimeout}.handler())
	srv.ReadHeaderTimeout = o.ReadTimeout
	srv.ErrorLog = slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn)
	err := srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
