package policy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

func writeTOML(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultConfigIsValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v", err)
	}
	if c.MaxLamportsPerTx != 100_000_000 || c.MaxLamportsPerSession != 1_000_000_000 || c.MaxLamportsPerDay != 0 ||
		c.AllowMainnet || c.AllowUncappedTokenSwaps || c.MaxSlippageBps != 300 || c.TokenDelivery != "agent" ||
		c.BreakerDenials != 5 || c.BreakerWindow.Seconds() != 60 || len(c.AllowRecipients) != 0 {
		t.Fatalf("unexpected defaults: %+v", c)
	}
}

func TestLoadTOMLExactAmounts(t *testing.T) {
	p := writeTOML(t, `
allow_recipients = ["`+addr(1)+`", "`+addr(2)+`"]
max_sol_per_tx = 0.1
max_sol_per_session = "0.7"
max_sol_per_day = 3
allow_mainnet = true
allow_uncapped_token_swaps = true
max_slippage_bps = 50
max_price_impact_pct = 1.5
allow_mints = ["`+addr(3)+`"]
deny_mints = ["`+addr(4)+`"]
token_delivery = "operator"
`)
	c := DefaultConfig()
	if err := LoadTOML(p, &c); err != nil {
		t.Fatalf("LoadTOML: %v", err)
	}
	want := DefaultConfig()
	want.AllowRecipients = []string{addr(1), addr(2)}
	want.MaxLamportsPerTx = 100_000_000 // exactly, not 99999999 from float rounding
	want.MaxLamportsPerSession = 700_000_000
	want.MaxLamportsPerDay = 3_000_000_000
	want.AllowMainnet = true
	want.AllowUncappedTokenSwaps = true
	want.MaxSlippageBps = 50
	want.MaxPriceImpactBps = 150
	want.AllowMints = []string{addr(3)}
	want.DenyMints = []string{addr(4)}
	want.TokenDelivery = "operator"
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("LoadTOML got\n%+v\nwant\n%+v", c, want)
	}
}

// Floats whose nearest binary value sits below the decimal are the classic
// trap: 0.29 SOL * 1e9 in float64 is 289999999.99999994.
func TestLoadTOMLFloatsConvertExactly(t *testing.T) {
	for text, want := range map[string]uint64{
		"0.29": 290_000_000, "0.57": 570_000_000, "1.005": 1_005_000_000,
		"0.000000001": 1, "999999.999999999": 999_999_999_999_999, "4.35": 4_350_000_000,
	} {
		p := writeTOML(t, "max_sol_per_session = 1000000\nmax_sol_per_day = "+text+"\nmax_sol_per_tx = 0.000000001\n")
		c := DefaultConfig()
		if err := LoadTOML(p, &c); err != nil {
			t.Fatalf("max_sol_per_day = %s: %v", text, err)
		}
		if c.MaxLamportsPerDay != want {
			t.Errorf("max_sol_per_day = %s → %d lamports, want %d", text, c.MaxLamportsPerDay, want)
		}
	}
}

func TestBadConfigRefusedNamingKey(t *testing.T) {
	tests := []struct {
		name, body, key, says string
	}{
		{"unknown key", `max_sol_per_transfer = 0.1`, "max_sol_per_transfer", "unknown key"},
		{"unknown table", "[limits]\nmax = 1", "limits", "unknown key"},
		{"negative cap int", `max_sol_per_tx = -1`, "max_sol_per_tx", "negative"},
		{"negative cap float", `max_sol_per_session = -0.5`, "max_sol_per_session", "negative"},
		{"negative cap string", `max_sol_per_day = "-0.5"`, "max_sol_per_day", "negative"},
		{"zero per-tx cap", `max_sol_per_tx = 0`, "max_sol_per_tx", "refuse every spend"},
		{"invalid recipient", `allow_recipients = ["not-an-address"]`, "allow_recipients", "not a Solana address"},
		{"short recipient", `allow_recipients = ["111"]`, "allow_recipients", "not a Solana address"},
		{"recipients not a list", `allow_recipients = "` + addr(1) + `"`, "allow_recipients", "list"},
		{"cap above sanity bound", `max_sol_per_session = 2000000`, "max_sol_per_session", "sanity bound"},
		{"per-tx above per-session", "max_sol_per_tx = 2\nmax_sol_per_session = 1", "max_sol_per_tx", "above max_sol_per_session"},
		{"per-tx above per-day", "max_sol_per_tx = 0.5\nmax_sol_per_day = 0.2", "max_sol_per_tx", "above max_sol_per_day"},
		{"too many decimals", `max_sol_per_tx = "0.0000000001"`, "max_sol_per_tx", "decimals"},
		{"float needing more than 15 digits", `max_sol_per_day = 0.1234567891234567`, "max_sol_per_day", "write it as a string"},
		{"cap is a bool", `max_sol_per_tx = true`, "max_sol_per_tx", "want a number"},
		{"bad delivery", `token_delivery = "email"`, "token_delivery", `"agent" or "operator"`},
		{"slippage negative", `max_slippage_bps = -5`, "max_slippage_bps", "0 to 10000"},
		{"slippage float", `max_slippage_bps = 1.5`, "max_slippage_bps", "whole number"},
		{"price impact over 100", `max_price_impact_pct = 150`, "max_price_impact_pct", "more than 100%"},
		{"price impact 3 decimals", `max_price_impact_pct = "1.125"`, "max_price_impact_pct", "at most 2"},
		{"bad mint", `allow_mints = ["x"]`, "allow_mints", "not a mint address"},
		{"mint in both lists", `allow_mints = ["` + addr(5) + `"]` + "\n" + `deny_mints = ["` + addr(5) + `"]`, "deny_mints", "one list only"},
		{"mainnet not a bool", `allow_mainnet = "yes"`, "allow_mainnet", "true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTOML(t, tt.body)
			c := DefaultConfig()
			c.AllowRecipients = []string{addr(9)}
			before := DefaultConfig()
			before.AllowRecipients = []string{addr(9)}
			err := LoadTOML(p, &c)
			if err == nil {
				t.Fatalf("LoadTOML accepted %q", tt.body)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Key != tt.key {
				t.Fatalf("error %q does not blame key %q", err, tt.key)
			}
			if !strings.Contains(err.Error(), "config: "+tt.key+": ") || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %q: want it to start with config: %s: and say %q", err, tt.key, tt.says)
			}
			if !reflect.DeepEqual(c, before) {
				t.Fatalf("a refused file changed the config:\n%+v\nwas\n%+v", c, before)
			}
		})
	}
}

func TestLoadTOMLSyntaxAndMissingFile(t *testing.T) {
	c := DefaultConfig()
	if err := LoadTOML(filepath.Join(t.TempDir(), "nope.toml"), &c); err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Fatalf("missing file: %v", err)
	}
	if err := LoadTOML(writeTOML(t, "max_sol_per_tx = = 1"), &c); err == nil || !strings.Contains(err.Error(), "config: parse") {
		t.Fatalf("syntax error: %v", err)
	}
	if !reflect.DeepEqual(c, DefaultConfig()) {
		t.Fatalf("failed loads changed the config: %+v", c)
	}
}

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
		{"deny_mints", func(c *Config) { c.DenyMints = []string{"0OIl"} }},
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
