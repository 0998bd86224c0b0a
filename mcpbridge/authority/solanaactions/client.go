// Package solanaactions is the console's Solana Actions client: it turns an
// action URL (a solana-action: URL, a blink, or a website URL mapped by its
// origin's actions.json) into the transaction the action's server builds for
// the wallet, following the Actions spec (GET the metadata, choose the
// linked action and fill its parameters, POST {account}).
//
// The client decides nothing about the transaction: the caller judges its
// bytes by their simulated effects, like any transaction built elsewhere.
// What it does refuse: origins the operator has not allowed (asked before any
// request to an origin), an action for another cluster (X-Blockchain-Ids),
// plain http away from loopback, redirects to another origin, oversized or
// slow answers. Every word the server chooses (title, description, labels,
// message) comes back sanitised and flagged in Untrusted, and is never used
// for a decision.
package solanaactions

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
)

// Defaults and bounds.
const (
	DefaultTimeout = 10 * time.Second
	DefaultMaxBody = 256 << 10
	// maxTransaction is the largest wire transaction a cluster accepts
	// (PACKET_DATA_SIZE, 1232 bytes).
	maxTransaction = 1232
	maxURLLen      = 4096
	maxRedirects   = 3
)

// Options configure a Client.
type Options struct {
	// Chain is the console's cluster as CAIP-2 (ChainID of its genesis
	// hash). Required.
	Chain string
	// AllowOrigin is asked before any request to an origin ("https://host"
	// as policy.ParseOrigin spells it) and refuses with its reason; nil
	// refuses every origin.
	AllowOrigin func(origin string) error
	// Timeout bounds each request, from dial to the last byte of the body.
	Timeout time.Duration
	// MaxBody is the largest answer accepted; a larger one is refused.
	MaxBody int64
	// Transport replaces the HTTP transport (tests).
	Transport http.RoundTripper
}

// Client fetches actions. It is safe for concurrent use.
type Client struct {
	opts Options
	http *http.Client
}

