package solanaactions

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
)

// actionsJSON is the origin's /actions.json: rules mapping website paths to
// the Actions API (spec: "actions.json", "Rules").
type actionsJSON struct {
	Rules []rule `json:"rules"`
}

type rule struct {
	PathPattern string `json:"pathPattern"`
	APIPath     string `json:"apiPath"`
}

// maxRules bounds the work a hostile actions.json can ask for.
const maxRules = 256

func parseActionsJSON(body []byte) (actionsJSON, error) {
	var aj actionsJSON
	if err := strictJSON(body, &aj); err != nil {
		return aj, serverErrorf("actions.json is not valid JSON: %v", err)
	}
	if len(aj.Rules) > maxRules {
		return aj, serverErrorf("actions.json has %d rules; at most %d are read", len(aj.Rules), maxRules)
	}
	return aj, nil
}

// mapURL applies the first rule whose pathPattern matches u (spec: each
// incoming pathname is matched in order) and returns the API URL, with u's
// query appended. ok is false when no rule matches.
func (aj actionsJSON) mapURL(u *url.URL) (mapped *url.URL, ok bool, err error) {
	for _, r := range aj.Rules {
		caps, match := matchPattern(r.PathPattern, u)
		if !match {
			continue
		}
		api, err := fillAPIPath(r.APIPath, caps)
		if err != nil {
			return nil, false, err
		}
		m, err := resolveRef(u, api, "the actions.json apiPath")
		if err != nil {
			return nil, false, err
		}
		// Spec: query parameters of the original URL are always preserved
		// and appended to the mapped URL.
		if u.RawQuery != "" {
			if m.RawQuery != "" {
				m.RawQuery += "&" + u.RawQuery
			} else {
				m.RawQuery = u.RawQuery
			}
		}
		return m, true, nil
	}
	return nil, false, nil
}

// matchPattern matches u against a pathPattern: a path, or an absolute URL
// whose origin must be u's. "*" is one path segment, "**" any rest
// (separators included; it must be the last operator). The captures fill the
// apiPath's wildcards in order.
func matchPattern(pattern string, u *url.URL) ([]string, bool) {
	path := pattern
	if strings.Contains(pattern, "://") {
		p, err := url.Parse(pattern)
		if err != nil || !p.IsAbs() || originOf(p) != originOf(u) {
			return nil, false
		}
		path = p.Path
	}
	re, ok := patternRegexp(path)
	if !ok {
		return nil, false
	}
	m := re.FindStringSubmatch(u.Path)
	if m == nil {
		return nil, false
	}
	return m[1:], true
}

// patternRegexp compiles a path pattern; a pattern with "**" anywhere but
// last, or with the unsupported "?", matches nothing.
func patternRegexp(p string) (*regexp.Regexp, bool) {
	if strings.Contains(p, "?") {
		return nil, false
	}
	if i := strings.Index(p, "**"); i >= 0 && strings.Contains(p[i+2:], "*") {
		return nil, false
	}
	var b strings.Builder
	b.WriteString("^")
	for p != "" {
		switch {
		case strings.HasPrefix(p, "**"):
			b.WriteString("(.*)")
			p = p[2:]
		case p[0] == '*':
			b.WriteString("([^/]+)")
			p = p[1:]
		default:
			i := strings.IndexByte(p, '*')
			if i < 0 {
				i = len(p)
			}
			b.WriteString(regexp.QuoteMeta(p[:i]))
			p = p[i:]
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// fillAPIPath puts the captures into the apiPath's wildcards, in order.
func fillAPIPath(api string, caps []string) (string, error) {
	var b strings.Builder
	i := 0
	for api != "" {
		n := 0
		switch {
		case strings.HasPrefix(api, "**"):
			n = 2
		case api[0] == '*':
			n = 1
		}
		if n == 0 {
			j := strings.IndexByte(api, '*')
			if j < 0 {
				j = len(api)
			}
			b.WriteString(api[:j])
			api = api[j:]
			continue
		}
		if i >= len(caps) {
			return "", serverErrorf("actions.json apiPath %q has more wildcards than its pathPattern", clip(api))
		}
		b.WriteString(caps[i])
		i++
		api = api[n:]
	}
	return b.String(), nil
}

// strictJSON decodes one JSON value and refuses trailing data. Unknown
// fields are allowed: the spec says clients must accept fields added later.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errTrailing
	}
	return nil
}
