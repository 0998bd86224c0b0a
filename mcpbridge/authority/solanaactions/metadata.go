package solanaactions

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// getResponse is an ActionGetResponse (spec: "GET Response Body"). Every
// string in it is chosen by the server.
type getResponse struct {
	Type        string `json:"type"`
	Icon        string `json:"icon"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Label       string `json:"label"`
	Disabled    bool   `json:"disabled"`
	Links       *struct {
		Actions []linkedAction `json:"actions"`
	} `json:"links"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type linkedAction struct {
	Type       string      `json:"type"`
	Href       string      `json:"href"`
	Label      string      `json:"label"`
	Parameters []parameter `json:"parameters"`
}

type parameter struct {
	Type               string   `json:"type"`
	Name               string   `json:"name"`
	Label              string   `json:"label"`
	Required           bool     `json:"required"`
	Pattern            string   `json:"pattern"`
	PatternDescription string   `json:"patternDescription"`
	Min                any      `json:"min"`
	Max                any      `json:"max"`
	Options            []option `json:"options"`
}

type option struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// Limits on what a metadata answer may hold.
const (
	maxLinks  = 32
	maxParams = 32
)

func parseMetadata(body []byte) (*getResponse, error) {
	var g getResponse
	if err := strictJSON(body, &g); err != nil {
		return nil, serverErrorf("the action's metadata (GET) is not valid JSON: %v", err)
	}
	switch g.Type {
	case "", "action":
	case "completed":
		return nil, refusedf("the action says it is completed: there is nothing to sign")
	default:
		return nil, serverErrorf("the action's metadata has type %q; want \"action\"", clip(g.Type))
	}
	if g.Disabled {
		return nil, refusedf("the action's server marks it disabled")
	}
	if g.Links != nil {
		if len(g.Links.Actions) > maxLinks {
			return nil, serverErrorf("the action lists %d linked actions; at most %d are read", len(g.Links.Actions), maxLinks)
		}
		for _, l := range g.Links.Actions {
			if len(l.Parameters) > maxParams {
				return nil, serverErrorf("a linked action has %d parameters; at most %d are read", len(l.Parameters), maxParams)
			}
		}
	}
	return &g, nil
}

// LinkSelector is the key of `input` that picks one of several linked
// actions by its position (1, 2, ...), as listed when the choice is
// ambiguous. Labels are the server's words and never select anything.
const LinkSelector = "link"

// choice is the linked action chosen, with its parameters filled.
type choice struct {
	n     int // position in links.actions, 1-based; 0: the root action
	label string
	href  string // filled
	// data is the POST's `data`: a string per parameter, and for a
	// multi-option parameter (type "checkbox") an array of strings, as
	// ActionPostRequest types it (string | Array<string>).
	data map[string]any
}

// Input holds the agent's values by parameter name: one value for most
// parameters, any number for a multi-option one (type "checkbox").
type Input map[string][]string

// choose picks what to POST: the root action when there are no links,
// otherwise the one linked action that input selects (by LinkSelector) or
// that alone takes exactly the parameters input gives.
func choose(g *getResponse, input Input) (choice, error) {
	params := Input{}
	sel := ""
	for k, v := range input {
		if k == LinkSelector {
			if len(v) > 1 {
				return choice{}, inputErrorf("input.%s takes one position, not a list", LinkSelector)
			}
			if len(v) == 1 {
				sel = v[0]
			}
			continue
		}
		params[k] = v
	}
	if g.Links == nil || len(g.Links.Actions) == 0 {
		if sel != "" && sel != "1" {
			return choice{}, inputErrorf("input.%s = %q, but this action offers one choice only; leave %s out", LinkSelector, clip(sel), LinkSelector)
		}
		if len(params) > 0 {
			return choice{}, inputErrorf("this action takes no parameters, but input gives %s", keyList(params))
		}
		return choice{label: g.Label}, nil
	}
	links := g.Links.Actions
	if sel != "" {
		n, err := strconv.Atoi(sel)
		if err != nil || n < 1 || n > len(links) {
			return choice{}, inputErrorf("input.%s = %q; want a position from 1 to %d: %s", LinkSelector, clip(sel), len(links), describeLinks(links))
		}
		return fill(n, links[n-1], params)
	}
	var fits []int
	for i, l := range links {
		if _, err := fill(i+1, l, params); err == nil {
			fits = append(fits, i+1)
		}
	}
	switch len(fits) {
	case 1:
		return fill(fits[0], links[fits[0]-1], params)
	case 0:
		// One choice declares every key given: its own reason (a missing
		// parameter, a value that does not fit) names the problem best.
		var takes []int
		for i, l := range links {
			if declaresAll(l, params) {
				takes = append(takes, i)
			}
		}
		if len(takes) == 1 {
			_, err := fill(takes[0]+1, links[takes[0]], params)
			return choice{}, err
		}
		if len(links) == 1 {
			_, err := fill(1, links[0], params)
			return choice{}, err
		}
		return choice{}, inputErrorf("no choice of this action takes exactly the parameters given (%s); choose with input.%s: %s", keyListOrNone(params), LinkSelector, describeLinks(links))
	default:
		return choice{}, inputErrorf("this action offers %d choices that fit the input; choose one with input.%s: %s", len(fits), LinkSelector, describeLinks(links))
	}
}

func declaresAll(l linkedAction, params Input) bool {
	for k := range params {
		if !slices.ContainsFunc(l.Parameters, func(p parameter) bool { return p.Name == k }) {
			return false
		}
	}
	return true
}

// fill checks params against one linked action and fills its href.
func fill(n int, l linkedAction, params Input) (choice, error) {
	switch l.Type {
	case "", "transaction":
	default:
		return choice{}, refusedf("choice %d is of type %q; solgate only signs transactions (type \"transaction\")", n, clip(l.Type))
	}
	declared := map[string]parameter{}
	for _, p := range l.Parameters {
		declared[p.Name] = p
	}
	for k := range params {
		if _, ok := declared[k]; !ok {
			return choice{}, inputErrorf("input.%s is not a parameter of choice %d (its parameters: %s)", clip(k), n, paramList(l.Parameters))
		}
	}
	data := map[string]any{}
	vals := map[string]string{}
	for _, p := range l.Parameters {
		v := nonEmpty(params[p.Name])
		if len(v) == 0 {
			if p.Required {
				return choice{}, inputErrorf("input.%s is required by choice %d%s", clip(p.Name), n, describeParam(p))
			}
			// A declared parameter left out (optional) fills its
			// template empty.
			vals[p.Name] = ""
			continue
		}
		if p.Type != "checkbox" && len(v) > 1 {
			return choice{}, inputErrorf("input.%s takes one value (its type is %q); only a \"checkbox\" parameter takes a list", clip(p.Name), clip(typeOrText(p.Type)))
		}
		for _, one := range v {
			if err := checkParam(p, one); err != nil {
				return choice{}, err
			}
		}
		if p.Type == "checkbox" {
			data[p.Name] = v
		} else {
			data[p.Name] = v[0]
		}
		// A template takes the values as JavaScript writes an array as
		// text (comma-joined), then encoded as one URI component.
		vals[p.Name] = strings.Join(v, ",")
	}
	// A template no parameter declares cannot be filled at all.
	href := fillTemplate(l.Href, vals)
	if left := templateRE.FindAllString(href, -1); len(left) > 0 {
		return choice{}, serverErrorf("choice %d's href has a template no parameter declares (%s)", n, clip(strings.Join(left, ", ")))
	}
	return choice{n: n, label: l.Label, href: href, data: data}, nil
}

var templateRE = regexp.MustCompile(`\{[^{}/?&=#]+\}`)

// fillTemplate replaces each {name} in href by the value, encoded as
// encodeURIComponent does, so a value can add neither a path segment nor a
// query parameter.
func fillTemplate(href string, data map[string]string) string {
	return templateRE.ReplaceAllStringFunc(href, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := data[name]
		if !ok {
			return m
		}
		return encodeURIComponent(v)
	})
}

