package outside

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/solanaactions"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// SolanaActionArgs are the arguments of solana_action.
type SolanaActionArgs struct {
	URL string
	// Input holds the action's parameter values by name (and
	// solanaactions.LinkSelector), each as text: one value, or several for
	// a multi-option ("checkbox") parameter.
	Input   solanaactions.Input
	Confirm string // "" on a proposal
}

// ParseSolanaActionArgs validates solana_action arguments. The URL's form is
// checked here (no request is made); what it leads to, when the action is
// fetched.
func ParseSolanaActionArgs(raw map[string]any) (SolanaActionArgs, error) {
	const tool = wire.ToolSolanaAction
	var a SolanaActionArgs
	if err := args.CheckArgNames(tool, raw); err != nil {
		return a, err
	}
	u, ok := raw["url"].(string)
	if !ok {
		return a, args.ArgErrorf(tool, "url", "url must be a string: the action's https URL, a solana-action: URL or a blink; got %s", args.DescribeValue(raw["url"]))
	}
	a.URL = strings.TrimSpace(u)
	if len(a.URL) > wire.MaxActionURLLen {
		return a, args.ArgErrorf(tool, "url", "url is %d bytes long; at most %d are accepted", len(a.URL), wire.MaxActionURLLen)
	}
	if err := solanaactions.CheckURL(a.URL); err != nil {
		return a, args.ArgErrorf(tool, "url", "url: %s", strings.TrimPrefix(err.Error(), solanaactions.ErrInput.Error()+": "))
	}
	var err error
	if a.Input, err = parseActionInput(raw["input"]); err != nil {
		return a, err
	}
	if a.Confirm, err = args.ParseConfirm(tool, raw["confirm"]); err != nil {
		return a, err
	}
	return a, nil
}

// parseActionInput reads input: an object whose values are strings, numbers
// (kept as written, digits exactly), booleans, or arrays of strings (the
// values of a multi-option parameter). Its text is the agent's, passed to
// the action's server; it decides nothing in solgate.
func parseActionInput(v any) (solanaactions.Input, error) {
	const tool = wire.ToolSolanaAction
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, args.ArgErrorf(tool, "input", "input must be an object of parameter values by name, e.g. {\"amount\": \"5000\"}; got %s", args.DescribeValue(v))
	}
	if len(obj) > wire.MaxActionInputKeys {
		return nil, args.ArgErrorf(tool, "input", "input has %d keys; at most %d are accepted", len(obj), wire.MaxActionInputKeys)
	}
	out := make(solanaactions.Input, len(obj))
	for k, val := range obj {
		if k == "" || len(k) > 64 || untrusted.Sanitize(k, 0) != k || strings.ContainsAny(k, " {}") {
			return nil, args.ArgErrorf(tool, "input", "input key %s is not a parameter name (1 to 64 printable characters, no spaces or braces)", args.QuoteUntrusted(k))
		}
		if list, ok := val.([]any); ok {
			if len(list) > wire.MaxActionInputValues {
				return nil, args.ArgErrorf(tool, "input", "input.%s lists %d values; at most %d are accepted", k, len(list), wire.MaxActionInputValues)
			}
			vals := make([]string, 0, len(list))
			for _, item := range list {
				s, ok := item.(string)
				if !ok {
					return nil, args.ArgErrorf(tool, "input", "input.%s is a list, so each of its values must be a string (the options of a multi-select parameter); got %s", k, args.DescribeValue(item))
				}
				if err := checkInputText(k, s); err != nil {
					return nil, err
				}
				vals = append(vals, s)
			}
			if len(vals) > 0 { // [] selects nothing: the same as leaving it out
				out[k] = vals
			}
			continue
		}
		var s string
		switch x := val.(type) {
		case string:
			s = x
		case json.Number:
			s = x.String()
		case float64: // arguments not decoded with UseNumber
			b, _ := json.Marshal(x)
			s = string(b)
		case bool:
			s = "false"
			if x {
				s = "true"
			}
		default:
			return nil, args.ArgErrorf(tool, "input", "input.%s must be a string, a number, a boolean or a list of strings; got %s", k, args.DescribeValue(val))
		}
		if err := checkInputText(k, s); err != nil {
			return nil, err
		}
		out[k] = []string{s}
	}
	if len(out) == 0 {
		return nil, nil // {} and no input mean the same call
	}
	return out, nil
}

func checkInputText(k, s string) error {
	if !utf8.ValidString(s) || len(s) > wire.MaxActionInputValue || strings.ContainsFunc(s, untrusted.Hidden) {
		return args.ArgErrorf(wire.ToolSolanaAction, "input", "input.%s must be printable text of at most %d bytes", k, wire.MaxActionInputValue)
	}
	return nil
}

func (a SolanaActionArgs) ToolName() string     { return wire.ToolSolanaAction }
func (a SolanaActionArgs) ConfirmToken() string { return a.Confirm }
func (a SolanaActionArgs) Fingerprint() string {
	return args.Fingerprint(a.ToolName(), a.Normalized())
}

// Described names the attempt for a log line (the URL is the agent's text).
func (a SolanaActionArgs) Described() string {
	return "Solana Action " + args.QuoteUntrusted(a.URL)
}

// Recipient: the agent names no payee; the action's server is the
// counterparty, judged by its origin.
func (a SolanaActionArgs) Recipient() string { return "" }

// Normalized: the URL as given (trimmed) and the input as canonical JSON
// (keys sorted; one value as a string, several as a list), so the approval
// binds exactly what the server was asked: "a" and ["a"] ask the same.
func (a SolanaActionArgs) Normalized() map[string]string {
	n := map[string]string{"url": a.URL}
	if len(a.Input) > 0 {
		canon := make(map[string]any, len(a.Input))
		for k, v := range a.Input {
			if len(v) == 1 {
				canon[k] = v[0]
			} else {
				canon[k] = v
			}
		}
		b, _ := json.Marshal(canon) // maps marshal with sorted keys
		n["input"] = string(b)
	}
	return n
}
