package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/solgate/solgate/policy/store"
)

const (
	research = "uid 1500"
	trading  = "uid 1501"
)

// twoAgents is the world: a console at 1 SOL a session over
// recipients 1 and 2; research held to 0.2 SOL and recipient 2, trading to
// the console's 1 SOL and recipient 1.
func twoAgents() Config {
	top := testConfig()
	top.AllowRecipients = []string{addr(1), addr(2)}
	top.MaxLamportsPerSession = 1_000_000_000
	top.MaxLamportsPerDay = 2_000_000_000
	r, tr := top, top
	r.MaxLamportsPerSession, r.AllowRecipients = 200_000_000, []string{addr(2)}
	tr.AllowRecipients = []string{addr(1)}
	top.Agents = []Agent{{UID: 1500, Label: "research", Config: r}, {UID: 1501, Label: "trading", Config: tr}}
	return top
}

func from(owner string, p Proposal) Proposal { p.Agent = owner; return p }

// spendAs reserves and settles one transfer of owner, failing the test if
// the decision is not want.
func spendAs(t *testing.T, s *Spend, cfg Config, id, owner, to string, lamports uint64, want bool) Decision {
	t.Helper()
	d, err := s.Reserve(id, cfg, from(owner, transfer(to, lamports)))
	if err != nil {
		t.Fatal(err)
	}
	if d.Allowed != want {
		t.Fatalf("%s (%s, %d lamports): allowed=%v, want %v: %s: %s", id, owner, lamports, d.Allowed, want, d.Rule, d.Reason)
	}
	if d.Allowed {
		must(t, s.Settle(id, lamports))
	}
	return d
}

func TestAgentCapsAndTotal(t *testing.T) {
	cfg := twoAgents()
	s := memSpend(t, nil)
	spendAs(t, s, cfg, "r1", research, addr(2), 80_000_000, true)
	spendAs(t, s, cfg, "r2", research, addr(2), 80_000_000, true)
	d := spendAs(t, s, cfg, "r3", research, addr(2), 80_000_000, false)
	if d.Rule != RulePerSession || !strings.Contains(d.Reason, "research's session cap (uid 1500)") {
		t.Fatalf("research's third: %s: %s", d.Rule, d.Reason)
	}
	// The second agent still spends, until all together reach the console's 1 SOL.
	for i := range 10 {
		spendAs(t, s, cfg, "t"+string(rune('a'+i)), trading, addr(1), 80_000_000, true)
	}
	d = spendAs(t, s, cfg, "t-over", trading, addr(1), 80_000_000, false)
	if d.Rule != RulePerSession || !strings.Contains(d.Reason, "the console's session cap (all agents together)") {
		t.Fatalf("over the total: %s: %s", d.Rule, d.Reason)
	}
	total, r, tr := s.State(), s.AgentState(research), s.AgentState(trading)
	if total.SessionSpent != 960_000_000 || r.SessionSpent != 160_000_000 || tr.SessionSpent != 800_000_000 {
		t.Fatalf("spent: total %d, research %d, trading %d", total.SessionSpent, r.SessionSpent, tr.SessionSpent)
	}
}

// A recipient on research's list only is refused for trading, naming
// trading's list; one on neither agent's is refused for both.
func TestAgentRecipientAllowlist(t *testing.T) {
	cfg := twoAgents()
	s := memSpend(t, nil)
	spendAs(t, s, cfg, "r", research, addr(2), 10_000_000, true)
	d := spendAs(t, s, cfg, "t", trading, addr(2), 10_000_000, false)
	if d.Rule != RuleRecipient || !strings.Contains(d.Reason, "trading's recipient allowlist") {
		t.Fatalf("trading to research's recipient: %s: %s", d.Rule, d.Reason)
	}
	spendAs(t, s, cfg, "r-1", research, addr(1), 10_000_000, false)
}

// A reservation held open counts against its agent's cap as well as the
// total, and frees both when released.
func TestAgentReservationHoldsBoth(t *testing.T) {
	cfg := twoAgents()
	s := memSpend(t, nil)
	if d, err := s.Reserve("open", cfg, from(research, transfer(addr(2), 150_000_000))); err != nil || d.Allowed {
		// 0.15 SOL is above the default per-tx cap of 0.1: refused.
		if err != nil || d.Rule != RulePerTx {
			t.Fatalf("%+v %v", d, err)
		}
	}
	for _, id := range []string{"a", "b"} {
		if d, err := s.Reserve(id, cfg, from(research, transfer(addr(2), 90_000_000))); err != nil || !d.Allowed {
			t.Fatalf("%s: %+v %v", id, d, err)
		}
	}
	if got := s.AgentState(research); got.SessionReserved != 180_000_000 {
		t.Fatalf("research reserved %d", got.SessionReserved)
	}
	if d, _ := s.Reserve("c", cfg, from(research, transfer(addr(2), 90_000_000))); d.Allowed || !d.Retryable {
		t.Fatalf("over research's cap while reserved: %+v", d)
	}
	must(t, s.Release("a"))
	if d, err := s.Reserve("c", cfg, from(research, transfer(addr(2), 90_000_000))); err != nil || !d.Allowed {
		t.Fatalf("after release: %+v %v", d, err)
	}
}

