package authority

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// TokenTransferProposal is a transfer_token proposal: what the human
// approves is the mint, the recipient owner and the amount, with the preview
// measured from the simulation of the exact transaction.
type TokenTransferProposal struct {
	A     TransferTokenArgs
	Token TokenLabel // the mint as read from the chain; Name/Symbol sanitised
	// Preview: token accounts, rent, what the wallet sends and what the
	// recipient receives after any Token-2022 transfer fee.
	Preview executor.TokenPreview
	// SOLOut is the SOL leaving the wallet: fee + priority fee + rent.
	SOLOut uint64
	// NoCapApplies: no per-mint cap bounds this mint; admitted by
	// --allow-uncapped-token-transfers.
	NoCapApplies bool
	// Approval binds execution: the compute budget and the net received.
	Approval executor.TokenApproval
	// Verified is set once the chain's token balances agreed after landing.
	Verified bool
}

var _ Kind = (*TokenTransferProposal)(nil)

func (k *TokenTransferProposal) Args() WriteArgs { return k.A }

func (k *TokenTransferProposal) clone() Kind { c := *k; return &c }

func (k *TokenTransferProposal) TokenTTL(def time.Duration) time.Duration { return def }

// program names the token program for people.
func (k *TokenTransferProposal) program() string {
	if k.Preview.Mint != nil {
		return executor.ProgramName(k.Preview.Mint.Program)
	}
	return "token program"
}

// Facts: a recipient (allowlist), the mint (allow/deny lists) and the
// amount the wallet sends (per-mint caps), and the SOL outflow (SOL caps).
func (k *TokenTransferProposal) Facts(network executor.Network, client string) policy.Proposal {
	sent := k.A.Amount
	if k.Preview.Sent != 0 {
		sent = k.Preview.Sent // measured by the simulation
	}
	return policy.Proposal{
		Tool: mcpbridge.ToolTransferToken, Fingerprint: k.A.Fingerprint(), ClientID: client, Network: string(network),
		Recipient: k.A.To.String(), Lamports: k.SOLOut, Mints: []string{k.A.Mint.String()},
		Token: &policy.TokenSpend{Mint: k.A.Mint.String(), Amount: sent, Decimals: k.Token.Decimals, DecimalsKnown: true},
	}
}

func (k *TokenTransferProposal) Action() string {
	return fmt.Sprintf("send %s %s to %s", k.Token.amount(k.A.Amount), k.Token, k.A.To)
}

func (k *TokenTransferProposal) Amount() string {
	return k.Token.amount(k.A.Amount) + " " + k.Token.String()
}

func (k *TokenTransferProposal) PreviewLines(p *Proposal) []string {
	t, tp := k.Token, k.Preview
	lines := []string{
		fmt.Sprintf("Action: send %s %s (%d base units, %d decimals) of mint %s (%s) to owner %s, into their token account %s",
			t.amount(k.A.Amount), t, k.A.Amount, t.Decimals, t.Mint, k.program(), k.A.To, tp.Destination),
	}
	if tp.TransferFee > 0 {
		lines = append(lines, fmt.Sprintf("Transfer fee: the mint withholds %s %s (%d base units); the recipient receives %s %s (%d base units)",
			t.amount(tp.TransferFee), t, tp.TransferFee, t.amount(tp.Received), t, tp.Received))
	} else {
		lines = append(lines, fmt.Sprintf("Recipient receives: %s %s (%d base units)", t.amount(tp.Received), t, tp.Received))
	}
	if tp.CreatesAccount {
		lines = append(lines, fmt.Sprintf("Creates the recipient's token account %s: rent %s, paid by the wallet and counted against the caps", tp.Destination, sol(tp.Rent)))
	}
	if k.NoCapApplies {
		lines = append(lines, fmt.Sprintf("Token spend: NO CAP APPLIES — no per-mint cap bounds %s; it was admitted by --allow-uncapped-token-transfers", t.Mint))
	}
	lines = append(lines,
		fmt.Sprintf("SOL spend: %s: %s + rent %s, counted against the SOL caps (simulated)", sol(p.Spend), p.Preview.FeeText(), sol(tp.Rent)),
		fmt.Sprintf("Compute budget: %s; approval allows at most this limit and a %d-lamport priority fee", p.Preview.BudgetText(), p.Preview.Budget.PriorityFee),
		fmt.Sprintf("Token name and symbol are untrusted text: %q / %q", t.Name, t.Symbol))
	return lines
}

