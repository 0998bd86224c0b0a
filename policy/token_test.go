package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/policy/store"
)

func tokenTransfer(to, mint string, amount uint64) Proposal {
	return Proposal{Tool: "transfer_token", ClientID: "claude", Network: NetworkDevnet, Counterparties: []Counterparty{Recipient(to)}, Lamports: 2_039_280 + fee,
		Tokens: []TokenSpend{{Mint: mint, Amount: amount, Decimals: 6, DecimalsKnown: true}}}
}

func capOf(t *testing.T, s string) TokenCap {
	t.Helper()
	c, err := ParseTokenCap(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Rules apply by what a proposal does: a token transfer meets the
// recipient allowlist and the mint lists like any other spend, and needs a
// per-mint cap or the uncapped opt-in.
func TestTokenSpendRules(t *testing.T) {
	usdc, scam := addr(20), addr(22)
	tests := []evalCase{
		{name: "uncapped mint refused", p: tokenTransfer(addr(1), usdc, 5), rule: RuleUncappedTransfer,
			says: []string{"--allow-uncapped-token-transfers", "--max-token-per-tx " + usdc + "=AMOUNT"}},
		{name: "uncapped opt-in for swaps does not admit transfers", cfg: func(c *Config) { c.AllowUncappedTokenSwaps = true },
			p: tokenTransfer(addr(1), usdc, 5), rule: RuleUncappedTransfer},
		{name: "uncapped opt-in admits and says no cap applies", cfg: func(c *Config) { c.AllowUncappedTokenTransfers = true },
			p: tokenTransfer(addr(1), usdc, 5), allowed: true, noCap: true, says: []string{"No cap applies"}},
		{name: "recipient off the allowlist", cfg: func(c *Config) { c.AllowUncappedTokenTransfers = true },
			p: tokenTransfer(addr(2), usdc, 5), rule: RuleRecipient, says: []string{addr(2)}},
		{name: "mint on the deny list", cfg: func(c *Config) { c.AllowUncappedTokenTransfers = true; c.DenyMints = []string{scam} },
			p: tokenTransfer(addr(1), scam, 5), rule: RuleMints, says: []string{"deny list"}},
		{name: "mint off the allowlist", cfg: func(c *Config) { c.AllowUncappedTokenTransfers = true; c.AllowMints = []string{usdc} },
			p: tokenTransfer(addr(1), scam, 5), rule: RuleMints, says: []string{"--allow-mint " + scam}},
		{name: "per-tx cap in base units, exactly reached", cfg: func(c *Config) { c.MaxTokenPerTx = []TokenCap{capOf(t, usdc+"=1000000")} },
			p: tokenTransfer(addr(1), usdc, 1_000_000), allowed: true},
		{name: "per-tx cap in base units, one over", cfg: func(c *Config) { c.MaxTokenPerTx = []TokenCap{capOf(t, usdc+"=1000000")} },
			p: tokenTransfer(addr(1), usdc, 1_000_001), rule: RuleTokenPerTx, says: []string{"1000001", "1000000"}},
		{name: "per-tx cap in display units uses the mint's decimals", cfg: func(c *Config) { c.MaxTokenPerTx = []TokenCap{capOf(t, usdc+"=1.5")} },
			p: tokenTransfer(addr(1), usdc, 1_500_001), rule: RuleTokenPerTx, says: []string{"1500000 base units (1.5)"}},
		{name: "display cap finer than the mint", cfg: func(c *Config) { c.MaxTokenPerTx = []TokenCap{capOf(t, usdc+"=0.0000001")} },
			p: tokenTransfer(addr(1), usdc, 1), rule: RuleTokenPerTx, says: []string{"7 decimals", "has 6"}},
		{name: "display cap with unknown decimals", cfg: func(c *Config) { c.MaxTokenPerTx = []TokenCap{capOf(t, usdc+"=1.5")} },
			p: func() Proposal { p := tokenTransfer(addr(1), usdc, 1); p.Tokens[0].DecimalsKnown = false; return p }(), rule: RuleTokenPerTx, says: []string{"decimals were not read"}},
		{name: "a cap on another mint does not cap this one", cfg: func(c *Config) { c.MaxTokenPerTx = []TokenCap{capOf(t, scam+"=1")} },
			p: tokenTransfer(addr(1), usdc, 5), rule: RuleUncappedTransfer},
		{name: "per-session cap counts reservations of the mint", cfg: func(c *Config) { c.MaxTokenPerSession = []TokenCap{capOf(t, usdc+"=10")} },
			p: tokenTransfer(addr(1), usdc, 5), s: SpendState{Tokens: map[string]TokenTotals{usdc: {SessionSpent: 4, SessionReserved: 2}}},
			rule: RuleTokenPerSession, retryable: true, says: []string{"6 is already spent or reserved (4 remaining)"}},
		{name: "per-day cap", cfg: func(c *Config) { c.MaxTokenPerDay = []TokenCap{capOf(t, usdc+"=10")} },
			p: tokenTransfer(addr(1), usdc, 5), s: SpendState{Tokens: map[string]TokenTotals{usdc: {DaySpent: 6}}}, rule: RuleTokenPerDay},
		{name: "SOL caps still bound the token transfer's fee and rent", cfg: func(c *Config) { c.AllowUncappedTokenTransfers = true; c.MaxLamportsPerTx = 2_000_000 },
			p: tokenTransfer(addr(1), usdc, 5), rule: RulePerTx},
		{name: "capped token swap needs no opt-in", cfg: func(c *Config) { c.MaxTokenPerTx = []TokenCap{capOf(t, usdc+"=2")} },
			p: swap(usdc, NativeMint, fee), rule: RuleTokenPerTx},
		{name: "a proposal that names no recipient and no self-payment", p: func() Proposal { p := tokenTransfer("", usdc, 5); return p }(),
			rule: RuleTool, says: []string{"states no recipient"}},
	}
	runEvalCases(t, tests)
}

func TestParseTokenCap(t *testing.T) {
	good := map[string]string{addr(20) + "=1": "1", addr(20) + "=0.25": "0.25", addr(20) + "=18446744073709551615": "18446744073709551615"}
	for in, want := range good {
		c, err := ParseTokenCap(in)
		if err != nil || c.Amount.Text != want || c.Mint != addr(20) {
			t.Errorf("%q: %+v %v", in, c, err)
		}
	}
	for _, in := range []string{"", addr(20), addr(20) + "=", addr(20) + "=0", addr(20) + "=0.000", addr(20) + "=-1", addr(20) + "=1e6",
		addr(20) + "=.5", addr(20) + "=5.", addr(20) + "=18446744073709551616", "notamint=5", NativeMint + "=5", addr(20) + "=1,000"} {
		if c, err := ParseTokenCap(in); err == nil {
			t.Errorf("%q accepted as %+v", in, c)
		}
	}
	for _, tc := range []struct {
		text string
		dec  uint8
		want uint64
	}{{"1.5", 6, 1_500_000}, {"1.50", 1, 15}, {"7", 0, 7}, {"7", 18, 7}, {"0.000001", 6, 1}} {
		a, err := ParseTokenAmount(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := a.BaseUnits(tc.dec); err != nil || n != tc.want {
			t.Errorf("%s at %d decimals = %d, %v; want %d", tc.text, tc.dec, n, err, tc.want)
		}
	}
	a, _ := ParseTokenAmount("18446744073709551615.0")
	if _, err := a.BaseUnits(1); err == nil {
		t.Error("a display cap past 2^64-1 base units was accepted")
	}
}

// Per-mint spend is reserved with the SOL spend, atomically, and survives a
// restart through the store like the SOL figures.
func TestTokenReservationsPerMintSurviveRestart(t *testing.T) {
	usdc, other := addr(20), addr(21)
	dir := t.TempDir()
	clock := newFakeClock()
	cfg := testConfig()
	cfg.MaxLamportsPerSession = 100 * LamportsPerSOL
	cfg.MaxLamportsPerTx = LamportsPerSOL
	cfg.MaxTokenPerSession = []TokenCap{capOf(t, usdc+"=10")}
	cfg.MaxTokenPerDay = []TokenCap{capOf(t, usdc+"=10"), capOf(t, other+"=100")}
	st, s := openSpend(t, dir, clock.Now)
	for id, p := range map[string]Proposal{"a": tokenTransfer(addr(1), usdc, 4), "b": tokenTransfer(addr(1), usdc, 3), "c": tokenTransfer(addr(1), other, 50)} {
		if d, err := s.Reserve(id, cfg, p); err != nil || !d.Allowed {
			t.Fatalf("reserve %s: %+v %v", id, d, err)
		}
	}
	must(t, s.Settle("a", fee))
	if d, _ := s.Reserve("d", cfg, tokenTransfer(addr(1), usdc, 4)); d.Allowed || d.Rule != RuleTokenPerSession || !d.Retryable {
		t.Fatalf("4 + 3 + 4 over a cap of 10, 3 still in flight: %+v", d)
	}
	got := s.State().Tokens
	if got[usdc] != (TokenTotals{SessionSpent: 4, SessionReserved: 3, DaySpent: 4, DayReserved: 3}) || got[other] != (TokenTotals{SessionReserved: 50, DayReserved: 50}) {
		t.Fatalf("per-mint totals %+v", got)
	}
	must(t, st.Close())

	clock.Advance(time.Minute)
	st2, s2 := openSpend(t, dir, clock.Now)
	defer st2.Close()
	got = s2.State().Tokens
	// A new session: the settled 4 counts only in the day window; the open
	// reservations hold their budget in both.
	if got[usdc] != (TokenTotals{SessionReserved: 3, DaySpent: 4, DayReserved: 3}) || got[other] != (TokenTotals{SessionReserved: 50, DayReserved: 50}) {
		t.Fatalf("restored per-mint totals %+v", got)
	}
	if d, _ := s2.Reserve("e", cfg, tokenTransfer(addr(1), usdc, 4)); d.Allowed || d.Rule != RuleTokenPerDay {
		t.Fatalf("4 + 3 + 4 over the daily 10 after restart: %+v", d)
	}
	must(t, s2.Release("b"))
	if d, _ := s2.Reserve("f", cfg, tokenTransfer(addr(1), usdc, 6)); !d.Allowed {
		t.Fatalf("released reservation still holds budget: %+v", d)
	}
}

// A token spend settles at the landed transaction's measured outflow of its
// mint, not at what was reserved; without a measure it keeps the reserved
// amount.
func TestTokenSpendSettlesAtTheMeasuredOutflow(t *testing.T) {
	usdc := addr(20)
	cfg := DefaultConfig()
	cfg.AllowUncappedTokenTransfers = true
	cfg.AllowRecipients = []string{addr(1)}
	s, err := NewSpend(nil, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for id, measured := range map[string]map[string]uint64{"measured": {usdc: 600, addr(21): 9}, "unmeasured": nil} {
		if d, err := s.Reserve(id, cfg, tokenTransfer(addr(1), usdc, 1_000)); err != nil || !d.Allowed {
			t.Fatalf("reserve %s: %+v %v", id, d, err)
		}
		if err := s.SettleMeasured(id, 5_000, measured); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.State().Tokens[usdc].SessionSpent; got != 1_600 {
		t.Errorf("session spent of %s: %d, want 600 measured + 1000 reserved", usdc, got)
	}
}

// twoMintSpend spends a of mint m1 and b of mint m2 in one transaction, as
// a transaction built elsewhere may.
func twoMintSpend(m1 string, a uint64, m2 string, b uint64) Proposal {
	return Proposal{Tool: "sign_and_send_transaction", ClientID: "claude", Network: NetworkDevnet, Counterparties: []Counterparty{Program("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")}, Lamports: fee,
		Tokens: []TokenSpend{{Mint: m1, Amount: a, Decimals: 6, DecimalsKnown: true}, {Mint: m2, Amount: b, Decimals: 6, DecimalsKnown: true}}}
}

// Every mint a proposal spends is held to its own caps and its own ledger
// totals; the denial names the mint that failed, whichever position it has.
func TestEveryMintOfAProposalMeetsItsOwnCaps(t *testing.T) {
	usdc, bonk := addr(20), addr(21)
	both := func(c *Config) {
		c.MaxTokenPerTx = []TokenCap{capOf(t, usdc+"=10"), capOf(t, bonk+"=100")}
		c.MaxTokenPerSession = []TokenCap{capOf(t, bonk+"=150")}
	}
	tests := []evalCase{
		{name: "both within their caps", cfg: both, p: twoMintSpend(usdc, 10, bonk, 100), allowed: true},
		{name: "second mint over its per-tx cap", cfg: both, p: twoMintSpend(usdc, 10, bonk, 101), rule: RuleTokenPerTx, says: []string{bonk, "101"}},
		{name: "first mint over its per-tx cap", cfg: both, p: twoMintSpend(usdc, 11, bonk, 1), rule: RuleTokenPerTx, says: []string{usdc, "11"}},
		{name: "second mint over its session cap counting its own ledger only", cfg: both, p: twoMintSpend(usdc, 1, bonk, 60),
			s: SpendState{Tokens: map[string]TokenTotals{usdc: {SessionSpent: 1000}, bonk: {SessionSpent: 91}}}, rule: RuleTokenPerSession, says: []string{bonk}},
		{name: "second mint uncapped", cfg: func(c *Config) { both(c); c.MaxTokenPerTx = c.MaxTokenPerTx[:1]; c.MaxTokenPerSession = nil },
			p: twoMintSpend(usdc, 1, bonk, 1), rule: RuleUncappedTransfer, says: []string{"spends token " + bonk, "--allow-uncapped-token-transfers"}},
		{name: "second mint uncapped, opted in", cfg: func(c *Config) {
			both(c)
			c.MaxTokenPerTx, c.MaxTokenPerSession, c.AllowUncappedTokenTransfers = c.MaxTokenPerTx[:1], nil, true
		}, p: twoMintSpend(usdc, 1, bonk, 1), allowed: true, noCap: true, uncapped: bonk},
		{name: "the same mint twice is refused, not summed", cfg: both, p: twoMintSpend(usdc, 6, usdc, 6), rule: RuleMints, says: []string{"twice"}},
		{name: "second mint on the deny list", cfg: func(c *Config) { both(c); c.DenyMints = []string{bonk} }, p: twoMintSpend(usdc, 1, bonk, 1), rule: RuleMints, says: []string{bonk}},
	}
	runEvalCases(t, tests)
}

// A reservation of two mints holds both, settles each to what landed, and
// both survive a restart through the store's rows.
func TestTwoMintReservationSettlesAndSurvivesRestart(t *testing.T) {
	usdc, bonk := addr(20), addr(21)
	dir := t.TempDir()
	clock := newFakeClock()
	cfg := testConfig()
	cfg.MaxTokenPerSession = []TokenCap{capOf(t, usdc+"=10"), capOf(t, bonk+"=100")}
	st, s := openSpend(t, dir, clock.Now)
	if d, err := s.Reserve("a", cfg, twoMintSpend(usdc, 4, bonk, 40)); err != nil || !d.Allowed {
		t.Fatalf("reserve: %+v %v", d, err)
	}
	if d, err := s.Reserve("b", cfg, twoMintSpend(usdc, 3, bonk, 30)); err != nil || !d.Allowed {
		t.Fatalf("reserve: %+v %v", d, err)
	}
	// Sent writes the records Reserve queued, before anything goes out.
	must(t, s.Sent("a", "sig-a", 100))
	must(t, s.Sent("b", "sig-b", 100))
	r, err := st.GetReservation("a")
	if err != nil || len(r.Tokens) != 2 || r.Tokens[0] != (store.TokenAmount{Mint: usdc, Amount: 4}) || r.Tokens[1] != (store.TokenAmount{Mint: bonk, Amount: 40}) {
		t.Fatalf("stored reservation a: %+v %v", r, err)
	}
	// What landed moved less of the first mint than reserved.
	must(t, s.SettleMeasured("a", fee, map[string]uint64{usdc: 2, bonk: 40}))
	r, err = st.GetReservation("a")
	if err != nil || r.State != store.StateSettled || len(r.Tokens) != 2 || r.Tokens[0].Amount != 2 || r.Tokens[1].Amount != 40 {
		t.Fatalf("settled reservation a as stored: %+v %v", r, err)
	}
	// A mint that landed without being reserved (a SOL-only spend that
	// moved a token after all) is counted as spent: the ledger records what
	// landed, not what was hoped.
	solOnly := twoMintSpend(usdc, 0, bonk, 0)
	solOnly.Tokens = nil
	if d, err := s.Reserve("sol", cfg, solOnly); err != nil || !d.Allowed {
		t.Fatalf("reserve a SOL-only spend: %+v %v", d, err)
	}
	must(t, s.SettleMeasured("sol", fee, map[string]uint64{usdc: 1}))
	if r, err := st.GetReservation("sol"); err != nil || len(r.Tokens) != 1 || r.Tokens[0] != (store.TokenAmount{Mint: usdc, Amount: 1}) {
		t.Fatalf("settled SOL-only reservation as stored: %+v %v", r, err)
	}
	if d, _ := s.Reserve("c", cfg, twoMintSpend(usdc, 1, bonk, 31)); d.Allowed || d.Rule != RuleTokenPerSession || !strings.Contains(d.Reason, bonk) {
		t.Fatalf("40 + 30 + 31 of the second mint over its cap of 100: %+v", d)
	}
	want := map[string]TokenTotals{usdc: {SessionSpent: 3, SessionReserved: 3, DaySpent: 3, DayReserved: 3}, bonk: {SessionSpent: 40, SessionReserved: 30, DaySpent: 40, DayReserved: 30}}
	if got := s.State().Tokens; got[usdc] != want[usdc] || got[bonk] != want[bonk] {
		t.Fatalf("per-mint totals %+v, want %+v", got, want)
	}
	must(t, st.Close())

	st2, s2 := openSpend(t, dir, clock.Now)
	defer st2.Close()
	// After a restart the earlier session's settled spend counts only in
	// the day; the open reservation still holds both mints.
	got := s2.State().Tokens
	if got[usdc] != (TokenTotals{SessionReserved: 3, DaySpent: 3, DayReserved: 3}) || got[bonk] != (TokenTotals{SessionReserved: 30, DaySpent: 40, DayReserved: 30}) {
		t.Fatalf("per-mint totals after restart %+v", got)
	}
}
