package executor

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// Client is the executor's view of a Solana node: solana-go's RPC client behind a
// transport that retries what is safe to retry and meters every round trip.
type Client struct {
	rpc      *rpc.Client
	meter    *callMeter
	endpoint string // the URL as given; its host decides what an unknown genesis hash means
	batch    batchState
}

// ClientOptions tune the RPC transport. Zero values mean the defaults.
type ClientOptions struct {
	// CallTimeout bounds one HTTP round trip. solana-go's own default is five
	// minutes, far longer than an MCP client waits.
	CallTimeout time.Duration
	// Retries is how many extra attempts an idempotent call gets after a 5xx, a
	// 429 or a transport error. sendTransaction is never retried here: the
	// confirm loop rebroadcasts the same signed bytes instead.
	Retries int
	// RetryBase is the first backoff; it doubles each attempt, with jitter.
	RetryBase time.Duration
}

func (o ClientOptions) withDefaults() ClientOptions {
	if o.CallTimeout <= 0 {
		o.CallTimeout = 10 * time.Second
	}
	if o.Retries < 0 {
		o.Retries = 0
	} else if o.Retries == 0 {
		o.Retries = 3
	}
	if o.RetryBase <= 0 {
		o.RetryBase = 100 * time.Millisecond
	}
	return o
}

// NewClient connects to a JSON-RPC endpoint. Nothing is sent until the first call.
func NewClient(endpoint string, opts ClientOptions) *Client {
	opts = opts.withDefaults()
	httpClient := newRPCHTTPClient(opts.CallTimeout)
	meter := &callMeter{}
	inner := jsonrpc.NewClientWithOpts(endpoint, &jsonrpc.RPCClientOpts{HTTPClient: httpClient})
	return &Client{
		rpc:      rpc.NewWithCustomRPCClient(&retryingClient{inner: inner, opts: opts, meter: meter}),
		meter:    meter,
		endpoint: endpoint,
	}
}

// newRPCHTTPClient is net/http's client for the RPC endpoint, with timeout
// bounding one round trip.
func newRPCHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:       http.ProxyFromEnvironment,
			DialContext: (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			// Proposals run side by side, each with a batch and the fee
			// market in flight: with 8 idle connections kept, the rest were
			// dialled and closed again each time (connect was 2% of the
			// console's CPU in the throughput profile, and the ledger paid
			// for the accepts).
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second,
		},
		// A redirected POST is a GET without its body (301, 302) or the
		// signed transaction sent to a host the operator never named (307,
		// 308): the RPC URL should name where the node answers.
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return fmt.Errorf("the RPC endpoint sent the call on to %s: give that URL as the RPC endpoint", req.URL.Redacted())
		},
	}
}

// RPC exposes the underlying solana-go client for read-only helpers.
func (c *Client) RPC() *rpc.Client { return c.rpc }

// Close releases idle connections.
func (c *Client) Close() error { return c.rpc.Close() }

// CallStats counts round trips and the wall time spent waiting for answers.
// Calls are HTTP round trips (a batch is one). Rounds are the calls made
// one after another: calls made beside them (the fee market's, see
// besideCalls) are not rounds, since nothing waits for them alone.
type CallStats struct {
	Calls   int64
	Retries int64
	Rounds  int64
	Waiting time.Duration
}

// plus adds the figures of another stretch of work (preparing, then submitting).
func (s CallStats) plus(o CallStats) CallStats {
	return CallStats{Calls: s.Calls + o.Calls, Retries: s.Retries + o.Retries, Rounds: s.Rounds + o.Rounds, Waiting: s.Waiting + o.Waiting}
}

// callMeter accumulates per-context statistics so that concurrent executions
// sharing one client each learn their own round-trip count and RPC wait time.
type callMeter struct {
	total CallStats
	mu    sync.Mutex
}

type meterKey struct{}

type besideKey struct{}

// besideCalls marks ctx's calls as made beside the operation's main line
// of calls, which does not wait for them before its next call.
func besideCalls(ctx context.Context) context.Context {
	return context.WithValue(ctx, besideKey{}, true)
}

// ctxMeter counts one operation's round trips. Waiting is the wall time
// during which at least one call was in flight, so calls made concurrently
// (should an operation ever make calls side by side) are not counted twice and
// wall − Waiting stays solgate's own time.
type ctxMeter struct {
	mu       sync.Mutex
	s        CallStats
	inFlight int
	since    time.Time
}

// withMeter returns a context whose RPC calls are counted into a fresh meter.
func withMeter(ctx context.Context) (context.Context, *ctxMeter) {
	m := &ctxMeter{}
	return context.WithValue(ctx, meterKey{}, m), m
}

func (m *ctxMeter) stats() CallStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.s
}

