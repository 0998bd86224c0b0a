// Package policy decides whether a proposed spend may happen. It is the part
// of solgate that makes it safe to let a model hold a signing key: rules run
// here, in code the conversation cannot reach, and deny by default.
//
//   - Config (config.go): the operator's limits, from defaults, TOML and flags.
//   - Evaluate (evaluate.go): a pure function from (Config, Proposal,
//     SpendState) to a Decision.
//   - Spend (spend.go): the ledger that checks and reserves atomically and
//     settles, releases or keeps reservations as outcomes become known.
//   - Breaker (breaker.go): stops an agent from hammering a wall.
//   - store (policy/store): the SQLite state and hash-chained audit trail.
//
// The package does no network I/O.
package policy

import (
	"errors"
	"fmt"
	"strings"

	solana "github.com/gagliardetto/solana-go"
)

// Networks as reported by the executor from getGenesisHash and the RPC URL.
const (
	NetworkMainnet  = "mainnet-beta"
	NetworkDevnet   = "devnet"
	NetworkTestnet  = "testnet"
	NetworkLocalnet = "localnet" // unrecognised genesis hash on a loopback RPC
	NetworkUnknown  = "unknown"  // unrecognised genesis hash anywhere else
	// NetworkUnidentified: the genesis hash could not be read.
	NetworkUnidentified = "unidentified"
)

// NativeMint is wrapped SOL, the mint swap routes use for SOL itself
// (solana-go's SolMint; executor/facts_test.go checks it).
var NativeMint = solana.SolMint.String()

// Rule names, as they appear in a Decision and in the tool result the model
// reads. Where a rule maps to one setting, it is named after that setting so
// the operator knows what to change.
const (
	RuleTool          = "tool"
	RuleMeasured      = "measured_spend"
	RuleNetwork       = "network"
	RuleRecipient     = "allow_recipient"
	RulePerTx         = "max_sol_per_tx"
	RulePerSession    = "max_sol_per_session"
	RulePerDay        = "max_sol_per_day"
	RuleMints         = "mints"
	RuleUncappedToken = "allow_uncapped_token_swaps"
	// RuleUncappedTransfer: a token spend without a quote and without a cap.
	RuleUncappedTransfer = "allow_uncapped_token_transfers"
	RuleTokenPerTx       = "max_token_per_tx"
	RuleTokenPerSession  = "max_token_per_session"
	RuleTokenPerDay      = "max_token_per_day"
	RuleSlippage         = "max_slippage_bps"
	RulePriceImpact      = "max_price_impact_pct"
	RuleBreaker          = "retry_breaker"
	RuleLedger           = "spend_ledger" // the ledger could not hold the spend
	RuleAmount           = "amount"       // a sum of amounts does not fit in 64 bits
	// RuleAgent: an admitted user without the [[agent]] section the
	// console requires (require_agent_sections).
	RuleAgent = "require_agent_sections"
)

// Proposal is what the policy judges: the facts of what a transaction does,
// measured by simulation, never the figures the model asked for. Rules apply
// by these facts (capabilities), not by tool name, so a new kind of spend
// meets every rule its facts call for. The zero value is denied.
type Proposal struct {
	Tool        string // for audit text only
	Fingerprint string
	ClientID    string
	// Agent is the user that proposed, by the kernel's word ("uid 1500"):
	// its [[agent]] section, if any, judges the proposal too, and its
	// spend counts against its own budget. "" inside the console.
	Agent   string
	Network string // one of the Network* constants
	// Counterparties are every third party the proposal deals with: its
	// payee, the programs it calls, the origin it came from (see
	// counterparty.go). Each must be on its kind's allowlist.
	Counterparties []Counterparty
	// PaysSelf says that no payee is named: the value comes back to the
	// wallet (a swap). A proposal with no counterparty must say so; one
	// that says so cannot also name a recipient. It waives nothing else.
	PaysSelf bool
	// Lamports is the SOL that leaves the wallet: amounts + fee + rent of
	// accounts it creates.
	Lamports uint64
	// FeePaidByOther says the transaction's fee payer is not the wallet (an
	// x402 facilitator pays it): zero SOL out is then a measure rather than
	// a skipped simulation, provided a token spend was measured.
	FeePaidByOther bool
	// Mints are the non-SOL mints the proposal touches, in or out; they go
	// through the mint allow and deny lists.
	Mints []string
	// Tokens are the non-SOL mints the proposal spends, one entry per
	// mint (empty: it spends only SOL); each needs its own per-mint cap or
	// the uncapped opt-in.
	Tokens []TokenSpend
	// Quote is set for a proposal priced by a quote (a swap).
	Quote *QuoteFacts
}

