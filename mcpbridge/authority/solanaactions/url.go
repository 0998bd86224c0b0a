package solanaactions

import (
	"net/url"
	"strings"

	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/policy"
)

// Protocol is the Actions URL scheme: "solana-action:<link>", the link
// URL-encoded when it has a query.
const Protocol = "solana-action:"

// blinkQueryParam is the query parameter of a blink (an interstitial website
// URL) that carries the action: https://site/?action=solana-action:<link>.
const blinkQueryParam = "action"

// target is where a given URL leads before any request is made.
type target struct {
	url *url.URL
	// direct: the URL is the Action URL itself (solana-action: or a blink's
	// action parameter); otherwise it may be a website URL that the origin's
	// actions.json maps to its API.
	direct bool
}

// parseTarget reads what the agent gave: a solana-action: URL, a blink
// (https://site/?action=solana-action:...), or an https URL.
func parseTarget(raw string) (target, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return target{}, inputErrorf("url is empty; give the action's https URL or a solana-action: URL")
	}
	if len(raw) > maxURLLen {
		return target{}, inputErrorf("url is %d characters long; at most %d are accepted", len(raw), maxURLLen)
	}
	if link, ok := cutPrefixFold(raw, Protocol); ok {
		u, err := actionLink(link)
		if err != nil {
			return target{}, err
		}
		return target{url: u, direct: true}, nil
	}
	u, err := webURL(raw, "url")
	if err != nil {
		return target{}, err
	}
	// A blink: the action is in ?action=solana-action:..., and the site
	// around it is never contacted.
	if v := u.Query().Get(blinkQueryParam); v != "" {
		if link, ok := cutPrefixFold(v, Protocol); ok {
			inner, err := actionLink(link)
			if err != nil {
				return target{}, err
			}
			return target{url: inner, direct: true}, nil
		}
	}
	return target{url: u}, nil
}

// actionLink decodes the link of a solana-action: URL. The spec has the
// client URL-decode it (a no-op when it is not encoded); the result must be
// an absolute https URL (plain http on loopback only).
func actionLink(link string) (*url.URL, error) {
	dec, err := url.PathUnescape(link)
	if err != nil {
		return nil, inputErrorf("the solana-action: link is not URL-encoded properly: %v", err)
	}
	return webURL(dec, "the solana-action: link")
}

// webURL parses an absolute http(s) URL and refuses plain http away from
// loopback.
func webURL(raw, what string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, inputErrorf("%s is not a URL: %v", what, err)
	}
	if !u.IsAbs() || u.Host == "" {
		return nil, inputErrorf("%s %q is not an absolute URL; want https://host/path or solana-action:https://host/path", what, clip(raw))
	}
	if _, err := policy.ParseOrigin(u.Scheme + "://" + u.Host); err != nil {
		return nil, inputErrorf("%s: %v", what, err)
	}
	if u.User != nil {
		return nil, inputErrorf("%s carries a user name or password; refused", what)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// originOf is u's origin as policy spells it.
func originOf(u *url.URL) string {
	o, err := policy.ParseOrigin(u.Scheme + "://" + u.Host)
	if err != nil {
		return u.Scheme + "://" + u.Host // unreachable: every URL here passed webURL
	}
	return o
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// resolveRef resolves an href from a response against the URL it came from
// and checks it like any other URL.
func resolveRef(base *url.URL, href, what string) (*url.URL, error) {
	ref, err := url.Parse(href)
	if err != nil {
		return nil, serverErrorf("%s %q is not a URL: %v", what, clip(href), err)
	}
	u := base.ResolveReference(ref)
	if _, err := webURL(u.String(), what); err != nil {
		return nil, serverErrorf("%v", err)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// clip sanitises an echoed value of the server's or the agent's and keeps
// it short, so it can be quoted in an error.
func clip(s string) string {
	return untrusted.Sanitize(s, 120)
}

// CheckURL reports whether raw is a URL Fetch can start from (a
// solana-action: URL, a blink, or an http(s) URL, plain http on loopback
// only), without any request. Errors wrap ErrInput.
func CheckURL(raw string) error {
	_, err := parseTarget(raw)
	return err
}

// FirstOrigin is the origin of the first server a Fetch of raw would ask
// (the Action URL's, or for a website URL the site's, whose actions.json is
// read), as policy.ParseOrigin spells it. No request is made.
func FirstOrigin(raw string) (string, error) {
	t, err := parseTarget(raw)
	if err != nil {
		return "", err
	}
	return originOf(t.url), nil
}
