package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/policy"
)

// tokenView is one side of a swap as the console shows it. The hub has
// sanitised the metadata already; it is sanitised again here, like every
// untrusted string, so no hub change can let an escape through.
type tokenView struct {
	mint     string
	decimals uint8
	sol      bool   // the wrapped-SOL mint: the one token the console can name itself
	symbol   string // sanitised, for compact places; "SOL?" for an impostor
	impostor string // the ticker (SOL, WSOL, USDC, USDT) it imitates without being it; "" if none
	name     string // sanitised metadata name
	uri      string // sanitised metadata URI
	flags    []string
	warnings []string // solgate's own: authorities, Token-2022 extensions
}

const maxSymbolRunes = 12

func newTokenView(l authority.TokenLabel) tokenView {
	t := tokenView{
		mint:     l.Mint,
		decimals: l.Decimals,
		sol:      l.Mint == executor.WrappedSOL.String(),
		name:     untrusted.Sanitize(l.Name, 64),
		uri:      untrusted.Sanitize(l.URI, 96),
	}
	sym := untrusted.Sanitize(l.Symbol, maxSymbolRunes)
	// Look ourselves, as for the flags below: a symbol or name is text its
	// creator chose ("ЅОL" in Cyrillic, the demo's bait "\x1b[1;32mSOL"),
	// and only the mint says SOL or USDC.
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
		sym = short(l.Mint) // a label, not an address shown for checking: the detail shows the mint in full
	}
	t.symbol = sym
	for _, f := range l.Flags {
		t.flags = appendNew(t.flags, untrusted.Sanitize(f, 40))
	}
	// Look again ourselves: the label's Flags are the hub's finding.
	for _, f := range untrusted.Flags(l.Name + " " + l.Symbol + " " + l.URI) {
		t.flags = appendNew(t.flags, f)
	}
	for _, w := range l.Warnings {
		t.warnings = appendNew(t.warnings, untrusted.Sanitize(w.Text, 300))
	}
	return t
}

// amount renders base units of this token with its symbol.
func (t tokenView) amount(units uint64) string {
	return tokenAmount(units, t.decimals) + " " + t.symbol
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// swapView is a swap proposal's terms and untrusted text, prepared once per
// snapshot so View stays cheap.
type swapView struct {
	sp      *authority.SwapProposal
	in, out tokenView
	route   []string
}

func newSwapView(sp *authority.SwapProposal) *swapView {
	v := &swapView{sp: sp, in: newTokenView(sp.Input), out: newTokenView(sp.Output)}
	for _, r := range sp.Route {
		v.route = append(v.route, untrusted.Sanitize(r, 32))
	}
	return v
}

// queueAmount is the queue's amount column: "0.05 SOL→BAIT".
func (v *swapView) queueAmount() string {
	return tokenAmount(v.sp.Terms.InAmount, v.in.decimals) + " " + v.in.symbol + "→" + v.out.symbol
}

// action is the swap in words, as approved: the minimum out is what the
// approval binds.
func (v *swapView) action() string {
	return fmt.Sprintf("swap %s for at least %s (expected %s)",
		v.in.amount(v.sp.Terms.InAmount), v.out.amount(v.sp.Terms.MinimumOut), tokenAmount(v.sp.Preview.ExpectedOut, v.out.decimals))
}

// warnings are the swap's warnings for the top of the detail pane: text
// that tries to instruct, a token posing as SOL, and the hub's other flags.
// A token's own facts (authorities, Token-2022 extensions) are listed under
// that token instead; hub flags that repeat them or the instruction-like
// text are left out here, and "no cap applies" becomes the banner.
func (v *swapView) warnings(authorityFlags []authority.Flag) []string {
	var out []string
	for _, side := range v.sides() {
		if len(side.t.flags) > 0 {
			out = append(out, fmt.Sprintf("the %s token's metadata contains instruction-like text (%s): data, not advice", side.word, strings.Join(side.t.flags, ", ")))
		}
		if side.t.impostor != "" {
			out = append(out, fmt.Sprintf("the %s token calls itself %q but is not %s: its mint is %s", side.word, strings.TrimSuffix(side.t.symbol, "?"), side.t.impostor, side.t.mint))
		}
	}
	for _, f := range authorityFlags {
		switch {
		case f.Kind == authority.FlagNoCap && v.sp.NoCapApplies:
		case f.Kind == authority.FlagInstructionLike:
		case slices.Contains(v.out.warnings, f.Text), slices.Contains(v.in.warnings, f.Text):
		default:
			out = append(out, f.Text)
		}
	}
	return out
}

type swapSide struct {
	word string
	t    tokenView
}

func (v *swapView) sides() []swapSide { return []swapSide{{"output", v.out}, {"input", v.in}} }

// noCapBanner says, before anything else, that the SOL caps do not bound
// this swap's input.
func (v *swapView) noCapBanner(s styles) string {
	words := "NO CAP APPLIES"
	if s.noColor {
		words = "[!! NO CAP APPLIES !!]"
	}
	return fmt.Sprintf("%s — the input is %s, not SOL: solgate's SOL caps do not limit how much of it this swap spends", words, v.in.symbol)
}

// describe adds a token's lines: symbol and full mint, its untrusted name
// and URI in quotes, and solgate's warnings about the mint.
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
		warn("⚠ " + w)
	}
}

