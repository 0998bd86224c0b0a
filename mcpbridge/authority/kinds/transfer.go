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

// signatureFee is the network's fee per signature, used only for the cheap
// policy pre-check before anything is simulated; the real gate uses the fee
// measured by the simulation.
const signatureFee = 5000

func init() { writekind.Register(transferSOLKind{}) }

// transferSOLKind registers transfer_sol.
type transferSOLKind struct{}

func (transferSOLKind) Tool() string { return wire.ToolTransferSOL }

func (transferSOLKind) Parse(raw map[string]any) (args.WriteArgs, error) {
	return ParseTransferArgs(raw)
}

// Draft: the estimate is the amount plus one signature's fee.
func (transferSOLKind) Draft(_ context.Context, env writekind.Env, wa args.WriteArgs) (writekind.Kind, error) {
	a := wa.(TransferArgs)
	if err := refuseOwnWallet(a.To, env.Wallet()); err != nil {
		return nil, err
	}
	estimate, err := executor.AddAmounts(a.Lamports, signatureFee)
	if err != nil {
		return nil, &writekind.Refusal{Decision: policy.AmountTooLarge("lamports", a.Lamports)}
	}
	return &TransferProposal{A: a, Spend: estimate}, nil
}

// TransferProposal is a transfer_sol proposal: lamports to one recipient.
type TransferProposal struct {
	A TransferArgs
	// Spend is the SOL leaving the wallet as simulated: amount + fee.
	Spend uint64
	// Budget is the approved compute budget: execution keeps its limit and
	// pays no higher a priority fee.
	Budget executor.Budget
}

var _ writekind.Kind = (*TransferProposal)(nil)

func (k *TransferProposal) Args() args.WriteArgs                     { return k.A }
func (k *TransferProposal) Clone() writekind.Kind                    { c := *k; return &c }
func (k *TransferProposal) TokenTTL(def time.Duration) time.Duration { return def }

// Facts: a recipient (allowlist) and the SOL outflow (caps).
func (k *TransferProposal) Facts(network executor.Network, client string) policy.Proposal {
	return policy.Proposal{
		Tool: wire.ToolTransferSOL, Fingerprint: k.A.Fingerprint(), ClientID: client, Network: string(network),
		Counterparties: []policy.Counterparty{policy.Recipient(executor.KeyString(k.A.To))}, Lamports: k.Spend,
	}
}

func (k *TransferProposal) Action() string {
	return fmt.Sprintf("transfer %s to %s", solShort(k.A.Lamports), executor.KeyString(k.A.To))
}

func (k *TransferProposal) Amount() string { return solShort(k.A.Lamports) }

func (k *TransferProposal) PreviewLines(p *writekind.Proposal) []string {
	return []string{
		fmt.Sprintf("Action: transfer %s to %s", writekind.SOL(k.A.Lamports), executor.KeyString(k.A.To)),
		fmt.Sprintf("Spend: %s: amount + %s, all counted against the caps (simulated)", writekind.SOL(p.Spend), p.Preview.FeeText()),
		fmt.Sprintf("Compute budget: %s; approval allows at most this limit and a %d-lamport priority fee", p.Preview.BudgetText(), p.Preview.Budget.PriorityFee),
	}
}

func (k *TransferProposal) Structured(p *writekind.Proposal, st map[string]any) {
	st["to"], st["lamports"], st["fee_lamports"] = executor.KeyString(k.A.To), strconv.FormatUint(k.A.Lamports, 10), strconv.FormatUint(p.Preview.Fee, 10)
	bu := p.Preview.Budget
	st["network_fee_lamports"], st["priority_fee_lamports"] = strconv.FormatUint(p.Preview.NetworkFee(), 10), strconv.FormatUint(bu.PriorityFee, 10)
	st["priority_fee_source"], st["priority_fee_capped"] = bu.Source, bu.Capped
	st["compute_unit_limit"], st["compute_unit_price_micro_lamports"] = bu.UnitLimit, strconv.FormatUint(bu.UnitPrice, 10)
}