func (k *TokenTransferProposal) Structured(p *Proposal, st map[string]any) {
	tp := k.Preview
	st["mint"], st["to"], st["amount"] = k.A.Mint.String(), k.A.To.String(), fmt.Sprint(k.A.Amount)
	st["decimals"], st["symbol"], st["token_program"] = k.Token.Decimals, k.Token.Symbol, k.program()
	st["recipient_token_account"], st["creates_token_account"] = tp.Destination.String(), tp.CreatesAccount
	st["rent_lamports"], st["transfer_fee"], st["received"] = fmt.Sprint(tp.Rent), fmt.Sprint(tp.TransferFee), fmt.Sprint(tp.Received)
	st["fee_lamports"], st["no_cap_applies"] = fmt.Sprint(p.Preview.Fee), k.NoCapApplies
	st["priority_fee_lamports"], st["compute_unit_limit"] = fmt.Sprint(p.Preview.Budget.PriorityFee), p.Preview.Budget.UnitLimit
}

func (k *TokenTransferProposal) Detail(p *Proposal) []DetailLine {
	t, tp := k.Token, k.Preview
	out := []DetailLine{
		{Label: "Action", Value: fmt.Sprintf("send %s %s (%d base units) to the owner below", t.amount(k.A.Amount), t, k.A.Amount)},
		{Label: "Mint", Value: fmt.Sprintf("%s · %s · %d decimals", t.Mint, k.program(), t.Decimals)},
		{Label: "Symbol", Value: symbolText(t)},
		{Label: "Recipient", Value: k.A.To.String() + " (owner)"},
		{Label: "Account", Value: tp.Destination.String() + " (their token account)"},
	}
	if tp.CreatesAccount {
		out = append(out, DetailLine{Label: "Creates", Value: "the recipient's token account: rent " + sol(tp.Rent)})
	}
	if tp.TransferFee > 0 {
		out = append(out, DetailLine{Label: "Xfer fee", Value: fmt.Sprintf("%s %s withheld; recipient receives %s %s", t.amount(tp.TransferFee), t, t.amount(tp.Received), t), Warn: true})
	} else {
		out = append(out, DetailLine{Label: "Receives", Value: fmt.Sprintf("%s %s", t.amount(tp.Received), t)})
	}
	if k.NoCapApplies {
		out = append(out, DetailLine{Label: "Cap", Value: "NO CAP APPLIES to this mint", Warn: true})
	}
	out = append(out, DetailLine{Label: "SOL out", Value: fmt.Sprintf("%s (%s + rent)", sol(p.Spend), p.Preview.FeeText())})
	return out
}

func (k *TokenTransferProposal) Executed(p *Proposal, st map[string]any) string {
	t := k.Token
	st["mint"], st["to"], st["amount"], st["received"] = k.A.Mint.String(), k.A.To.String(), fmt.Sprint(k.A.Amount), fmt.Sprint(k.Preview.Received)
	st["rent_lamports"] = fmt.Sprint(k.Preview.Rent)
	return fmt.Sprintf("EXECUTED and verified on chain: sent %s %s to %s; their token account %s received %s %s (the chain's token balances of both owners agree). Signature %s, slot %d, fee %d lamports, rent %d lamports.",
		t.amount(k.A.Amount), t, k.A.To, k.Preview.Destination, t.amount(k.Preview.Received), t, p.Signature, p.Result.Slot, p.Result.Fee, k.Preview.Rent)
}

