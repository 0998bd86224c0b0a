package outside

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/solgate/solgate/executor/x402"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// X402FetchArgs are the arguments of x402_fetch: the request the console
// makes, and the most the agent accepts to pay.
type X402FetchArgs struct {
	URL       string
	Method    string            // upper case; GET when omitted
	Headers   map[string]string // canonical header names
	Body      string
	MaxAmount uint64 // 0: none given
	Confirm   string
}

// Headers the agent may not set: the payment headers are the console's
// alone (an agent that supplied its own could replay a payment), and the
// transport's own are Go's to write.
var forbiddenRequestHeaders = []string{
	"Payment-Signature", "X-Payment", "Payment-Required", "Payment-Response", "X-Payment-Response",
	"Host", "Content-Length", "Connection", "Transfer-Encoding", "Te", "Trailer", "Upgrade",
	"Keep-Alive", "Proxy-Authorization", "Proxy-Connection", "Expect",
}

// ParseX402FetchArgs validates x402_fetch arguments.
func ParseX402FetchArgs(raw map[string]any) (X402FetchArgs, error) {
	const tool = wire.ToolX402Fetch
	var a X402FetchArgs
	if err := args.CheckArgNames(tool, raw); err != nil {
		return a, err
	}
	u, ok := raw["url"].(string)
	if !ok || u == "" {
		return a, args.ArgErrorf(tool, "url", "url is required: an absolute https URL, e.g. https://api.example.com/data; got %s", args.DescribeValue(raw["url"]))
	}
	if len(u) > wire.MaxURLLen {
		return a, args.ArgErrorf(tool, "url", "url is %d bytes; at most %d are accepted", len(u), wire.MaxURLLen)
	}
	if err := x402.CheckURL(u); err != nil {
		return a, args.ArgErrorf(tool, "url", "url: %v", err)
	}
	a.URL = u
	a.Method = http.MethodGet
	if v, present := raw["method"]; present && v != nil {
		m, ok := v.(string)
		m = strings.ToUpper(m)
		if !ok || !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, m) {
			return a, args.ArgErrorf(tool, "method", "method must be one of GET, POST, PUT, PATCH, DELETE; got %s", args.DescribeValue(v))
		}
		a.Method = m
	}
	if v, present := raw["headers"]; present && v != nil {
		obj, ok := v.(map[string]any)
		if !ok {
			return a, args.ArgErrorf(tool, "headers", "headers must be an object of header names to string values; got %s", args.DescribeValue(v))
		}
		if len(obj) > wire.MaxRequestHeaders {
			return a, args.ArgErrorf(tool, "headers", "headers has %d entries; at most %d are accepted", len(obj), wire.MaxRequestHeaders)
		}
		a.Headers = map[string]string{}
		for name, val := range obj {
			s, ok := val.(string)
			if !ok {
				return a, args.ArgErrorf(tool, "headers", "headers: header %q must have a string value; got %s", clipArg(name), args.DescribeValue(val))
			}
			if !validHeaderName(name) || !validHeaderValue(s) {
				return a, args.ArgErrorf(tool, "headers", "headers: header %q: names are letters, digits, - and _; values are printable text without line breaks (at most 4096 bytes)", clipArg(name))
			}
			canon := http.CanonicalHeaderKey(name)
			if slices.Contains(forbiddenRequestHeaders, canon) {
				return a, args.ArgErrorf(tool, "headers", "headers: %s may not be set: the console writes payment and transport headers itself", canon)
			}
			a.Headers[canon] = s
		}
	}
	if v, present := raw["body"]; present && v != nil {
		s, ok := v.(string)
		if !ok {
			return a, args.ArgErrorf(tool, "body", "body must be a string; got %s", args.DescribeValue(v))
		}
		if len(s) > wire.MaxRequestBody {
			return a, args.ArgErrorf(tool, "body", "body is %d bytes; at most %d are accepted", len(s), wire.MaxRequestBody)
		}
		a.Body = s
	}
	if v, present := raw["max_amount"]; present && v != nil {
		n, err := args.ParseUint(tool, args.UintRule{Name: "max_amount", Min: 1, Max: math.MaxUint64,
			Accepted: "a whole number of base units of the asset from 1 to 18446744073709551615 (0.001 USDC with 6 decimals = 1000), as a JSON integer or a string of digits"}, v)
		if err != nil {
			return a, err
		}
		a.MaxAmount = n
	}
	var err error
	if a.Confirm, err = args.ParseConfirm(tool, raw["confirm"]); err != nil {
		return a, err
	}
	return a, nil
}

func validHeaderName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func validHeaderValue(s string) bool {
	if len(s) > 4096 {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func clipArg(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func (a X402FetchArgs) ToolName() string     { return wire.ToolX402Fetch }
func (a X402FetchArgs) ConfirmToken() string { return a.Confirm }
func (a X402FetchArgs) Fingerprint() string {
	return args.Fingerprint(a.ToolName(), a.Normalized())
}

func (a X402FetchArgs) Recipient() string { return "" } // payTo comes from the server, not the agent
func (a X402FetchArgs) Described() string {
	return fmt.Sprintf("x402_fetch %s %s", a.Method, x402.Origin(a.URL))
}

// Normalized binds the approval to the whole request: the same URL,
// method, headers and body, and the same bound on the price. Headers and
// body are kept as digests: they may carry the agent's API keys, and the
// normalised form is stored and audited.
func (a X402FetchArgs) Normalized() map[string]string {
	headers, _ := json.Marshal(a.Headers) // sorted keys: canonical
	if a.Headers == nil {
		headers = []byte("{}")
	}
	hs, bs := sha256.Sum256(headers), sha256.Sum256([]byte(a.Body))
	return map[string]string{
		"url": a.URL, "method": a.Method, "headers_sha256": hex.EncodeToString(hs[:]), "body_sha256": hex.EncodeToString(bs[:]),
		"max_amount": strconv.FormatUint(a.MaxAmount, 10),
	}
}

// request is the HTTP request these arguments describe.
func (a X402FetchArgs) request() x402.Request {
	return x402.Request{URL: a.URL, Method: a.Method, Headers: a.Headers, Body: []byte(a.Body)}
}