// New returns a client for the cluster opts.Chain names.
func New(opts Options) (*Client, error) {
	if opts.Chain == "" {
		return nil, errors.New("solanaactions: Options.Chain is required")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	tr := opts.Transport
	if tr == nil {
		tr = &http.Transport{
			// No proxy from the environment: the origin the operator allowed
			// is the one spoken to.
			DialContext:            (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			TLSHandshakeTimeout:    5 * time.Second,
			ResponseHeaderTimeout:  opts.Timeout,
			MaxResponseHeaderBytes: 64 << 10,
			MaxIdleConnsPerHost:    2,
			IdleConnTimeout:        30 * time.Second,
		}
	}
	c := &Client{opts: opts}
	c.http = &http.Client{
		// Covers reading the body too: a server that trickles bytes cannot
		// hold the console past Timeout.
		Timeout:   opts.Timeout,
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			if from, to := originOf(via[0].URL), originOf(req.URL); from != to {
				return fmt.Errorf("redirect from %s to another origin (%s) refused", from, to)
			}
			if req.Method != via[0].Method {
				// A 301/302/303 turns a POST into a GET without its body.
				return fmt.Errorf("redirect that turns a %s into a %s refused", via[0].Method, req.Method)
			}
			if _, err := webURL(req.URL.String(), "the redirect"); err != nil {
				return err
			}
			return nil
		},
	}
	return c, nil
}

// CloseIdleConnections closes the connections kept for reuse; a client
// made for one proposal calls it when done.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// Request is one action to fetch for a wallet.
type Request struct {
	URL string
	// Input fills the chosen linked action's parameters by name; the key
	// LinkSelector picks a linked action by position.
	Input   Input
	Account solana.PublicKey
}

// Action is what an action's server answered, for the wallet.
type Action struct {
	// Origin is the origin of the server that built the transaction (the
	// POST's), as policy.ParseOrigin spells it; allowed by AllowOrigin.
	Origin string
	// ActionURL is the Action URL the metadata came from; PostURL the one
	// the transaction came from (the chosen link, parameters filled).
	ActionURL, PostURL string
	// Choice is the linked action's position (1, 2, ...), 0 for the root.
	Choice int
	// Transaction is the wire transaction, decoded from base64, exactly as
	// the server sent it: judge it by its effects.
	Transaction []byte
	// Chains lists X-Blockchain-Ids as the server sent them (empty: none,
	// which means mainnet); Version is X-Action-Version ("" when absent).
	Chains  []string
	Version string
	Shown   Untrusted
	// Next is what the server offers after this action (links.next), for
	// the agent to read; nil when it offers nothing. Nothing is fetched,
	// proposed or signed for it here.
	Next *Next
}

// Untrusted is the server's words, sanitised (no escapes, controls, bidi or
// zero-width characters; length capped) with the instruction-like phrases
// found in them. Show them as the server's; never decide on them.
type Untrusted struct {
	Title, Description, Label, Message, Error string
	Flags                                     []string
}

// Caps on the server's words, in runes.
const (
	maxTitle       = 80
	maxDescription = 300
	maxLabel       = 60
	maxMessage     = 300
)

// Fetch resolves req.URL, checks each origin with AllowOrigin before
// speaking to it, GETs the metadata, chooses the linked action, POSTs
// {account} and returns the transaction with what the server said.
func (c *Client) Fetch(ctx context.Context, req Request) (*Action, error) {
	t, err := parseTarget(req.URL)
	if err != nil {
		return nil, err
	}
	actionURL := t.url
	if !t.direct {
		if actionURL, err = c.mapWebsite(ctx, t.url); err != nil {
			return nil, err
		}
	}
	if err := c.allow(actionURL); err != nil {
		return nil, err
	}
	body, hdr, answered, err := c.doURL(ctx, http.MethodGet, actionURL, nil, "the action's metadata (GET)")
	if err != nil {
		return nil, err
	}
	// The root action is POSTed, and relative hrefs resolved, where the
	// metadata came from (same origin: redirects never leave it).
	actionURL = answered
	chains, err := checkChain(hdr, c.opts.Chain)
	if err != nil {
		return nil, err
	}
	version, err := checkVersion(hdr)
	if err != nil {
		return nil, err
	}
	meta, err := parseMetadata(body)
	if err != nil {
		return nil, err
	}
	ch, err := choose(meta, req.Input)
	if err != nil {
		return nil, err
	}
	postURL, err := resolveChoice(actionURL, ch)
	if err != nil {
		return nil, err
	}
	if err := c.allow(postURL); err != nil {
		return nil, err
	}
	post := map[string]any{"account": req.Account.String()}
	if len(ch.data) > 0 {
		post["data"] = ch.data
	}
	pb, _ := json.Marshal(post)
	body, hdr, err = c.do(ctx, http.MethodPost, postURL, pb, "the action's transaction (POST)")
	if err != nil {
		return nil, err
	}
	if hdr.Get("X-Blockchain-Ids") != "" {
		if _, err := checkChain(hdr, c.opts.Chain); err != nil {
			return nil, err
		}
	}
	tx, message, next, err := parsePostResponse(body)
	if err != nil {
		return nil, err
	}
	a := &Action{
		Origin:      originOf(postURL),
		ActionURL:   actionURL.String(),
		PostURL:     postURL.String(),
		Choice:      ch.n,
		Transaction: tx,
		Chains:      chains,
		Version:     version,
	}
	a.Shown = shown(meta, ch, message)
	if a.Next, err = parseNext(next, postURL); err != nil {
		return nil, err
	}
	return a, nil
}

// mapWebsite applies the origin's actions.json to a website URL. No
// actions.json (404 or 410) or no matching rule: the URL is taken as the
// Action URL itself.
func (c *Client) mapWebsite(ctx context.Context, u *url.URL) (*url.URL, error) {
	if err := c.allow(u); err != nil {
		return nil, err
	}
	aj := *u
	aj.Path, aj.RawPath, aj.RawQuery = "/actions.json", "", ""
	body, _, err := c.do(ctx, http.MethodGet, &aj, nil, "actions.json")
	var se *statusError
	if errors.As(err, &se) && (se.status == http.StatusNotFound || se.status == http.StatusGone) {
		return u, nil
	}
	if err != nil {
		return nil, err
	}
	rules, err := parseActionsJSON(body)
	if err != nil {
		return nil, err
	}
	m, ok, err := rules.mapURL(u)
	if err != nil {
		return nil, err
	}
	if !ok {
		return u, nil
	}
	return m, nil
}

func (c *Client) allow(u *url.URL) error {
	o := originOf(u)
	if c.opts.AllowOrigin == nil {
		return &actionError{kind: ErrOriginNotAllowed, msg: untrusted.Sanitize(ErrOriginNotAllowed.Error()+": "+o, maxErrorRunes)}
	}
	if err := c.opts.AllowOrigin(o); err != nil {
		if errors.Is(err, ErrOriginNotAllowed) {
			return &actionError{kind: ErrOriginNotAllowed, msg: untrusted.Sanitize(err.Error(), maxErrorRunes)}
		}
		return &actionError{kind: ErrOriginNotAllowed, msg: untrusted.Sanitize(ErrOriginNotAllowed.Error()+": "+o+": "+err.Error(), maxErrorRunes)}
	}
	return nil
}

// statusError is a non-2xx answer.
type statusError struct{ status int }

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.status) }

// do makes one request and returns a 200 answer's body (at most MaxBody
// bytes) and headers.
func (c *Client) do(ctx context.Context, method string, u *url.URL, body []byte, what string) ([]byte, http.Header, error) {
	data, hdr, _, err := c.doURL(ctx, method, u, body, what)
	return data, hdr, err
}