// begin marks a round trip as started; the returned func ends it.
func (cm *callMeter) begin(ctx context.Context, retry bool) (end func()) {
	start := time.Now()
	m, _ := ctx.Value(meterKey{}).(*ctxMeter)
	newRound := m != nil && ctx.Value(besideKey{}) == nil
	if m != nil {
		m.mu.Lock()
		m.s.Calls++
		if retry {
			m.s.Retries++
		}
		if newRound {
			m.s.Rounds++
		}
		if m.inFlight == 0 {
			m.since = start
		}
		m.inFlight++
		m.mu.Unlock()
	}
	return func() {
		now := time.Now()
		if m != nil {
			m.mu.Lock()
			m.inFlight--
			if m.inFlight == 0 {
				m.s.Waiting += now.Sub(m.since)
			}
			m.mu.Unlock()
		}
		cm.mu.Lock()
		cm.total.Calls++
		if retry {
			cm.total.Retries++
		}
		if newRound {
			// Only metered operations (a proposal's preparation, an
			// execution) count rounds; a lone read is not one's wait.
			cm.total.Rounds++
		}
		cm.total.Waiting += now.Sub(start)
		cm.mu.Unlock()
	}
}

// Stats reports totals over the client's lifetime.
func (c *Client) Stats() CallStats {
	c.meter.mu.Lock()
	defer c.meter.mu.Unlock()
	return c.meter.total
}

// retryingClient wraps solana-go's JSON-RPC client. It retries idempotent calls
// on answers that say "try again" and leaves everything else to the caller.
type retryingClient struct {
	inner jsonrpc.RPCClient
	opts  ClientOptions
	meter *callMeter
}

// Methods whose repetition cannot move funds. sendTransaction is absent on
// purpose; the confirm loop owns its rebroadcasts.
var idempotentMethods = map[string]bool{
	"getHealth": true, "getVersion": true, "getGenesisHash": true, "getSlot": true,
	"getBlockHeight": true, "getLatestBlockhash": true, "isBlockhashValid": true,
	"getBalance": true, "getAccountInfo": true, "getMultipleAccounts": true,
	"getMinimumBalanceForRentExemption": true, "getFeeForMessage": true,
	"simulateTransaction": true, "getSignatureStatuses": true, "getTransaction": true,
	"getTokenAccountsByOwner": true, "getTokenAccountBalance": true, "getTokenSupply": true,
	"getRecentPrioritizationFees": true,
}

func (c *retryingClient) CallForInto(ctx context.Context, out any, method string, params []any) error {
	attempts := 1
	if idempotentMethods[method] {
		attempts += c.opts.Retries
	}
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			backoff := c.opts.RetryBase << (i - 1)
			backoff += rand.N(backoff/2 + 1)
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: %w (last error: %v)", method, ctx.Err(), err)
			case <-time.After(backoff):
			}
		}
		end := c.meter.begin(ctx, i > 0)
		err = c.inner.CallForInto(ctx, out, method, params)
		end()
		if err == nil || !retryable(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

func (c *retryingClient) CallWithCallback(ctx context.Context, method string, params []any, cb func(*http.Request, *http.Response) error) error {
	end := c.meter.begin(ctx, false)
	err := c.inner.CallWithCallback(ctx, method, params, cb)
	end()
	return err
}

// CallBatch sends reqs as one batch. A batch of idempotent methods only is
// retried like a single idempotent call.
func (c *retryingClient) CallBatch(ctx context.Context, reqs jsonrpc.RPCRequests) (jsonrpc.RPCResponses, error) {
	attempts := 1 + c.opts.Retries
	for _, r := range reqs {
		if !idempotentMethods[r.Method] {
			attempts = 1
		}
	}
	var (
		res jsonrpc.RPCResponses
		err error
	)
	for i := 0; i < attempts; i++ {
		if i > 0 {
			backoff := c.opts.RetryBase << (i - 1)
			backoff += rand.N(backoff/2 + 1)
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("batch: %w (last error: %v)", ctx.Err(), err)
			case <-time.After(backoff):
			}
		}
		end := c.meter.begin(ctx, i > 0)
		res, err = c.inner.CallBatch(ctx, reqs)
		end()
		if err == nil || !retryable(err) || ctx.Err() != nil {
			return res, err
		}
	}
	return res, err
}

// retryable: HTTP 429/5xx and transport failures. A JSON-RPC error answer is the
// node's considered reply and is not retried.
func retryable(err error) bool {
	var httpErr *jsonrpc.HTTPError
	if errors.As(err, &httpErr) {
		return httpErr.Code == http.StatusTooManyRequests || httpErr.Code >= 500
	}
	var rpcErr *jsonrpc.RPCError
	if errors.As(err, &rpcErr) {
		return false
	}
	// Connection refused, reset or timed out before an answer: net/http reports
	// these as *url.Error wrapping a net.Error.
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &urlErr) || errors.As(err, &netErr)
}

// rpcErrorText renders an RPC error for people. solana-go's RPCError.Error()
// dumps a Go struct; an operator and a model need the node's message.
func rpcErrorText(err error) string {
	var rpcErr *jsonrpc.RPCError
	if errors.As(err, &rpcErr) {
		return fmt.Sprintf("RPC error %d: %s", rpcErr.Code, rpcErr.Message)
	}
	var httpErr *jsonrpc.HTTPError
	if errors.As(err, &httpErr) {
		return fmt.Sprintf("RPC answered HTTP %d", httpErr.Code)
	}
	return err.Error()
}
