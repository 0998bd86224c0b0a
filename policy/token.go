package policy

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Token spends: a proposal that spends a mint other than SOL is bounded by
// the per-mint caps the operator set for that mint, or admitted uncapped by
// an explicit opt-in. A cap is written MINT=AMOUNT: AMOUNT in base units
// like the tools' amounts, or with a decimal point in the mint's display
// units, which needs the mint's decimals and so is resolved when a proposal
// of that mint is judged.

// TokenAmount is a cap amount as the operator wrote it: digits, with at most
// one decimal point. The zero value means "not set".
type TokenAmount struct {
	Text string
}

// ParseTokenAmount accepts "250000" (base units) or "0.25" (display units).
// Signs, exponents, separators and zero are refused.
func ParseTokenAmount(s string) (TokenAmount, error) {
	whole, frac, dot := strings.Cut(s, ".")
	switch {
	case s == "":
		return TokenAmount{}, errors.New("empty amount")
	case dot && (whole == "" || frac == ""):
		return TokenAmount{}, fmt.Errorf("%q: write digits on both sides of the point, e.g. 0.25", s)
	case !allDigits(whole) || !allDigits(frac):
		return TokenAmount{}, fmt.Errorf("%q is not a plain number (digits and at most one '.', no sign or exponent)", s)
	case len(frac) > 255:
		return TokenAmount{}, fmt.Errorf("%q has more decimals than any mint", s)
	}
	if strings.Trim(whole+frac, "0") == "" {
		return TokenAmount{}, fmt.Errorf("%q is zero, which would refuse every spend of the mint; to refuse the mint, use deny_mint", s)
	}
	if !dot {
		if _, err := strconv.ParseUint(whole, 10, 64); err != nil {
			return TokenAmount{}, fmt.Errorf("%q base units is above 2^64-1", s)
		}
	}
	return TokenAmount{Text: s}, nil
}

// Display reports whether the amount is in display units (has a point).
func (a TokenAmount) Display() bool { return strings.Contains(a.Text, ".") }

