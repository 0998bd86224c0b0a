package kinds

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// TokenTransferProposal is a transfer_token proposal: what the human
// approves is the mint, the recipient owner and the amount, with the preview
// measured from the simulation of the exact transaction.
type TokenTransferProposal struct {
	A     TransferTokenArgs
	Token writekind.TokenLabel // the mint as read from the chain; Name/Symbol sanitised
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

var _ writekind.Kind = (*TokenTransferProposal)(nil)

func (k *TokenTransferProposal) Args() args.WriteArgs { return k.A }

func (k *TokenTransferProposal) Clone() writekind.Kind { c := *k; return &c }

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
		Tool: wire.ToolTransferToken, Fingerprint: k.A.Fingerprint(), ClientID: client, Network: string(network),
		Counterparties: []policy.Counterparty{policy.Recipient(k.A.To.String())}, Lamports: k.SOLOut, Mints: []string{k.A.Mint.String()},
		Tokens: []policy.TokenSpend{{Mint: k.A.Mint.String(), Amount: sent, Decimals: k.Token.Decimals, DecimalsKnown: true}},
	}
}

func (k *TokenTransferProposal) Action() string {
	return fmt.Sprintf("send %s %s to %s", k.Token.Amount(k.A.Amount), k.Token, k.A.To)
}

func (k *TokenTransferProposal) Amount() string {
	return k.Token.Amount(k.A.Amount) + " " + k.Token.String()
}

func (k *TokenTransferProposal) PreviewLines(p *writekind.Proposal) []string {
	t, tp := k.Token, k.Preview
	lines := []string{
		fmt.Sprintf("Action: send %s %s (%d base units, %d decimals) of mint %s (%s) to owner %s, into their token account %s",
			t.Amount(k.A.Amount), t, k.A.Amount, t.Decimals, t.Mint, k.program(), k.A.To, tp.Destination),
	}
	if tp.TransferFee > 0 {
		lines = append(lines, fmt.Sprintf("Transfer fee: the mint withholds %s %s (%d base units); the recipient receives %s %s (%d base units)",
			t.Amount(tp.TransferFee), t, tp.TransferFee, t.Amount(tp.Received), t, tp.Received))
	} else {
		lines = append(lines, fmt.Sprintf("Recipient receives: %s %s (%d base units)", t.Amount(tp.Received), t, tp.Received))
	}
	if tp.CreatesAccount {
		lines = append(lines, fmt.Sprintf("Creates the recipient's token account %s: rent %s, paid by the wallet and counted against the caps", tp.Destination, writekind.SOL(tp.Rent)))
	}
	if k.NoCapApplies {
		lines = append(lines, fmt.Sprintf("Token spend: NO CAP APPLIES — no per-mint cap bounds %s; it was admitted by --allow-uncapped-token-transfers", t.Mint))
	}
	lines = append(lines,
		fmt.Sprintf("SOL spend: %s: %s + rent %s, counted against the SOL caps (simulated)", writekind.SOL(p.Spend), p.Preview.FeeText(), writekind.SOL(tp.Rent)),
		fmt.Sprintf("Compute budget: %s; approval allows at most this limit and a %d-lamport priority fee", p.Preview.BudgetText(), p.Preview.Budget.PriorityFee),
		fmt.Sprintf("Token name and symbol are untrusted text: %q / %q", t.Name, t.Symbol))
	return lines
}

func (k *TokenTransferProposal) Structured(p *writekind.Proposal, st map[string]any) {
	tp := k.Preview
	st["mint"], st["to"], st["amount"] = k.A.Mint.String(), k.A.To.String(), fmt.Sprint(k.A.Amount)
	st["decimals"], st["symbol"], st["token_program"] = k.Token.Decimals, k.Token.Symbol, k.program()
	st["recipient_token_account"], st["creates_token_account"] = tp.Destination.String(), tp.CreatesAccount
	st["rent_lamports"], st["transfer_fee"], st["received"] = fmt.Sprint(tp.Rent), fmt.Sprint(tp.TransferFee), fmt.Sprint(tp.Received)
	st["fee_lamports"], st["no_cap_applies"] = fmt.Sprint(p.Preview.Fee), k.NoCapApplies
	st["priority_fee_lamports"], st["compute_unit_limit"] = fmt.Sprint(p.Preview.Budget.PriorityFee), p.Preview.Budget.UnitLimit
}

