package outside

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/solanaactions"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// solana_action: a Solana Action (a blink). The console fetches the action
// (solanaactions: the origin allowlist asked before every request, the
// cluster checked) and then takes the path of sign_and_send_transaction:
// the server's bytes are an OutsideProposal, judged by what they do. This
// kind adds the origin as a counterparty, the server's words as untrusted
// lines, and where the SOL goes.

func init() { writekind.Register(solanaActionKind{}) }

// solanaActionKind registers solana_action.
type solanaActionKind struct{}

func (solanaActionKind) Tool() string { return wire.ToolSolanaAction }

func (solanaActionKind) Parse(raw map[string]any) (args.WriteArgs, error) {
	return ParseSolanaActionArgs(raw)
}

// Draft names the first server the URL leads to as the action_origin
// counterparty, so the pre-policy judges it before any request (every later
// origin is asked by the fetch, also before its request). Nothing is known
// of the transaction until the server is asked, in Prepare.
func (solanaActionKind) Draft(_ context.Context, _ writekind.Env, wa args.WriteArgs) (writekind.Kind, error) {
	a := wa.(SolanaActionArgs)
	origin, err := solanaactions.FirstOrigin(a.URL)
	if err != nil {
		return nil, errors.New(err.Error() + " (nothing was proposed, signed or sent)")
	}
	return &ActionProposal{A: a, Fetched: solanaactions.Action{Origin: origin}}, nil
}

// actionFetchTimeout bounds fetching one action, all its requests together.
const actionFetchTimeout = 20 * time.Second

// Rules of solana_action's own denials.
const (
	ruleActionChain = "action_chain"
	ruleAction      = "action"
)

// ActionProposal is a solana_action proposal: the transaction an action's
// server built for the wallet, fetched by the console and judged like any
// transaction built elsewhere (Outside). What the human approves is those
// bytes' message (apart from a blockhash solgate may refresh) and their
// effects; the server is not asked again.
type ActionProposal struct {
	A SolanaActionArgs
	// Fetched is what the server answered: its origin, the URLs, the
	// choice, and its words (sanitised, flagged; never decided on). Its
	// Transaction is Outside's Raw.
	Fetched solanaactions.Action
	// Outside is the server's bytes as a proposal to sign them (nil in the
	// draft, before the server was asked).
	Outside *OutsideProposal
}

var _ writekind.Kind = (*ActionProposal)(nil)

func (k *ActionProposal) Args() args.WriteArgs { return k.A }

func (k *ActionProposal) Clone() writekind.Kind {
	c := *k
	c.Fetched.Shown.Flags = append([]string(nil), k.Fetched.Shown.Flags...)
	c.Fetched.Chains = append([]string(nil), k.Fetched.Chains...)
	if k.Fetched.Next != nil {
		n := *k.Fetched.Next // its NextAction is never changed once made
		c.Fetched.Next = &n
	}
	if k.Outside != nil {
		c.Outside = k.Outside.Clone().(*OutsideProposal)
	}
	return &c
}

func (k *ActionProposal) TokenTTL(def time.Duration) time.Duration { return def }

// Facts: the bytes' facts (each top-level program a counterparty, SOL out
// for the SOL caps, the mint out for its caps) with the action's origin as
// one more counterparty. The agent names no payee: whoever the bytes pay is
// judged by what leaves the wallet, and shown.
func (k *ActionProposal) Facts(network executor.Network, client string) policy.Proposal {
	var p policy.Proposal
	if k.Outside != nil {
		p = k.Outside.Facts(network, client)
	} else {
		p = policy.Proposal{Tool: k.A.ToolName(), Fingerprint: k.A.Fingerprint(), ClientID: client, Network: string(network),
			Lamports: executor.LamportsPerSignature}
	}
	p.PaysSelf = false
	p.Counterparties = append([]policy.Counterparty{policy.ActionOrigin(k.Fetched.Origin)}, p.Counterparties...)
	return p
}