// render adds the swap's own lines to the detail pane, after the status.
func (v *swapView) render(d *detail, c detailContext, p *authority.Proposal, field func(label, value string), warn func(text string)) {
	sp, pv := v.sp, v.sp.Preview
	field("Action", v.action())
	if p.Status == authority.StatusExecuted || p.Status == authority.StatusLosses {
		field("Received", fmt.Sprintf("%s (approved minimum %s, expected %s)",
			v.out.amount(sp.Received), tokenAmount(sp.Terms.MinimumOut, v.out.decimals), tokenAmount(pv.ExpectedOut, v.out.decimals)))
	}
	v.out.describe("Output", field, warn)
	// The Input line names what actually pays, as the effects of the exact
	// bytes show it: a swap API may pay "SOL" from the wallet's wrapped SOL.
	if v.in.sol && pv.PaidFrom != "" {
		field("Input", "SOL, paid from "+pv.PaidFrom)
	} else {
		v.in.describe("Input", field, warn)
		if pv.PaidFrom != "" {
			field("", "paid from "+pv.PaidFrom)
		}
	}
	route := "direct"
	if len(v.route) > 0 {
		route = strings.Join(v.route, " → ")
	}
	field("Terms", fmt.Sprintf("slippage %s%% (%d bps) · price impact %s%% (%d bps) · route %s",
		policy.FormatPercentBps(uint32(sp.Terms.SlippageBps)), sp.Terms.SlippageBps,
		policy.FormatPercentBps(sp.PriceImpactBps), sp.PriceImpactBps, route))
	if sp.NoCapApplies {
		field("Spend", fmt.Sprintf("%s (%s) of SOL leaves the wallet, for fees and rent; the %s input is bounded by no cap",
			sol(p.Spend), lamports(p.Spend), v.in.amount(sp.Terms.InAmount)))
	} else {
		field("Spend", fmt.Sprintf("%s (%s) leaves the wallet: input + fee + rent of accounts it creates", sol(p.Spend), lamports(p.Spend)))
	}
	fee := lamports(pv.Fee)
	if pv.PriorityFee > 0 {
		fee += fmt.Sprintf(", of which priority fee %s", grouped(pv.PriorityFee))
	}
	if pv.PriorityFeeSource != "" {
		// What approving binds, as for a transfer: the fee's upper bound.
		fee += fmt.Sprintf("; approval allows a priority fee up to %s", grouped(pv.MaxPriorityFee))
	}
	field("Fee", fee)

	// Columns align where they can; an amount is never cut to fit one.
	row := func(who, delta, pre, post string) string {
		return alignLeft(who, 21) + " " + alignRight(delta, 16) + "  " + pre + " → " + post
	}
	label := "Simulated"
	if w := pv.Wallet; w != (executor.BalanceChange{}) {
		field(label, row("wallet SOL", solSigned(w.Delta()), executor.FormatSOL(w.Pre), executor.FormatSOL(w.Post)))
		label = ""
	}
	for _, tc := range pv.Tokens {
		if t, ok := v.token(tc.Mint); ok {
			field(label, row("wallet "+t.symbol, tokenDelta(tc.Pre, tc.Post, t.decimals)+" "+t.symbol, tokenAmount(tc.Pre, t.decimals), tokenAmount(tc.Post, t.decimals)))
		} else {
			// A token the terms do not name: base units and the full mint.
			field(label, fmt.Sprintf("token account %s of mint %s: %s base units, %d → %d", tc.Account, tc.Mint, tokenDelta(tc.Pre, tc.Post, 0), tc.Pre, tc.Post))
		}
		label = ""
	}
	if pv.SimulatedOut > 0 {
		field(label, fmt.Sprintf("simulated output %s (minimum %s)", v.out.amount(pv.SimulatedOut), tokenAmount(sp.Terms.MinimumOut, v.out.decimals)))
	}

	instructions := pv.Instructions
	if len(instructions) == 0 {
		instructions = p.Preview.Instructions
	}
	if sp.Signed != nil {
		// From signing on, what matters is the transaction actually signed.
		instructions = sp.Signed.Instructions
	}
	d.instructions(c, instructions, field)
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
		return
	}
	field("SHA-256", sum)
}

// token finds which side of the swap a mint is.
func (v *swapView) token(mint solana.PublicKey) (tokenView, bool) {
	switch mint.String() {
	case v.out.mint:
		return v.out, true
	case v.in.mint:
		return v.in, true
	}
	return tokenView{}, false
}