// encodeURIComponent escapes everything but A-Z a-z 0-9 - _ . ! ~ * ' ( ),
// as JavaScript's function of that name does (blink clients use it).
func encodeURIComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// nonEmpty drops empty values: an empty string or list means "not given".
func nonEmpty(v []string) []string {
	out := v[:0:0]
	for _, s := range v {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func typeOrText(t string) string {
	if t == "" {
		return "text"
	}
	return t
}

// checkParam is the client-side validation the spec asks for, of one
// value (each of a checkbox's, one by one): options, pattern (a pattern Go cannot compile is ignored, as the spec says of
// invalid ones), and min/max for numbers and lengths. The server still
// validates; this only spares a round trip and names the problem.
func checkParam(p parameter, v string) error {
	if !utf8.ValidString(v) {
		return inputErrorf("input.%s is not valid UTF-8", clip(p.Name))
	}
	if len(p.Options) > 0 {
		vals := make([]string, 0, len(p.Options))
		for _, o := range p.Options {
			vals = append(vals, o.Value)
		}
		if !slices.Contains(vals, v) {
			return inputErrorf("input.%s = %q is not one of its options: %s", clip(p.Name), clip(v), quoteList(vals))
		}
	}
	if p.Pattern != "" {
		if re, err := regexp.Compile(p.Pattern); err == nil && !re.MatchString(v) {
			return inputErrorf("input.%s = %q does not match the action's pattern %q%s", clip(p.Name), clip(v), clip(p.Pattern), describeParam(p))
		}
	}
	lo, hasLo := number(p.Min)
	hi, hasHi := number(p.Max)
	switch p.Type {
	case "number":
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return inputErrorf("input.%s = %q is not a number", clip(p.Name), clip(v))
		}
		if hasLo && x < lo || hasHi && x > hi {
			return inputErrorf("input.%s = %s is outside the action's range %s", clip(p.Name), clip(v), rangeText(p))
		}
	case "text", "", "email", "url", "textarea":
		n := float64(utf8.RuneCountInString(v))
		if hasLo && n < lo || hasHi && n > hi {
			return inputErrorf("input.%s is %d characters long; the action accepts %s", clip(p.Name), int(n), rangeText(p))
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

func rangeText(p parameter) string {
	return fmt.Sprintf("[%v, %v]", orAny(p.Min), orAny(p.Max))
}

func orAny(v any) any {
	if v == nil {
		return "any"
	}
	return v
}

func describeParam(p parameter) string {
	var parts []string
	if p.Label != "" {
		parts = append(parts, fmt.Sprintf("%q", clip(p.Label)))
	}
	if p.PatternDescription != "" {
		parts = append(parts, clip(p.PatternDescription))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (the action describes it as " + strings.Join(parts, ": ") + ")"
}

func describeLinks(links []linkedAction) string {
	var parts []string
	for i, l := range links {
		s := fmt.Sprintf("%d %q", i+1, clip(l.Label))
		if len(l.Parameters) > 0 {
			s += " with " + paramList(l.Parameters)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func paramList(ps []parameter) string {
	if len(ps) == 0 {
		return "none"
	}
	var parts []string
	for _, p := range ps {
		s := clip(p.Name)
		if p.Required {
			s += " (required)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func keyList(m Input) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, "input."+clip(k))
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

func keyListOrNone(m Input) string {
	if len(m) == 0 {
		return "none"
	}
	return keyList(m)
}

func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", clip(v))
	}
	return strings.Join(q, ", ")
}

// resolveChoice turns the chosen href into the URL to POST to.
func resolveChoice(actionURL *url.URL, c choice) (*url.URL, error) {
	if c.n == 0 {
		return actionURL, nil
	}
	return resolveRef(actionURL, c.href, "the linked action's href")
}