// BaseUnits is the amount in base units of a mint with the given decimals.
// A display amount finer than the mint's smallest unit is refused, never
// rounded: a cap must mean what it says.
func (a TokenAmount) BaseUnits(decimals uint8) (uint64, error) {
	whole, frac, _ := strings.Cut(a.Text, ".")
	if !a.Display() {
		return strconv.ParseUint(whole, 10, 64)
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > int(decimals) {
		return 0, fmt.Errorf("%s has %d decimals, but the mint has %d", a.Text, len(frac), decimals)
	}
	w, err := strconv.ParseUint(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is too large", a.Text)
	}
	scale := uint64(1)
	for i := 0; i < int(decimals); i++ {
		if scale > math.MaxUint64/10 {
			return 0, fmt.Errorf("%s is too large for a mint of %d decimals", a.Text, decimals)
		}
		scale *= 10
	}
	if w > math.MaxUint64/scale {
		return 0, fmt.Errorf("%s is too large for a mint of %d decimals", a.Text, decimals)
	}
	n := w * scale
	if frac != "" {
		f, err := strconv.ParseUint(frac+strings.Repeat("0", int(decimals)-len(frac)), 10, 64)
		if err != nil || n > math.MaxUint64-f {
			return 0, fmt.Errorf("%s is too large for a mint of %d decimals", a.Text, decimals)
		}
		n += f
	}
	if n == 0 {
		return 0, fmt.Errorf("%s is zero", a.Text)
	}
	return n, nil
}

// TokenCap is one MINT=AMOUNT setting.
type TokenCap struct {
	Mint   string
	Amount TokenAmount
}

func (c TokenCap) String() string { return c.Mint + "=" + c.Amount.Text }

// ParseTokenCap reads MINT=AMOUNT.
func ParseTokenCap(s string) (TokenCap, error) {
	mint, amount, ok := strings.Cut(s, "=")
	if !ok {
		return TokenCap{}, fmt.Errorf("%q is not MINT=AMOUNT", s)
	}
	if err := validAddress(mint); err != nil {
		return TokenCap{}, fmt.Errorf("%q: the mint is not a base58 address: %v", s, err)
	}
	if mint == NativeMint {
		return TokenCap{}, fmt.Errorf("%q: wrapped SOL is bounded by the SOL caps, not a token cap", s)
	}
	a, err := ParseTokenAmount(amount)
	if err != nil {
		return TokenCap{}, err
	}
	return TokenCap{Mint: mint, Amount: a}, nil
}

// capText shows a resolved cap as the operator wrote it and in base units.
func capText(limit uint64, a TokenAmount) string {
	if a.Display() {
		return fmt.Sprintf("%d base units (%s)", limit, a.Text)
	}
	return fmt.Sprintf("%d base units", limit)
}

// capFor finds mint's cap in a list.
func capFor(caps []TokenCap, mint string) (TokenAmount, bool) {
	for _, c := range caps {
		if c.Mint == mint {
			return c.Amount, true
		}
	}
	return TokenAmount{}, false
}

// TokenSpend is one non-SOL mint a proposal spends, as measured: Amount in
// base units (a token transfer's simulated decrease, a swap's approved
// input). Decimals come from the mint on chain; DecimalsKnown is false when
// they were not read, and then a display-unit cap cannot be applied.
type TokenSpend struct {
	Mint          string
	Amount        uint64
	Decimals      uint8
	DecimalsKnown bool
}

// TokenCapsFor lists the caps set on mint, as written ("" when unset):
// per transaction, per session, per day.
func (c Config) TokenCapsFor(mint string) (perTx, perSession, perDay string) {
	a, _ := capFor(c.MaxTokenPerTx, mint)
	b, _ := capFor(c.MaxTokenPerSession, mint)
	d, _ := capFor(c.MaxTokenPerDay, mint)
	return a.Text, b.Text, d.Text
}

// CappedMints lists every mint with at least one cap, in order of first mention.
func (c Config) CappedMints() []string {
	var out []string
	for _, l := range [][]TokenCap{c.MaxTokenPerTx, c.MaxTokenPerSession, c.MaxTokenPerDay} {
		for _, tc := range l {
			if !slices.Contains(out, tc.Mint) {
				out = append(out, tc.Mint)
			}
		}
	}
	return out
}

// TokenTotals are one mint's figures in the spend ledger, in base units.
type TokenTotals struct {
	SessionSpent, SessionReserved uint64
	DaySpent, DayReserved         uint64
}

// spendsToken reports whether some mint's measured out is above zero.
func (p Proposal) spendsToken() bool {
	for _, t := range p.Tokens {
		if t.Amount > 0 {
			return true
		}
	}
	return false
}

// checkTokenSpend: every non-SOL mint a proposal spends needs a per-mint cap
// that holds, or the uncapped opt-in. Each mint is judged on its own against
// its own caps and ledger totals; the first that fails is the answer, and
// the reason names it. A mint listed twice is refused rather than summed:
// a kind that did so has mis-measured, and two halves could each pass.
func checkTokenSpend(cfg Config, p Proposal, s SpendState) verdict {
	noCap := false
	var uncapped []string
	for i, t := range p.Tokens {
		for _, u := range p.Tokens[:i] {
			if u.Mint == t.Mint {
				return objection(RuleMints, false, "the proposal lists mint %s twice among its token spends, so it cannot be judged.", t.Mint)
			}
		}
		v := checkOneTokenSpend(cfg, p, s, t)
		if !v.pass {
			return v
		}
		if v.noCap {
			noCap, uncapped = true, append(uncapped, t.Mint)
		}
	}
	return verdict{pass: true, noCap: noCap, uncapped: uncapped}
}

func checkOneTokenSpend(cfg Config, p Proposal, s SpendState, t TokenSpend) verdict {
	if t.Mint == "" || t.Mint == NativeMint {
		return objection(RuleMints, false, "the token spend names no mint other than SOL, so it cannot be judged.")
	}
	perTx, hasTx := capFor(cfg.MaxTokenPerTx, t.Mint)
	perSession, hasSession := capFor(cfg.MaxTokenPerSession, t.Mint)
	perDay, hasDay := capFor(cfg.MaxTokenPerDay, t.Mint)
	if !hasTx && !hasSession && !hasDay {
		optIn, rule, flag, what := cfg.AllowUncappedTokenTransfers, RuleUncappedTransfer, "--allow-uncapped-token-transfers", "transfer"
		if p.Quote != nil {
			optIn, rule, flag, what = cfg.AllowUncappedTokenSwaps, RuleUncappedToken, "--allow-uncapped-token-swaps", "swap"
		}
		if optIn {
			return verdict{pass: true, noCap: true}
		}
		return objection(rule, false, "this %s spends token %s, which no per-mint cap bounds (the SOL caps do not measure tokens), so it is refused; the operator can set --max-token-per-tx %s=AMOUNT, or allow uncapped %ss with %s.",
			what, t.Mint, t.Mint, what, flag)
	}
	resolve := func(key string, a TokenAmount) (uint64, *verdict) {
		if a.Display() && !t.DecimalsKnown {
			v := objection(key, false, "the %s cap for %s is in display units (%s) but the mint's decimals were not read, so the cap cannot be applied.", key, t.Mint, a.Text)
			return 0, &v
		}
		n, err := a.BaseUnits(t.Decimals)
		if err != nil {
			v := objection(key, false, "the %s cap for %s cannot be applied: %v; the operator must fix the setting.", key, t.Mint, err)
			return 0, &v
		}
		return n, nil
	}
	tot := s.Tokens[t.Mint]
	if hasTx {
		limit, v := resolve(RuleTokenPerTx, perTx)
		if v != nil {
			return *v
		}
		if t.Amount > limit {
			return objection(RuleTokenPerTx, false, "this spends %d base units of %s, above the per-transaction cap of %s; a smaller amount may pass, this one will not.", t.Amount, t.Mint, capText(limit, perTx))
		}
	}
	if hasSession {
		limit, v := resolve(RuleTokenPerSession, perSession)
		if v != nil {
			return *v
		}
		used := addCapped(tot.SessionSpent, tot.SessionReserved)
		if addCapped(used, t.Amount) > limit {
			retryable := addCapped(tot.SessionSpent, t.Amount) <= limit
			return objection(RuleTokenPerSession, retryable, "this spends %d base units of %s, but the per-session cap is %s and %d is already spent or reserved (%d remaining).",
				t.Amount, t.Mint, capText(limit, perSession), used, limit-min(used, limit))
		}
	}
	if hasDay {
		limit, v := resolve(RuleTokenPerDay, perDay)
		if v != nil {
			return *v
		}
		used := addCapped(tot.DaySpent, tot.DayReserved)
		if addCapped(used, t.Amount) > limit {
			return objection(RuleTokenPerDay, false, "this spends %d base units of %s, but the rolling 24-hour cap is %s and %d is already spent or reserved in the last 24 hours (%d remaining); do not retry now.",
				t.Amount, t.Mint, capText(limit, perDay), used, limit-min(used, limit))
		}
	}
	return pass
}