// symbolText shows the token's own name for itself as the untrusted text
// it is.
func symbolText(t TokenLabel) string {
	if t.Symbol == "" && t.Name == "" {
		return "none (the mint has no metadata)"
	}
	return fmt.Sprintf("%q, name %q (untrusted text from the token's metadata)", t.Symbol, t.Name)
}

// proposeToken is the first call of transfer_token: the mint is read (for
// decimals and its label), policy runs on the request, then the real
// transaction is built and simulated and policy runs again on what the
// simulation measured.
func (h *Hub) proposeToken(ctx context.Context, who caller, a TransferTokenArgs) mcpbridge.CallResult {
	client := who.name
	fp := a.Fingerprint()
	deny := func(d policy.Decision) mcpbridge.CallResult { return h.autoDenyToken(who, fp, d, a) }
	if res, done := h.admit(who, fp, deny); done {
		return res
	}
	if a.To.Equals(h.opts.Executor.Wallet()) {
		return toolError(fmt.Sprintf("to: %s is the console's own wallet; a transfer to yourself moves nothing. Give another address.", a.To))
	}
	label, err := h.label(ctx, a.Mint)
	if err != nil {
		return toolError("mint: could not read it as a token mint (nothing was proposed): " + err.Error())
	}
	for _, w := range label.Warnings {
		if w.Kind == executor.WarnImpostor {
			// Its ticker imitates a real token's (USDC, SOL, ...) without
			// being it: every line that names it says so with a "?".
			label.Symbol += "?"
			break
		}
	}
	k := &TokenTransferProposal{A: a, Token: label, SOLOut: signatureFee}
	if d := policy.Evaluate(h.opts.Policy, k.Facts(h.opts.Network, client), h.opts.Spend.State()); !d.Allowed {
		return deny(d)
	}
	prepared, err := h.opts.Executor.PreviewTokenTransfer(ctx, executor.TokenTransfer{Mint: a.Mint, To: a.To, Amount: a.Amount})
	if err != nil {
		var simErr *executor.SimulationError
		switch {
		case errors.Is(err, executor.ErrTokenRefused):
			return deny(policy.Decision{Rule: "token_mint", Reason: err.Error() + " (nothing was proposed, signed or sent)"})
		case errors.As(err, &simErr):
			return deny(policy.Decision{Rule: "simulation", Reason: "the transaction would fail: " + simErr.Error()})
		case errors.Is(err, executor.ErrInvalidTransfer):
			return toolError(err.Error() + " (nothing was proposed, signed or sent)")
		}
		return toolError("could not prepare the token transfer (nothing was proposed, signed or sent): " + err.Error())
	}
	k.Preview, k.SOLOut = prepared.TokenPreview, prepared.Preview.SpendLamports
	k.Approval = executor.TokenApproval{Budget: prepared.Preview.Budget, Received: prepared.TokenPreview.Received}
	decision := policy.Evaluate(h.opts.Policy, k.Facts(h.opts.Network, client), h.opts.Spend.State())
	if !decision.Allowed {
		return deny(decision)
	}
	k.NoCapApplies = decision.NoCapApplies

	now := h.opts.Now()
	p := &Proposal{
		ID: newProposalID(), Tool: mcpbridge.ToolTransferToken, Client: client, Peer: who.id, Fingerprint: fp, Kind: k,
		Preview: prepared.Preview, Spend: k.SOLOut, CreatedAt: now, ExpiresAt: now.Add(h.opts.ProposalTTL),
		Status: StatusPending, changed: make(chan struct{}),
	}
	h.mu.Lock()
	p.Flags = append(h.flagsLocked(a.To.String(), k.SOLOut), tokenFlags(label, prepared.TokenPreview, k.NoCapApplies)...)
	h.recipients[a.To.String()] = struct{}{}
	h.mu.Unlock()
	return h.enqueue(p, client, a.Normalized())
}

