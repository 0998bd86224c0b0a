package solanaactions

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
)

// Action chaining (spec: links.next of an ActionPostResponse). After the
// transaction, the server may offer a next action: inline (the action
// itself) or behind a callback URL that the client POSTs {account,
// signature} to once the transaction is confirmed. solgate takes neither
// step on its own: it reads the next action and hands its description to
// the agent as the server's words. Taking it is a new solana_action call,
// fetched, proposed and approved on its own.

// Next is a server's links.next.
type Next struct {
	// Callback is a PostNextActionLink's URL (same origin as the POST),
	// asked once the transaction landed; empty for an inline link.
	Callback string
	// Action is the next action: inline, or fetched from Callback; nil
	// until then.
	Action *NextAction
	// Unusable says why the link cannot be followed (sanitised); empty
	// when it can.
	Unusable string
}

// NextAction is a next action as the server describes it, its words
// sanitised and flagged.
type NextAction struct {
	// Completed: the server says the chain ends here (type "completed").
	Completed                        bool
	Disabled                         bool
	Title, Description, Label, Error string
	Choices                          []NextChoice
	Flags                            []string
}

// NextChoice is one of the next action's linked actions.
type NextChoice struct {
	Label string
	// URL is the linked action's href resolved where the next action came
	// from; empty when it does not resolve to a URL solgate can fetch.
	URL        string
	Type       string
	Parameters string // "amount (required), memo" or "none"
}

// parseNext reads links.next (nil raw: none) of the POST answered at postURL.
func parseNext(raw json.RawMessage, postURL *url.URL) (*Next, error) {
	if raw == nil {
		return nil, nil
	}
	var link struct {
		Type   string          `json:"type"`
		Href   string          `json:"href"`
		Action json.RawMessage `json:"action"`
	}
	if err := strictJSON(raw, &link); err != nil {
		return &Next{Unusable: "links.next is not a link object: " + clip(err.Error())}, nil
	}
	switch link.Type {
	case "inline":
		a, err := parseNextAction(link.Action, postURL)
		if err != nil {
			return &Next{Unusable: err.Error()}, nil
		}
		return &Next{Action: a}, nil
	case "post":
		cb, err := resolveRef(postURL, link.Href, "links.next's href")
		if err != nil {
			return &Next{Unusable: err.Error()}, nil
		}
		// The spec makes the callback same-origin: it is told the wallet
		// and the signature, and must be the server that built the bytes.
		if originOf(cb) != originOf(postURL) {
			return &Next{Unusable: untrusted.Sanitize(fmt.Sprintf("links.next's callback %s is not on the action's origin %s (the spec asks for the same origin); solgate does not call it", originOf(cb), originOf(postURL)), maxErrorRunes)}, nil
		}
		return &Next{Callback: cb.String()}, nil
	default:
		return &Next{Unusable: fmt.Sprintf("links.next has type %q; the spec knows \"post\" and \"inline\"", clip(link.Type))}, nil
	}
}

