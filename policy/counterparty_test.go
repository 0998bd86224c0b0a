package policy

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The default program allowlist, spelled as the programs publish their ids
// (the Solana and SPL program documentation); never read from the product.
func TestDefaultProgramsArePublishedIDs(t *testing.T) {
	want := []string{
		"11111111111111111111111111111111",             // System Program
		"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",  // SPL Token
		"TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",  // Token-2022
		"ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL", // Associated Token Account
		"ComputeBudget111111111111111111111111111111",  // Compute Budget
		"MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",  // Memo (v2)
	}
	got := slices.Sorted(maps.Keys(DefaultConfig().AllowedPrograms))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("default programs\n got %v\nwant %v", got, want)
	}
	for id, label := range DefaultConfig().AllowedPrograms {
		if label == "" {
			t.Errorf("program %s has no label", id)
		}
	}
}

const unknownProgram = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"

// paysSelf is a proposal that pays the wallet itself and names other
// counterparties: pays-self must not waive them.
func paysSelf(cps ...Counterparty) Proposal {
	return Proposal{Tool: "sign_and_send_transaction", Fingerprint: "fp", ClientID: "claude", Network: NetworkDevnet,
		PaysSelf: true, Lamports: fee, Counterparties: cps}
}

func TestCounterpartiesEachNeedTheirOwnAllowlist(t *testing.T) {
	system := "11111111111111111111111111111111"
	tests := []evalCase{
		{name: "pays self calling a default program", p: paysSelf(Program(system)), allowed: true},
		{name: "pays self does not waive an unknown program", p: paysSelf(Program(system), Program(unknownProgram)),
			rule: RuleProgram, says: []string{unknownProgram, "--allow-program " + unknownProgram}},
		{name: "an allowed program passes", cfg: func(c *Config) { c.AllowedPrograms[unknownProgram] = "Jupiter v6" },
			p: paysSelf(Program(unknownProgram)), allowed: true},
		{name: "an empty program allowlist refuses even System", cfg: func(c *Config) { c.AllowedPrograms = nil },
			p: paysSelf(Program(system)), rule: RuleProgram},
		{name: "pays self does not waive an action origin", p: paysSelf(ActionOrigin("https://actions.example")),
			rule: RuleActionOrigin, says: []string{"https://actions.example", "--allow-action-origin"}},
		{name: "an allowed action origin passes, in canonical form", cfg: func(c *Config) { c.AllowedActionOrigins = []string{"HTTPS://Actions.Example:443"} },
			p: paysSelf(ActionOrigin("https://actions.example")), allowed: true},
		{name: "an action origin does not open the x402 list", cfg: func(c *Config) { c.AllowedActionOrigins = []string{"https://pay.example"} },
			p: paysSelf(X402Origin("https://pay.example")), rule: RuleX402Origin, says: []string{"--allow-x402-origin"}},
		{name: "a recipient allowlist does not admit a program", cfg: func(c *Config) { c.AllowRecipients = append(c.AllowRecipients, unknownProgram) },
			p: paysSelf(Program(unknownProgram)), rule: RuleProgram},
		{name: "another port is another origin", cfg: func(c *Config) { c.AllowedX402Origins = []string{"https://pay.example"} },
			p: paysSelf(X402Origin("https://pay.example:8443")), rule: RuleX402Origin},
		{name: "x402: origin allowed, payTo not", cfg: func(c *Config) { c.AllowedX402Origins = []string{"https://pay.example"} },
			p: func() Proposal {
				p := paysSelf(X402Origin("https://pay.example"), Recipient(addr(7)))
				p.PaysSelf = false
				return p
			}(), rule: RuleRecipient, says: []string{addr(7)}},
		// A payee the effects found (a wallet gaining what the wallet lost)
		// is held to the recipient allowlist once the operator set one, and
		// it never contradicts pays self (a swap may pay a wallet).
		{name: "a payee not on a set recipient allowlist", cfg: func(c *Config) { c.AllowRecipients = []string{addr(1)} },
			p: paysSelf(Program(system), Payee(addr(8))), rule: RuleRecipient, says: []string{addr(8), "--allow-recipient " + addr(8)}},
		{name: "a payee on the recipient allowlist", cfg: func(c *Config) { c.AllowRecipients = []string{addr(8)} },
			p: paysSelf(Program(system), Payee(addr(8))), allowed: true},
		{name: "a payee with no recipient allowlist set", cfg: func(c *Config) { c.AllowRecipients = nil },
			p: paysSelf(Program(system), Payee(addr(8))), allowed: true},
		{name: "pays self and a recipient contradict", p: paysSelf(Recipient(addr(1))), rule: RuleTool},
		{name: "a counterparty of unknown kind", p: paysSelf(Counterparty{Kind: "validator", ID: addr(3)}), rule: RuleTool, says: []string{"validator"}},
		{name: "no counterparty and not pays self", p: func() Proposal { p := paysSelf(); p.PaysSelf = false; return p }(), rule: RuleTool},
	}
	runEvalCases(t, tests)
}

func TestCanonicalOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Example.com":           "https://example.com",
		"https://example.com:443/a?b=c": "https://example.com",
		"http://127.0.0.1:8080/x":       "http://127.0.0.1:8080",
		"http://[::1]:80":               "http://[::1]",
	} {
		if got, err := CanonicalOrigin(in); err != nil || got != want {
			t.Errorf("CanonicalOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"ftp://example.com", "example.com", "https://", "https://user@example.com", "javascript:alert(1)"} {
		if got, err := CanonicalOrigin(bad); err == nil {
			t.Errorf("CanonicalOrigin(%q) = %q, want an error", bad, got)
		}
	}
}

func TestConfigRefusesBadCounterpartyLists(t *testing.T) {
	for key, set := range map[string]func(*Config){
		"allow_program":       func(c *Config) { c.AllowedPrograms["not-a-key"] = "x" },
		"allow_action_origin": func(c *Config) { c.AllowedActionOrigins = []string{"ftp://x.example"} },
		"allow_x402_origin":   func(c *Config) { c.AllowedX402Origins = []string{"no scheme"} },
	} {
		c := DefaultConfig()
		set(&c)
		var ce *ConfigError
		if err := c.Validate(); !errors.As(err, &ce) || ce.Key != key {
			t.Errorf("%s: got %v", key, err)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("the default config: %v", err)
	}
	if !strings.Contains(Program(unknownProgram).String(), "program") {
		t.Error("a counterparty names its kind")
	}
}

// A payment whose fee someone else pays (an x402 facilitator) moves no SOL
// from the wallet; it is measured by its token spend. Without that spend,
// or without saying who pays the fee, zero lamports is still "not
// measured".
func TestZeroSOLOutIsMeasuredOnlyWhenAnotherPaysTheFee(t *testing.T) {
	usdc := addr(20)
	pay := Proposal{Tool: "x402_fetch", Network: NetworkDevnet, FeePaidByOther: true, Lamports: 0,
		Tokens: []TokenSpend{{Mint: usdc, Amount: 10_000, Decimals: 6, DecimalsKnown: true}}}
	if v := checkMeasured(DefaultConfig(), pay, SpendState{}); !v.pass {
		t.Errorf("a facilitator-paid token payment: %+v", v.deny)
	}
	for name, p := range map[string]Proposal{
		"wallet pays the fee": func() Proposal { q := pay; q.FeePaidByOther = false; return q }(),
		"no token spend":      func() Proposal { q := pay; q.Tokens = nil; return q }(),
		"a zero token spend":  func() Proposal { q := pay; q.Tokens = []TokenSpend{{Mint: usdc}}; return q }(),
	} {
		if v := checkMeasured(DefaultConfig(), p, SpendState{}); v.pass {
			t.Errorf("%s: zero lamports passed as measured", name)
		}
	}
}

// A look-alike of an allowed recipient (same first and last four characters:
// address poisoning) is refused, and the refusal never offers the line that
// would allowlist it; a stranger that resembles nothing still gets that line.
func TestLookAlikeDenialNeverSuggestsAllowingIt(t *testing.T) {
	const friend = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
	const fake = "7xKXzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzgAsU"
	const stranger = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
	cfg := testConfig()
	cfg.AllowRecipients = []string{friend}
	p := Proposal{Tool: "transfer_sol", Fingerprint: "fp", ClientID: "claude", Network: NetworkDevnet,
		Lamports: 1000, Counterparties: []Counterparty{Recipient(fake)}}
	d := Evaluate(cfg, p, SpendState{})
	if d.Allowed || d.Rule != RuleRecipient || !strings.Contains(d.Reason, "address poisoning") || !strings.Contains(d.Reason, friend) {
		t.Fatalf("look-alike: %+v", d)
	}
	if strings.Contains(d.Reason, "--allow-recipient") {
		t.Fatalf("the look-alike's denial suggests allowlisting: %s", d.Reason)
	}
	p.Counterparties = []Counterparty{Recipient(stranger)}
	if d := Evaluate(cfg, p, SpendState{}); d.Allowed || !strings.Contains(d.Reason, "--allow-recipient "+stranger) {
		t.Fatalf("stranger: %+v", d)
	}
}
