package policy

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// ErrActionOriginNotAllowed: a Solana Action's server is not on the
// operator's --allow-action-origin list.
var ErrActionOriginNotAllowed = errors.New("action origin not allowed")

// ParseOrigin reads a web origin, "scheme://host[:port]", from an origin or
// from a whole URL (its path, query and fragment are ignored), and returns it
// in one spelling: scheme and host lower-cased, the scheme's default port
// dropped. Only https is accepted, and plain http only when the host is this
// machine (localhost, 127.0.0.0/8, ::1): an action's transaction fetched in
// clear text from elsewhere could be swapped on the way.
func ParseOrigin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return "", fmt.Errorf("%q: want https://host[:port] (or http:// on loopback)", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("%q: an origin carries no user name or password", raw)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", fmt.Errorf("%q has no host", raw)
	}
	if scheme == "http" && !loopbackHost(host) {
		return "", fmt.Errorf("%q: plain http is accepted on loopback only (localhost, 127.0.0.1, ::1); use https", raw)
	}
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port), nil
	}
	if strings.Contains(host, ":") {
		return scheme + "://[" + host + "]", nil // IPv6 literal
	}
	return scheme + "://" + host, nil
}

// loopbackHost: this machine by name or address. Any other name is not
// resolved: a name that resolves to loopback today is still someone else's.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckActionOrigin reports whether a Solana Action served from origin (as
// ParseOrigin spells it) may be proposed: only origins the operator listed
// with --allow-action-origin. The error names the origin and the flag.
func (c Config) CheckActionOrigin(origin string) error {
	if slices.Contains(c.AllowActionOrigins, origin) {
		return nil
	}
	if len(c.AllowActionOrigins) == 0 {
		return fmt.Errorf("%w: %s (no action origin is allowed; the operator can start the console with --allow-action-origin %s)", ErrActionOriginNotAllowed, origin, origin)
	}
	return fmt.Errorf("%w: %s is not on the console's --allow-action-origin list", ErrActionOriginNotAllowed, origin)
}
