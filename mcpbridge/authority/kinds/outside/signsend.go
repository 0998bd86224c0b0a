package outside

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// sign_and_send_transaction: a transaction built elsewhere (an SDK's, a
// launchpad's, another MCP server's), approved by what its exact bytes do.
// The judging is the executor's (executor/outside.go); this file is the
// kind: its arguments, its facts for policy, and the effects view the human
// and the model read. OutsideProposal is shared with any kind whose end is
// "sign these bytes" (solana_action): it takes the bytes plus what that kind
// knows of their origin, as untrusted lines.

func init() { writekind.Register(signAndSendKind{}) }

// FlagAdmittedProgram: the transaction calls a program outside the
// default list, which only the operator's --allow-program let through.
const FlagAdmittedProgram approval.FlagKind = "admitted_program"

// labelRunes is how much of a label or an origin's line is shown.
const labelRunes = 120

// SignAndSendArgs are the arguments of sign_and_send_transaction.
type SignAndSendArgs struct {
	Raw     []byte // the wire transaction as decoded from base64
	Label   string // the agent's words, as given (bounded); untrusted
	Confirm string
}

// ParseSignAndSendArgs validates sign_and_send_transaction arguments: the
// transaction must decode as a canonical legacy or v0 wire transaction.
func ParseSignAndSendArgs(raw map[string]any) (SignAndSendArgs, error) {
	const tool = wire.ToolSignAndSend
	var a SignAndSendArgs
	if err := args.CheckArgNames(tool, raw); err != nil {
		return a, err
	}
	s, ok := raw["transaction"].(string)
	if !ok {
		return a, args.ArgErrorf(tool, "transaction", "transaction must be a string: the base64 wire transaction (legacy or v0) built elsewhere, with the wallet's signature slot empty; got %s", args.DescribeValue(raw["transaction"]))
	}
	b, err := executor.DecodeOutside(s)
	if err != nil {
		return a, args.ArgErrorf(tool, "transaction", "transaction: %v", err)
	}
	a.Raw = b
	if v, ok := raw["label"]; ok && v != nil {
		l, ok := v.(string)
		if !ok {
			return a, args.ArgErrorf(tool, "label", "label must be a string (your description of the transaction, shown to the human as yours); got %s", args.DescribeValue(v))
		}
		if len(l) > wire.MaxLabelBytes {
			return a, args.ArgErrorf(tool, "label", "label is %d bytes; give at most %d", len(l), wire.MaxLabelBytes)
		}
		if strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return a, args.ArgErrorf(tool, "label", "label contains a control character; give plain text on one line")
		}
		a.Label = l
	}
	if a.Confirm, err = args.ParseConfirm(tool, raw["confirm"]); err != nil {
		return a, err
	}
	return a, nil
}

func (a SignAndSendArgs) ToolName() string     { return wire.ToolSignAndSend }
func (a SignAndSendArgs) ConfirmToken() string { return a.Confirm }
func (a SignAndSendArgs) Fingerprint() string {
	return args.Fingerprint(a.ToolName(), a.Normalized())
}

// Recipient: the counterparties are the programs, judged by the program
// allowlist, not a payee the agent names.
func (a SignAndSendArgs) Recipient() string { return "" }

// Described is the attempt for the console's log line.
func (a SignAndSendArgs) Described() string {
	return fmt.Sprintf("a %d-byte transaction built elsewhere", len(a.Raw))
}

// Normalized: the transaction as canonical base64 and the label exactly as
// given; the approval binds both (the label is what the human read beside
// the effects, though nothing is decided by it).
func (a SignAndSendArgs) Normalized() map[string]string {
	n := map[string]string{"transaction": base64.StdEncoding.EncodeToString(a.Raw)}
	if a.Label != "" {
		n["label"] = a.Label
	}
	return n
}

// signAndSendKind registers sign_and_send_transaction.
type signAndSendKind struct{}

func (signAndSendKind) Tool() string { return wire.ToolSignAndSend }

func (signAndSendKind) Parse(raw map[string]any) (args.WriteArgs, error) {
	return ParseSignAndSendArgs(raw)
}

func (signAndSendKind) Draft(_ context.Context, _ writekind.Env, wa args.WriteArgs) (writekind.Kind, error) {
	a := wa.(SignAndSendArgs)
	facts := executor.OutsideFacts{}
	if a.Label != "" {
		facts.Untrusted = []string{"the agent's label: " + a.Label}
	}
	return NewOutsideProposal(a, a.Raw, facts), nil
}

