package policy

import (
	"errors"
	"strings"
	"testing"
)

const fee = 5000 // lamports per signature

func transfer(to string, lamports uint64) Proposal {
	return Proposal{Tool: "transfer_sol", Fingerprint: "fp-" + to, ClientID: "claude", Network: NetworkDevnet, Counterparties: []Counterparty{Recipient(to)}, Lamports: lamports}
}

func swap(in, out string, lamports uint64) Proposal {
	p := Proposal{Tool: "swap", ClientID: "claude", Network: NetworkDevnet, Lamports: lamports, PaysSelf: true,
		Quote: &QuoteFacts{SlippageBps: 50, PriceImpactBps: 10}}
	for _, m := range []string{in, out} {
		if m != NativeMint {
			p.Mints = append(p.Mints, m)
		}
	}
	if in != NativeMint {
		p.Tokens = []TokenSpend{{Mint: in, Amount: 1_000_000, Decimals: 6, DecimalsKnown: true}}
	}
	return p
}

func testConfig() Config {
	c := DefaultConfig()
	c.AllowRecipients = []string{addr(1)}
	return c
}

func TestEvaluateRules(t *testing.T) {
	usdc, bonk, scam := addr(20), addr(21), addr(22)
	tests := []evalCase{
		{name: "allowlisted transfer under every cap", p: transfer(addr(1), 50_000_000+fee), allowed: true},
		{name: "unknown tool", p: Proposal{Tool: "close_account", Network: NetworkDevnet, Lamports: fee}, rule: RuleTool, says: []string{"close_account"}},
		{name: "unmeasured spend", p: transfer(addr(1), 0), rule: RuleMeasured, says: []string{"not measured"}},
		{name: "mainnet refused by default", p: func() Proposal { p := transfer(addr(1), fee); p.Network = NetworkMainnet; return p }(),
			rule: RuleNetwork, says: []string{"--allow-mainnet"}},
		{name: "mainnet allowed when opted in", cfg: func(c *Config) { c.AllowMainnet = true },
			p: func() Proposal { p := transfer(addr(1), fee); p.Network = NetworkMainnet; return p }(), allowed: true},
		{name: "network that could not be identified", p: func() Proposal { p := transfer(addr(1), fee); p.Network = ""; return p }(), rule: RuleNetwork, says: []string{"could not be identified"}},
		{name: "unidentified network, even with every opt-in", cfg: func(c *Config) { c.AllowMainnet, c.AllowUnknownNetwork = true, true },
			p: func() Proposal { p := transfer(addr(1), fee); p.Network = "unidentified"; return p }(), rule: RuleNetwork, says: []string{"could not be identified", "genesis hash could not be read"}},
		{name: "unknown network refused by default", p: func() Proposal { p := transfer(addr(1), fee); p.Network = "unknown"; return p }(),
			rule: RuleNetwork, says: []string{"unknown network", "--allow-unknown-network"}},
		{name: "unknown network not opened by --allow-mainnet", cfg: func(c *Config) { c.AllowMainnet = true },
			p: func() Proposal { p := transfer(addr(1), fee); p.Network = "unknown"; return p }(), rule: RuleNetwork, says: []string{"--allow-unknown-network"}},
		{name: "unknown network allowed when opted in", cfg: func(c *Config) { c.AllowUnknownNetwork = true },
			p: func() Proposal { p := transfer(addr(1), fee); p.Network = "unknown"; return p }(), allowed: true},
		{name: "mainnet not opened by --allow-unknown-network", cfg: func(c *Config) { c.AllowUnknownNetwork = true },
			p: func() Proposal { p := transfer(addr(1), fee); p.Network = "mainnet-beta"; return p }(), rule: RuleNetwork, says: []string{"--allow-mainnet"}},
		{name: "a network name nobody knows", cfg: func(c *Config) { c.AllowMainnet, c.AllowUnknownNetwork = true, true },
			p: func() Proposal { p := transfer(addr(1), fee); p.Network = "mainnet"; return p }(), rule: RuleNetwork, says: []string{"\"mainnet\" is not one solgate knows"}},
		{name: "testnet", p: func() Proposal { p := transfer(addr(1), fee); p.Network = NetworkTestnet; return p }(), allowed: true},
		{name: "localnet", p: func() Proposal { p := transfer(addr(1), fee); p.Network = NetworkLocalnet; return p }(), allowed: true},
		{name: "empty allowlist refuses every transfer and says how to allow", cfg: func(c *Config) { c.AllowRecipients = nil },
			p: transfer(addr(2), fee), rule: RuleRecipient, says: []string{"--allow-recipient " + addr(2)}},
		{name: "recipient off the allowlist", p: transfer(addr(2), fee), rule: RuleRecipient, says: []string{addr(2), "not on the allowlist"}},
		{name: "look-alike recipient is not the allowlisted one", p: transfer(addr(1)[:len(addr(1))-1]+"2", fee), rule: RuleRecipient},
		{name: "per-tx cap exactly reached passes", p: transfer(addr(1), 100_000_000), allowed: true},
		{name: "per-tx cap one lamport over", p: transfer(addr(1), 100_000_001), rule: RulePerTx,
			says: []string{"0.100000001 SOL (100000001 lamports)", "0.1 SOL (100000000 lamports)"}},
		{name: "per-session cap would be crossed", p: transfer(addr(1), 60_000_000), s: SpendState{SessionSpent: 950_000_000},
			rule: RulePerSession, says: []string{"0.95 SOL", "0.05 SOL (50000000 lamports) remaining"}},
		{name: "per-session cap held by in-flight reservations is retryable", p: transfer(addr(1), 60_000_000),
			s: SpendState{SessionSpent: 100_000_000, SessionReserved: 900_000_000}, rule: RulePerSession, retryable: true, says: []string{"in flight"}},
		{name: "per-session cap exactly reached passes", p: transfer(addr(1), 50_000_000), s: SpendState{SessionSpent: 950_000_000}, allowed: true},
		{name: "ledger totals near overflow read as over the cap", p: transfer(addr(1), fee), s: SpendState{SessionSpent: ^uint64(0) - 1, SessionReserved: 10}, rule: RulePerSession},
		{name: "daily cap off by default ignores day totals", p: transfer(addr(1), fee), s: SpendState{DaySpent: 1 << 60}, allowed: true},
		{name: "daily cap", cfg: func(c *Config) { c.MaxLamportsPerDay = 2_000_000_000 }, p: transfer(addr(1), 100_000_000),
			s: SpendState{DaySpent: 1_500_000_000, DayReserved: 450_000_000}, rule: RulePerDay, says: []string{"rolling 24-hour", "1.95 SOL"}},
		{name: "swap from SOL into an allowed mint", cfg: func(c *Config) { c.AllowMints = []string{usdc} },
			p: swap(NativeMint, usdc, 50_000_000), allowed: true},
		{name: "swap into a denied mint", cfg: func(c *Config) { c.DenyMints = []string{scam} },
			p: swap(NativeMint, scam, 50_000_000), rule: RuleMints, says: []string{"deny list"}},
		{name: "swap into a mint off the allowlist", cfg: func(c *Config) { c.AllowMints = []string{usdc} },
			p: swap(NativeMint, bonk, 50_000_000), rule: RuleMints, says: []string{"--allow-mint " + bonk}},
		{name: "swap without mints", p: swap(NativeMint, "", 50_000_000), rule: RuleMints},
		{name: "token-input swap refused by default", p: swap(usdc, NativeMint, fee), rule: RuleUncappedToken, says: []string{"--allow-uncapped-token-swaps"}},
		{name: "token-input swap allowed when opted in says no cap applies", cfg: func(c *Config) { c.AllowUncappedTokenSwaps = true },
			p: swap(usdc, NativeMint, fee), allowed: true, noCap: true, says: []string{"No cap applies"}},
		{name: "slippage above limit", p: func() Proposal { p := swap(NativeMint, usdc, 50_000_000); p.Quote.SlippageBps = 301; return p }(),
			rule: RuleSlippage, retryable: true, says: []string{"301 bps", "300"}},
		{name: "price impact above limit", cfg: func(c *Config) { c.MaxPriceImpactBps = 150 },
			p:    func() Proposal { p := swap(NativeMint, usdc, 50_000_000); p.Quote.PriceImpactBps = 151; return p }(),
			rule: RulePriceImpact, retryable: true, says: []string{"1.51%", "1.5%"}},
		{name: "price impact limit off", p: func() Proposal { p := swap(NativeMint, usdc, 50_000_000); p.Quote.PriceImpactBps = 9000; return p }(), allowed: true},
		{name: "rules run in order: network before amount", p: func() Proposal { p := transfer(addr(2), 9e9); p.Network = NetworkMainnet; return p }(), rule: RuleNetwork},
	}
	runEvalCases(t, tests)
}