// Detail: the terms, then every simulated change with the wallet and the
// recipient named by role (both are in full elsewhere, and an abbreviation
// of a look-alike would read as the real one), the instructions, the hash.
func (k *TransferProposal) Detail(p *writekind.Proposal) []approval.DetailLine {
	to := executor.KeyString(k.A.To)
	out := []approval.DetailLine{
		{Label: "Action", Value: fmt.Sprintf("transfer %s (%s) to the recipient below", approval.SOLText(k.A.Lamports), approval.LamportsText(k.A.Lamports))},
		{Label: "Recipient", Value: to},
		{Label: "Spend", Value: fmt.Sprintf("%s (%s): amount + %s", approval.SOLText(p.Spend), approval.LamportsText(p.Spend), p.Preview.FeeText())},
		{Label: "Budget", Value: p.Preview.BudgetText()},
	}
	for i, ch := range p.Preview.Changes {
		label := ""
		if i == 0 {
			label = "Simulated"
		}
		who := executor.KeyString(ch.Account)
		switch {
		case ch.Account.Equals(p.Preview.From):
			who = "wallet"
		case who == to:
			who = "recipient"
		}
		out = append(out, approval.DetailLine{Label: label, Value: writekind.ChangeRow(who, 14, approval.SOLSigned(ch.Delta()), executor.FormatSOL(ch.Pre), executor.FormatSOL(ch.Post))})
	}
	out = append(out, writekind.InstructionLines(p.Preview.Instructions)...)
	return append(out, approval.DetailLine{Label: "SHA-256", Value: p.Preview.MessageSHA256})
}

func (k *TransferProposal) Executed(p *writekind.Proposal, st map[string]any) string {
	st["to"], st["lamports"] = executor.KeyString(k.A.To), strconv.FormatUint(k.A.Lamports, 10)
	return fmt.Sprintf("EXECUTED and verified on chain: %s sent to %s. Signature %s, slot %d, fee %d lamports as charged on chain (priority fee included). The re-fetched transaction shows err=null and the expected balance changes.",
		writekind.SOL(k.A.Lamports), k.A.To, p.Signature, p.Result.Slot, p.Result.Fee)
}

// Prepare builds and simulates the transfer; the spend is what the
// simulation measured (amount, fees).
func (k *TransferProposal) Prepare(ctx context.Context, env writekind.Env) (executor.Preview, error) {
	prepared, err := env.Executor().PreviewTransfer(ctx, executor.Transfer{To: k.A.To, Lamports: k.A.Lamports, Memo: env.ProposalMemo()})
	if errors.Is(err, executor.ErrAmountTooLarge) {
		return executor.Preview{}, &writekind.Refusal{Decision: policy.AmountTooLarge("lamports", k.A.Lamports)}
	}
	if err != nil {
		var simErr *executor.SimulationError
		if errors.As(err, &simErr) {
			return executor.Preview{}, writekind.Refuse("simulation", "the transaction would fail: "+simErr.Error())
		}
		return executor.Preview{}, errors.New("could not prepare the transfer (nothing was proposed, signed or sent): " + err.Error())
	}
	k.Spend, k.Budget = prepared.Preview.SpendLamports, prepared.Preview.Budget
	return prepared.Preview, nil
}

func (k *TransferProposal) Admit(policy.Decision) []approval.Flag { return nil }