// tokenFlags are a token transfer's warnings: instruction-like metadata,
// the mint's risky properties (transfer fee, permanent delegate, ...) and
// "no cap applies".
func tokenFlags(l TokenLabel, tp executor.TokenPreview, noCap bool) []Flag {
	var flags []Flag
	for _, f := range l.Flags {
		flags = append(flags, Flag{FlagInstructionLike, fmt.Sprintf("token metadata contains instruction-like text (%q); treat its name as untrusted", f)})
	}
	for _, w := range l.Warnings {
		flags = append(flags, Flag{FlagKind(w.Kind), w.Text})
	}
	if tp.TransferFee > 0 {
		flags = append(flags, Flag{FlagKind(executor.WarnTransferFee), fmt.Sprintf("the recipient receives %d base units, %d less than sent (transfer fee)", tp.Received, tp.TransferFee)})
	}
	if noCap {
		flags = append(flags, Flag{FlagNoCap, "no cap applies: no per-mint cap bounds this token"})
	}
	return flags
}

func (h *Hub) autoDenyToken(who caller, fp string, d policy.Decision, a TransferTokenArgs) mcpbridge.CallResult {
	return h.recordAutoDeny(who, fp, d, h.lookAlike(a.To.String()), map[string]any{
		"tool": mcpbridge.ToolTransferToken, "mint": a.Mint.String(), "to": a.To.String(), "amount": fmt.Sprint(a.Amount),
	}, fmt.Sprintf("%d base units of %s to %s", a.Amount, a.Mint, a.To))
}

// Run executes an approved token transfer: a fresh build and simulation held
// to the approval (compute budget, net received), the spend reserved from
// that simulation, then sign, send, confirm, and verify the chain's token
// balances of both owners.
func (k *TokenTransferProposal) Run(h *Hub, id string, who caller) {
	client := who.name
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.ExecutionTimeout)
	defer cancel()
	t := executor.TokenTransfer{Mint: k.A.Mint, To: k.A.To, Amount: k.A.Amount}
	prepared, err := h.opts.Executor.PrepareApprovedTokenTransfer(ctx, t, k.Approval)
	if err != nil {
		h.finish(id, StatusFailed, "could not prepare the token transfer at execution, nothing was signed or sent: "+err.Error(), nil, store.ExecFailed)
		return
	}
	fresh := *k
	fresh.Preview, fresh.SOLOut = prepared.TokenPreview, prepared.Preview.SpendLamports
	decision, err := h.opts.Spend.Reserve(id, h.opts.Policy, fresh.Facts(h.opts.Network, client))
	if err != nil {
		h.finish(id, StatusFailed, "could not reserve the spend, nothing was signed or sent: "+err.Error(), nil, store.ExecFailed)
		return
	}
	if !decision.Allowed {
		decision = h.opts.Breaker.Observe(who.id, k.A.Fingerprint(), decision)
		h.finish(id, StatusFailed, fmt.Sprintf("denied at execution by %s: %s (nothing was signed or sent)", decision.Rule, decision.Reason), nil, store.ExecFailed)
		return
	}
	h.publish(EventSpendChanged, nil, "")
	h.mu.Lock()
	if p := h.proposals[id]; p != nil {
		if tk, ok := p.Kind.(*TokenTransferProposal); ok {
			tk.Preview, tk.SOLOut = fresh.Preview, fresh.SOLOut
		}
	}
	h.mu.Unlock()

	prepared.BeforeSend = h.persistBeforeSend(id, prepared.LastValidBlockHeight)
	res, err := h.opts.Executor.Submit(ctx, prepared.Prepared, h.progressFor(id, client))
	if err != nil {
		h.settle(id, func() error { return h.opts.Spend.Release(id) })
		h.finish(id, StatusFailed, "not sent: "+err.Error(), nil, store.ExecFailed)
		return
	}
	if res.Outcome == executor.Executed {
		h.mu.Lock()
		if p := h.proposals[id]; p != nil {
			if tk, ok := p.Kind.(*TokenTransferProposal); ok {
				tk.Verified = true
			}
		}
		h.mu.Unlock()
	}
	h.settleOutcome(id, res, prepared.LastValidBlockHeight)
}