// parseNextAction reads a NextAction: an Action of type "action" or
// "completed". base is where it came from, for its relative hrefs.
func parseNextAction(raw json.RawMessage, base *url.URL) (*NextAction, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, serverErrorf("the next action is missing")
	}
	var g getResponse
	if err := strictJSON(raw, &g); err != nil {
		return nil, serverErrorf("the next action is not valid JSON: %v", err)
	}
	n := &NextAction{
		Disabled:    g.Disabled,
		Title:       untrusted.Sanitize(g.Title, maxTitle),
		Description: untrusted.Sanitize(g.Description, maxDescription),
		Label:       untrusted.Sanitize(g.Label, maxLabel),
	}
	switch g.Type {
	case "action":
	case "completed":
		n.Completed = true
	default:
		return nil, serverErrorf("the next action has type %q; want \"action\" or \"completed\"", clip(g.Type))
	}
	raws := g.Title + " " + g.Description + " " + g.Label
	if g.Error != nil {
		n.Error = untrusted.Sanitize(g.Error.Message, maxMessage)
		raws += " " + g.Error.Message
	}
	if g.Links != nil && !n.Completed {
		if len(g.Links.Actions) > maxLinks {
			return nil, serverErrorf("the next action lists %d linked actions; at most %d are read", len(g.Links.Actions), maxLinks)
		}
		for _, l := range g.Links.Actions {
			if len(l.Parameters) > maxParams {
				return nil, serverErrorf("a linked action of the next action has %d parameters; at most %d are read", len(l.Parameters), maxParams)
			}
			c := NextChoice{Label: untrusted.Sanitize(l.Label, maxLabel), Type: clip(typeOrTransaction(l.Type)), Parameters: paramList(l.Parameters)}
			// Its templates stay as written: the agent fills them through
			// input when it calls solana_action with this URL.
			if u, err := resolveRef(base, l.Href, "a next action's href"); err == nil {
				c.URL = u.String()
			}
			n.Choices = append(n.Choices, c)
			raws += " " + l.Label
		}
	}
	n.Flags = untrusted.Flags(raws)
	return n, nil
}

func typeOrTransaction(t string) string {
	if t == "" {
		return "transaction"
	}
	return t
}

// FetchNext asks a PostNextActionLink's callback for the next action, as
// the spec has a client do once the transaction is confirmed: a POST of
// {account, signature}. The origin is asked of AllowOrigin first.
func (c *Client) FetchNext(ctx context.Context, callback string, account solana.PublicKey, sig solana.Signature) (*NextAction, error) {
	u, err := url.Parse(callback)
	if err != nil {
		return nil, serverErrorf("links.next's callback %q is not a URL", clip(callback))
	}
	if err := c.allow(u); err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]string{"account": account.String(), "signature": sig.String()})
	data, _, answered, err := c.doURL(ctx, http.MethodPost, u, body, "the next action (links.next callback)")
	if err != nil {
		return nil, err
	}
	return parseNextAction(data, answered)
}

// Text describes the next link for the agent, every word of the server's
// quoted and marked as such. It says plainly that nothing was proposed.
func (n *Next) Text(origin string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Next action offered by %s (links.next; the server's words, untrusted and never checked; nothing has been fetched, proposed or signed for it): ", origin)
	switch {
	case n.Unusable != "":
		b.WriteString("it cannot be followed: " + n.Unusable + ".")
		return b.String()
	case n.Action == nil:
		b.WriteString("the server describes it only after this transaction lands (a callback); it is read after execution.")
		return b.String()
	}
	a := n.Action
	if a.Completed {
		fmt.Fprintf(&b, "the server says the chain is completed: %q", a.Title)
		if a.Description != "" {
			fmt.Fprintf(&b, ", %q", a.Description)
		}
		b.WriteString(".")
		return b.String()
	}
	fmt.Fprintf(&b, "title %q, description %q, button %q", a.Title, a.Description, a.Label)
	if a.Error != "" {
		fmt.Fprintf(&b, ", error %q", a.Error)
	}
	if a.Disabled {
		b.WriteString(" (the server marks it disabled)")
	}
	var usable int
	for i, c := range a.Choices {
		if i == 0 {
			b.WriteString("; choices:")
		}
		fmt.Fprintf(&b, " %d %q (%s", i+1, c.Label, c.Type)
		if c.URL != "" {
			usable++
			fmt.Fprintf(&b, ", url %s", c.URL)
		} else {
			b.WriteString(", its href is not a URL solgate fetches")
		}
		fmt.Fprintf(&b, ", parameters %s);", c.Parameters)
	}
	if len(a.Flags) > 0 {
		fmt.Fprintf(&b, " instruction-like text: %s;", strings.Join(a.Flags, ", "))
	}
	if usable > 0 {
		b.WriteString(" To take it, call solana_action again with a choice's url (and its parameters as input): that is a new proposal, fetched afresh and approved on its own.")
	} else {
		b.WriteString(" It names no URL solgate can fetch, so it cannot be taken through solana_action.")
	}
	return b.String()
}
