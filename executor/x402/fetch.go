package x402

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// MaxBodyBytes bounds what is read of a response body; the rest is dropped
// and the response marked truncated.
const MaxBodyBytes = 64 << 10

// Request is the agent's request, as the console will make it.
type Request struct {
	URL     string
	Method  string // GET when empty
	Headers map[string]string
	Body    []byte
}

// Response is what came back, body bounded.
type Response struct {
	Status    int
	Header    http.Header
	Body      []byte
	Truncated bool
}

// NewHTTPClient is the client the console fetches with: it never follows a
// redirect (a payment header sent to the approved origin must not be
// replayed to another one, and a read must not wander either), and it
// bounds each request.
func NewHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Do makes r with the extra headers (the payment header on a retry) added.
func Do(ctx context.Context, hc *http.Client, r Request, extra map[string]string) (*Response, error) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if len(r.Body) > 0 {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL, body)
	if err != nil {
		return nil, fmt.Errorf("request %s: %w", r.URL, err)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("request %s: %w", Origin(r.URL), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the answer of %s: %w", Origin(r.URL), err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if len(b) > MaxBodyBytes {
		out.Body, out.Truncated = b[:MaxBodyBytes], true
	}
	return out, nil
}

// Origin is scheme://host[:port] of a URL, lower-cased, default ports
// dropped: what the allowlist and grants compare. Empty when unparsable.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// CheckURL accepts an https URL, or plain http only to a loopback host (a
// test or local API: nothing on the wire to read or rewrite the payment).
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return errors.New("url must be an absolute http(s) URL without credentials or fragment, e.g. https://api.example.com/data")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if loopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("url %s is plain http to a host that is not loopback: only https is accepted there", Origin(raw))
	}
	return fmt.Errorf("url scheme %q is not accepted: use https (or http to a loopback host)", u.Scheme)
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