func (k *TokenTransferProposal) Detail(p *writekind.Proposal) []approval.DetailLine {
	t, tp := k.Token, k.Preview
	out := []approval.DetailLine{
		{Label: "Action", Value: fmt.Sprintf("send %s %s (%d base units) to the owner below", t.Amount(k.A.Amount), t, k.A.Amount)},
		{Label: "Mint", Value: fmt.Sprintf("%s · %s · %d decimals", t.Mint, k.program(), t.Decimals)},
		{Label: "Symbol", Value: t.SymbolText()},
		{Label: "Recipient", Value: k.A.To.String() + " (owner)"},
		{Label: "Account", Value: tp.Destination.String() + " (their token account)"},
	}
	if tp.CreatesAccount {
		out = append(out, approval.DetailLine{Label: "Creates", Value: "the recipient's token account: rent " + writekind.SOL(tp.Rent)})
	}
	if tp.TransferFee > 0 {
		out = append(out, approval.DetailLine{Label: "Xfer fee", Value: fmt.Sprintf("%s %s withheld; recipient receives %s %s", t.Amount(tp.TransferFee), t, t.Amount(tp.Received), t), Warn: true})
	} else {
		out = append(out, approval.DetailLine{Label: "Receives", Value: fmt.Sprintf("%s %s", t.Amount(tp.Received), t)})
	}
	if k.NoCapApplies {
		out = append(out, approval.DetailLine{Label: "Cap", Value: "NO CAP APPLIES to this mint", Warn: true})
	}
	out = append(out, approval.DetailLine{Label: "SOL out", Value: fmt.Sprintf("%s (%s + rent)", writekind.SOL(p.Spend), p.Preview.FeeText())})
	out = append(out, writekind.InstructionLines(p.Preview.Instructions)...)
	return append(out, approval.DetailLine{Label: "SHA-256", Value: p.Preview.MessageSHA256})
}

func (k *TokenTransferProposal) Executed(p *writekind.Proposal, st map[string]any) string {
	t := k.Token
	st["mint"], st["to"], st["amount"], st["received"] = k.A.Mint.String(), k.A.To.String(), fmt.Sprint(k.A.Amount), fmt.Sprint(k.Preview.Received)
	st["rent_lamports"] = fmt.Sprint(k.Preview.Rent)
	return fmt.Sprintf("EXECUTED and verified on chain: sent %s %s to %s; their token account %s received %s %s (the chain's token balances of both owners agree). Signature %s, slot %d, fee %d lamports, rent %d lamports.",
		t.Amount(k.A.Amount), t, k.A.To, k.Preview.Destination, t.Amount(k.Preview.Received), t, p.Signature, p.Result.Slot, p.Result.Fee, k.Preview.Rent)
}

func init() { writekind.Register(transferTokenKind{}) }

// transferTokenKind registers transfer_token.
type transferTokenKind struct{}

func (transferTokenKind) Tool() string { return wire.ToolTransferToken }

func (transferTokenKind) Parse(raw map[string]any) (args.WriteArgs, error) {
	return ParseTransferTokenArgs(raw)
}

// Draft reads the mint (for decimals and its label), so the pre-policy can
// judge the request against the per-mint caps before anything is built.
// A mint a preview read already is not read again here: the pre-policy
// needs only its decimals, which do not change, and Prepare labels the
// proposal from its own read (so a proposal is one round of RPCs).
func (transferTokenKind) Draft(ctx context.Context, env writekind.Env, wa args.WriteArgs) (writekind.Kind, error) {
	a := wa.(TransferTokenArgs)
	if err := refuseOwnWallet(a.To, env.Wallet()); err != nil {
		return nil, err
	}
	var label writekind.TokenLabel
	if info, ok := env.Executor().RecentTokenInfo(a.Mint); ok {
		label = env.LabelOf(info)
	} else {
		var err error
		if label, err = env.Label(ctx, a.Mint); err != nil {
			return nil, errors.New("mint: could not read it as a token mint (nothing was proposed): " + err.Error())
		}
	}
	return &TokenTransferProposal{A: a, Token: markImpostor(label), SOLOut: signatureFee}, nil
}

// markImpostor: a ticker that imitates a real token's (USDC, SOL, ...)
// without being it is shown with a "?" in every line that names it.
func markImpostor(label writekind.TokenLabel) writekind.TokenLabel {
	for _, w := range label.Warnings {
		if w.Kind == executor.WarnImpostor {
			label.Symbol += "?"
			break
		}
	}
	return label
}

// Prepare builds and simulates the transfer; policy then judges what the
// simulation measured.
func (k *TokenTransferProposal) Prepare(ctx context.Context, env writekind.Env) (executor.Preview, error) {
	a := k.A
	prepared, err := env.Executor().PreviewTokenTransfer(ctx, executor.TokenTransfer{Mint: a.Mint, To: a.To, Amount: a.Amount, Memo: env.ProposalMemo()})
	if err != nil {
		var simErr *executor.SimulationError
		switch {
		case errors.Is(err, executor.ErrTokenRefused):
			return executor.Preview{}, writekind.Refuse("token_mint", err.Error()+" (nothing was proposed, signed or sent)")
		case errors.As(err, &simErr):
			return executor.Preview{}, writekind.Refuse("simulation", "the transaction would fail: "+simErr.Error())
		case errors.Is(err, executor.ErrInvalidTransfer):
			return executor.Preview{}, errors.New(err.Error() + " (nothing was proposed, signed or sent)")
		}
		return executor.Preview{}, errors.New("could not prepare the token transfer (nothing was proposed, signed or sent): " + err.Error())
	}
	k.Preview, k.SOLOut = prepared.TokenPreview, prepared.Preview.SpendLamports
	if info := prepared.TokenPreview.Mint; info != nil {
		// The label the proposal shows is the one its own preview read.
		k.Token = markImpostor(env.LabelOf(info))
	}
	k.Approval = executor.TokenApproval{Budget: prepared.Preview.Budget, Received: prepared.TokenPreview.Received}
	return prepared.Preview, nil
}

