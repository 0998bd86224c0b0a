package executor

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gagliardetto/solana-go"
)

// ErrSwapAPI is wrapped by every failure to get a usable answer from the swap
// API: transport errors, timeouts, non-200 answers, oversized or malformed
// bodies, and quotes that do not match what was asked.
var ErrSwapAPI = errors.New("swap API")

// SwapClientOptions configure a SwapClient. Zero values mean the defaults.
type SwapClientOptions struct {
	// Timeout bounds one request from dial to the last byte of the body
	// (default 10 s).
	Timeout time.Duration
	// MaxBody is the largest response body accepted (default 1 MiB); a larger
	// one is refused, not truncated.
	MaxBody int64
	// PrioritizationFeeLamports is what SwapTransaction sends with /swap: a
	// fixed number of lamports (never "auto", whose cap is Jupiter's, not
	// the operator's). Swappers send their own request instead
	// (SwapTransactionWithFee), from the operator's fee settings.
	PrioritizationFeeLamports uint64
	// APIKey, when set, is sent as the x-api-key header.
	APIKey string
	// Version is the API spoken: SwapAPIv1 (0 means it) or SwapAPIv2.
	Version int
	// Transport replaces the HTTP transport (tests).
	Transport http.RoundTripper
}

func (o SwapClientOptions) withDefaults() SwapClientOptions {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 1 << 20
	}
	return o
}

// SwapClient talks to a Jupiter Swap API compatible service: v1's
// GET {base}/swap/v1/quote and POST {base}/swap/v1/swap, or v2's
// GET {base}/swap/v2/build (swapv2.go).
type SwapClient struct {
	base *url.URL
	http *http.Client
	opts SwapClientOptions
}

// NewSwapClient returns a client for the API at base (scheme and host, with an
// optional path prefix, e.g. "https://example.com" or "http://127.0.0.1:8899").
func NewSwapClient(base string, opts SwapClientOptions) (*SwapClient, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: base URL %q must be http(s)://host[/prefix]", ErrSwapAPI, base)
	}
	if opts.Version != 0 && opts.Version != SwapAPIv1 && opts.Version != SwapAPIv2 {
		return nil, fmt.Errorf("%w: version %d: accepted are 1 (/swap/v1/quote and /swap/v1/swap) and 2 (/swap/v2/build)", ErrSwapAPI, opts.Version)
	}
	opts = opts.withDefaults()
	tr := opts.Transport
	if tr == nil {
		tr = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ResponseHeaderTimeout: opts.Timeout,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       60 * time.Second,
		}
	}
	return &SwapClient{
		base: u,
		// http.Client.Timeout covers reading the body too, so a server that
		// trickles bytes cannot hold a caller past Timeout.
		http: &http.Client{Timeout: opts.Timeout, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("redirects are not followed")
		}},
		opts: opts,
	}, nil
}

// BaseURL is the API base the client was made with.
func (c *SwapClient) BaseURL() string { return c.base.String() }

// QuoteRequest asks for an ExactIn quote.
type QuoteRequest struct {
	InputMint   solana.PublicKey
	OutputMint  solana.PublicKey
	Amount      uint64 // input, in base units
	SlippageBps uint16
	// Taker is the wallet that will sign and pay: v2's /build needs it to
	// build its instructions; v1's quote does not use it.
	Taker solana.PublicKey
}

// Quote is a parsed quote. Raw is the API's JSON exactly as received; it is
// what /swap is sent back, so the service builds the transaction for the very
// quote that was shown.
type Quote struct {
	InputMint            solana.PublicKey
	OutputMint           solana.PublicKey
	InAmount             uint64
	OutAmount            uint64 // expected
	OtherAmountThreshold uint64 // minimum out after slippage
	SwapMode             string
	SlippageBps          uint16
	// PriceImpactPct is the API's string, a fraction despite the name
	// ("0.0001" is 0.01 %).
	PriceImpactPct string
	Route          []RouteStep
	ContextSlot    uint64
	TimeTaken      float64
	Raw            json.RawMessage

	build *swapBuild // v2: the /build answer's instructions
}

