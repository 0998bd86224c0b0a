package policy

import (
	"fmt"
	"slices"
	"time"

	solana "github.com/gagliardetto/solana-go"
)

// Token delivery modes: who carries the confirmation token from the console
// back into the conversation.
const (
	DeliveryAgent    = "agent"    // proposal_status hands the token to the agent
	DeliveryOperator = "operator" // only the human sees it and pastes it
)

// MaxSaneLamports bounds every SOL cap. A cap above a million SOL is not a
// limit at all and is far more likely a typo (a missing decimal point) than a
// wish, so it is refused instead of silently meaning "unlimited".
const MaxSaneLamports uint64 = 1_000_000 * LamportsPerSOL

// Defaults, in base units.
const (
	DefaultMaxLamportsPerTx      uint64 = 100_000_000   // 0.1 SOL
	DefaultMaxLamportsPerSession uint64 = 1_000_000_000 // 1 SOL
	DefaultMaxSlippageBps        uint32 = 300
	DefaultBreakerDenials               = 5
	DefaultBreakerWindow                = 60 * time.Second
)

// Config is the whole policy. It is a plain value: the console builds one at
// start (defaults, then TOML, then env and flags), validates it once, and
// hands copies to Evaluate. Amounts are lamports or basis points; SOL and
// percent decimals exist only where the console reads its settings
// (cmd/solgate/settings.go), through ParseSOL and ParsePercentBps.
type Config struct {
	AllowRecipients []string // base58 public keys; empty refuses every transfer
	// AllowedPrograms are the programs a proposal may call at top level,
	// id → label (shown in previews). DefaultConfig holds DefaultPrograms;
	// --allow-program adds to it.
	AllowedPrograms map[string]string
	// AllowedActionOrigins and AllowedX402Origins are origins
	// ("https://host[:port]") whose actions, or paid resources, may be
	// proposed; empty refuses every one.
	AllowedActionOrigins  []string
	AllowedX402Origins    []string
	MaxLamportsPerTx      uint64
	MaxLamportsPerSession uint64
	MaxLamportsPerDay     uint64 // rolling 24 h; 0 = off
	AllowMainnet          bool
	// AllowUnknownNetwork admits writes on a cluster whose genesis hash is
	// not a public one and whose RPC is not on loopback.
	AllowUnknownNetwork     bool
	AllowUncappedTokenSwaps bool
	// AllowUncappedTokenTransfers admits token transfers of a mint with
	// no per-mint cap.
	AllowUncappedTokenTransfers bool
	// X402PinPayTo holds every x402 payment's payTo to AllowRecipients;
	// off, payTo is shown and the x402 origin allowlist is the gate.
	X402PinPayTo bool
	// Per-mint caps (MINT=AMOUNT), for anything that spends the mint.
	MaxTokenPerTx      []TokenCap
	MaxTokenPerSession []TokenCap
	MaxTokenPerDay     []TokenCap
	MaxSlippageBps     uint32
	// MaxPriceImpactBps is the TOML/flag key max_price_impact_pct held in
	// basis points (1.5% = 150) so the limit is stored exactly; 0 = off.
	MaxPriceImpactBps uint32
	AllowMints        []string // empty = any mint not denied
	DenyMints         []string
	TokenDelivery     string // DeliveryAgent or DeliveryOperator
	BreakerDenials    int
	BreakerWindow     time.Duration
	// Agents are the per-agent sections ([[agent]] in the config file):
	// each admitted user's own, narrower budget. Empty: one budget for all.
	Agents []Agent
	// RequireAgentSections refuses writes from an admitted user that has
	// no section, instead of holding it to the console's policy alone.
	RequireAgentSections bool
}

// DefaultConfig is the policy with no operator choices made: devnet-style
// caps, no recipients (so no transfer can pass until one is allowed), mainnet
// refused.
func DefaultConfig() Config {
	return Config{
		MaxLamportsPerTx:      DefaultMaxLamportsPerTx,
		MaxLamportsPerSession: DefaultMaxLamportsPerSession,
		MaxSlippageBps:        DefaultMaxSlippageBps,
		AllowedPrograms:       DefaultPrograms(),
		TokenDelivery:         DeliveryAgent,
		BreakerDenials:        DefaultBreakerDenials,
		BreakerWindow:         DefaultBreakerWindow,
	}
}

// ConfigError names the configuration key that was refused, so the console
// can print one actionable line naming where that key was set, and tests can
// check which key was blamed.
type ConfigError struct {
	Key string // TOML spelling of the key, e.g. "max_sol_per_tx"
	Msg string
}

func (e *ConfigError) Error() string { return "config: " + e.Key + ": " + e.Msg }

