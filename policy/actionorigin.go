package policy

import (
	"errors"
	"fmt"
	"net"
	"net/url"
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
	o, err := CanonicalOrigin(raw)
	if err != nil {
		return "", err
	}
	u, _ := url.Parse(o)
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return "", fmt.Errorf("%q: plain http is accepted on loopback only (localhost, 127.0.0.1, ::1); use https", raw)
	}
	return o, nil
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

// CheckActionOrigin holds one origin (as ParseOrigin spells it) to the
// action origin allowlist, as Evaluate does for an action_origin
// counterparty. The Solana Actions client asks it before each request to an
// origin, so that a refused server is never contacted; the error wraps
// ErrActionOriginNotAllowed and names the origin and the flag.
func (c Config) CheckActionOrigin(origin string) error {
	if v := checkCounterparty(c, ActionOrigin(origin)); !v.pass {
		return fmt.Errorf("%w: %s", ErrActionOriginNotAllowed, v.deny.Reason)
	}
	return nil
}