// QuoteFacts are the terms of a quoted trade.
type QuoteFacts struct {
	SlippageBps    uint32
	PriceImpactBps uint32
}

// SpendState is the ledger as the policy sees it at one instant. Reserved
// amounts are spends approved but not yet settled; they count in full
// because they may still land.
type SpendState struct {
	SessionSpent, SessionReserved uint64
	DaySpent, DayReserved         uint64
	// Tokens are the same figures per mint, in base units.
	Tokens map[string]TokenTotals
}

// Decision is the policy's answer. A zero Decision is a denial.
type Decision struct {
	Allowed   bool
	Rule      string // the rule that objected; empty when allowed
	Reason    string // a sentence the model can act on
	Retryable bool   // false: retrying in this session cannot succeed
	// NoCapApplies is set on an allowed proposal that spends a token no
	// per-mint cap bounds (admitted by an uncapped opt-in); the preview must
	// say so plainly.
	NoCapApplies bool
	// UncappedMints name the mints NoCapApplies is about, comma-separated
	// (a string keeps Decision comparable), so a preview of a spend of
	// several mints can say which one no cap bounds.
	UncappedMints string
	// Imitates is the allowlisted address a refused recipient looks like
	// (address poisoning); the reason already says so.
	Imitates string
}

// Sentinel errors, reachable through Decision.Err, for callers that want to
// branch with errors.Is instead of on rule names.
var (
	ErrDenied      = errors.New("denied by policy")
	ErrCapExceeded = errors.New("spend cap exceeded")
)

// Err returns nil for an allowed decision, otherwise an error wrapping
// ErrDenied, and ErrCapExceeded as well when a cap objected.
func (d Decision) Err() error {
	if d.Allowed {
		return nil
	}
	switch d.Rule {
	case RulePerTx, RulePerSession, RulePerDay, RuleTokenPerTx, RuleTokenPerSession, RuleTokenPerDay:
		return fmt.Errorf("%w: %w: %s: %s", ErrDenied, ErrCapExceeded, d.Rule, d.Reason)
	}
	return fmt.Errorf("%w: %s: %s", ErrDenied, d.Rule, d.Reason)
}

// AmountTooLarge is the plain denial for amounts whose sum (amount + fee,
// + rent) does not fit in 64 bits: such a sum must never wrap into a small
// number that passes the caps. what names the amount, e.g. "lamports".
func AmountTooLarge(what string, amount uint64) Decision {
	return Decision{Rule: RuleAmount, Retryable: false,
		Reason: fmt.Sprintf("amount too large: %s %d plus fees does not fit in 64 bits, and no wallet holds that much; ask for a smaller amount.", what, amount)}
}

// verdict is one rule's answer. Its zero value is an objection, so a rule
// that forgets to answer denies instead of waving the proposal through.
type verdict struct {
	pass     bool
	noCap    bool
	uncapped []string // the mints noCap is about
	deny     Decision
}

var pass = verdict{pass: true}

func objection(rule string, retryable bool, format string, args ...any) verdict {
	return verdict{deny: Decision{Rule: rule, Reason: fmt.Sprintf(format, args...), Retryable: retryable}}
}

type rule struct {
	name  string
	check func(cfg Config, p Proposal, s SpendState) verdict
}

// rules run in this order; the first objection is the answer. The order puts
// what can never change (tool, network, recipient) before amounts, so the
// model is told the most fundamental reason first.
var rules = []rule{
	{RuleTool, checkTool},
	{RuleMeasured, checkMeasured},
	{RuleNetwork, checkNetwork},
	{RuleRecipient, checkCounterparties},
	{RulePerTx, checkPerTx},
	{RulePerSession, checkPerSession},
	{RulePerDay, checkPerDay},
	{RuleMints, checkMints},
	{RuleUncappedToken, checkTokenSpend},
	{RuleSlippage, checkSlippage},
	{RulePriceImpact, checkPriceImpact},
}

