package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/solgate/solgate/policy"
)

// policyFlags are the console's policy settings as typed on the command line
// or in SOLGATE_* variables. SOL amounts stay strings until policy.ParseSOL
// turns them into exact lamports.
type policyFlags struct {
	config                  string
	allowRecipients         []string
	maxSOLPerTx             string
	maxSOLPerSession        string
	maxSOLPerDay            string
	allowMainnet            bool
	allowUnknownNetwork     bool
	allowUncappedTokenSwaps bool
	maxSlippageBps          uint32
	maxPriceImpactPct       string
	allowMints, denyMints   []string
	tokenDelivery           string
}

func (p *policyFlags) register(f *pflag.FlagSet) {
	f.StringVar(&p.config, "config", "", "TOML policy file (keys as the flags, with underscores: max_sol_per_tx = 0.1)")
	f.StringArrayVar(&p.allowRecipients, "allow-recipient", nil, "address transfers may go to (repeatable; none = every transfer refused)")
	f.StringVar(&p.maxSOLPerTx, "max-sol-per-tx", "0.1", "largest single spend, in SOL (fee included)")
	f.StringVar(&p.maxSOLPerSession, "max-sol-per-session", "1.0", "total spend while this console runs, in SOL")
	f.StringVar(&p.maxSOLPerDay, "max-sol-per-day", "0", "rolling 24-hour cap in SOL, kept across restarts (0 = off)")
	f.BoolVar(&p.allowMainnet, "allow-mainnet", false, "allow writes on mainnet-beta (real funds)")
	f.BoolVar(&p.allowUnknownNetwork, "allow-unknown-network", false, "allow writes on a cluster with an unrecognised genesis hash that is not on this machine")
	f.BoolVar(&p.allowUncappedTokenSwaps, "allow-uncapped-token-swaps", false, "allow swaps whose input is not SOL, which no SOL cap bounds")
	f.Uint32Var(&p.maxSlippageBps, "max-slippage-bps", policy.DefaultMaxSlippageBps, "largest slippage a swap may ask for, in basis points")
	f.StringVar(&p.maxPriceImpactPct, "max-price-impact-pct", "0", "largest price impact a swap may have, in percent (0 = off)")
	f.StringArrayVar(&p.allowMints, "allow-mint", nil, "mint swaps may use (repeatable; none = any mint not denied)")
	f.StringArrayVar(&p.denyMints, "deny-mint", nil, "mint swaps may never use (repeatable)")
	f.StringVar(&p.tokenDelivery, "token-delivery", policy.DeliveryAgent, "who receives approval tokens: agent (via proposal_status) or operator (shown only in the console)")
}

// build assembles the policy: defaults, then the TOML file, then every flag
// or SOLGATE_* variable that was set. It returns a whole valid config or an
// error naming the key; nothing is half-applied.
func (p *policyFlags) build(f *pflag.FlagSet) (policy.Config, error) {
	cfg := policy.DefaultConfig()
	if p.config != "" {
		if err := policy.LoadTOML(p.config, &cfg); err != nil {
			return policy.Config{}, err
		}
	}
	set := func(name string) bool { fl := f.Lookup(name); return fl != nil && fl.Changed }
	sol := func(flag, val string, into *uint64) error {
		if !set(flag) {
			return nil
		}
		l, err := policy.ParseSOL(val)
		if err != nil {
			return fmt.Errorf("--%s (%s): %v", flag, envName(flag), err)
		}
		*into = l
		return nil
	}
	if err := errors.Join(
		sol("max-sol-per-tx", p.maxSOLPerTx, &cfg.MaxLamportsPerTx),
		sol("max-sol-per-session", p.maxSOLPerSession, &cfg.MaxLamportsPerSession),
		sol("max-sol-per-day", p.maxSOLPerDay, &cfg.MaxLamportsPerDay),
	); err != nil {
		return policy.Config{}, err
	}
	if set("max-price-impact-pct") {
		bps, err := policy.ParsePercentBps(p.maxPriceImpactPct)
		if err != nil {
			return policy.Config{}, fmt.Errorf("--max-price-impact-pct (%s): %v", envName("max-price-impact-pct"), err)
		}
		cfg.MaxPriceImpactBps = bps
	}
	if set("allow-recipient") {
		cfg.AllowRecipients = p.allowRecipients
	}
	if set("allow-mint") {
		cfg.AllowMints = p.allowMints
	}
	if set("deny-mint") {
		cfg.DenyMints = p.denyMints
	}
	if set("allow-mainnet") {
		cfg.AllowMainnet = p.allowMainnet
	}
	if set("allow-unknown-network") {
		cfg.AllowUnknownNetwork = p.allowUnknownNetwork
	}
	if set("allow-uncapped-token-swaps") {
		cfg.AllowUncappedTokenSwaps = p.allowUncappedTokenSwaps
	}
	if set("max-slippage-bps") {
		cfg.MaxSlippageBps = p.maxSlippageBps
	}
	if set("token-delivery") {
		cfg.TokenDelivery = p.tokenDelivery
	}
	if err := cfg.Validate(); err != nil {
		return policy.Config{}, err
	}
	return cfg, nil
}

// defaultStateDir follows the XDG base directory convention (a relative
// XDG_STATE_HOME is invalid by that spec and ignored).
func defaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "solgate")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".solgate-state"
	}
	return filepath.Join(home, ".local", "state", "solgate")
}