// Prepare fetches the action (the origin allowlist is asked before each
// request), then prepares the server's bytes as an OutsideProposal.
func (k *ActionProposal) Prepare(ctx context.Context, env writekind.Env) (executor.Preview, error) {
	fetcher, err := solanaactions.New(solanaactions.Options{
		Chain:       executor.CAIP2(env.Genesis()),
		AllowOrigin: env.Policy().CheckActionOrigin,
	})
	if err != nil {
		return executor.Preview{}, errors.New("could not fetch the action (nothing was proposed): " + err.Error())
	}
	defer fetcher.CloseIdleConnections()
	// Each request is bounded by the client; the whole fetch (actions.json,
	// GET, POST) by this, so a slow server holds the proposal briefly.
	fctx, cancel := context.WithTimeout(ctx, actionFetchTimeout)
	defer cancel()
	fetched, err := fetcher.Fetch(fctx, solanaactions.Request{URL: k.A.URL, Input: k.A.Input, Account: env.Wallet()})
	const nothing = " (nothing was proposed, signed or sent)"
	switch {
	case errors.Is(err, solanaactions.ErrOriginNotAllowed):
		return executor.Preview{}, writekind.Refuse(policy.RuleActionOrigin, err.Error()+" (nothing was fetched from it, proposed, signed or sent)")
	case errors.Is(err, solanaactions.ErrWrongChain):
		return executor.Preview{}, writekind.Refuse(ruleActionChain, err.Error()+nothing)
	case errors.Is(err, solanaactions.ErrRefused):
		return executor.Preview{}, writekind.Refuse(ruleAction, err.Error()+nothing)
	case errors.Is(err, solanaactions.ErrInput):
		return executor.Preview{}, errors.New(err.Error() + nothing)
	case err != nil:
		return executor.Preview{}, errors.New("could not fetch the action" + nothing + ": " + err.Error())
	}
	k.Fetched = *fetched
	k.Outside = NewOutsideProposal(k.A, fetched.Transaction, actionFacts(fetched))
	preview, err := k.Outside.Prepare(ctx, env)
	if err != nil {
		return executor.Preview{}, err
	}
	return preview, nil
}

// actionFacts are what solana_action knows of the bytes: the origin, and
// the server's words as untrusted lines (Outside shows them as such and
// flags instruction-like ones; nothing decides on them).
func actionFacts(a *solanaactions.Action) executor.OutsideFacts {
	f := executor.OutsideFacts{Origin: a.Origin}
	w := a.Shown
	for _, l := range []struct{ what, text string }{
		{"title", w.Title}, {"description", w.Description}, {"button", w.Label}, {"message", w.Message}, {"error", w.Error},
	} {
		if l.text != "" {
			f.Untrusted = append(f.Untrusted, "the action's "+l.what+": "+l.text)
		}
	}
	return f
}

// Admit: Outside's warnings (the server's instruction-like words among
// them).
func (k *ActionProposal) Admit(d policy.Decision) []approval.Flag { return k.Outside.Admit(d) }

// PrepareApproved measures the approved bytes afresh (the server is never
// asked again), held to the approved effects.
func (k *ActionProposal) PrepareApproved(ctx context.Context, env writekind.Env, id string) (*writekind.Execution, error) {
	ex, err := k.Outside.PrepareApproved(ctx, env, id)
	if err != nil {
		return nil, err
	}
	fresh := k.Clone().(*ActionProposal)
	if o, ok := ex.Kind.(*OutsideProposal); ok {
		fresh.Outside = o
	}
	// The bytes are Outside's; the reservation is judged on the action's
	// facts (its origin included).
	ex.Kind = fresh
	return ex, nil
}

// Grant: never, as for any transaction brought from outside: an action's
// server builds new bytes each time.
func (k *ActionProposal) Grant() writekind.GrantRule {
	return writekind.NeverGranted("an action's server builds a new transaction each time")
}

// nextFetchTimeout bounds asking a links.next callback, after the
// transaction landed: the execution's answer waits for it.
const nextFetchTimeout = 5 * time.Second

// CheckLanded is Outside's; then, for a links.next callback and a transaction
// that landed as approved, the spec's next step: the callback is told the
// signature and describes the next action. That description is only read
// and shown; a failure to read it changes nothing of the execution.
func (k *ActionProposal) CheckLanded(ctx context.Context, env writekind.Env, res *executor.Result) {
	k.Outside.CheckLanded(ctx, env, res)
	next := k.Fetched.Next
	if res.Outcome != executor.Executed || next == nil || next.Callback == "" || next.Action != nil || next.Unusable != "" {
		return
	}
	fetcher, err := solanaactions.New(solanaactions.Options{
		Chain:       executor.CAIP2(env.Genesis()),
		AllowOrigin: env.Policy().CheckActionOrigin,
		Timeout:     nextFetchTimeout,
	})
	n := *next
	if err == nil {
		defer fetcher.CloseIdleConnections()
		fctx, cancel := context.WithTimeout(ctx, nextFetchTimeout)
		defer cancel()
		n.Action, err = fetcher.FetchNext(fctx, next.Callback, env.Wallet(), res.Signature)
	}
	if err != nil {
		n.Unusable = "asking its callback failed: " + err.Error()
	}
	k.Fetched.Next = &n
}