// RouteStep is one routePlan entry.
type RouteStep struct {
	AMMKey     solana.PublicKey
	Label      string
	InputMint  solana.PublicKey
	OutputMint solana.PublicKey
	InAmount   uint64
	OutAmount  uint64
	FeeAmount  uint64
	FeeMint    solana.PublicKey // zero when the API gave none
	Percent    int
}

// Pools are the route's AMM keys: the only addresses the inspector lets the
// wallet's SOL or tokens go to (besides the wallet's own token accounts).
func (q *Quote) Pools() []solana.PublicKey {
	out := make([]solana.PublicKey, 0, len(q.Route))
	for _, r := range q.Route {
		out = append(out, r.AMMKey)
	}
	return out
}

// PriceImpact parses PriceImpactPct as a fraction (0.0001 = 0.01 %).
func (q *Quote) PriceImpact() (float64, error) {
	f, ok := new(big.Float).SetString(q.PriceImpactPct)
	if !ok {
		return 0, fmt.Errorf("priceImpactPct %q is not a number", sanitizeExcerpt([]byte(q.PriceImpactPct), 40))
	}
	v, _ := f.Float64()
	return v, nil
}

// SwapTx is /swap's answer: the transaction decoded (not yet inspected) and
// the API's claims about it.
type SwapTx struct {
	Tx *ForeignTx
	// Quote is, for Swap API v2, the quote of the /build the transaction
	// was compiled from (its minimum is the one the chain enforces); nil
	// for v1, whose /swap builds for the quote it was sent.
	Quote                     *Quote
	LastValidBlockHeight      uint64
	PrioritizationFeeLamports uint64
	ComputeUnitLimit          uint64
}

// wire shapes; amounts are decimal strings as Jupiter sends them.
type quoteWire struct {
	InputMint            string `json:"inputMint"`
	InAmount             string `json:"inAmount"`
	OutputMint           string `json:"outputMint"`
	OutAmount            string `json:"outAmount"`
	OtherAmountThreshold string `json:"otherAmountThreshold"`
	SwapMode             string `json:"swapMode"`
	SlippageBps          *int64 `json:"slippageBps"`
	PriceImpactPct       string `json:"priceImpactPct"`
	RoutePlan            []struct {
		SwapInfo struct {
			AMMKey     string `json:"ammKey"`
			Label      string `json:"label"`
			InputMint  string `json:"inputMint"`
			OutputMint string `json:"outputMint"`
			InAmount   string `json:"inAmount"`
			OutAmount  string `json:"outAmount"`
			FeeAmount  string `json:"feeAmount"`
			FeeMint    string `json:"feeMint"`
		} `json:"swapInfo"`
		Percent int `json:"percent"`
	} `json:"routePlan"`
	ContextSlot uint64  `json:"contextSlot"`
	TimeTaken   float64 `json:"timeTaken"`
}

type swapRequestWire struct {
	UserPublicKey             string          `json:"userPublicKey"`
	QuoteResponse             json.RawMessage `json:"quoteResponse"`
	WrapAndUnwrapSol          bool            `json:"wrapAndUnwrapSol"`
	DynamicComputeUnitLimit   bool            `json:"dynamicComputeUnitLimit"`
	PrioritizationFeeLamports any             `json:"prioritizationFeeLamports"`
}

// SwapPriorityFee is the priority fee asked of /swap: either a fixed number
// of lamports (Level empty; 0 is none), or Jupiter's estimate at Level
// ("medium", "high", "veryHigh") with the total held to MaxLamports, in
// Jupiter's priorityLevelWithMaxLamports form.
type SwapPriorityFee struct {
	Lamports    uint64
	Level       string
	MaxLamports uint64
}