// OutsideProposal is a proposal to sign bytes built elsewhere.
type OutsideProposal struct {
	A   args.WriteArgs
	Raw []byte
	// Told: where the bytes came from and what others said of them
	// (sanitised when shown, never judged).
	Told executor.OutsideFacts
	// What the bytes do, as measured (filled by Prepare, and at execution by
	// the fresh measure).
	Effects                 executor.Effects
	Programs, InnerPrograms []executor.OutsideProgram
	Signers, Cosigners      []solana.PublicKey
	WalletOnly, OwnBudget   bool
	Budget                  executor.Budget
	LastValid               uint64
	Binding                 string
	// Tokens label every mint the bytes move (decimals for caps, sanitised
	// names for people).
	Tokens map[solana.PublicKey]writekind.TokenLabel
	// NoCapApplies: a mint out has no per-mint cap and was admitted by
	// --allow-uncapped-token-transfers.
	NoCapApplies bool
	// Uncapped names the mints out that no per-mint cap bounds.
	Uncapped string
	Approval executor.OutsideApproval
	// Landed is the verified execution's measure.
	Landed *executor.Effects
}

// NewOutsideProposal is the kind for bytes raw under the tool's arguments a,
// with what the calling kind knows of them.
func NewOutsideProposal(a args.WriteArgs, raw []byte, facts executor.OutsideFacts) *OutsideProposal {
	return &OutsideProposal{A: a, Raw: raw, Told: facts}
}

var _ writekind.Kind = (*OutsideProposal)(nil)

func (k *OutsideProposal) Args() args.WriteArgs { return k.A }

func (k *OutsideProposal) Clone() writekind.Kind {
	c := *k
	c.Tokens = make(map[solana.PublicKey]writekind.TokenLabel, len(k.Tokens))
	for m, l := range k.Tokens {
		c.Tokens[m] = l
	}
	return &c
}

// TokenTTL: co-signed bytes die with their blockhash anyway; the default
// otherwise.
func (k *OutsideProposal) TokenTTL(def time.Duration) time.Duration { return def }

// Facts: every program called is a counterparty (the program allowlist),
// SOL out (wrapped SOL, fees and rent included) for the SOL caps, each
// mint out for its own caps, every mint moved for the mint lists.
func (k *OutsideProposal) Facts(network executor.Network, client string) policy.Proposal {
	p := policy.Proposal{
		Tool: k.A.ToolName(), Fingerprint: k.A.Fingerprint(), ClientID: client, Network: string(network),
		Lamports: k.Effects.SOLOut(),
	}
	if p.Lamports == 0 {
		// Not measured yet (the draft), or the wallet gains: at least the
		// signatures' fee is spent.
		p.Lamports = k.signatureFee()
	}
	for _, m := range k.mints() {
		p.Mints = append(p.Mints, m.String())
	}
	// Every mint that leaves is its own token spend, each held to its own
	// per-mint caps.
	for _, m := range sortedKeys(k.Effects.TokensOut) {
		l := k.Tokens[m]
		p.Tokens = append(p.Tokens, policy.TokenSpend{Mint: m.String(), Amount: k.Effects.TokensOut[m], Decimals: l.Decimals, DecimalsKnown: l.Mint == m.String()})
	}
	for _, prog := range k.Programs {
		p.Counterparties = append(p.Counterparties, policy.Program(prog.ID.String()))
	}
	if len(p.Counterparties) == 0 {
		// Not yet measured (the draft): no payee is named; the programs
		// are judged once Prepare has read them.
		p.PaysSelf = true
	}
	return p
}

// signatureFee is what the bytes' signatures cost the wallet at least.
func (k *OutsideProposal) signatureFee() uint64 {
	n := uint64(1)
	if len(k.Raw) > 0 && k.Raw[0] > 0 && k.Raw[0] < 0x80 {
		n = uint64(k.Raw[0]) // the compact-u16 signature count, below 128
	}
	return n * executor.LamportsPerSignature
}

// mints are every mint the bytes move, out or in, sorted.
func (k *OutsideProposal) mints() []solana.PublicKey {
	set := map[solana.PublicKey]uint64{}
	for m, v := range k.Effects.TokensOut {
		set[m] += v
	}
	for m, v := range k.Effects.TokensIn {
		set[m] += v
	}
	return sortedKeys(set)
}