// ---- lines: the action's own, then Outside's effects view ----

func (k *ActionProposal) choice() string {
	if k.Fetched.Choice == 0 {
		return "the action itself"
	}
	return fmt.Sprintf("choice %d", k.Fetched.Choice)
}

func (k *ActionProposal) Action() string {
	return fmt.Sprintf("run the Solana Action at %s: %s", k.Fetched.Origin, k.Outside.Action())
}

func (k *ActionProposal) Amount() string { return k.Outside.Amount() }

func (k *ActionProposal) PreviewLines(p *writekind.Proposal) []string {
	lines := []string{
		fmt.Sprintf("Action: sign the transaction the Solana Action at %s built for this wallet (%s); judged by what its exact bytes do in simulation, not by what the action says", k.Fetched.Origin, k.choice()),
		fmt.Sprintf("Origin: %s (allowed by --allow-action-origin); the transaction came from %s", k.Fetched.Origin, k.Fetched.PostURL),
	}
	for _, l := range k.Outside.PreviewLines(p) {
		// Its Action line and its From line (the origin) are said above.
		if !strings.HasPrefix(l, "Action: ") && !strings.HasPrefix(l, "From: ") {
			lines = append(lines, l)
		}
	}
	if n := k.Fetched.Next; n != nil {
		lines = append(lines, n.Text(k.Fetched.Origin))
	}
	return lines
}

// nextStructured is links.next for the agent's structured result.
func (k *ActionProposal) nextStructured() map[string]any {
	n := k.Fetched.Next
	out := map[string]any{
		"untrusted": true,
		"proposed":  false,
		"text":      n.Text(k.Fetched.Origin),
	}
	if n.Callback != "" {
		out["callback"] = n.Callback
	}
	if n.Unusable != "" {
		out["unusable"] = n.Unusable
	}
	if a := n.Action; a != nil {
		choices := make([]map[string]any, len(a.Choices))
		for i, c := range a.Choices {
			choices[i] = map[string]any{"label": c.Label, "url": c.URL, "type": c.Type, "parameters": c.Parameters}
		}
		out["action"] = map[string]any{
			"completed": a.Completed, "disabled": a.Disabled, "title": a.Title, "description": a.Description,
			"label": a.Label, "error": a.Error, "choices": choices, "flags": a.Flags,
		}
	}
	return out
}

func (k *ActionProposal) Structured(p *writekind.Proposal, st map[string]any) {
	k.Outside.Structured(p, st)
	st["origin"], st["action_url"], st["post_url"], st["choice"] = k.Fetched.Origin, k.Fetched.ActionURL, k.Fetched.PostURL, k.Fetched.Choice
	w := k.Fetched.Shown
	st["untrusted"] = map[string]any{"title": w.Title, "description": w.Description, "label": w.Label, "message": w.Message, "flags": w.Flags}
	if k.Fetched.Next != nil {
		st["next_action"] = k.nextStructured()
	}
}

func (k *ActionProposal) Detail(p *writekind.Proposal) []approval.DetailLine {
	out := []approval.DetailLine{
		{Label: "Action", Value: "Solana Action (" + k.choice() + "), judged by its effects"},
		{Label: "Origin", Value: k.Fetched.Origin},
	}
	for _, l := range k.Outside.Detail(p) {
		if l.Label != "Action" && l.Label != "From" {
			out = append(out, l)
		}
	}
	return out
}

func (k *ActionProposal) Executed(p *writekind.Proposal, st map[string]any) string {
	st["origin"] = k.Fetched.Origin
	text := k.Outside.Executed(p, st) + " It was the Solana Action at " + k.Fetched.Origin + "."
	if k.Fetched.Next != nil {
		st["next_action"] = k.nextStructured()
		text += " " + k.Fetched.Next.Text(k.Fetched.Origin)
	}
	return text
}