// Each agent's day spend is persisted with the agent and restored as it was.
func TestAgentDaySpendSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	clock := newFakeClock()
	cfg := twoAgents()
	st, s := openSpend(t, dir, clock.Now)
	spendAs(t, s, cfg, "r1", research, addr(2), 80_000_000, true)
	spendAs(t, s, cfg, "r2", research, addr(2), 70_000_000, true)
	spendAs(t, s, cfg, "t1", trading, addr(1), 50_000_000, true)
	if d, err := s.Reserve("t2", cfg, from(trading, transfer(addr(1), 30_000_000))); err != nil || !d.Allowed {
		t.Fatalf("%+v %v", d, err)
	}
	// Sent, not yet settled: open across the restart (a reservation never
	// sent has no row to restore; nothing of it can land).
	must(t, s.Sent("t2", "sig-t2", 100))
	beforeR, beforeT := s.AgentState(research), s.AgentState(trading)
	must(t, st.Close())

	row := func(st *store.Store, id string) store.Reservation {
		r, err := st.GetReservation(id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	clock.Advance(1)
	st2, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if a := row(st2, "r1").Agent; a != "uid 1500" {
		t.Fatalf("row r1 names %q", a)
	}
	s2, err := NewSpend(st2, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	r, tr := s2.AgentState(research), s2.AgentState(trading)
	if r.DaySpent != 150_000_000 || r.DaySpent != beforeR.DaySpent || tr.DaySpent != 50_000_000 || tr.DayReserved != 30_000_000 || tr.DayReserved != beforeT.DayReserved {
		t.Fatalf("after restart research %+v (was %+v), trading %+v (was %+v)", r, beforeR, tr, beforeT)
	}
	// A new session: research's session cap is fresh, its day's is not.
	day := cfg
	day.Agents = append([]Agent(nil), cfg.Agents...)
	day.Agents[0].Config.MaxLamportsPerDay = 200_000_000
	d := spendAs(t, s2, day, "r3", research, addr(2), 80_000_000, false)
	if d.Rule != RulePerDay || !strings.Contains(d.Reason, "research's day cap") {
		t.Fatalf("research's day cap after restart: %s: %s", d.Rule, d.Reason)
	}
}

// With require_agent_sections, a user without a section may not spend;
// the console's own calls (no uid) are not agents.
func TestRequireAgentSections(t *testing.T) {
	cfg := twoAgents()
	cfg.RequireAgentSections = true
	s := memSpend(t, nil)
	d := spendAs(t, s, cfg, "x", "uid 1600", addr(1), 10_000_000, false)
	if d.Rule != RuleAgent {
		t.Fatalf("%s: %s", d.Rule, d.Reason)
	}
	spendAs(t, s, cfg, "r", research, addr(2), 10_000_000, true)
}

func TestAgentNarrowedFrom(t *testing.T) {
	top := twoAgents()
	for _, c := range []struct {
		name string
		edit func(*Config)
		key  string
	}{
		{"session above", func(c *Config) { c.MaxLamportsPerSession = 1_000_000_001 }, "max_sol_per_session"},
		{"tx above", func(c *Config) { c.MaxLamportsPerTx = 100_000_001 }, "max_sol_per_tx"},
		{"day off", func(c *Config) { c.MaxLamportsPerDay = 0 }, "max_sol_per_day"},
		{"recipient not on the console's", func(c *Config) { c.AllowRecipients = []string{addr(3)} }, "allow_recipient"},
	} {
		a := top.Agents[0]
		c.edit(&a.Config)
		err := a.NarrowedFrom(top)
		var ce *ConfigError
		if err == nil || !errors.As(err, &ce) || ce.Key != c.key {
			t.Errorf("%s: %v, want a refusal of %s", c.name, err, c.key)
		}
	}
	if err := top.Agents[0].NarrowedFrom(top); err != nil {
		t.Fatal(err)
	}
}

// A section's per-mint cap binds the agent alone; the console's binds all.
func TestAgentTokenCap(t *testing.T) {
	usdc := addr(20)
	cfg := twoAgents()
	cfg.MaxTokenPerTx = []TokenCap{{Mint: usdc, Amount: TokenAmount{Text: "1000"}}}
	for i := range cfg.Agents {
		cfg.Agents[i].Config.MaxTokenPerTx = cfg.MaxTokenPerTx
	}
	cfg.Agents[0].Config.MaxTokenPerTx = []TokenCap{{Mint: usdc, Amount: TokenAmount{Text: "500"}}}
	s := memSpend(t, nil)
	d, err := s.Reserve("r", cfg, from(research, tokenTransfer(addr(2), usdc, 600)))
	if err != nil || d.Allowed || d.Rule != RuleTokenPerTx || !strings.Contains(d.Reason, "research's per-transaction token cap") {
		t.Fatalf("research's 600 over its 500: %+v %v", d, err)
	}
	if d, err := s.Reserve("t", cfg, from(trading, tokenTransfer(addr(1), usdc, 600))); err != nil || !d.Allowed {
		t.Fatalf("trading's 600 under the console's 1000: %+v %v", d, err)
	}
	if err := cfg.Agents[0].NarrowedFrom(cfg); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"1001", "0.5"} {
		a := cfg.Agents[0]
		a.Config.MaxTokenPerTx = []TokenCap{{Mint: usdc, Amount: TokenAmount{Text: bad}}}
		if err := a.NarrowedFrom(cfg); err == nil {
			t.Errorf("a section's %s under the console's 1000 was accepted", bad)
		}
	}
	a := cfg.Agents[0]
	a.Config.MaxTokenPerTx = nil
	if err := a.NarrowedFrom(cfg); err == nil {
		t.Error("a section without the console's mint cap was accepted")
	}
}
