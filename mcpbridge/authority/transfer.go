package authority

import (
	"fmt"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/policy"
)

// TransferProposal is a transfer_sol proposal: lamports to one recipient.
type TransferProposal struct {
	A TransferArgs
	// Spend is the SOL leaving the wallet as simulated: amount + fee.
	Spend uint64
	// Budget is the approved compute budget: execution keeps its limit and
	// pays no higher a priority fee.
	Budget executor.Budget
}

var _ Kind = (*TransferProposal)(nil)

func (k *TransferProposal) Args() WriteArgs                          { return k.A }
func (k *TransferProposal) clone() Kind                              { c := *k; return &c }
func (k *TransferProposal) TokenTTL(def time.Duration) time.Duration { return def }

// Facts: a recipient (allowlist) and the SOL outflow (caps).
func (k *TransferProposal) Facts(network executor.Network, client string) policy.Proposal {
	return policy.Proposal{
		Tool: mcpbridge.ToolTransferSOL, Fingerprint: k.A.Fingerprint(), ClientID: client, Network: string(network),
		Recipient: k.A.To.String(), Lamports: k.Spend,
	}
}

func (k *TransferProposal) Action() string {
	return fmt.Sprintf("transfer %s to %s", solShort(k.A.Lamports), k.A.To)
}

func (k *TransferProposal) Amount() string { return solShort(k.A.Lamports) }

func (k *TransferProposal) PreviewLines(p *Proposal) []string {
	return []string{
		fmt.Sprintf("Action: transfer %s to %s", sol(k.A.Lamports), k.A.To),
		fmt.Sprintf("Spend: %s: amount + %s, all counted against the caps (simulated)", sol(p.Spend), p.Preview.FeeText()),
		fmt.Sprintf("Compute budget: %s; approval allows at most this limit and a %d-lamport priority fee", p.Preview.BudgetText(), p.Preview.Budget.PriorityFee),
	}
}

func (k *TransferProposal) Structured(p *Proposal, st map[string]any) {
	st["to"], st["lamports"], st["fee_lamports"] = k.A.To.String(), fmt.Sprint(k.A.Lamports), fmt.Sprint(p.Preview.Fee)
	bu := p.Preview.Budget
	st["network_fee_lamports"], st["priority_fee_lamports"] = fmt.Sprint(p.Preview.NetworkFee()), fmt.Sprint(bu.PriorityFee)
	st["priority_fee_source"], st["priority_fee_capped"] = bu.Source, bu.Capped
	st["compute_unit_limit"], st["compute_unit_price_micro_lamports"] = bu.UnitLimit, fmt.Sprint(bu.UnitPrice)
}

func (k *TransferProposal) Detail(p *Proposal) []DetailLine {
	return []DetailLine{
		{Label: "Action", Value: fmt.Sprintf("transfer %s (%d lamports) to the recipient below", solShort(k.A.Lamports), k.A.Lamports)},
		{Label: "Recipient", Value: k.A.To.String()},
		{Label: "Spend", Value: fmt.Sprintf("%s (%d lamports): amount + %s", solShort(p.Spend), p.Spend, p.Preview.FeeText())},
		{Label: "Budget", Value: p.Preview.BudgetText()},
	}
}

func (k *TransferProposal) Executed(p *Proposal, st map[string]any) string {
	st["to"], st["lamports"] = k.A.To.String(), fmt.Sprint(k.A.Lamports)
	return fmt.Sprintf("EXECUTED and verified on chain: %s sent to %s. Signature %s, slot %d, fee %d lamports as charged on chain (priority fee included). The re-fetched transaction shows err=null and the expected balance changes.",
		sol(k.A.Lamports), k.A.To, p.Signature, p.Result.Slot, p.Result.Fee)
}

// Run follows one transfer to its end; the approved compute budget binds it.
func (k *TransferProposal) Run(h *Hub, id string, who caller) {
	h.runTransfer(id, who, k.A, k.Budget)
}

// solShort is "0.05 SOL".
func solShort(l uint64) string { return executor.FormatSOL(l) + " SOL" }
