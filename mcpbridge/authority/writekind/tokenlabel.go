package writekind

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/policy"
)

// TokenLabel is a mint as the human and the model see it. Name and Symbol
// are attacker-controlled text, sanitised; Flags name instruction-like
// content found in them; Warnings are solgate's own (authorities, extensions).
type TokenLabel struct {
	Mint     string
	Decimals uint8
	Name     string
	Symbol   string
	URI      string
	Flags    []string
	Warnings []executor.Warning
	// Network is the console's cluster: which mints are real (devnet has
	// its own USDC) depends on it.
	Network executor.Network
}

func IsSOL(mint solana.PublicKey) bool { return mint.Equals(executor.WrappedSOL) }

// PriceImpactBps converts Jupiter's priceImpactPct — a fraction despite its
// name ("0.0123" is 1.23 %) — to basis points, rounding up so a limit is
// never passed by rounding. Swap API v2's /build gives none: an unknown
// impact is 0 only while max_price_impact_pct (limitBps) is off; with a
// limit it cannot be held to, the quote is refused.
func PriceImpactBps(q *executor.Quote, limitBps uint32) (uint32, error) {
	if q.PriceImpactPct == "" {
		if limitBps > 0 {
			return 0, fmt.Errorf("the swap API gave no priceImpactPct (Swap API v2's /build does not), so max_price_impact_pct %s%% cannot be held; set it to 0 or use --swap-api-version 1", policy.FormatPercentBps(limitBps))
		}
		return 0, nil
	}
	f, err := q.PriceImpact()
	if err != nil {
		return 0, err
	}
	if f < 0 || math.IsNaN(f) {
		return 0, fmt.Errorf("price impact %q is not a non-negative number", q.PriceImpactPct)
	}
	bps := math.Ceil(f * 10_000)
	if bps > 10_000 {
		bps = 10_000
	}
	return uint32(bps), nil
}

// ImpactText names the price impact, or says the API gave none: an unknown
// impact is never shown as 0 %.
func ImpactText(bps uint32, unknown bool) string {
	if unknown {
		return "price impact not given by the swap API"
	}
	return "price impact " + policy.FormatPercentBps(bps) + "%"
}

// LabelOf is the label of a mint as read from the chain on network; text
// from the chain is sanitised here.
func LabelOf(info *executor.TokenInfo, network executor.Network) TokenLabel {
	mint := info.Mint
	l := TokenLabel{Mint: mint.String(), Decimals: info.Decimals, Warnings: info.Warnings, Network: network}
	if md := info.Metadata; md != nil {
		l.Name = untrusted.Sanitize(md.Name, 48)
		l.Symbol = untrusted.Sanitize(md.Symbol, 16)
		l.URI = untrusted.Sanitize(md.URI, 96)
		l.Flags = untrusted.Flags(md.Name + " " + md.Symbol + " " + md.URI)
		if w, ok := executor.ImpostorWarningOn(network, mint, l.Symbol, l.Name); ok {
			l.Warnings = append(slices.Clone(l.Warnings), w)
		}
	}
	return l
}

func (l TokenLabel) String() string {
	name := l.Symbol
	if name == "" {
		name = l.Mint[:4] + "…" + l.Mint[len(l.Mint)-4:]
	}
	return name
}

// Amount renders base units with the mint's decimals, without floats.
func (l TokenLabel) Amount(units uint64) string {
	s := fmt.Sprintf("%d", units)
	if l.Decimals == 0 {
		return s
	}
	d := int(l.Decimals)
	for len(s) <= d {
		s = "0" + s
	}
	whole, frac := s[:len(s)-d], strings.TrimRight(s[len(s)-d:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// SymbolText shows the token's own name for itself as the untrusted text
// it is.
func (t TokenLabel) SymbolText() string {
	if t.Symbol == "" && t.Name == "" {
		return "none (the mint has no metadata)"
	}
	return fmt.Sprintf("%q, name %q (untrusted text from the token's metadata)", t.Symbol, t.Name)
}