func (f SwapPriorityFee) wire() any {
	if f.Level == "" {
		return f.Lamports
	}
	return map[string]any{"priorityLevelWithMaxLamports": map[string]any{"priorityLevel": f.Level, "maxLamports": f.MaxLamports}}
}

// String says what was asked, for the preview.
func (f SwapPriorityFee) String() string {
	switch {
	case f.Level != "":
		return fmt.Sprintf("the swap API's %q priority level, at most %d lamports (--max-priority-fee-lamports)", f.Level, f.MaxLamports)
	case f.Lamports == 0:
		return "priority fee off"
	}
	return fmt.Sprintf("fixed %d lamports", f.Lamports)
}

type swapResponseWire struct {
	SwapTransaction           string          `json:"swapTransaction"`
	LastValidBlockHeight      uint64          `json:"lastValidBlockHeight"`
	PrioritizationFeeLamports uint64          `json:"prioritizationFeeLamports"`
	ComputeUnitLimit          uint64          `json:"computeUnitLimit"`
	SimulationError           json.RawMessage `json:"simulationError"`
}

// Quote asks for an ExactIn quote and checks that the answer is a quote for
// exactly what was asked.
func (c *SwapClient) Quote(ctx context.Context, r QuoteRequest) (*Quote, error) {
	if r.Amount == 0 {
		return nil, fmt.Errorf("%w: quote: amount must be greater than zero", ErrSwapAPI)
	}
	if r.InputMint.Equals(r.OutputMint) {
		return nil, fmt.Errorf("%w: quote: input and output mint are the same (%s)", ErrSwapAPI, r.InputMint)
	}
	if r.SlippageBps > 10_000 {
		return nil, fmt.Errorf("%w: quote: slippageBps %d is over 10000 (100 %%)", ErrSwapAPI, r.SlippageBps)
	}
	if c.Version() == SwapAPIv2 {
		return c.build(ctx, r)
	}
	q := url.Values{}
	q.Set("inputMint", r.InputMint.String())
	q.Set("outputMint", r.OutputMint.String())
	q.Set("amount", strconv.FormatUint(r.Amount, 10))
	q.Set("slippageBps", strconv.FormatUint(uint64(r.SlippageBps), 10))
	q.Set("swapMode", "ExactIn")
	u := c.endpoint("/swap/v1/quote") + "?" + q.Encode()
	body, err := c.do(ctx, "quote", http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	quote, err := parseQuote(body, false)
	if err != nil {
		return nil, fmt.Errorf("%w: quote: malformed response: %v", ErrSwapAPI, err)
	}
	if err := quote.matches(r); err != nil {
		return nil, fmt.Errorf("%w: quote does not match the request: %v", ErrSwapAPI, err)
	}
	return quote, nil
}

// SwapTransaction asks /swap to build the transaction for q with user as the
// fee payer and signer. The answer is decoded but not trusted: Inspect it.
func (c *SwapClient) SwapTransaction(ctx context.Context, q *Quote, user solana.PublicKey) (*SwapTx, error) {
	return c.SwapTransactionWithFee(ctx, q, user, SwapPriorityFee{Lamports: c.opts.PrioritizationFeeLamports})
}

// SwapTransactionWithFee is SwapTransaction with the priority fee asked as fee says.
func (c *SwapClient) SwapTransactionWithFee(ctx context.Context, q *Quote, user solana.PublicKey, fee SwapPriorityFee) (*SwapTx, error) {
	if q == nil || len(q.Raw) == 0 {
		return nil, fmt.Errorf("%w: swap: no quote to build a transaction for", ErrSwapAPI)
	}
	if c.Version() == SwapAPIv2 {
		// /build takes no priority fee: its computeBudgetInstructions set
		// one, which the inspector holds to --max-priority-fee-lamports.
		return c.buildTransaction(ctx, q, user)
	}
	req, err := json.Marshal(swapRequestWire{
		UserPublicKey:             user.String(),
		QuoteResponse:             q.Raw,
		WrapAndUnwrapSol:          true,
		DynamicComputeUnitLimit:   true,
		PrioritizationFeeLamports: fee.wire(),
	})
	if err != nil {
		return nil, fmt.Errorf("%w: swap: encode request: %v", ErrSwapAPI, err)
	}
	body, err := c.do(ctx, "swap", http.MethodPost, c.endpoint("/swap/v1/swap"), req)
	if err != nil {
		return nil, err
	}
	var w swapResponseWire
	if err := strictUnmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("%w: swap: malformed response: %v", ErrSwapAPI, err)
	}
	if s := bytes.TrimSpace(w.SimulationError); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
		return nil, fmt.Errorf("%w: swap: the API's own simulation failed: %s", ErrSwapAPI, sanitizeExcerpt(s, 200))
	}
	if w.SwapTransaction == "" {
		return nil, fmt.Errorf("%w: swap: malformed response: no swapTransaction", ErrSwapAPI)
	}
	if w.LastValidBlockHeight == 0 {
		return nil, fmt.Errorf("%w: swap: malformed response: no lastValidBlockHeight", ErrSwapAPI)
	}
	raw, err := base64.StdEncoding.DecodeString(w.SwapTransaction)
	if err != nil {
		return nil, fmt.Errorf("%w: swap: swapTransaction is not base64: %v", ErrSwapAPI, err)
	}
	ft, err := DecodeTransaction(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: swap: swapTransaction: %v", ErrSwapAPI, err)
	}
	return &SwapTx{
		Tx:                        ft,
		LastValidBlockHeight:      w.LastValidBlockHeight,
		PrioritizationFeeLamports: w.PrioritizationFeeLamports,
		ComputeUnitLimit:          w.ComputeUnitLimit,
	}, nil
}