func sortedKeys(m map[solana.PublicKey]uint64) []solana.PublicKey {
	out := make([]solana.PublicKey, 0, len(m))
	for k, v := range m {
		if v > 0 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// outsideRefusal maps the executor's answers to a denial (the bytes are not
// something solgate signs: an ordinary tool result with its reason) or a
// tool error (the console could not judge them).
func outsideRefusal(err error) error {
	var simErr *executor.SimulationError
	switch {
	case errors.Is(err, executor.ErrBadTransaction):
		return errors.New("transaction: " + err.Error() + " (nothing was proposed, signed or sent)")
	case errors.Is(err, executor.ErrProgramNotAllowed):
		// The policy's own rule: the executor judged by the policy's list.
		return writekind.Refuse(policy.RuleProgram, err.Error())
	case errors.Is(err, executor.ErrUnsafeTransaction):
		return writekind.Refuse("transaction", err.Error())
	case errors.Is(err, executor.ErrOutsideExpired):
		return writekind.Refuse("transaction_expired", err.Error())
	case errors.Is(err, executor.ErrWorseThanApproved), errors.Is(err, executor.ErrComputeOverApproved), errors.Is(err, executor.ErrPriorityFeeOverApproved):
		return writekind.Refuse("worse_than_approved", err.Error())
	case errors.As(err, &simErr):
		return writekind.Refuse("simulation", "the transaction would fail: "+simErr.Error())
	}
	return errors.New("could not judge the transaction (nothing was proposed, signed or sent): " + err.Error())
}

// Prepare checks and measures the bytes, then labels every mint they move.
func (k *OutsideProposal) Prepare(ctx context.Context, env writekind.Env) (executor.Preview, error) {
	p, err := env.Executor().PrepareOutside(ctx, k.Raw, outsideRules(env), k.Told)
	if err != nil {
		return executor.Preview{}, outsideRefusal(err)
	}
	k.take(p)
	k.Approval = p.Approval()
	if err := k.labelMints(ctx, env); err != nil {
		return executor.Preview{}, err
	}
	return p.Preview(), nil
}

// outsideRules are the policy's program allowlist (its defaults and the
// operator's --allow-program), with their labels, as the executor judges.
func outsideRules(env writekind.Env) executor.OutsideRules {
	r := executor.OutsideRules{AllowPrograms: map[solana.PublicKey]string{}}
	for id, label := range env.Policy().AllowedPrograms {
		if pk, err := solana.PublicKeyFromBase58(id); err == nil {
			r.AllowPrograms[pk] = label
		}
	}
	return r
}

// uncappedText names the uncapped mints out.
func (k *OutsideProposal) uncappedText() string {
	if k.Uncapped == "" {
		return "mint not named"
	}
	return k.Uncapped
}

// take records what p measured.
func (k *OutsideProposal) take(p *executor.PreparedOutside) {
	k.Effects, k.Programs, k.InnerPrograms = p.Effects, p.Programs, p.InnerPrograms
	k.Signers, k.Cosigners, k.WalletOnly, k.OwnBudget = p.Signers, p.Cosigners, p.WalletOnly, p.OwnBudget
	k.Budget, k.LastValid, k.Binding = p.Budget, p.LastValidBlockHeight, p.Binding
}

func (k *OutsideProposal) labelMints(ctx context.Context, env writekind.Env) error {
	if k.Tokens == nil {
		k.Tokens = map[solana.PublicKey]writekind.TokenLabel{}
	}
	for _, m := range k.mints() {
		if _, ok := k.Tokens[m]; ok {
			continue
		}
		l, err := env.Label(ctx, m)
		switch {
		case err == nil:
			k.Tokens[m] = l
		case k.Effects.TokensOut[m] == 0 && slices.Contains(k.Effects.Created, m):
			// A mint the transaction itself creates (a launch): nothing of it
			// leaves, and it cannot be read before it exists. Shown by
			// address and base units.
		default:
			return errors.New("could not read mint " + m.String() + " that the transaction moves (nothing was proposed, signed or sent): " + err.Error())
		}
	}
	return nil
}

// Admit records "no cap applies" and returns the proposal's warnings: the
// label and every origin line are someone else's words, a token's metadata
// too, and a program the operator admitted is still one whose instructions
// solgate does not decode (its effects are what was judged).
func (k *OutsideProposal) Admit(d policy.Decision) []approval.Flag {
	k.NoCapApplies, k.Uncapped = d.NoCapApplies, d.UncappedMints
	var flags []approval.Flag
	for _, line := range k.Told.Untrusted {
		for _, f := range untrusted.Flags(line) {
			flags = append(flags, approval.Flag{Kind: approval.FlagInstructionLike, Text: fmt.Sprintf("text that came with the transaction contains instruction-like words (%q); it is not what the transaction does: read the effects", f)})
		}
	}
	for _, m := range k.mints() {
		l, ok := k.Tokens[m]
		if !ok {
			continue
		}
		for _, f := range l.Flags {
			flags = append(flags, approval.Flag{Kind: approval.FlagInstructionLike, Text: fmt.Sprintf("token metadata contains instruction-like text (%q); treat its name as untrusted", f)})
		}
		for _, w := range l.Warnings {
			flags = append(flags, approval.Flag{Kind: approval.FlagKind(w.Kind), Text: w.Text})
		}
	}
	defaults := policy.DefaultPrograms()
	for _, p := range k.Programs {
		if _, ok := defaults[p.ID.String()]; !ok {
			flags = append(flags, approval.Flag{Kind: FlagAdmittedProgram, Short: "program!", Text: fmt.Sprintf("calls %s, admitted by --allow-program: solgate does not decode its instructions; what it does to the wallet is the simulated effects shown", programList([]executor.OutsideProgram{p}))})
		}
	}
	if k.NoCapApplies {
		flags = append(flags, approval.Flag{Kind: approval.FlagNoCap, Text: "no cap applies: a token leaving the wallet has no per-mint cap (" + k.uncappedText() + ")"})
	}
	return flags
}

// PrepareApproved measures the same bytes again, held to the approval:
// the same message (apart from a refreshed blockhash when only the wallet
// signs), effects no worse than approved.
func (k *OutsideProposal) PrepareApproved(ctx context.Context, env writekind.Env, _ string) (*writekind.Execution, error) {
	p, err := env.Executor().PrepareApprovedOutside(ctx, k.Raw, outsideRules(env), k.Told, k.Approval)
	if err != nil {
		var r *writekind.Refusal
		if errors.As(outsideRefusal(err), &r) {
			return nil, errors.New(r.Decision.Reason)
		}
		return nil, err
	}
	fresh := k.Clone().(*OutsideProposal)
	fresh.take(p)
	ex := env.Executor()
	return &writekind.Execution{Kind: fresh, LastValid: p.LastValidBlockHeight,
		Send: func(ctx context.Context, persist func(solana.Signature) error, progress func(executor.Progress)) (*executor.Result, error) {
			p.BeforeSend = persist
			return ex.SubmitOutside(ctx, p, progress)
		}}, nil
}

// CheckLanded: the executor compared the landed effects with the approved
// ones (an excess is "executed with unexpected effects"); the kind keeps
// them.
func (k *OutsideProposal) CheckLanded(_ context.Context, _ writekind.Env, res *executor.Result) {
	if res.Effects != nil {
		eff := *res.Effects
		k.Landed = &eff
	}
}

// Grant: never. A transaction the agent brought has effects of its own
// each time; no standing grant can say in advance what they may be.
func (k *OutsideProposal) Grant() writekind.GrantRule {
	return writekind.NeverGranted("a transaction the agent brought has effects of its own each time")
}

// ---- lines ----

// flows lists what leaves ("out") or arrives ("in") per asset: SOL first
// (wrapped SOL counted as SOL, fees and rent included), then each mint.
func (k *OutsideProposal) flows(out bool) []string {
	e := k.Effects
	var parts []string
	sol := e.SOLIn()
	if out {
		sol = e.SOLOut()
	}
	if sol > 0 {
		parts = append(parts, executor.FormatSOL(sol)+" SOL")
	}
	tokens := e.TokensIn
	if out {
		tokens = e.TokensOut
	}
	for _, m := range sortedKeys(tokens) {
		l, ok := k.Tokens[m]
		if !ok || l.Mint != m.String() {
			parts = append(parts, fmt.Sprintf("%d base units of mint %s, which this transaction creates", tokens[m], m))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (%d base units of mint %s)", l.Amount(tokens[m]), l, tokens[m], m))
	}
	if len(parts) == 0 {
		return []string{"nothing"}
	}
	return parts
}

func programList(ps []executor.OutsideProgram) string {
	if len(ps) == 0 {
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		if p.Label != "" && p.Label != p.ID.String() {
			s[i] = fmt.Sprintf("%s (%s)", p.Label, p.ID)
		} else {
			s[i] = p.ID.String()
		}
	}
	return strings.Join(s, ", ")
}

func (k *OutsideProposal) signersText() string {
	if len(k.Signers) == 0 {
		return "not measured yet"
	}
	s := "the wallet " + k.Signers[0].String() + " (solgate adds its signature, nothing else)"
	if len(k.Cosigners) > 0 {
		co := make([]string, len(k.Cosigners))
		for i, c := range k.Cosigners {
			co[i] = c.String()
		}
		s += "; already signed by " + strings.Join(co, ", ")
	}
	return s
}

func (k *OutsideProposal) expiryText() string {
	if k.WalletOnly {
		return "only the wallet signs: solgate moves the blockhash forward at execution"
	}
	return fmt.Sprintf("signed by others on a fixed blockhash: it expires by block height %d, and is refused after", k.LastValid)
}

func (k *OutsideProposal) feeText() string {
	e := k.Effects
	s := fmt.Sprintf("network %s + priority %s SOL", executor.FormatSOL(e.NetworkFee), executor.FormatSOL(e.PriorityFee))
	switch {
	case k.OwnBudget:
		s += fmt.Sprintf(" (no compute budget in the transaction: solgate's fee policy, %d CU limit, %s)", k.Budget.UnitLimit, k.Budget.Source)
	case k.Budget.UnitPrice > 0:
		s += fmt.Sprintf(" (the transaction's own price: %d micro-lamports × %d CU)", k.Budget.UnitPrice, k.Budget.UnitLimit)
	}
	return s
}

func (k *OutsideProposal) rentText() string {
	e := k.Effects
	return fmt.Sprintf("paid %s SOL, refunded %s SOL; %d accounts created, %d closed", executor.FormatSOL(e.RentPaid), executor.FormatSOL(e.RentRefunded), len(e.Created), len(e.Closed))
}

// saidLines are the untrusted words that came with the bytes, sanitised.
func (k *OutsideProposal) saidLines() []string {
	var out []string
	if k.Told.Origin != "" {
		out = append(out, "From: "+untrusted.Sanitize(k.Told.Origin, labelRunes))
	}
	for _, l := range k.Told.Untrusted {
		out = append(out, fmt.Sprintf("Said (untrusted, never checked): %q", untrusted.Sanitize(l, labelRunes)))
	}
	return out
}

func (k *OutsideProposal) Action() string {
	return fmt.Sprintf("sign a transaction built elsewhere: out %s; in %s; programs %s", strings.Join(k.flows(true), ", "), strings.Join(k.flows(false), ", "), programList(k.Programs))
}

// Amount is the queue's short column: the SOL out, and how many tokens
// leave besides.
func (k *OutsideProposal) Amount() string {
	s := executor.FormatSOL(k.Effects.SOLOut()) + " SOL"
	if n := len(sortedKeys(k.Effects.TokensOut)); n > 0 {
		s += fmt.Sprintf(" +%d token", n)
	}
	return s
}

func (k *OutsideProposal) PreviewLines(p *writekind.Proposal) []string {
	lines := []string{"Action: sign a transaction built elsewhere; judged by what its exact bytes do in simulation, not by anyone's description"}
	lines = append(lines, k.saidLines()...)
	lines = append(lines,
		"Leaves the wallet: "+strings.Join(k.flows(true), "; ")+" (SOL with wrapped SOL, fees and rent included, and what the wallet controls: nonce accounts it is authority of, lamports above rent, multisig and delegated accounts, new supply of its mints; refunds in never net it; counted against the caps)",
		"Arrives: "+strings.Join(k.flows(false), "; "),
		"Fees: "+k.feeText(),
		"Rent: "+k.rentText(),
		"Programs: "+programList(k.Programs),
		"Called inside: "+programList(k.InnerPrograms),
		"Signers: "+k.signersText(),
		"Expiry: "+k.expiryText())
	if k.NoCapApplies {
		lines = append(lines, "Token spend: NO CAP APPLIES — a token leaving the wallet has no per-mint cap ("+k.uncappedText()+"); admitted by --allow-uncapped-token-transfers")
	}
	return append(lines, "Binding: the approval binds this message (apart from its blockhash) and these effects: at execution anything worse is refused")
}

func (k *OutsideProposal) Structured(p *writekind.Proposal, st map[string]any) {
	e := k.Effects
	st["sol_out_lamports"], st["sol_in_lamports"] = fmt.Sprint(e.SOLOut()), fmt.Sprint(e.SOLIn())
	st["fee_lamports"], st["priority_fee_lamports"] = fmt.Sprint(e.NetworkFee), fmt.Sprint(e.PriorityFee)
	st["rent_paid_lamports"], st["rent_refunded_lamports"] = fmt.Sprint(e.RentPaid), fmt.Sprint(e.RentRefunded)
	tokens := func(m map[solana.PublicKey]uint64) map[string]string {
		out := map[string]string{}
		for _, mint := range sortedKeys(m) {
			out[mint.String()] = fmt.Sprint(m[mint])
		}
		return out
	}
	st["tokens_out"], st["tokens_in"] = tokens(e.TokensOut), tokens(e.TokensIn)
	ids := func(ps []executor.OutsideProgram) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.ID.String()
		}
		return out
	}
	st["programs"], st["inner_programs"] = ids(k.Programs), ids(k.InnerPrograms)
	keys := func(ks []solana.PublicKey) []string {
		out := make([]string, len(ks))
		for i, x := range ks {
			out[i] = x.String()
		}
		return out
	}
	st["signers"], st["cosigners"] = keys(k.Signers), keys(k.Cosigners)
	st["blockhash_refreshed"], st["no_cap_applies"] = k.WalletOnly, k.NoCapApplies
	if !k.WalletOnly {
		st["last_valid_block_height"] = k.LastValid
	}
}

// Detail is the console's effects view: what leaves and arrives per asset,
// the fees, the rent, the programs (inside ones too) with their labels, the
// signers and the expiry, then what others said, marked untrusted.
func (k *OutsideProposal) Detail(p *writekind.Proposal) []approval.DetailLine {
	out := []approval.DetailLine{{Label: "Action", Value: "sign a transaction built elsewhere (judged by its effects)"}}
	for _, f := range k.flows(true) {
		out = append(out, approval.DetailLine{Label: "Out", Value: f})
	}
	for _, f := range k.flows(false) {
		out = append(out, approval.DetailLine{Label: "In", Value: f})
	}
	out = append(out,
		approval.DetailLine{Label: "Fees", Value: k.feeText()},
		approval.DetailLine{Label: "Rent", Value: k.rentText()},
		approval.DetailLine{Label: "Programs", Value: programList(k.Programs)},
		approval.DetailLine{Label: "Inside", Value: programList(k.InnerPrograms)},
		approval.DetailLine{Label: "Signers", Value: k.signersText()},
		approval.DetailLine{Label: "Expiry", Value: k.expiryText(), Warn: !k.WalletOnly})
	if k.NoCapApplies {
		out = append([]approval.DetailLine{{Label: "NO CAP", Value: "NO CAP APPLIES to a token leaving the wallet", Warn: true, Role: approval.LineBanner}}, out...)
	}
	if k.Told.Origin != "" {
		out = append(out, approval.DetailLine{Label: "From", Value: untrusted.Sanitize(k.Told.Origin, labelRunes)})
	}
	for _, l := range k.Told.Untrusted {
		out = append(out, approval.DetailLine{Label: "Says", Value: fmt.Sprintf("%q (untrusted, never checked)", untrusted.Sanitize(l, labelRunes)), Warn: true})
	}
	out = append(out, writekind.InstructionLines(p.Preview.Instructions)...)
	return append(out, approval.DetailLine{Label: "SHA-256", Value: p.Preview.MessageSHA256})
}

func (k *OutsideProposal) Executed(p *writekind.Proposal, st map[string]any) string {
	shown := k
	if k.Landed != nil {
		// What landed, measured from the transaction's own meta.
		c := *k
		c.Effects = *k.Landed
		shown = &c
	}
	e := shown.Effects
	st["sol_out_lamports"], st["sol_in_lamports"] = fmt.Sprint(e.SOLOut()), fmt.Sprint(e.SOLIn())
	return fmt.Sprintf("EXECUTED and verified on chain: the landed effects fit the approved ones (out %s; in %s). Signature %s, slot %d, fee %d lamports.",
		strings.Join(shown.flows(true), ", "), strings.Join(shown.flows(false), ", "), p.Signature, p.Result.Slot, p.Result.Fee)
}
