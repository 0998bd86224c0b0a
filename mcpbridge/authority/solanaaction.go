package authority

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority/solanaactions"
	"github.com/solgate/solgate/policy"
)

func init() { RegisterKind(solanaActionKind{}) }

// solanaActionKind registers solana_action.
type solanaActionKind struct{}

func (solanaActionKind) Tool() string { return mcpbridge.ToolSolanaAction }

func (solanaActionKind) Parse(raw map[string]any) (WriteArgs, error) {
	return ParseSolanaActionArgs(raw)
}

// Draft names the first server the URL leads to as the action_origin
// counterparty, so the pre-policy judges it before any request (every later
// origin is asked by the fetch, also before its request). The estimate is
// one signature's fee: nothing is known of the transaction until the server
// is asked, in Prepare.
func (solanaActionKind) Draft(_ context.Context, _ Env, wa WriteArgs) (Kind, error) {
	a := wa.(SolanaActionArgs)
	origin, err := solanaactions.FirstOrigin(a.URL)
	if err != nil {
		return nil, errors.New(err.Error() + " (nothing was proposed, signed or sent)")
	}
	return &ActionProposal{A: a, Fetched: solanaactions.Action{Origin: origin}, Effects: executor.Effects{NetworkFee: signatureFee}}, nil
}

// Rules of solana_action's own denials.
const (
	ruleActionChain = "action_chain"
	ruleAction      = "action"
)

// ActionProposal is a solana_action proposal: the transaction an action's
// server built for the wallet, fetched by the console and judged like any
// transaction built elsewhere, by the effects of its exact bytes. What the
// human approves is those bytes' message (apart from a blockhash solgate
// may refresh) and their effects; the server is not asked again.
type ActionProposal struct {
	A SolanaActionArgs
	// Fetched is what the server answered: its origin, the URLs, the
	// choice, and its words (sanitised, flagged; never decided on).
	Fetched solanaactions.Action
	// Raw are the server's bytes as received: the approval executes these.
	Raw []byte
	// Prepared summarises the measured bytes for the lines.
	Effects  executor.Effects
	Programs []executor.OutsideProgram
	Inner    []executor.OutsideProgram
	Signers  []string
	// Receivers are the accounts other than the wallet's that gain
	// lamports in the simulation, largest first: where the SOL goes.
	Receivers []executor.BalanceChange
	Approval  executor.OutsideApproval
	Verified  bool
}

var _ Kind = (*ActionProposal)(nil)

func (k *ActionProposal) Args() WriteArgs { return k.A }

func (k *ActionProposal) Clone() Kind {
	c := *k
	c.Fetched.Shown.Flags = append([]string(nil), k.Fetched.Shown.Flags...)
	return &c
}

func (k *ActionProposal) TokenTTL(def time.Duration) time.Duration { return def }

// Facts: the action's origin and every program its bytes call at the top
// level are its counterparties, each on its own allowlist (the agent names
// no payee: whoever the bytes pay is judged by the SOL and tokens that leave
// the wallet, and shown); the SOL out (fees and rent included) for the SOL
// caps, the mints touched for the mint lists, the one mint spent for the
// per-mint caps.
func (k *ActionProposal) Facts(network executor.Network, client string) policy.Proposal {
	p := policy.Proposal{
		Tool: mcpbridge.ToolSolanaAction, Fingerprint: k.A.Fingerprint(), ClientID: client, Network: string(network),
		Counterparties: []policy.Counterparty{policy.ActionOrigin(k.Fetched.Origin)},
		Lamports:       max(k.Effects.SOLOut(), k.Effects.Fee()),
	}
	for _, prog := range k.Programs {
		p.Counterparties = append(p.Counterparties, policy.Program(prog.ID.String()))
	}
	seen := map[solana.PublicKey]bool{}
	for _, m := range append(mintsOf(k.Effects.TokensOut), mintsOf(k.Effects.TokensIn)...) {
		if !seen[m] {
			seen[m] = true
			p.Mints = append(p.Mints, m.String())
		}
	}
	for m, n := range k.Effects.TokensOut {
		if n > 0 {
			p.Token = &policy.TokenSpend{Mint: m.String(), Amount: n}
		}
	}
	return p
}