// The runbook's impossible-goal trial, with fees counted: 4.6 SOL is refused
// by the per-transfer cap; 0.05 SOL transfers then pass until the next would
// cross the per-session cap, and that one — and every identical retry — is
// refused as non-retryable.
func TestRunbookStory(t *testing.T) {
	cfg := testConfig()
	cfg.MaxLamportsPerSession = 500_000_000
	ledger, err := NewSpend(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	to := addr(1)

	d, err := ledger.Reserve("big", cfg, transfer(to, 4_600_000_000+fee))
	if err != nil || d.Allowed || d.Rule != RulePerTx || d.Retryable {
		t.Fatalf("4.6 SOL: %+v, %v; want a non-retryable per-transfer denial", d, err)
	}
	if !strings.Contains(d.Reason, "4.600005 SOL (4600005000 lamports)") || !errors.Is(d.Err(), ErrCapExceeded) {
		t.Fatalf("4.6 SOL reason %q / err %v", d.Reason, d.Err())
	}

	// 500_000_000 / 50_005_000 = 9.99…: fees make the tenth transfer cross.
	passed := 0
	for i := 0; i < 20; i++ {
		id := "small-" + string(rune('a'+i))
		d, err := ledger.Reserve(id, cfg, transfer(to, 50_000_000+fee))
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed {
			if d.Rule != RulePerSession || d.Retryable {
				t.Fatalf("transfer %d denied by %q retryable=%v: %s", i+1, d.Rule, d.Retryable, d.Reason)
			}
			break
		}
		if err := ledger.Settle(id, 50_000_000+fee); err != nil {
			t.Fatal(err)
		}
		passed++
	}
	if passed != 9 {
		t.Fatalf("%d transfers of 0.05 SOL + fee passed, want 9", passed)
	}
	st := ledger.State()
	if st.SessionSpent != 9*(50_000_000+fee) || st.SessionReserved != 0 {
		t.Fatalf("ledger after the story: %+v", st)
	}
	// The retry wall: the same request again and again gets the same answer.
	for i := 0; i < 3; i++ {
		d, _ := ledger.Reserve("retry-"+string(rune('a'+i)), cfg, transfer(to, 50_000_000+fee))
		if d.Allowed || d.Rule != RulePerSession || d.Retryable {
			t.Fatalf("retry %d: %+v", i, d)
		}
	}
}

// A zero Config (someone forgot to load the policy) must refuse everything,
// and so must a zero Proposal.
func TestZeroValuesDeny(t *testing.T) {
	var zero Config
	for _, p := range []Proposal{transfer(addr(1), fee), swap(NativeMint, addr(20), fee), swap(addr(20), NativeMint, fee), {}} {
		if d := Evaluate(zero, p, SpendState{}); d.Allowed {
			t.Errorf("zero Config allowed %+v", p)
		}
	}
	// DefaultConfig has no recipients and token-input swaps off.
	for _, p := range []Proposal{transfer(addr(1), fee), swap(addr(20), NativeMint, fee), {}} {
		if d := Evaluate(DefaultConfig(), p, SpendState{}); d.Allowed {
			t.Errorf("DefaultConfig allowed %+v: %+v", p, d)
		}
	}
}

// A rule that forgets to answer (zero verdict) denies.
func TestSilentRuleDenies(t *testing.T) {
	saved := rules
	defer func() { rules = saved }()
	rules = append(append([]rule(nil), saved...), rule{"forgetful", func(Config, Proposal, SpendState) verdict { return verdict{} }})
	d := Evaluate(testConfig(), transfer(addr(1), fee), SpendState{})
	if d.Allowed || d.Rule != "forgetful" || !strings.Contains(d.Reason, "denied by default") {
		t.Fatalf("a rule with no answer gave %+v", d)
	}
}

// Every rule name a Decision can carry is in the evaluated list, and the
// list is in the documented order.
func TestRuleOrder(t *testing.T) {
	want := []string{RuleTool, RuleMeasured, RuleNetwork, RuleRecipient, RulePerTx, RulePerSession, RulePerDay,
		RuleMints, RuleUncappedToken, RuleSlippage, RulePriceImpact}
	if len(rules) != len(want) {
		t.Fatalf("%d rules, want %d", len(rules), len(want))
	}
	for i, r := range rules {
		if r.name != want[i] {
			t.Errorf("rule %d is %q, want %q", i, r.name, want[i])
		}
	}
}

// evalCase is one Evaluate table row: a policy (testConfig changed by cfg),
// a proposal and the ledger, and the decision wanted.
type evalCase struct {
	name      string
	cfg       func(*Config)
	p         Proposal
	s         SpendState
	allowed   bool
	rule      string
	retryable bool
	noCap     bool
	uncapped  string   // the mints named as uncapped; checked when set
	says      []string // words the reason must contain
}

func runEvalCases(t *testing.T, tests []evalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			d := Evaluate(cfg, tt.p, tt.s)
			if d.Allowed != tt.allowed || d.Rule != tt.rule || d.Retryable != tt.retryable || d.NoCapApplies != tt.noCap {
				t.Fatalf("Evaluate = %+v; want allowed=%v rule=%q retryable=%v noCap=%v", d, tt.allowed, tt.rule, tt.retryable, tt.noCap)
			}
			if tt.uncapped != "" && d.UncappedMints != tt.uncapped {
				t.Fatalf("uncapped mints %v, want %v", d.UncappedMints, tt.uncapped)
			}
			for _, s := range tt.says {
				if !strings.Contains(d.Reason, s) {
					t.Errorf("reason %q does not mention %q", d.Reason, s)
				}
			}
			if (d.Err() == nil) != d.Allowed {
				t.Errorf("Err() = %v for allowed=%v", d.Err(), d.Allowed)
			}
		})
	}
}