func configErr(key, format string, args ...any) error {
	return &ConfigError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Validate refuses a policy that is inconsistent or cannot have been meant.
// It reports the first problem, named by its TOML key.
func (c Config) Validate() error {
	for _, a := range c.AllowRecipients {
		if err := validAddress(a); err != nil {
			return configErr("allow_recipient", "%q is not a Solana address: %v", a, err)
		}
	}
	for id := range c.AllowedPrograms {
		if err := validAddress(id); err != nil {
			return configErr("allow_program", "%q is not a program id: %v", id, err)
		}
	}
	for _, l := range []struct {
		key     string
		origins []string
	}{{RuleActionOrigin, c.AllowedActionOrigins}, {RuleX402Origin, c.AllowedX402Origins}} {
		for _, o := range l.origins {
			if _, err := CanonicalOrigin(o); err != nil {
				return configErr(l.key, "%v", err)
			}
		}
	}
	if err := checkCap("max_sol_per_tx", c.MaxLamportsPerTx, false); err != nil {
		return err
	}
	if err := checkCap("max_sol_per_session", c.MaxLamportsPerSession, false); err != nil {
		return err
	}
	if err := checkCap("max_sol_per_day", c.MaxLamportsPerDay, true); err != nil {
		return err
	}
	if c.MaxLamportsPerTx > c.MaxLamportsPerSession {
		return configErr("max_sol_per_tx", "%s is above max_sol_per_session (%s); a single transfer can never be larger than the whole session allows",
			describeLamports(c.MaxLamportsPerTx), describeLamports(c.MaxLamportsPerSession))
	}
	if c.MaxLamportsPerDay != 0 && c.MaxLamportsPerTx > c.MaxLamportsPerDay {
		return configErr("max_sol_per_tx", "%s is above max_sol_per_day (%s); lower it or raise the daily cap",
			describeLamports(c.MaxLamportsPerTx), describeLamports(c.MaxLamportsPerDay))
	}
	if c.MaxSlippageBps > 10_000 {
		return configErr("max_slippage_bps", "%d is above 10000 (100%%); accepted: 0 to 10000 basis points", c.MaxSlippageBps)
	}
	if c.MaxPriceImpactBps > 10_000 {
		return configErr("max_price_impact_pct", "%s%% is above 100%%; accepted: 0 (off) to 100", FormatPercentBps(c.MaxPriceImpactBps))
	}
	for _, m := range c.AllowMints {
		if err := validAddress(m); err != nil {
			return configErr("allow_mint", "%q is not a mint address: %v", m, err)
		}
	}
	for _, m := range c.DenyMints {
		if err := validAddress(m); err != nil {
			return configErr("deny_mint", "%q is not a mint address: %v", m, err)
		}
		if slices.Contains(c.AllowMints, m) {
			return configErr("deny_mint", "%s is also in allow_mint; a mint must be in one list only", m)
		}
	}
	for _, l := range []struct {
		key  string
		caps []TokenCap
	}{{RuleTokenPerTx, c.MaxTokenPerTx}, {RuleTokenPerSession, c.MaxTokenPerSession}, {RuleTokenPerDay, c.MaxTokenPerDay}} {
		seen := map[string]bool{}
		for _, tc := range l.caps {
			if _, err := ParseTokenCap(tc.String()); err != nil {
				return configErr(l.key, "%v", err)
			}
			if seen[tc.Mint] {
				return configErr(l.key, "mint %s is capped twice; give one amount per mint", tc.Mint)
			}
			seen[tc.Mint] = true
			if slices.Contains(c.DenyMints, tc.Mint) {
				return configErr(l.key, "mint %s is capped and also in deny_mint; a denied mint needs no cap", tc.Mint)
			}
		}
	}
	switch c.TokenDelivery {
	case DeliveryAgent, DeliveryOperator:
	default:
		return configErr("token_delivery", "%q is not a delivery mode; accepted: %q or %q", c.TokenDelivery, DeliveryAgent, DeliveryOperator)
	}
	if c.BreakerDenials < 1 {
		return configErr("breaker_denials", "%d denials cannot trip a breaker; accepted: 1 or more", c.BreakerDenials)
	}
	if c.BreakerWindow <= 0 {
		return configErr("breaker_window", "%s is not a window; accepted: a positive duration", c.BreakerWindow)
	}
	return nil
}

func checkCap(key string, lamports uint64, zeroMeansOff bool) error {
	if lamports == 0 && !zeroMeansOff {
		return configErr(key, "0 SOL would refuse every spend; accepted: more than 0 and at most %s SOL", FormatSOL(MaxSaneLamports))
	}
	if lamports > MaxSaneLamports {
		return configErr(key, "%s is above the sanity bound of %s SOL; this is almost certainly a typo", describeLamports(lamports), FormatSOL(MaxSaneLamports))
	}
	return nil
}

func validAddress(s string) error {
	_, err := solana.PublicKeyFromBase58(s)
	return err
}
