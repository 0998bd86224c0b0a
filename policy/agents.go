package policy

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
)

// Agent is one admitted agent user's own budget: its label and the policy
// it runs under, which is the console's narrowed by its config section.
// Every spend of the agent is judged twice, by its own Config against its
// own spend and by the console's Config against everyone's together, so an
// agent can never spend more than either allows.
type Agent struct {
	UID   uint32
	Label string
	// Config is the console's policy with this agent's section applied;
	// NarrowedFrom has checked that it admits nothing the console's does not.
	Config Config
	// NoGrants: the operator may not give this agent standing grants,
	// whatever the console allows others.
	NoGrants bool
}

// Owner is the agent as the ledger and the proposals name a user: the
// kernel's uid, "uid 1500".
func (a Agent) Owner() string { return OwnerOfUID(a.UID) }

// Name is how a denial and the console name the agent: "research (uid
// 1500)", or "uid 1500" when the section gave no label.
func (a Agent) Name() string {
	if a.Label == "" {
		return a.Owner()
	}
	return a.Label + " (" + a.Owner() + ")"
}

// OwnerOfUID spells a uid the way callers' owners are spelt.
func OwnerOfUID(uid uint32) string { return "uid " + strconv.FormatUint(uint64(uid), 10) }

// AgentFor finds the section of the user owner ("uid 1500").
func (c Config) AgentFor(owner string) (Agent, bool) {
	for _, a := range c.Agents {
		if a.Owner() == owner {
			return a, true
		}
	}
	return Agent{}, false
}

// NarrowedFrom refuses a section that would let the agent do something the
// console's own policy does not: a cap above the console's (or set where
// the console's day cap is off counts as narrowing; a day cap of 0, "off",
// under a console day cap would widen it), or an allowlist entry the
// console's list does not hold. The error is a ConfigError naming the key.
func (a Agent) NarrowedFrom(top Config) error {
	c := a.Config
	for _, k := range []struct {
		key       string
		own, tops uint64
		zeroOff   bool
	}{
		{"max_sol_per_tx", c.MaxLamportsPerTx, top.MaxLamportsPerTx, false},
		{"max_sol_per_session", c.MaxLamportsPerSession, top.MaxLamportsPerSession, false},
		{"max_sol_per_day", c.MaxLamportsPerDay, top.MaxLamportsPerDay, true},
	} {
		switch {
		case k.zeroOff && k.tops == 0:
			// The console has no day cap: any agent day cap narrows.
		case k.zeroOff && k.own == 0:
			return configErr(k.key, "0 (off) would lift the console's %s cap for this agent; a section can only narrow", describeLamports(k.tops))
		case k.own > k.tops:
			return configErr(k.key, "%s is above the console's %s; a section can only narrow the console's caps", describeLamports(k.own), describeLamports(k.tops))
		}
	}
	for _, l := range []struct {
		key       string
		own, tops []string
	}{
		{RuleRecipient, c.AllowRecipients, top.AllowRecipients},
		{RuleActionOrigin, c.AllowedActionOrigins, top.AllowedActionOrigins},
		{RuleX402Origin, c.AllowedX402Origins, top.AllowedX402Origins},
	} {
		for _, e := range l.own {
			if !slices.Contains(l.tops, e) {
				return configErr(l.key, "%s is not on the console's %s; a section can only admit what the console admits", e, l.key)
			}
		}
	}
	for _, l := range []struct {
		key       string
		own, tops []TokenCap
	}{
		{RuleTokenPerTx, c.MaxTokenPerTx, top.MaxTokenPerTx},
		{RuleTokenPerSession, c.MaxTokenPerSession, top.MaxTokenPerSession},
		{RuleTokenPerDay, c.MaxTokenPerDay, top.MaxTokenPerDay},
	} {
		for _, tc := range l.tops {
			own, ok := capFor(l.own, tc.Mint)
			if !ok {
				return configErr(l.key, "mint %s has no cap here, which would lift the console's %s; a section can only narrow", tc.Mint, tc.Amount.Text)
			}
			if err := atMost(own, tc.Amount); err != nil {
				return configErr(l.key, "mint %s: %v; a section can only narrow the console's caps", tc.Mint, err)
			}
		}
	}
	for id := range c.AllowedPrograms {
		if _, ok := top.AllowedPrograms[id]; !ok {
			return configErr("allow_program", "%s is not on the console's program allowlist; a section can only admit what the console admits", id)
		}
	}
	// An empty mint allowlist means "any mint not denied": a section's list
	// narrows it, but must still not name a mint the console refuses.
	for _, m := range c.AllowMints {
		if slices.Contains(top.DenyMints, m) || (len(top.AllowMints) > 0 && !slices.Contains(top.AllowMints, m)) {
			return configErr("allow_mint", "%s is not admitted by the console's mint lists; a section can only admit what the console admits", m)
		}
	}
	if len(top.AllowMints) > 0 && len(c.AllowMints) == 0 {
		return configErr("allow_mint", "an empty list would admit every mint the console's allow_mint does not hold")
	}
	return c.Validate()
}

// atMost checks that a section's token cap is no larger than the console's.
// Both must be written in the same units (both base units, or both with a
// decimal point): which is larger across units depends on the mint's
// decimals, which are not known at start.
func atMost(own, top TokenAmount) error {
	if own.Display() != top.Display() {
		return fmt.Errorf("%s and the console's %s are in different units (base units, or display units with a point); write both the same way", own.Text, top.Text)
	}
	o, _ := new(big.Rat).SetString(own.Text)
	t, _ := new(big.Rat).SetString(top.Text)
	if o == nil || t == nil {
		return fmt.Errorf("%s or %s is not a number", own.Text, top.Text)
	}
	if o.Cmp(t) > 0 {
		return fmt.Errorf("%s is above the console's %s", own.Text, top.Text)
	}
	return nil
}