// Evaluate judges p against cfg given the ledger state s. It is pure: no
// clock, no I/O, no globals that change. Deny by default: the only allowed
// outcome is the explicit one at the end, reached after every rule in the
// list has passed.
func Evaluate(cfg Config, p Proposal, s SpendState) Decision {
	noCap := false
	var uncapped []string
	for _, r := range rules {
		v := r.check(cfg, p, s)
		if !v.pass {
			d := v.deny
			d.Allowed = false
			if d.Rule == "" {
				d.Rule = r.name
			}
			if d.Reason == "" {
				d.Reason = "rule " + r.name + " gave no answer, so the proposal is denied by default."
			}
			return d
		}
		noCap = noCap || v.noCap
		uncapped = append(uncapped, v.uncapped...)
	}
	reason := "allowed: every policy rule passed."
	if noCap {
		reason = "allowed: every policy rule passed. No cap applies: this spends a token that no per-mint cap bounds, and the SOL caps do not measure tokens."
	}
	return Decision{Allowed: true, Reason: reason, NoCapApplies: noCap, UncappedMints: strings.Join(uncapped, ", ")}
}

// checkTool refuses a proposal that does not say where its value goes: a
// kind of spend that forgot to state its counterparties must not slip past
// the allowlists.
func checkTool(_ Config, p Proposal, _ SpendState) verdict {
	if p.PaysSelf && len(p.Recipients()) > 0 {
		return objection(RuleTool, false, "the %q proposal claims both a recipient and to pay the wallet itself, so it cannot be judged.", p.Tool)
	}
	if len(p.Counterparties) == 0 && !p.PaysSelf {
		return objection(RuleTool, false, "the %q proposal states no recipient or other counterparty, so the policy cannot judge it.", p.Tool)
	}
	for _, c := range p.Counterparties {
		if c.ID == "" {
			return objection(RuleTool, false, "the %q proposal states no recipient (its %s counterparty is blank), so the policy cannot judge it.", p.Tool, c.Kind)
		}
	}
	return pass
}

// Recipients are the proposal's recipient counterparties' addresses.
func (p Proposal) Recipients() []string {
	var out []string
	for _, c := range p.Counterparties {
		if c.Kind == CounterpartyRecipient {
			out = append(out, c.ID)
		}
	}
	return out
}

// checkMeasured refuses a proposal whose spend was never measured. Every real
// transaction pays a fee, so zero lamports means the caller skipped the
// simulation — and a cap check against zero would pass anything.
func checkMeasured(_ Config, p Proposal, _ SpendState) verdict {
	if p.Lamports == 0 && !(p.FeePaidByOther && p.spendsToken()) {
		return objection(RuleMeasured, false, "the SOL this transaction spends was not measured (0 lamports); solgate will not judge an unsimulated transaction.")
	}
	return pass
}

func checkNetwork(cfg Config, p Proposal, _ SpendState) verdict {
	switch p.Network {
	case NetworkDevnet, NetworkTestnet, NetworkLocalnet:
		return pass
	case NetworkMainnet:
		if cfg.AllowMainnet {
			return pass
		}
		return objection(RuleNetwork, false, "the console is connected to mainnet-beta, where real money moves, and mainnet writes are off; the operator must restart the console with --allow-mainnet to allow them.")
	case NetworkUnknown:
		if cfg.AllowUnknownNetwork {
			return pass
		}
		return objection(RuleNetwork, false, "the console is connected to an unknown network: its genesis hash is none of the public clusters' and its RPC is not on this machine, so its funds may be real and writes are off; the operator must restart the console with --allow-unknown-network to allow them.")
	case NetworkUnidentified, "":
		return objection(RuleNetwork, false, "the network could not be identified (the node's genesis hash could not be read), so no write is allowed.")
	}
	return objection(RuleNetwork, false, "the network %q is not one solgate knows, so no write is allowed.", p.Network)
}

func checkPerTx(cfg Config, p Proposal, _ SpendState) verdict {
	if p.Lamports <= cfg.MaxLamportsPerTx {
		return pass
	}
	return objection(RulePerTx, false, "this transaction would spend %s including fees, above the per-transaction cap of %s; a smaller amount may pass, this one will not.",
		describeLamports(p.Lamports), describeLamports(cfg.MaxLamportsPerTx))
}

