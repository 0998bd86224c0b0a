package policy

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
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
// percent decimals exist only in the TOML/flag parsing below.
type Config struct {
	AllowRecipients       []string // base58 public keys; empty refuses every transfer
	MaxLamportsPerTx      uint64
	MaxLamportsPerSession uint64
	MaxLamportsPerDay     uint64 // rolling 24 h; 0 = off
	AllowMainnet          bool
	// AllowUnknownNetwork allows writes on a cluster with an unrecognised
	// genesis hash served from another machine (flag --allow-unknown-network).
	AllowUnknownNetwork     bool
	AllowUncappedTokenSwaps bool
	MaxSlippageBps          uint32
	// MaxPriceImpactBps is the TOML/flag key max_price_impact_pct held in
	// basis points (1.5% = 150) so the limit is stored exactly; 0 = off.
	MaxPriceImpactBps uint32
	AllowMints        []string // empty = any mint not denied
	DenyMints         []string
	TokenDelivery     string // DeliveryAgent or DeliveryOperator
	BreakerDenials    int
	BreakerWindow     time.Duration
}

// DefaultConfig is the policy with no operator choices made: devnet-style
// caps, no recipients (so no transfer can pass until one is allowed), mainnet
// refused.
func DefaultConfig() Config {
	return Config{
		MaxLamportsPerTx:      DefaultMaxLamportsPerTx,
		MaxLamportsPerSession: DefaultMaxLamportsPerSession,
		MaxSlippageBps:        DefaultMaxSlippageBps,
		TokenDelivery:         DeliveryAgent,
		BreakerDenials:        DefaultBreakerDenials,
		BreakerWindow:         DefaultBreakerWindow,
	}
}

// ConfigError names the configuration key that was refused, so the console
// can print one actionable line and tests can check which key was blamed.
type ConfigError struct {
	Key string // TOML key, e.g. "max_sol_per_tx"
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
			return configErr("allow_recipients", "%q is not a Solana address: %v", a, err)
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
			return configErr("allow_mints", "%q is not a mint address: %v", m, err)
		}
	}
	for _, m := range c.DenyMints {
		if err := validAddress(m); err != nil {
			return configErr("deny_mints", "%q is not a mint address: %v", m, err)
		}
		if slices.Contains(c.AllowMints, m) {
			return configErr("deny_mints", "%s is also in allow_mints; a mint must be in one list only", m)
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

// LoadTOML reads a policy file over *into. Decoding is strict: an unknown key
// (a typo such as max_sol_per_transfer would otherwise be silently ignored
// and leave the default cap in force) is refused by name. Either the whole
// file applies and the result validates, or *into is left untouched.
func LoadTOML(path string, into *Config) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: read %s: %w", path, err)
	}
	var doc map[string]any
	if _, err := toml.Decode(string(raw), &doc); err != nil {
		return fmt.Errorf("config: parse %s: %w", path, err)
	}
	next := *into
	// Copy the slices so a failed load cannot alias into the caller's config.
	next.AllowRecipients = slices.Clone(into.AllowRecipients)
	next.AllowMints = slices.Clone(into.AllowMints)
	next.DenyMints = slices.Clone(into.DenyMints)

	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic: the same bad file always blames the same key first
	for _, k := range keys {
		if err := applyTOMLKey(&next, k, doc[k]); err != nil {
			return fmt.Errorf("%w (in %s)", err, path)
		}
	}
	if err := next.Validate(); err != nil {
		return fmt.Errorf("%w (in %s)", err, path)
	}
	*into = next
	return nil
}

// tomlKeys lists every key the file may hold, for the unknown-key message.
var tomlKeys = []string{
	"allow_mainnet", "allow_mints", "allow_recipients", "allow_uncapped_token_swaps",
	"deny_mints", "max_price_impact_pct", "max_slippage_bps", "max_sol_per_day",
	"max_sol_per_session", "max_sol_per_tx", "token_delivery",
}

