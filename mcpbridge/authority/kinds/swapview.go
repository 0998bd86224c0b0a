package kinds

import (
	"fmt"
	"slices"
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

// SwapProposal's side of Kind; its fields and execution are in swap.go.

var _ writekind.Kind = (*SwapProposal)(nil)

func (sp *SwapProposal) Args() args.WriteArgs { return sp.A }

func (sp *SwapProposal) Clone() writekind.Kind { c := *sp; return &c }

// TokenTTL: a swap approval binds a price, so it lapses sooner.
func (sp *SwapProposal) TokenTTL(def time.Duration) time.Duration { return min(def, swapTokenTTL) }

// Facts: the swap pays the wallet itself; the SOL out as simulated, the
// mints it touches, the input it spends (when not SOL) and the quote's
// terms. The input mint's label carries its decimals, so a per-mint cap
// written in display units applies (a SOL input has none to apply).
func (sp *SwapProposal) Facts(network executor.Network, client string) policy.Proposal {
	a := sp.A
	p := policy.Proposal{
		Tool: wire.ToolSwap, Fingerprint: a.Fingerprint(), ClientID: client, Network: string(network),
		PaysSelf: true, Lamports: sp.Spend,
		Quote: &policy.QuoteFacts{SlippageBps: a.SlippageBps, PriceImpactBps: sp.PriceImpactBps},
	}
	for _, m := range []solana.PublicKey{a.InputMint, a.OutputMint} {
		if !writekind.IsSOL(m) {
			p.Mints = append(p.Mints, m.String())
		}
	}
	if !writekind.IsSOL(a.InputMint) {
		// The approved input is what the outflow budget holds the swap to at
		// execution.
		p.Tokens = []policy.TokenSpend{{Mint: a.InputMint.String(), Amount: a.Amount, Decimals: sp.Input.Decimals, DecimalsKnown: sp.Input.Mint == a.InputMint.String()}}
	}
	return p
}

// Action is the swap in words, as approved (the minimum out is what the
// approval binds); once executed, what the wallet received.
func (sp *SwapProposal) Action() string {
	in, out := viewToken(sp.Input), viewToken(sp.Output)
	if sp.Received > 0 {
		return fmt.Sprintf("swapped %s for %s (approved minimum %s)", in.amount(sp.Terms.InAmount), out.amount(sp.Received), approval.TokenAmount(sp.Terms.MinimumOut, out.decimals))
	}
	return fmt.Sprintf("swap %s for at least %s (expected %s)",
		in.amount(sp.Terms.InAmount), out.amount(sp.Terms.MinimumOut), approval.TokenAmount(sp.Preview.ExpectedOut, out.decimals))
}

// Amount is the queue's amount column: "0.05 SOL→BAIT".
func (sp *SwapProposal) Amount() string {
	in, out := viewToken(sp.Input), viewToken(sp.Output)
	return approval.TokenAmount(sp.Terms.InAmount, in.decimals) + " " + in.symbol + "→" + out.symbol
}

func (sp *SwapProposal) PreviewLines(p *writekind.Proposal) []string {
	in, out := sp.Input, sp.Output
	lines := []string{fmt.Sprintf("Action: swap %s %s for at least %s %s (expected %s); slippage %d bps, %s, route %s",
		in.Amount(sp.Terms.InAmount), in, out.Amount(sp.Terms.MinimumOut), out, out.Amount(sp.Preview.ExpectedOut),
		sp.Terms.SlippageBps, writekind.ImpactText(sp.PriceImpactBps, sp.PriceImpactUnknown), strings.Join(sp.Route, " → "))}
	if sp.NoCapApplies {
		lines = append(lines, fmt.Sprintf("Spend: NO CAP APPLIES — the input is %s, not SOL, so the SOL caps do not bound it; SOL leaving the wallet (fees, rent): %s (simulated)", in, writekind.SOL(p.Spend)))
	} else {
		lines = append(lines, fmt.Sprintf("Spend: %s including fees and rent, wrapped SOL counted as SOL (simulated)", writekind.SOL(p.Spend)))
	}
	if sp.Preview.PaidFrom != "" {
		lines = append(lines, "Paid from: "+sp.Preview.PaidFrom)
	}
	lines = append(lines, fmt.Sprintf("Compute budget: %s; priority fee %d lamports (%s); approval allows at most a %d-lamport priority fee", swapBudgetText(sp.Preview), sp.Preview.PriorityFee, sp.Preview.PriorityFeeSource, sp.Preview.MaxPriorityFee))
	return append(lines, fmt.Sprintf("Output token: %s (mint %s); its name and symbol are untrusted text: %q / %q", out, out.Mint, out.Name, out.Symbol))
}

func (sp *SwapProposal) Structured(p *writekind.Proposal, st map[string]any) {
	st["input_mint"], st["output_mint"], st["amount"] = sp.Terms.InputMint.String(), sp.Terms.OutputMint.String(), fmt.Sprint(sp.Terms.InAmount)
	st["expected_out"], st["min_out"] = fmt.Sprint(sp.Preview.ExpectedOut), fmt.Sprint(sp.Terms.MinimumOut)
	st["price_impact_bps"], st["no_cap_applies"] = sp.PriceImpactBps, sp.NoCapApplies
	if sp.PriceImpactUnknown {
		delete(st, "price_impact_bps")
	}
	pv := sp.Preview
	st["fee_lamports"], st["priority_fee_lamports"], st["priority_fee_source"] = fmt.Sprint(pv.Fee), fmt.Sprint(pv.PriorityFee), pv.PriorityFeeSource
	st["max_priority_fee_lamports"], st["compute_unit_limit"], st["compute_unit_price_micro_lamports"] = fmt.Sprint(pv.MaxPriorityFee), pv.UnitLimit, fmt.Sprint(pv.UnitPrice)
}

// tokenView is one side of a swap as people read it: the wrapped-SOL mint
// is "SOL", a token imitating a well-known ticker (ЅОL in Cyrillic, a bait
// token calling itself USDC) gets a "?", and a token with no symbol is
// named by its mint. Only the mint says SOL or USDC; the texts are checked
// here again, whatever the label says.
type tokenView struct {
	mint     string
	decimals uint8
	sol      bool
	symbol   string
	impostor string // the ticker it imitates without being it; "" if none
	name     string
	uri      string
	flags    []string // instruction-like phrases in its metadata
	warnings []executor.Warning
}

func viewToken(l writekind.TokenLabel) tokenView {
	t := tokenView{mint: l.Mint, decimals: l.Decimals, sol: l.Mint == executor.WrappedSOL.String(),
		name: untrusted.Sanitize(l.Name, 64), uri: untrusted.Sanitize(l.URI, 96), warnings: l.Warnings}
	sym := strings.TrimSuffix(untrusted.Sanitize(l.Symbol, 12), "?")
	mint, _ := solana.PublicKeyFromBase58(l.Mint) // unparsable: the zero key, no real mint
	network := l.Network
	if network == "" {
		network = executor.Mainnet // a label from before labels carried their cluster
	}
	imitates, impostor := executor.ImitatedTickerOn(network, mint, sym, t.name)
	switch {
	case t.sol:
		sym = "SOL"
	case impostor:
		t.impostor = imitates
		sym += "?"
	case sym == "":
		sym = l.String()
	}
	t.symbol = sym
	for _, f := range append(slices.Clone(l.Flags), untrusted.Flags(l.Name+" "+l.Symbol+" "+l.URI)...) {
		if f = untrusted.Sanitize(f, 40); !slices.Contains(t.flags, f) {
			t.flags = append(t.flags, f)
		}
	}
	return t
}

// amount renders base units of this token with its symbol.
func (t tokenView) amount(units uint64) string {
	return approval.TokenAmount(units, t.decimals) + " " + t.symbol
}

// describe adds a token's lines: symbol and full mint, its untrusted name
// and URI in quotes, and solgate's warnings about the mint under them.
func (t tokenView) describe(label string, field func(label, value string), warn func(text string)) {
	if t.sol {
		field(label, "SOL (native)")
		return
	}
	field(label, fmt.Sprintf("%s · mint %s · %d decimals", t.symbol, t.mint, t.decimals))
	var meta []string
	if t.name != "" {
		meta = append(meta, fmt.Sprintf("name %q", t.name))
	}
	if t.uri != "" {
		meta = append(meta, fmt.Sprintf("uri %q", t.uri))
	}
	if len(meta) > 0 {
		field("", strings.Join(meta, " · ")+" — untrusted text from the token's metadata")
	}
	for _, w := range t.warnings {
		warn(w.Text)
	}
}

// sideOf finds which side of the swap a mint is.
func sideOf(mint solana.PublicKey, in, out tokenView) (tokenView, bool) {
	switch mint.String() {
	case out.mint:
		return out, true
	case in.mint:
		return in, true
	}
	return tokenView{}, false
}

// swapBudgetText shows a swap's compute budget as a transfer's is shown.
func swapBudgetText(pv executor.SwapPreview) string {
	s := fmt.Sprintf("%d CU limit", pv.UnitLimit)
	if pv.UnitPrice > 0 {
		return s + fmt.Sprintf(" · %d micro-lamports/CU", pv.UnitPrice)
	}
	return s + " · no CU price"
}

// Detail is the swap as the console draws it: no-cap banner first, then
// both tokens with their untrusted text in quotes and solgate's warnings
// under each, the terms, the fee, the simulated changes, the instructions
// (those signed, once signed) and the message hash.
func (sp *SwapProposal) Detail(p *writekind.Proposal) []approval.DetailLine {
	in, out := viewToken(sp.Input), viewToken(sp.Output)
	pv := sp.Preview
	var lines []approval.DetailLine
	field := func(label, value string) { lines = append(lines, approval.DetailLine{Label: label, Value: value}) }
	warn := func(text string) { lines = append(lines, approval.DetailLine{Value: text, Warn: true}) }
	if sp.NoCapApplies {
		lines = append(lines, approval.DetailLine{Role: approval.LineBanner, Warn: true,
			Value: fmt.Sprintf("NO CAP APPLIES — the input is %s, not SOL: solgate's SOL caps do not limit how much of it this swap spends", in.symbol)})
	}
	field("Action", sp.Action())
	if p.Status == approval.StatusExecuted || p.Status == approval.StatusLosses {
		field("Received", fmt.Sprintf("%s (approved minimum %s, expected %s)",
			out.amount(sp.Received), approval.TokenAmount(sp.Terms.MinimumOut, out.decimals), approval.TokenAmount(pv.ExpectedOut, out.decimals)))
	}
	out.describe("Output", field, warn)
	// The Input line names what actually pays, as the effects of the exact
	// bytes show it: a swap API may pay "SOL" from the wallet's wrapped SOL.
	if in.sol && pv.PaidFrom != "" {
		field("Input", "SOL, paid from "+pv.PaidFrom)
	} else {
		in.describe("Input", field, warn)
		if pv.PaidFrom != "" {
			field("", "paid from "+pv.PaidFrom)
		}
	}
	route := "direct"
	if len(sp.Route) > 0 {
		route = strings.Join(sp.Route, " → ")
	}
	impact := fmt.Sprintf("%s (%d bps)", writekind.ImpactText(sp.PriceImpactBps, false), sp.PriceImpactBps)
	if sp.PriceImpactUnknown {
		impact = writekind.ImpactText(0, true)
	}
	field("Terms", fmt.Sprintf("slippage %s%% (%d bps) · %s · route %s",
		policy.FormatPercentBps(uint32(sp.Terms.SlippageBps)), sp.Terms.SlippageBps, impact, route))
	if sp.NoCapApplies {
		field("Spend", fmt.Sprintf("%s (%s) of SOL leaves the wallet, for fees and rent; the %s input is bounded by no cap",
			approval.SOLText(p.Spend), approval.LamportsText(p.Spend), in.amount(sp.Terms.InAmount)))
	} else {
		field("Spend", fmt.Sprintf("%s (%s) leaves the wallet: input + fee + rent of accounts it creates", approval.SOLText(p.Spend), approval.LamportsText(p.Spend)))
	}
	fee := approval.LamportsText(pv.Fee)
	if pv.PriorityFee > 0 {
		fee += fmt.Sprintf(", of which priority fee %s", approval.Grouped(pv.PriorityFee))
	}
	if pv.PriorityFeeSource != "" {
		// What approving binds, as for a transfer: the fee's upper bound.
		fee += fmt.Sprintf("; approval allows a priority fee up to %s", approval.Grouped(pv.MaxPriorityFee))
	}
	field("Fee", fee)

	label := "Simulated"
	if w := pv.Wallet; w != (executor.BalanceChange{}) {
		field(label, writekind.ChangeRow("wallet SOL", 16, approval.SOLSigned(w.Delta()), executor.FormatSOL(w.Pre), executor.FormatSOL(w.Post)))
		label = ""
	}
	for _, tc := range pv.Tokens {
		if t, ok := sideOf(tc.Mint, in, out); ok {
			field(label, writekind.ChangeRow("wallet "+t.symbol, 16, approval.TokenDelta(tc.Pre, tc.Post, t.decimals)+" "+t.symbol, approval.TokenAmount(tc.Pre, t.decimals), approval.TokenAmount(tc.Post, t.decimals)))
		} else {
			// A token the terms do not name: base units and the full mint.
			field(label, fmt.Sprintf("token account %s of mint %s: %s base units, %d → %d", tc.Account, tc.Mint, approval.TokenDelta(tc.Pre, tc.Post, 0), tc.Pre, tc.Post))
		}
		label = ""
	}
	if pv.SimulatedOut > 0 {
		field(label, fmt.Sprintf("simulated output %s (minimum %s)", out.amount(pv.SimulatedOut), approval.TokenAmount(sp.Terms.MinimumOut, out.decimals)))
	}

	instructions := pv.Instructions
	if len(instructions) == 0 {
		instructions = p.Preview.Instructions
	}
	if sp.Signed != nil {
		// From signing on, what matters is the transaction actually signed.
		instructions = sp.Signed.Instructions
	}
	lines = append(lines, writekind.InstructionLines(instructions)...)
	if len(pv.Programs) > 0 {
		names := make([]string, len(pv.Programs))
		for i, id := range pv.Programs {
			names[i] = executor.ProgramName(id)
		}
		field("Programs", strings.Join(names, ", "))
	}
	keys := func(label, what string, list []solana.PublicKey) {
		for i, k := range list {
			if i > 0 {
				label = ""
			}
			field(label, k.String()+" "+what)
		}
	}
	keys("Lookup", "(address lookup table)", pv.LookupTables)
	keys("Cosigner", "(signed already, by the swap API)", pv.Cosigners)
	sum := pv.MessageSHA256
	if sum == "" {
		sum = p.Preview.MessageSHA256
	}
	if sg := sp.Signed; sg != nil {
		field("Signed", sg.MessageSHA256+" (SHA-256 of the message signed at execution; it matched the approval)")
		field("Approved", sum+" (SHA-256 of the message shown at approval)")
		return lines
	}
	field("SHA-256", sum)
	return lines
}

func (sp *SwapProposal) Executed(p *writekind.Proposal, st map[string]any) string {
	st["received"], st["min_out"] = fmt.Sprint(sp.Received), fmt.Sprint(sp.Terms.MinimumOut)
	return fmt.Sprintf("EXECUTED and verified on chain: swapped %s %s and received %s %s (approved minimum %s). Signature %s, slot %d, fee %d lamports.",
		sp.Input.Amount(sp.Terms.InAmount), sp.Input, sp.Output.Amount(sp.Received), sp.Output, sp.Output.Amount(sp.Terms.MinimumOut), p.Signature, p.Result.Slot, p.Result.Fee)
}
