package policy

import (
	"errors"
	"testing"

	solana "github.com/gagliardetto/solana-go"
)

// addr returns a valid, distinct base58 public key for test n.
func addr(n byte) string {
	var b [32]byte
	for i := range b {
		b[i] = n
	}
	return solana.PublicKeyFromBytes(b[:]).String()
}

func TestDefaultConfigIsValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v", err)
	}
	if c.MaxLamportsPerTx != 100_000_000 || c.MaxLamportsPerSession != 1_000_000_000 || c.MaxLamportsPerDay != 0 ||
		c.AllowMainnet || c.AllowUnknownNetwork || c.AllowUncappedTokenSwaps || c.MaxSlippageBps != 300 || c.TokenDelivery != "agent" ||
		c.BreakerDenials != 5 || c.BreakerWindow.Seconds() != 60 || len(c.AllowRecipients) != 0 {
		t.Fatalf("unexpected defaults: %+v", c)
	}
}

// The settings table (cmd/solgate/settings.go) reads files, variables and
// flags into a Config; its tests are in cmd/solgate/settings_test.go. Here
// only what Validate checks across keys, which no single parser can.

func TestValidateRefusesProgrammaticMistakes(t *testing.T) {
	tests := []struct {
		key    string
		mutate func(*Config)
	}{
		{"max_sol_per_session", func(c *Config) { c.MaxLamportsPerSession = 0 }},
		{"max_sol_per_day", func(c *Config) { c.MaxLamportsPerDay = MaxSaneLamports + 1 }},
		{"max_sol_per_tx", func(c *Config) { c.MaxLamportsPerTx = MaxSaneLamports + 1; c.MaxLamportsPerSession = MaxSaneLamports }},
		{"max_slippage_bps", func(c *Config) { c.MaxSlippageBps = 10_001 }},
		{"max_price_impact_pct", func(c *Config) { c.MaxPriceImpactBps = 10_001 }},
		{"token_delivery", func(c *Config) { c.TokenDelivery = "" }},
		{"breaker_denials", func(c *Config) { c.BreakerDenials = 0 }},
		{"breaker_window", func(c *Config) { c.BreakerWindow = 0 }},
		{"deny_mint", func(c *Config) { c.DenyMints = []string{"0OIl"} }},
		{"deny_mint", func(c *Config) { c.AllowMints = []string{addr(5)}; c.DenyMints = []string{addr(5)} }},
		{"allow_mint", func(c *Config) { c.AllowMints = []string{"x"} }},
		{"allow_recipient", func(c *Config) { c.AllowRecipients = []string{"111"} }},
		{"max_sol_per_tx", func(c *Config) { c.MaxLamportsPerTx = 0 }},
		{"max_sol_per_tx", func(c *Config) { c.MaxLamportsPerTx = 2e9 }},
		{"max_sol_per_tx", func(c *Config) { c.MaxLamportsPerDay = 5e7 }},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		tt.mutate(&c)
		var ce *ConfigError
		if err := c.Validate(); !errors.As(err, &ce) || ce.Key != tt.key {
			t.Errorf("Validate after mutating %s = %v; want a ConfigError for that key", tt.key, err)
		}
	}
	var zero Config
	if err := zero.Validate(); err == nil {
		t.Errorf("the zero Config validated; it must not")
	}
}
