package authority

import (
	"fmt"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/policy"
)

// SwapProposal's side of Kind; its fields and execution are in swap.go.

var _ Kind = (*SwapProposal)(nil)

func (sp *SwapProposal) Args() WriteArgs { return sp.A }

func (sp *SwapProposal) Clone() Kind { c := *sp; return &c }

// TokenTTL: a swap approval binds a price, so it lapses sooner.
func (sp *SwapProposal) TokenTTL(def time.Duration) time.Duration { return min(def, swapTokenTTL) }

// Facts: the swap pays the wallet itself; the SOL out as simulated, the
// mints it touches, the input it spends (when not SOL) and the quote's
// terms. The input mint's label carries its decimals, so a per-mint cap
// written in display units applies (a SOL input has none to apply).
func (sp *SwapProposal) Facts(network executor.Network, client string) policy.Proposal {
	a := sp.A
	p := policy.Proposal{
		Tool: mcpbridge.ToolSwap, Fingerprint: a.Fingerprint(), ClientID: client, Network: string(network),
		PaysSelf: true, Lamports: sp.Spend,
		Quote: &policy.QuoteFacts{SlippageBps: a.SlippageBps, PriceImpactBps: sp.PriceImpactBps},
	}
	for _, m := range []solana.PublicKey{a.InputMint, a.OutputMint} {
		if !isSOL(m) {
			p.Mints = append(p.Mints, m.String())
		}
	}
	if !isSOL(a.InputMint) {
		// The approved input is what the outflow budget holds the swap to at
		// execution.
		p.Token = &policy.TokenSpend{Mint: a.InputMint.String(), Amount: a.Amount, Decimals: sp.Input.Decimals, DecimalsKnown: sp.Input.Mint == a.InputMint.String()}
	}
	return p
}

func (sp *SwapProposal) Action() string {
	return fmt.Sprintf("swap %s %s for at least %s %s (expected %s)",
		sp.Input.amount(sp.Terms.InAmount), sp.Input, sp.Output.amount(sp.Terms.MinimumOut), sp.Output, sp.Output.amount(sp.Preview.ExpectedOut))
}

func (sp *SwapProposal) Amount() string {
	return sp.Input.amount(sp.Terms.InAmount) + " " + sp.Input.String() + "→" + sp.Output.String()
}

func (sp *SwapProposal) PreviewLines(p *Proposal) []string {
	in, out := sp.Input, sp.Output
	lines := []string{fmt.Sprintf("Action: swap %s %s for at least %s %s (expected %s); slippage %d bps, price impact %s%%, route %s",
		in.amount(sp.Terms.InAmount), in, out.amount(sp.Terms.MinimumOut), out, out.amount(sp.Preview.ExpectedOut),
		sp.Terms.SlippageBps, policy.FormatPercentBps(sp.PriceImpactBps), strings.Join(sp.Route, " → "))}
	if sp.NoCapApplies {
		lines = append(lines, fmt.Sprintf("Spend: NO CAP APPLIES — the input is %s, not SOL, so the SOL caps do not bound it; SOL leaving the wallet (fees, rent): %s (simulated)", in, sol(p.Spend)))
	} else {
		lines = append(lines, fmt.Sprintf("Spend: %s including fees and rent, wrapped SOL counted as SOL (simulated)", sol(p.Spend)))
	}
	if sp.Preview.PaidFrom != "" {
		lines = append(lines, "Paid from: "+sp.Preview.PaidFrom)
	}
	lines = append(lines, fmt.Sprintf("Compute budget: %s; priority fee %d lamports (%s); approval allows at most a %d-lamport priority fee", swapBudgetText(sp.Preview), sp.Preview.PriorityFee, sp.Preview.PriorityFeeSource, sp.Preview.MaxPriorityFee))
	return append(lines, fmt.Sprintf("Output token: %s (mint %s); its name and symbol are untrusted text: %q / %q", out, out.Mint, out.Name, out.Symbol))
}

func (sp *SwapProposal) Structured(p *Proposal, st map[string]any) {
	st["input_mint"], st["output_mint"], st["amount"] = sp.Terms.InputMint.String(), sp.Terms.OutputMint.String(), fmt.Sprint(sp.Terms.InAmount)
	st["expected_out"], st["min_out"] = fmt.Sprint(sp.Preview.ExpectedOut), fmt.Sprint(sp.Terms.MinimumOut)
	st["price_impact_bps"], st["no_cap_applies"] = sp.PriceImpactBps, sp.NoCapApplies
	pv := sp.Preview
	st["fee_lamports"], st["priority_fee_lamports"], st["priority_fee_source"] = fmt.Sprint(pv.Fee), fmt.Sprint(pv.PriorityFee), pv.PriorityFeeSource
	st["max_priority_fee_lamports"], st["compute_unit_limit"], st["compute_unit_price_micro_lamports"] = fmt.Sprint(pv.MaxPriorityFee), pv.UnitLimit, fmt.Sprint(pv.UnitPrice)
}

// swapBudgetText shows a swap's compute budget as a transfer's is shown.
func swapBudgetText(pv executor.SwapPreview) string {
	s := fmt.Sprintf("%d CU limit", pv.UnitLimit)
	if pv.UnitPrice > 0 {
		return s + fmt.Sprintf(" · %d micro-lamports/CU", pv.UnitPrice)
	}
	return s + " · no CU price"
}

// Detail is the swap in plain labelled lines; the console draws swaps
// with its own richer view (tui/swap.go) and uses these only as a fallback.
func (sp *SwapProposal) Detail(p *Proposal) []DetailLine {
	out := []DetailLine{{Label: "Action", Value: sp.Action()}}
	if sp.NoCapApplies {
		out = append(out, DetailLine{Label: "Cap", Value: "NO CAP APPLIES to this swap's input", Warn: true})
	}
	return append(out,
		DetailLine{Label: "Output", Value: fmt.Sprintf("%s · mint %s · %d decimals", sp.Output, sp.Output.Mint, sp.Output.Decimals)},
		DetailLine{Label: "Input", Value: fmt.Sprintf("%s · mint %s · %d decimals · paid from %s", sp.Input, sp.Input.Mint, sp.Input.Decimals, sp.Preview.PaidFrom)},
		DetailLine{Label: "Spend", Value: sol(p.Spend) + " of SOL leaves the wallet (simulated)"})
}

func (sp *SwapProposal) Executed(p *Proposal, st map[string]any) string {
	st["received"], st["min_out"] = fmt.Sprint(sp.Received), fmt.Sprint(sp.Terms.MinimumOut)
	return fmt.Sprintf("EXECUTED and verified on chain: swapped %s %s and received %s %s (approved minimum %s). Signature %s, slot %d, fee %d lamports.",
		sp.Input.amount(sp.Terms.InAmount), sp.Input, sp.Output.amount(sp.Received), sp.Output, sp.Output.amount(sp.Terms.MinimumOut), p.Signature, p.Result.Slot, p.Result.Fee)
}