func applyTOMLKey(c *Config, key string, v any) error {
	var err error
	switch key {
	case "allow_recipients":
		c.AllowRecipients, err = tomlStrings(key, v)
	case "allow_mints":
		c.AllowMints, err = tomlStrings(key, v)
	case "deny_mints":
		c.DenyMints, err = tomlStrings(key, v)
	case "max_sol_per_tx":
		c.MaxLamportsPerTx, err = tomlSOL(key, v)
	case "max_sol_per_session":
		c.MaxLamportsPerSession, err = tomlSOL(key, v)
	case "max_sol_per_day":
		c.MaxLamportsPerDay, err = tomlSOL(key, v)
	case "allow_mainnet":
		c.AllowMainnet, err = tomlBool(key, v)
	case "allow_uncapped_token_swaps":
		c.AllowUncappedTokenSwaps, err = tomlBool(key, v)
	case "max_slippage_bps":
		n, ok := v.(int64)
		if !ok || n < 0 || n > 10_000 {
			return configErr(key, "%s is not accepted; want a whole number of basis points from 0 to 10000 (300 = 3%%)", tomlShow(v))
		}
		c.MaxSlippageBps = uint32(n)
	case "max_price_impact_pct":
		c.MaxPriceImpactBps, err = tomlPercent(key, v)
	case "token_delivery":
		s, ok := v.(string)
		if !ok {
			return configErr(key, "%s is not accepted; want %q or %q", tomlShow(v), DeliveryAgent, DeliveryOperator)
		}
		c.TokenDelivery = s
	default:
		return configErr(key, "unknown key; accepted keys: %s", strings.Join(tomlKeys, ", "))
	}
	return err
}

func tomlShow(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

func tomlStrings(key string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, configErr(key, "%s is not accepted; want a list of base58 addresses, e.g. %s = [\"ADDR\"]", tomlShow(v), key)
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, configErr(key, "%s is not accepted; every entry must be a quoted base58 address", tomlShow(item))
		}
		out = append(out, s)
	}
	return out, nil
}

func tomlBool(key string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, configErr(key, "%s is not accepted; want true or false", tomlShow(v))
	}
	return b, nil
}

// maxExactFloatDigits: float64 round-trips every decimal of up to 15
// significant digits, so the shortest representation of such a TOML float is
// exactly the digits the operator wrote (0.1 → "0.1"). Every SOL amount
// below the sanity bound (at most 6+9 digits) fits.
const maxExactFloatDigits = 15

// tomlDecimalText recovers the decimal text of a TOML number. The TOML parser
// has already turned floats into float64, so the text is rebuilt with the
// shortest round-trip formatting and refused if that cannot be exact; a
// quoted string is always exact.
func tomlDecimalText(key string, v any, example string) (string, error) {
	switch n := v.(type) {
	case string:
		return n, nil
	case int64:
		if n < 0 {
			return "", configErr(key, "%d is negative; accepted: a non-negative number such as %s", n, example)
		}
		return strconv.FormatInt(n, 10), nil
	case float64:
		if n < 0 || math.Signbit(n) {
			return "", configErr(key, "%v is negative; accepted: a non-negative number such as %s", n, example)
		}
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return "", configErr(key, "%v is not a number; accepted: a non-negative number such as %s", n, example)
		}
		s := strconv.FormatFloat(n, 'f', -1, 64)
		if significantDigits(s) > maxExactFloatDigits {
			return "", configErr(key, "%s has more digits than a TOML float holds exactly; write it as a string, e.g. %s = \"%s\"", s, key, example)
		}
		return s, nil
	default:
		return "", configErr(key, "%s is not accepted; want a number such as %s", tomlShow(v), example)
	}
}

func significantDigits(s string) int {
	digits := strings.TrimLeft(strings.Replace(s, ".", "", 1), "0")
	if strings.Contains(s, ".") {
		return len(digits)
	}
	return len(strings.TrimRight(digits, "0"))
}

func tomlSOL(key string, v any) (uint64, error) {
	return tomlDecimal(key, v, "0.1", "a SOL amount such as 0.1", ParseSOL)
}

func tomlPercent(key string, v any) (uint32, error) {
	return tomlDecimal(key, v, "1.5", "a percentage from 0 (off) to 100", ParsePercentBps)
}

// tomlDecimal reads a non-negative decimal TOML value with parse; example
// and accepted word the errors.
func tomlDecimal[T any](key string, v any, example, accepted string, parse func(string) (T, error)) (T, error) {
	var zero T
	text, err := tomlDecimalText(key, v, example)
	if err != nil {
		return zero, err
	}
	if strings.HasPrefix(text, "-") {
		return zero, configErr(key, "%s is negative; accepted: %s", text, accepted)
	}
	out, err := parse(text)
	if err != nil {
		return zero, configErr(key, "%v", err)
	}
	return out, nil
}