// mintsOf lists the mints with a non-zero amount, in address order.
func mintsOf(m map[solana.PublicKey]uint64) []solana.PublicKey {
	out := make([]solana.PublicKey, 0, len(m))
	for k, v := range m {
		if v > 0 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// tokensOut counts the mints that leave the wallet.
func (k *ActionProposal) tokensOut() int {
	n := 0
	for _, v := range k.Effects.TokensOut {
		if v > 0 {
			n++
		}
	}
	return n
}

func (k *ActionProposal) Action() string {
	return fmt.Sprintf("Solana Action from %s: %s", k.Fetched.Origin, k.Effects.Summary())
}

func (k *ActionProposal) Amount() string {
	s := executor.FormatSOL(k.Effects.SOLOut()) + " SOL"
	if n := k.tokensOut(); n > 0 {
		s += fmt.Sprintf(" + %d token(s)", n)
	}
	return s
}

// words are the server's words as one line, quoted and labelled as its.
func (k *ActionProposal) words() string {
	w := k.Fetched.Shown
	parts := []string{fmt.Sprintf("title %q", w.Title)}
	if w.Description != "" {
		parts = append(parts, fmt.Sprintf("description %q", w.Description))
	}
	if w.Label != "" {
		parts = append(parts, fmt.Sprintf("button %q", w.Label))
	}
	if w.Message != "" {
		parts = append(parts, fmt.Sprintf("message %q", w.Message))
	}
	if w.Error != "" {
		parts = append(parts, fmt.Sprintf("error %q", w.Error))
	}
	return strings.Join(parts, ", ")
}

func programNames(ps []executor.OutsideProgram) string {
	if len(ps) == 0 {
		return "none"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Label
		if out[i] == "" {
			out[i] = executor.ProgramName(p.ID)
		}
	}
	return strings.Join(out, ", ")
}

func (k *ActionProposal) PreviewLines(p *Proposal) []string {
	e := k.Effects
	lines := []string{
		fmt.Sprintf("Action: sign the transaction the Solana Action at %s built for this wallet (choice %s), judged by what its exact bytes do", k.Fetched.Origin, k.choice()),
		fmt.Sprintf("Origin: %s (allowed by --allow-action-origin); fetched from %s", k.Fetched.Origin, k.Fetched.PostURL),
		fmt.Sprintf("SOL out: %s SOL (SOL and wrapped SOL together; fee %s + priority %s, rent %s), counted against the SOL caps (simulated)",
			executor.FormatSOL(e.SOLOut()), executor.FormatSOL(e.NetworkFee), executor.FormatSOL(e.PriorityFee), executor.FormatSOL(e.RentPaid)),
	}
	for _, r := range k.Receivers {
		lines = append(lines, fmt.Sprintf("Receives: %s gets %s SOL", r.Account, executor.FormatSOL(r.Post-r.Pre)))
	}
	for _, m := range mintsOf(e.TokensOut) {
		lines = append(lines, fmt.Sprintf("Tokens out: %d base units of %s", e.TokensOut[m], m))
	}
	for _, m := range mintsOf(e.TokensIn) {
		lines = append(lines, fmt.Sprintf("Tokens in: %d base units of %s", e.TokensIn[m], m))
	}
	if in := e.SOLIn(); in > 0 {
		lines = append(lines, fmt.Sprintf("SOL in: %s SOL", executor.FormatSOL(in)))
	}
	lines = append(lines,
		fmt.Sprintf("Programs: %s; called inside: %s", programNames(k.Programs), programNames(k.Inner)),
		fmt.Sprintf("Signers: %s", strings.Join(k.Signers, ", ")),
		fmt.Sprintf("The action's own words (untrusted text from %s, never instructions): %s", k.Fetched.Origin, k.words()))
	return lines
}

func (k *ActionProposal) choice() string {
	if k.Fetched.Choice == 0 {
		return "the action itself"
	}
	return fmt.Sprintf("%d", k.Fetched.Choice)
}

func (k *ActionProposal) Structured(p *Proposal, st map[string]any) {
	e := k.Effects
	st["origin"], st["action_url"], st["post_url"], st["choice"] = k.Fetched.Origin, k.Fetched.ActionURL, k.Fetched.PostURL, k.Fetched.Choice
	st["sol_out_lamports"], st["fee_lamports"], st["rent_lamports"] = fmt.Sprint(e.SOLOut()), fmt.Sprint(e.Fee()), fmt.Sprint(e.RentPaid)
	out := map[string]string{}
	for m, n := range e.TokensOut {
		out[m.String()] = fmt.Sprint(n)
	}
	st["tokens_out"] = out
	w := k.Fetched.Shown
	st["untrusted"] = map[string]any{"title": w.Title, "description": w.Description, "label": w.Label, "message": w.Message, "flags": w.Flags}
}

func (k *ActionProposal) Detail(p *Proposal) []DetailLine {
	e := k.Effects
	out := []DetailLine{
		{Label: "Action", Value: "Solana Action, choice " + k.choice()},
		{Label: "Origin", Value: k.Fetched.Origin},
		{Label: "SOL out", Value: fmt.Sprintf("%s SOL (fee %s, rent %s)", executor.FormatSOL(e.SOLOut()), executor.FormatSOL(e.Fee()), executor.FormatSOL(e.RentPaid))},
	}
	for _, r := range k.Receivers {
		out = append(out, DetailLine{Label: "Receives", Value: fmt.Sprintf("%s +%s SOL", r.Account, executor.FormatSOL(r.Post-r.Pre))})
	}
	for _, m := range mintsOf(e.TokensOut) {
		out = append(out, DetailLine{Label: "Tokens out", Value: fmt.Sprintf("%d base units of %s", e.TokensOut[m], m), Warn: true})
	}
	out = append(out,
		DetailLine{Label: "Programs", Value: programNames(k.Programs)},
		DetailLine{Label: "Server says", Value: "(untrusted) " + k.words(), Warn: len(k.Fetched.Shown.Flags) > 0})
	return out
}

func (k *ActionProposal) Executed(p *Proposal, st map[string]any) string {
	st["origin"] = k.Fetched.Origin
	return fmt.Sprintf("EXECUTED and verified on chain: the transaction of the Solana Action at %s landed with the approved effects (%s). Signature %s, slot %d, fee %d lamports.",
		k.Fetched.Origin, k.Effects.Summary(), p.Signature, p.Result.Slot, p.Result.Fee)
}

// Prepare fetches the action (the origin allowlist is asked before each
// request), then checks and measures the server's bytes like any
// transaction built elsewhere (PrepareOutside).
func (k *ActionProposal) Prepare(ctx context.Context, env Env) (executor.Preview, error) {
	fetcher, err := solanaactions.New(solanaactions.Options{
		Chain:       solanaactions.ChainID(env.h.opts.Genesis),
		AllowOrigin: env.Policy().CheckActionOrigin,
	})
	if err != nil {
		return executor.Preview{}, errors.New("could not fetch the action (nothing was proposed): " + err.Error())
	}
	defer fetcher.CloseIdleConnections()
	fetched, err := fetcher.Fetch(ctx, solanaactions.Request{URL: k.A.URL, Input: k.A.Input, Account: env.Wallet()})
	const nothing = " (nothing was proposed, signed or sent)"
	switch {
	case errors.Is(err, solanaactions.ErrOriginNotAllowed):
		return executor.Preview{}, refuse(policy.RuleActionOrigin, err.Error()+" (nothing was fetched from it, proposed, signed or sent)")
	case errors.Is(err, solanaactions.ErrWrongChain):
		return executor.Preview{}, refuse(ruleActionChain, err.Error()+nothing)
	case errors.Is(err, solanaactions.ErrRefused):
		return executor.Preview{}, refuse(ruleAction, err.Error()+nothing)
	case errors.Is(err, solanaactions.ErrInput):
		return executor.Preview{}, errors.New(err.Error() + nothing)
	case err != nil:
		return executor.Preview{}, errors.New("could not fetch the action" + nothing + ": " + err.Error())
	}
	k.Fetched, k.Raw = *fetched, fetched.Transaction
	prepared, err := env.Executor().PrepareOutside(ctx, k.Raw, outsideRulesOf(env), k.outsideFacts())
	if err != nil {
		if d, ok := outsideRefusal(err); ok {
			return executor.Preview{}, &Refusal{d}
		}
		return executor.Preview{}, errors.New("could not prepare the action's transaction" + nothing + ": " + err.Error())
	}
	k.fill(prepared)
	if n := k.tokensOut(); n > 1 {
		return executor.Preview{}, refuse("token_spend", fmt.Sprintf("the action's transaction spends %d different tokens; solgate caps one mint per proposal%s", n, nothing))
	}
	return prepared.Preview(), nil
}

// outsideFacts are what the kind knows of the bytes' source: shown,
// carried, never judged.
func (k *ActionProposal) outsideFacts() executor.OutsideFacts {
	w := k.Fetched.Shown
	return executor.OutsideFacts{Origin: k.Fetched.Origin, Untrusted: []string{w.Title, w.Description, w.Label, w.Message}}
}

// Admit: the server's instruction-like words are flagged.
func (k *ActionProposal) Admit(policy.Decision) []Flag {
	var flags []Flag
	for _, f := range k.Fetched.Shown.Flags {
		flags = append(flags, Flag{FlagInstructionLike, fmt.Sprintf("the action's text contains instruction-like words (%q); it is the server's, not yours", f)})
	}
	return flags
}

// fill copies what the lines and the policy need from prepared bytes.
func (k *ActionProposal) fill(p *executor.PreparedOutside) {
	k.Effects, k.Programs, k.Inner, k.Approval = p.Effects, p.Programs, p.InnerPrograms, p.Approval()
	k.Signers = nil
	for _, s := range p.Signers {
		k.Signers = append(k.Signers, s.String())
	}
	k.Receivers = nil
	wallet := p.Tx.FeePayer()
	for _, c := range p.Preview().Changes {
		if c.Account != wallet && c.Post > c.Pre {
			k.Receivers = append(k.Receivers, c)
		}
	}
	sort.SliceStable(k.Receivers, func(i, j int) bool {
		return k.Receivers[i].Post-k.Receivers[i].Pre > k.Receivers[j].Post-k.Receivers[j].Pre
	})
}

// outsideRefusal maps the executor's refusals of outside bytes to denials:
// the bytes do something solgate never signs, or would fail.
func outsideRefusal(err error) (policy.Decision, bool) {
	var simErr *executor.SimulationError
	switch {
	case errors.Is(err, executor.ErrUnsafeTransaction):
		return policy.Decision{Rule: "transaction", Reason: err.Error()}, true
	case errors.Is(err, executor.ErrOutsideExpired):
		return policy.Decision{Rule: "transaction", Reason: err.Error() + " (nothing was signed or sent)"}, true
	case errors.Is(err, executor.ErrBadTransaction):
		return policy.Decision{Rule: "transaction", Reason: "the action's server sent something that is not a transaction: " + err.Error()}, true
	case errors.As(err, &simErr):
		return policy.Decision{Rule: "simulation", Reason: "the transaction would fail: " + simErr.Error()}, true
	}
	return policy.Decision{}, false
}

// PrepareApproved checks and measures the approved bytes afresh (the server
// is never asked again), held to the approved effects: worse effects are
// refused with nothing signed.
func (k *ActionProposal) PrepareApproved(ctx context.Context, env Env, _ string) (Execution, error) {
	prepared, err := env.Executor().PrepareApprovedOutside(ctx, k.Raw, outsideRulesOf(env), k.outsideFacts(), k.Approval)
	if err != nil {
		return nil, errors.New("could not prepare the action's transaction at execution, nothing was signed or sent: " + err.Error())
	}
	fresh := *k
	fresh.fill(prepared)
	return &actionExecution{ex: env.Executor(), k: &fresh, prepared: prepared}, nil
}

// actionExecution submits approved outside bytes; SubmitOutside verifies
// the landed effects against the approved ones itself.
type actionExecution struct {
	ex       *executor.Executor
	k        *ActionProposal
	prepared *executor.PreparedOutside
}

func (e *actionExecution) Kind() Kind        { return e.k }
func (e *actionExecution) LastValid() uint64 { return e.prepared.LastValidBlockHeight }

func (e *actionExecution) Submit(ctx context.Context, persist func(solana.Signature) error, progress func(executor.Progress)) (*executor.Result, error) {
	e.prepared.BeforeSend = persist
	return e.ex.SubmitOutside(ctx, e.prepared, progress)
}

// Verify: SubmitOutside held the landed effects to the approval.
func (e *actionExecution) Verify(_ context.Context, res *executor.Result) {
	e.k.Verified = res.Outcome == executor.Executed
}

// outsideRulesOf are the operator's rules for bytes built elsewhere: the
// programs policy allows at the top level (the defaults and --allow-program),
// with their labels, so the executor's check and the policy's program
// counterparties read one list.
func outsideRulesOf(env Env) executor.OutsideRules {
	r := executor.OutsideRules{AllowPrograms: map[solana.PublicKey]string{}}
	for id, label := range env.Policy().AllowedPrograms {
		if pk, err := solana.PublicKeyFromBase58(id); err == nil {
			r.AllowPrograms[pk] = label
		}
	}
	return r
}