// Admit records "no cap applies" and returns the token's warnings.
func (k *TokenTransferProposal) Admit(d policy.Decision) []approval.Flag {
	k.NoCapApplies = d.NoCapApplies
	return writekind.TokenFlags(k.Token, k.Preview, k.NoCapApplies)
}

// PrepareApproved rebuilds and simulates the transfer held to the
// approval (compute budget, net received); the spend is reserved from that
// simulation, and after landing the executor checks the chain's token
// balances of both owners.
func (k *TokenTransferProposal) PrepareApproved(ctx context.Context, env writekind.Env, _ string) (*writekind.Execution, error) {
	t := executor.TokenTransfer{Mint: k.A.Mint, To: k.A.To, Amount: k.A.Amount, Memo: env.ProposalMemo()}
	prepared, err := env.Executor().PrepareApprovedTokenTransfer(ctx, t, k.Approval)
	if err != nil {
		return nil, errors.New("could not prepare the token transfer at execution, nothing was signed or sent: " + err.Error())
	}
	fresh := *k
	fresh.Preview, fresh.SOLOut = prepared.TokenPreview, prepared.Preview.SpendLamports
	ex := env.Executor()
	return &writekind.Execution{Kind: &fresh, LastValid: prepared.LastValidBlockHeight,
		Send: func(ctx context.Context, persist func(solana.Signature) error, progress func(executor.Progress)) (*executor.Result, error) {
			prepared.BeforeSend = persist
			return ex.Submit(ctx, prepared.Prepared, progress)
		}}, nil
}

// CheckLanded: the executor checked both owners' token balances on the
// landed transaction; the kind records that it held.
func (k *TokenTransferProposal) CheckLanded(_ context.Context, _ writekind.Env, res *executor.Result) {
	if res.Outcome == executor.Executed {
		k.Verified = true
	}
}

// Grant: the mint and the recipient owner, and base units of the mint.
func (k *TokenTransferProposal) Grant() writekind.GrantRule {
	return writekind.GrantOn(k.A.Mint.String()+" → "+k.A.To.String(), k.A.Amount)
}

// TransferTokenArgs are the arguments of transfer_token.
type TransferTokenArgs struct {
	Mint    solana.PublicKey
	To      solana.PublicKey // the recipient owner
	Amount  uint64           // base units of Mint
	Confirm string           // "" on a proposal
}

// ParseTransferTokenArgs validates transfer_token arguments.
func ParseTransferTokenArgs(raw map[string]any) (TransferTokenArgs, error) {
	const tool = wire.ToolTransferToken
	var a TransferTokenArgs
	if err := args.CheckArgNames(tool, raw); err != nil {
		return a, err
	}
	var err error
	if a.Mint, err = args.ParseAddress(tool, "mint", raw["mint"]); err != nil {
		return a, err
	}
	if a.Mint.Equals(solana.SolMint) {
		return a, args.ArgErrorf(tool, "mint", "mint is wrapped SOL (%s); send SOL with transfer_sol", solana.SolMint)
	}
	if a.To, err = args.ParseAddress(tool, "to", raw["to"]); err != nil {
		return a, err
	}
	if a.Amount, err = args.ParseUint(tool, args.BaseUnitsRule, raw["amount"]); err != nil {
		return a, err
	}
	if a.Confirm, err = args.ParseConfirm(tool, raw["confirm"]); err != nil {
		return a, err
	}
	return a, nil
}

func (a TransferTokenArgs) ToolName() string     { return wire.ToolTransferToken }
func (a TransferTokenArgs) ConfirmToken() string { return a.Confirm }
func (a TransferTokenArgs) Recipient() string    { return a.To.String() }
func (a TransferTokenArgs) Described() string {
	return fmt.Sprintf("%d base units of %s to %s", a.Amount, a.Mint, a.To)
}
func (a TransferTokenArgs) Fingerprint() string {
	return args.Fingerprint(a.ToolName(), a.Normalized())
}
func (a TransferTokenArgs) Normalized() map[string]string {
	return map[string]string{
		"mint":   a.Mint.String(),
		"to":     a.To.String(),
		"amount": strconv.FormatUint(a.Amount, 10),
	}
}