func (c *SwapClient) endpoint(path string) string {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + path
	return u.String()
}

// do makes one request and returns a 200 answer's body, at most MaxBody bytes.
func (c *SwapClient) do(ctx context.Context, what, method, u string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSwapAPI, what, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.opts.APIKey != "" {
		req.Header.Set("x-api-key", c.opts.APIKey)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(what, start, err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > c.opts.MaxBody {
		return nil, fmt.Errorf("%w: %s: response of %d bytes is over the %d-byte limit; refused", ErrSwapAPI, what, resp.ContentLength, c.opts.MaxBody)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody+1))
	if err != nil {
		return nil, c.transportError(what, start, err)
	}
	if int64(len(data)) > c.opts.MaxBody {
		return nil, fmt.Errorf("%w: %s: response is over the %d-byte limit; refused", ErrSwapAPI, what, c.opts.MaxBody)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return nil, fmt.Errorf("%w: %s: %w", ErrSwapAPI, what, rateLimited(resp.Header.Get("Retry-After")))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s: HTTP %d: %s", ErrSwapAPI, what, resp.StatusCode, apiErrorExcerpt(data))
	}
	return data, nil
}

// ErrSwapRateLimited: the swap API answered HTTP 429.
var ErrSwapRateLimited = errors.New("HTTP 429: the swap API's rate limit was reached")

// rateLimited explains an HTTP 429. Jupiter's free tier allows 60 requests
// a minute per account (a 60-second sliding window; keyless 30), and a swap
// takes two at proposal and two or three at execution.
func rateLimited(retryAfter string) error {
	wait := "wait a minute"
	if n, err := strconv.ParseUint(strings.TrimSpace(retryAfter), 10, 32); err == nil && n > 0 && n <= 3600 {
		wait = fmt.Sprintf("it asks to wait %d s", n)
	}
	return fmt.Errorf("%w (Jupiter's free tier allows 60 requests a minute per account, keyless use 30; a swap makes 2 at proposal and 2 or 3 at execution); %s and ask again, or give --swap-api-key-file a key on a higher plan", ErrSwapRateLimited, wait)
}

func (c *SwapClient) transportError(what string, start time.Time, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%w: %s: no complete answer within %s (gave up after %s)", ErrSwapAPI, what, c.opts.Timeout, time.Since(start).Round(time.Millisecond))
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %s: cancelled: %v", ErrSwapAPI, what, err)
	}
	// url.Error repeats the whole URL; the cause is what a person needs.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s: request failed: the server closed the connection without a complete answer", ErrSwapAPI, what)
	}
	return fmt.Errorf("%w: %s: request failed: %s", ErrSwapAPI, what, sanitizeExcerpt([]byte(err.Error()), 200))
}