// doURL is do that also returns the URL that answered, after any
// same-origin redirects.
func (c *Client) doURL(ctx context.Context, method string, u *url.URL, body []byte, what string) ([]byte, http.Header, *url.URL, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, nil, nil, serverErrorf("%s: %v", what, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Accept-Action-Version", SpecVersion)
	req.Header.Set("X-Accept-Blockchain-Ids", c.opts.Chain)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, nil, c.transportError(what, u, start, err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > c.opts.MaxBody {
		return nil, nil, nil, serverErrorf("%s from %s: %d bytes is over the %d-byte limit; refused", what, originOf(u), resp.ContentLength, c.opts.MaxBody)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody+1))
	if err != nil {
		return nil, nil, nil, c.transportError(what, u, start, err)
	}
	if int64(len(data)) > c.opts.MaxBody {
		return nil, nil, nil, serverErrorf("%s from %s: the answer is over the %d-byte limit; refused", what, originOf(u), c.opts.MaxBody)
	}
	if resp.StatusCode/100 == 3 {
		return nil, nil, nil, serverErrorf("%s from %s: HTTP %d redirect not followed", what, originOf(u), resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, nil, &actionError{kind: ErrServer, msg: untrusted.Sanitize(fmt.Sprintf("%v: %s from %s: HTTP %d%s", ErrServer, what, originOf(u), resp.StatusCode, actionErrorText(data)), maxErrorRunes),
			wrapped: &statusError{resp.StatusCode}}
	}
	return data, resp.Header, resp.Request.URL, nil
}

func (c *Client) transportError(what string, u *url.URL, start time.Time, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return serverErrorf("%s from %s: no complete answer within %s (gave up after %s)", what, originOf(u), c.opts.Timeout, time.Since(start).Round(time.Millisecond))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // url.Error repeats the whole URL
	}
	return serverErrorf("%s from %s: %v", what, originOf(u), err)
}

// actionErrorText is an ActionError's message from an error answer, if the
// body is one ({"message": ...}).
func actionErrorText(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return ": the server says " + fmt.Sprintf("%q", clip(e.Message))
	}
	return ""
}

// parsePostResponse reads an ActionPostResponse of type "transaction":
// the transaction, its message and its links.next (raw, nil when absent).
func parsePostResponse(body []byte) ([]byte, string, json.RawMessage, error) {
	var p struct {
		Type        string `json:"type"`
		Transaction string `json:"transaction"`
		Message     string `json:"message"`
		Links       *struct {
			Next json.RawMessage `json:"next"`
		} `json:"links"`
	}
	if err := strictJSON(body, &p); err != nil {
		return nil, "", nil, serverErrorf("the action's POST answer is not valid JSON: %v", err)
	}
	switch p.Type {
	case "", "transaction":
	default:
		return nil, "", nil, refusedf("the action answered with type %q; solgate only signs transactions", clip(p.Type))
	}
	if p.Transaction == "" {
		return nil, "", nil, serverErrorf("the action's POST answer has no transaction")
	}
	if len(p.Transaction) > base64.StdEncoding.EncodedLen(maxTransaction) {
		return nil, "", nil, serverErrorf("the action's transaction is longer than a transaction can be (%d bytes)", maxTransaction)
	}
	tx, err := base64.StdEncoding.DecodeString(p.Transaction)
	if err != nil {
		return nil, "", nil, serverErrorf("the action's transaction is not base64: %v", err)
	}
	if len(tx) > maxTransaction {
		return nil, "", nil, serverErrorf("the action's transaction is %d bytes; a transaction is at most %d", len(tx), maxTransaction)
	}
	var next json.RawMessage
	if p.Links != nil && len(p.Links.Next) > 0 && string(p.Links.Next) != "null" {
		next = p.Links.Next
	}
	return tx, p.Message, next, nil
}

// shown sanitises and flags the server's words.
func shown(g *getResponse, ch choice, message string) Untrusted {
	u := Untrusted{
		Title:       untrusted.Sanitize(g.Title, maxTitle),
		Description: untrusted.Sanitize(g.Description, maxDescription),
		Label:       untrusted.Sanitize(ch.label, maxLabel),
		Message:     untrusted.Sanitize(message, maxMessage),
	}
	if g.Error != nil {
		u.Error = untrusted.Sanitize(g.Error.Message, maxMessage)
	}
	// Flags read the raw text: what a cap cut off can still be an
	// instruction the model reads elsewhere.
	raw := g.Title + " " + g.Description + " " + ch.label + " " + g.Label + " " + message
	if g.Error != nil {
		raw += " " + g.Error.Message
	}
	u.Flags = untrusted.Flags(raw)
	return u
}