// addCapped adds without wrapping: a ledger total near the top of uint64
// must read as "over any cap", never as a small number.
func addCapped(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

func checkPerSession(cfg Config, p Proposal, s SpendState) verdict {
	committed := addCapped(s.SessionSpent, s.SessionReserved)
	if addCapped(committed, p.Lamports) <= cfg.MaxLamportsPerSession {
		return pass
	}
	remaining := uint64(0)
	if committed < cfg.MaxLamportsPerSession {
		remaining = cfg.MaxLamportsPerSession - committed
	}
	// If settled spend alone leaves room, the wall is made of reservations
	// still in flight; one of them may be released, so a later retry could
	// pass. Otherwise the session's budget is simply used up.
	retryable := addCapped(s.SessionSpent, p.Lamports) <= cfg.MaxLamportsPerSession
	why := "retrying in this session will not succeed."
	if retryable {
		why = "part of the budget is held by spends still in flight; it frees only if one of them does not land."
	}
	return objection(RulePerSession, retryable, "this transaction would spend %s including fees, but the per-session cap is %s and %s is already spent or reserved (%s remaining); %s",
		describeLamports(p.Lamports), describeLamports(cfg.MaxLamportsPerSession), describeLamports(committed), describeLamports(remaining), why)
}

func checkPerDay(cfg Config, p Proposal, s SpendState) verdict {
	if cfg.MaxLamportsPerDay == 0 {
		return pass // off
	}
	committed := addCapped(s.DaySpent, s.DayReserved)
	if addCapped(committed, p.Lamports) <= cfg.MaxLamportsPerDay {
		return pass
	}
	remaining := uint64(0)
	if committed < cfg.MaxLamportsPerDay {
		remaining = cfg.MaxLamportsPerDay - committed
	}
	return objection(RulePerDay, false, "this transaction would spend %s including fees, but the rolling 24-hour cap is %s and %s is already spent or reserved in the last 24 hours (%s remaining); budget returns only as earlier spends age out of the window, so do not retry now.",
		describeLamports(p.Lamports), describeLamports(cfg.MaxLamportsPerDay), describeLamports(committed), describeLamports(remaining))
}

func checkMints(cfg Config, p Proposal, _ SpendState) verdict {
	var mints []string
	for _, t := range p.Tokens {
		mints = append(mints, t.Mint)
	}
	mints = append(mints, p.Mints...)
	for _, m := range mints {
		if m == "" {
			return objection(RuleMints, false, "a mint the proposal touches is not named, so it cannot be judged.")
		}
		for _, d := range cfg.DenyMints {
			if d == m {
				return objection(RuleMints, false, "mint %s is on the operator's deny list; nothing that moves it will be allowed.", m)
			}
		}
		if len(cfg.AllowMints) == 0 || m == NativeMint {
			continue
		}
		allowed := false
		for _, a := range cfg.AllowMints {
			if a == m {
				allowed = true
				break
			}
		}
		if !allowed {
			return objection(RuleMints, false, "mint %s is not on the operator's mint allowlist; the operator can add it with --allow-mint %s.", m, m)
		}
	}
	return pass
}

func checkSlippage(cfg Config, p Proposal, _ SpendState) verdict {
	if p.Quote == nil || p.Quote.SlippageBps <= cfg.MaxSlippageBps {
		return pass
	}
	return objection(RuleSlippage, true, "slippage of %d bps is above the limit of %d bps; ask again with slippage_bps at or below %d.", p.Quote.SlippageBps, cfg.MaxSlippageBps, cfg.MaxSlippageBps)
}

func checkPriceImpact(cfg Config, p Proposal, _ SpendState) verdict {
	if p.Quote == nil || cfg.MaxPriceImpactBps == 0 || p.Quote.PriceImpactBps <= cfg.MaxPriceImpactBps {
		return pass
	}
	return objection(RulePriceImpact, true, "the quote's price impact of %s%% is above the limit of %s%%; a smaller amount moves the price less.",
		FormatPercentBps(p.Quote.PriceImpactBps), FormatPercentBps(cfg.MaxPriceImpactBps))
}