// apiErrorExcerpt shows a non-200 body: Jupiter's {"error","errorCode"} when
// it parses, else the start of the body, sanitised either way.
func apiErrorExcerpt(body []byte) string {
	var e struct {
		Error     string `json:"error"`
		ErrorCode string `json:"errorCode"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		s := sanitizeExcerpt([]byte(e.Error), 200)
		if e.ErrorCode != "" {
			s += " (" + sanitizeExcerpt([]byte(e.ErrorCode), 60) + ")"
		}
		return s
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return "(empty body)"
	}
	return sanitizeExcerpt(body, 200)
}

// sanitizeExcerpt keeps printable characters only (no control characters, no
// escapes that could repaint a terminal) and at most max runes.
func sanitizeExcerpt(b []byte, max int) string {
	var sb strings.Builder
	n := 0
	for len(b) > 0 && n < max {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case r == utf8.RuneError && size <= 1:
			sb.WriteByte('?')
		case r == '\n' || r == '\r' || r == '\t':
			sb.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			sb.WriteByte('?')
		case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
			sb.WriteByte('?') // zero-width and bidi controls
		default:
			sb.WriteRune(r)
		}
		n++
	}
	s := strings.TrimSpace(sb.String())
	if len(b) > 0 {
		s += "…"
	}
	return s
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return errors.New(sanitizeExcerpt([]byte(err.Error()), 200))
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

func parseU64(s, field string) (uint64, error) {
	if s == "" {
		return 0, fmt.Errorf("%s is missing", field)
	}
	if len(s) > 20 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%s %q is not a decimal integer", field, sanitizeExcerpt([]byte(s), 30))
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is out of the u64 range", field, s)
	}
	return v, nil
}

func parsePubkey(s, field string) (solana.PublicKey, error) {
	pk, err := solana.PublicKeyFromBase58(s)
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("%s %q is not a base58 public key", field, sanitizeExcerpt([]byte(s), 50))
	}
	return pk, nil
}

// parseQuote reads the quote fields of v1's /quote or v2's /build answer.
// v2's published answer has no priceImpactPct: there (impactOptional) a
// missing one leaves PriceImpactPct empty, an impact not known.
func parseQuote(body []byte, impactOptional bool) (*Quote, error) {
	var w quoteWire
	if err := strictUnmarshal(body, &w); err != nil {
		return nil, err
	}
	var q Quote
	var err error
	if q.InputMint, err = parsePubkey(w.InputMint, "inputMint"); err != nil {
		return nil, err
	}
	if q.OutputMint, err = parsePubkey(w.OutputMint, "outputMint"); err != nil {
		return nil, err
	}
	if q.InAmount, err = parseU64(w.InAmount, "inAmount"); err != nil {
		return nil, err
	}
	if q.OutAmount, err = parseU64(w.OutAmount, "outAmount"); err != nil {
		return nil, err
	}
	if q.OtherAmountThreshold, err = parseU64(w.OtherAmountThreshold, "otherAmountThreshold"); err != nil {
		return nil, err
	}
	if w.SlippageBps == nil || *w.SlippageBps < 0 || *w.SlippageBps > 10_000 {
		return nil, errors.New("slippageBps is missing or outside 0..10000")
	}
	q.SlippageBps = uint16(*w.SlippageBps)
	q.SwapMode = w.SwapMode
	q.PriceImpactPct = w.PriceImpactPct
	if !(impactOptional && q.PriceImpactPct == "") {
		if _, err := q.PriceImpact(); err != nil {
			return nil, err
		}
	}
	q.ContextSlot, q.TimeTaken = w.ContextSlot, w.TimeTaken
	if len(w.RoutePlan) == 0 {
		return nil, errors.New("routePlan is empty")
	}
	if len(w.RoutePlan) > 64 {
		return nil, fmt.Errorf("routePlan has %d steps", len(w.RoutePlan))
	}
	for i, rp := range w.RoutePlan {
		var s RouteStep
		si := rp.SwapInfo
		f := func(name string) string { return fmt.Sprintf("routePlan[%d].swapInfo.%s", i, name) }
		if s.AMMKey, err = parsePubkey(si.AMMKey, f("ammKey")); err != nil {
			return nil, err
		}
		if s.InputMint, err = parsePubkey(si.InputMint, f("inputMint")); err != nil {
			return nil, err
		}
		if s.OutputMint, err = parsePubkey(si.OutputMint, f("outputMint")); err != nil {
			return nil, err
		}
		if s.InAmount, err = parseU64(si.InAmount, f("inAmount")); err != nil {
			return nil, err
		}
		if s.OutAmount, err = parseU64(si.OutAmount, f("outAmount")); err != nil {
			return nil, err
		}
		if si.FeeAmount != "" {
			if s.FeeAmount, err = parseU64(si.FeeAmount, f("feeAmount")); err != nil {
				return nil, err
			}
		}
		if si.FeeMint != "" {
			if s.FeeMint, err = parsePubkey(si.FeeMint, f("feeMint")); err != nil {
				return nil, err
			}
		}
		s.Label = sanitizeExcerpt([]byte(si.Label), 64)
		s.Percent = rp.Percent
		q.Route = append(q.Route, s)
	}
	q.Raw = append(json.RawMessage(nil), bytes.TrimSpace(body)...)
	return &q, nil
}

// matches checks the quote against the request: same mints and amount,
// ExactIn, the slippage asked for, and a minimum no looser than that
// slippage allows (an API that widens slippage is refused).
func (q *Quote) matches(r QuoteRequest) error {
	switch {
	case !q.InputMint.Equals(r.InputMint):
		return fmt.Errorf("inputMint is %s, asked for %s", q.InputMint, r.InputMint)
	case !q.OutputMint.Equals(r.OutputMint):
		return fmt.Errorf("outputMint is %s, asked for %s", q.OutputMint, r.OutputMint)
	case q.InAmount != r.Amount:
		return fmt.Errorf("inAmount is %d, asked for %d", q.InAmount, r.Amount)
	case q.SwapMode != "ExactIn":
		return fmt.Errorf("swapMode is %q, asked for ExactIn", sanitizeExcerpt([]byte(q.SwapMode), 20))
	case q.SlippageBps != r.SlippageBps:
		return fmt.Errorf("slippageBps is %d, asked for %d", q.SlippageBps, r.SlippageBps)
	case q.OutAmount == 0 || q.OtherAmountThreshold == 0:
		return errors.New("the quote gives nothing (outAmount or otherAmountThreshold is 0)")
	case q.OtherAmountThreshold > q.OutAmount:
		return fmt.Errorf("otherAmountThreshold %d is above outAmount %d", q.OtherAmountThreshold, q.OutAmount)
	}
	// floor(out × (10000 − bps) / 10000), less one for rounding differences.
	floor := new(big.Int).Mul(new(big.Int).SetUint64(q.OutAmount), big.NewInt(int64(10_000-int(r.SlippageBps))))
	floor.Quo(floor, big.NewInt(10_000))
	if floor.Sign() > 0 {
		floor.Sub(floor, big.NewInt(1))
	}
	if new(big.Int).SetUint64(q.OtherAmountThreshold).Cmp(floor) < 0 {
		return fmt.Errorf("otherAmountThreshold %d is below what %d bps of slippage allows on outAmount %d", q.OtherAmountThreshold, r.SlippageBps, q.OutAmount)
	}
	return nil
}