// PrepareApproved rebuilds the transfer held to the approved compute
// budget: the same unit limit, and a priority fee no higher than the one
// the human saw. The memo naming the proposal is the one the preview
// carried, so the bytes are this proposal's own.
func (k *TransferProposal) PrepareApproved(ctx context.Context, env writekind.Env, _ string) (*writekind.Execution, error) {
	prepared, err := env.Executor().PrepareApprovedTransfer(ctx, executor.Transfer{To: k.A.To, Lamports: k.A.Lamports, Memo: env.ProposalMemo()}, k.Budget)
	if err != nil {
		return nil, errors.New("could not prepare the transaction at execution, nothing was signed or sent: " + err.Error())
	}
	fresh := *k
	fresh.Spend = prepared.Preview.SpendLamports
	ex := env.Executor()
	return &writekind.Execution{Kind: &fresh, LastValid: prepared.LastValidBlockHeight,
		Send: func(ctx context.Context, persist func(solana.Signature) error, progress func(executor.Progress)) (*executor.Result, error) {
			prepared.BeforeSend = persist
			return ex.Submit(ctx, prepared, progress)
		}}, nil
}

// CheckLanded: the executor's check of the prepared transfer is the whole
// of it (the recipient up by the amount and the wallet down by it and the
// fee, to the lamport, within the prepared limits); nothing to add.
func (k *TransferProposal) CheckLanded(context.Context, writekind.Env, *executor.Result) {}

// Grant: the recipient, and lamports.
func (k *TransferProposal) Grant() writekind.GrantRule {
	return writekind.GrantOn(executor.KeyString(k.A.To), k.A.Lamports)
}

// solShort is "0.05 SOL".
func solShort(l uint64) string { return executor.FormatSOL(l) + " SOL" }

// TransferArgs are the arguments of transfer_sol.
type TransferArgs struct {
	To       solana.PublicKey
	Lamports uint64
	Confirm  string // "" on a proposal
}

// ParseTransferArgs validates transfer_sol arguments.
func ParseTransferArgs(raw map[string]any) (TransferArgs, error) {
	const tool = wire.ToolTransferSOL
	var a TransferArgs
	if err := args.CheckArgNames(tool, raw); err != nil {
		return a, err
	}
	var err error
	if a.To, err = args.ParseAddress(tool, "to", raw["to"]); err != nil {
		return a, err
	}
	if a.Lamports, err = args.ParseUint(tool, args.LamportsRule, raw["lamports"]); err != nil {
		return a, err
	}
	if a.Confirm, err = args.ParseConfirm(tool, raw["confirm"]); err != nil {
		return a, err
	}
	return a, nil
}

func (a TransferArgs) ToolName() string     { return wire.ToolTransferSOL }
func (a TransferArgs) ConfirmToken() string { return a.Confirm }
func (a TransferArgs) Recipient() string    { return executor.KeyString(a.To) }
func (a TransferArgs) Described() string {
	return fmt.Sprintf("%s SOL to %s", executor.FormatSOL(a.Lamports), executor.KeyString(a.To))
}

// Fingerprint is Fingerprint(a.ToolName(), a.Normalized()), its message
// written directly: the keys in order, and both values plain ASCII (base58
// and digits), which canonical JSON writes as they are
// (TestTransferFingerprintAsNormalized).
func (a TransferArgs) Fingerprint() string {
	msg := make([]byte, 0, 128)
	msg = append(msg, wire.ToolTransferSOL...)
	msg = append(msg, ` {"lamports":"`...)
	msg = strconv.AppendUint(msg, a.Lamports, 10)
	msg = append(msg, `","to":"`...)
	msg = append(msg, executor.KeyString(a.To)...)
	return args.FingerprintOf(append(msg, `"}`...))
}
func (a TransferArgs) Normalized() map[string]string {
	return map[string]string{
		"to":       executor.KeyString(a.To),
		"lamports": strconv.FormatUint(a.Lamports, 10),
	}
}

// refuseOwnWallet refuses a transfer to the console's own wallet, SOL or
// token alike: it moves nothing but the fee, so the human would be asked
// to look at a spend that is no spend.
func refuseOwnWallet(to, wallet solana.PublicKey) error {
	if to.Equals(wallet) {
		return fmt.Errorf("to: %s is the console's own wallet; a transfer to yourself moves nothing: give another address", to)
	}
	return nil
}
