package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/solgate/solgate/policy/store"
)

// DayWindow is the span of the rolling daily cap.
const DayWindow = 24 * time.Hour

// Outcomes of ledger calls that callers branch on.
var (
	ErrDuplicateReservation = errors.New("reservation id already used")
	ErrUnknownReservation   = errors.New("no such reservation")
	ErrReservationClosed    = errors.New("reservation already settled or released")
)

// Reservation states, shared with the store.
const (
	StateReserved = store.StateReserved
	StateSettled  = store.StateSettled
	StateReleased = store.StateReleased
	StateUnknown  = store.StateUnknown
)

type spendEntry struct {
	lamports uint64
	// tokens are the non-SOL mints the spend moves, base units by mint
	// address (nil: SOL only). Held as reserved, counted as spent on
	// settle, where each becomes what the landed transaction moved.
	tokens    map[string]uint64
	state     string
	signature string
	lastValid uint64    // block height past which the signed transaction cannot land
	at        time.Time // when reserved; the daily window is measured from here
	// thisSession is false for entries restored from an earlier run: they
	// hold budget while open (they may still land) but their settled amount
	// belongs to the earlier session, so it counts only in the daily window.
	thisSession bool
	// agent is the user the spend counts against besides the total
	// ("uid 1500"; "" for the console's own).
	agent string
	// recorded is the reservation's insert, queued by Reserve and not yet
	// known to be durable; nil once it is (or without a store).
	recorded *store.Queued
}

// Spend is the spend ledger: the one place where "may this spend happen?"
// and "hold the money for it" are a single step. Every method takes the one
// mutex, so check-and-reserve is atomic: two concurrent 0.6 SOL spends
// against a 1.0 SOL cap cannot both pass. With a store, every change is
// written (and fsynced) before it takes effect in memory, so a failed write
// changes nothing and a crash loses nothing that was acknowledged. The one
// exception is a new reservation: Reserve holds its budget in memory at
// once and only queues its record, which commits with the signature Sent
// writes before the transaction goes out (one fsync where there were two).
// Until Sent, nothing of it can land, so a crash that loses the queued
// record loses no spend; a record that fails makes Sent fail, and nothing
// is sent.
type Spend struct {
	mu      sync.Mutex
	store   *store.Store // nil: memory only
	now     func() time.Time
	entries map[string]*spendEntry

	sessionSpent uint64 // settled in this session
	open         uint64 // reserved + unknown, any session
	settledDay   []dayEntry
}

type dayEntry struct {
	at       time.Time
	lamports uint64
}

// NewSpend builds the ledger. With a store it restores what must survive a
// restart: open (reserved/unknown) reservations, which keep holding budget
// until reconciled, and settled spends inside the daily window. now is the
// clock (nil: time.Now).
func NewSpend(st *store.Store, now func() time.Time) (*Spend, error) {
	if now == nil {
		now = time.Now
	}
	s := &Spend{store: st, now: now, entries: make(map[string]*spendEntry)}
	if st == nil {
		return s, nil
	}
	open, err := st.OpenReservations()
	if err != nil {
		return nil, fmt.Errorf("restore spend ledger: %w", err)
	}
	for _, r := range open {
		s.entries[r.ID] = &spendEntry{lamports: r.Lamports, tokens: tokensByMint(r.Tokens), state: r.State, signature: r.Signature, lastValid: r.LastValidBlockHeight, at: r.CreatedAt, agent: r.Agent}
		s.open = addCapped(s.open, r.Lamports)
	}
	settled, err := st.SettledSince(now().Add(-DayWindow))
	if err != nil {
		return nil, fmt.Errorf("restore spend ledger: %w", err)
	}
	for _, r := range settled {
		s.entries[r.ID] = &spendEntry{lamports: r.Lamports, tokens: tokensByMint(r.Tokens), state: r.State, signature: r.Signature, at: r.CreatedAt, agent: r.Agent}
		s.settledDay = append(s.settledDay, dayEntry{at: r.CreatedAt, lamports: r.Lamports})
	}
	return s, nil
}

// State is the ledger as Evaluate sees it now.
func (s *Spend) State() SpendState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked()
}

func (s *Spend) stateLocked() SpendState {
	cutoff := s.now().Add(-DayWindow)
	// Drop settled spends that have aged out; they can never count again.
	kept := s.settledDay[:0]
	var day uint64
	for _, e := range s.settledDay {
		if e.at.After(cutoff) {
			kept = append(kept, e)
			day = addCapped(day, e.lamports)
		}
	}
	clear(s.settledDay[len(kept):])
	s.settledDay = kept
	// Open reservations count in full in both windows however old they are:
	// until reconciled, nobody knows whether they landed.
	return SpendState{
		SessionSpent:    s.sessionSpent,
		SessionReserved: s.open,
		DaySpent:        day,
		DayReserved:     s.open,
		Tokens:          s.tokenTotalsLocked(cutoff, nil),
	}
}

// AgentState is the ledger as one agent user's own budget sees it: only
// the spends made for owner ("uid 1500").
func (s *Spend) AgentState(owner string) SpendState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agentStateLocked(owner)
}

// agentStateLocked sums owner's entries afresh (they are few: one per
// approved spend in the window), by the same rules as stateLocked: open
// reservations count in full in both windows, settled ones in this
// session's and, while young enough, in the day's.
func (s *Spend) agentStateLocked(owner string) SpendState {
	cutoff := s.now().Add(-DayWindow)
	var st SpendState
	for _, e := range s.entries {
		if e.agent != owner {
			continue
		}
		switch e.state {
		case StateReserved, StateUnknown:
			st.SessionReserved = addCapped(st.SessionReserved, e.lamports)
			st.DayReserved = addCapped(st.DayReserved, e.lamports)
		case StateSettled:
			if e.thisSession {
				st.SessionSpent = addCapped(st.SessionSpent, e.lamports)
			}
			if e.at.After(cutoff) {
				st.DaySpent = addCapped(st.DaySpent, e.lamports)
			}
		}
	}
	st.Tokens = s.tokenTotalsLocked(cutoff, &owner)
	return st
}

// Judge is Reserve's decision without the reservation: p against the
// console's policy and, when p comes from an agent with a section, against
// that agent's own, each on its own spend.
func (s *Spend) Judge(cfg Config, p Proposal) Decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.judgeLocked(cfg, p)
}

// judgeLocked runs the agent's own policy on the agent's own spend first
// (so a denial names the agent's cap when that is the wall), then the
// console's on everyone's together; both must allow.
func (s *Spend) judgeLocked(cfg Config, p Proposal) Decision {
	if len(cfg.Agents) == 0 && !cfg.RequireAgentSections {
		return Evaluate(cfg, p, s.stateLocked())
	}
	a, ok := cfg.AgentFor(p.Agent)
	if !ok && cfg.RequireAgentSections && strings.HasPrefix(p.Agent, "uid ") {
		return Decision{Rule: RuleAgent, Reason: fmt.Sprintf("%s has no [[agent]] section in the console's config and the console requires one; the operator must add it.", p.Agent)}
	}
	var own Decision
	if ok {
		own = Evaluate(a.Config, p, s.agentStateLocked(p.Agent))
		if !own.Allowed {
			own.Reason = whose(a.Label, a.Owner(), own.Rule) + ": " + own.Reason
			return own
		}
	}
	d := Evaluate(cfg, p, s.stateLocked())
	if !d.Allowed {
		d.Reason = whose("", "all agents together", d.Rule) + ": " + d.Reason
		return d
	}
	if own.NoCapApplies && !d.NoCapApplies {
		d.NoCapApplies, d.UncappedMints, d.Reason = true, own.UncappedMints, own.Reason
	}
	return d
}

// whose names the limit a denial came from, "research's session cap (uid
// 1500)", or "the console's session cap (all agents together)".
func whose(label, who, rule string) string {
	limit := map[string]string{
		RulePerTx: "per-transaction cap", RulePerSession: "session cap", RulePerDay: "day cap",
		RuleRecipient: "recipient allowlist", RuleMints: "mint lists", RuleActionOrigin: "action origin allowlist",
		RuleX402Origin: "x402 origin allowlist", RuleTokenPerTx: "per-transaction token cap",
		RuleTokenPerSession: "session token cap", RuleTokenPerDay: "day token cap",
	}[rule]
	if limit == "" {
		limit = "policy"
	}
	if label == "" {
		if who == "all agents together" {
			return "the console's " + limit + " (" + who + ")"
		}
		return who + "'s " + limit
	}
	return label + "'s " + limit + " (" + who + ")"
}

// tokenTotalsLocked sums each mint's spends. Entries are few (one per
// approved spend in the window), so they are summed afresh each time rather
// than kept as running totals that a saturated add could skew. Nil when no
// token was spent, so a SOL-only ledger's state compares equal to before.
func (s *Spend) tokenTotalsLocked(cutoff time.Time, agent *string) map[string]TokenTotals {
	var out map[string]TokenTotals
	for _, e := range s.entries {
		if agent != nil && e.agent != *agent {
			continue
		}
		for mint, n := range e.tokens {
			var t TokenTotals
			switch e.state {
			case StateReserved, StateUnknown:
				t.SessionReserved, t.DayReserved = n, n
			case StateSettled:
				if e.thisSession {
					t.SessionSpent = n
				}
				if e.at.After(cutoff) {
					t.DaySpent = n
				}
			}
			if t == (TokenTotals{}) {
				continue
			}
			if out == nil {
				out = map[string]TokenTotals{}
			}
			sum := out[mint]
			sum.SessionSpent = addCapped(sum.SessionSpent, t.SessionSpent)
			sum.SessionReserved = addCapped(sum.SessionReserved, t.SessionReserved)
			sum.DaySpent = addCapped(sum.DaySpent, t.DaySpent)
			sum.DayReserved = addCapped(sum.DayReserved, t.DayReserved)
			out[mint] = sum
		}
	}
	return out
}

// Reserve evaluates p against cfg and the current ledger and, only if
// allowed, holds p.Lamports under id — all under one lock. A denial is a
// Decision with a nil error; an error means nothing was reserved because the
// ledger could not record it.
func (s *Spend) Reserve(id string, cfg Config, p Proposal) (Decision, error) {
	if id == "" {
		return Decision{Rule: RuleLedger, Reason: "the spend has no reservation id."}, fmt.Errorf("reserve: empty id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, exists := s.entries[id]; exists {
		return Decision{Rule: RuleLedger, Reason: "this spend was already reserved once."}, fmt.Errorf("reserve %s: %w", id, ErrDuplicateReservation)
	}
	d := s.judgeLocked(cfg, p)
	if !d.Allowed {
		return d, nil
	}
	now := s.now()
	var tokens map[string]uint64
	for _, t := range p.Tokens {
		if tokens == nil {
			tokens = map[string]uint64{}
		}
		tokens[t.Mint] = t.Amount // Evaluate refused a mint listed twice
	}
	var recorded *store.Queued
	if s.store != nil {
		// Queued, not awaited: Sent's write commits it (see Spend). A write
		// refused before it was queued (an amount the database cannot
		// hold) fails here.
		recorded = s.store.QueueReservation(store.Reservation{ID: id, Lamports: p.Lamports, Agent: p.Agent, Tokens: storeTokens(tokens), State: StateReserved, CreatedAt: now, UpdatedAt: now})
		if err := recorded.Refused(); err != nil {
			return Decision{Rule: RuleLedger, Reason: "the spend could not be recorded, so it was not allowed."}, fmt.Errorf("reserve %s: %w", id, err)
		}
	}
	// The agent's entry and the total's are one entry under one lock: the
	// agent's budget and the console's are held and freed together.
	s.entries[id] = &spendEntry{lamports: p.Lamports, tokens: tokens, state: StateReserved, at: now, thisSession: true, agent: p.Agent, recorded: recorded}
	s.open = addCapped(s.open, p.Lamports)
	return d, nil
}

// openEntry returns the entry for id if it is still reserved or unknown.
func (s *Spend) openEntry(op, id string) (*spendEntry, error) {
	e, ok := s.entries[id]
	if !ok {
		return nil, fmt.Errorf("%s %s: %w", op, id, ErrUnknownReservation)
	}
	if e.state != StateReserved && e.state != StateUnknown {
		return nil, fmt.Errorf("%s %s (%s): %w", op, id, e.state, ErrReservationClosed)
	}
	return e, nil
}

// errNeverRecorded: the reservation's own record, queued by Reserve, failed
// to commit; the change persist was asked for has no row to change.
var errNeverRecorded = errors.New("the reservation itself was not recorded")

// persist writes e's change. The update is queued behind the reservation's
// own insert when that is still pending (Reserve), so both commit together.
func (s *Spend) persist(id string, e *spendEntry, lamports uint64, state, signature string) error {
	if s.store == nil {
		return nil
	}
	err := s.store.UpdateReservation(store.Reservation{
		ID: id, Lamports: lamports, Agent: e.agent, Tokens: storeTokens(e.tokens), State: state, Signature: signature, LastValidBlockHeight: e.lastValid,
		CreatedAt: e.at, UpdatedAt: s.now(),
	})
	if e.recorded != nil {
		// Committed with the update or before it: already answered.
		if rerr := e.recorded.Wait(); rerr != nil {
			return fmt.Errorf("%w: %w", errNeverRecorded, rerr)
		}
		e.recorded = nil
	}
	return err
}

// Settle records that the spend landed: the real amount (from the verified
// transaction) replaces the reservation. Settling twice, or settling an id
// that was never reserved, is an error and changes nothing.
func (s *Spend) Settle(id string, actualLamports uint64) error {
	return s.SettleMeasured(id, actualLamports, nil)
}

// SettleMeasured is Settle with each mint's measured outflow (base units,
// by mint address): each reserved mint's amount becomes what the landed
// transaction moved of it. nil keeps the reserved amounts. A mint that left
// but was never reserved is counted too: what landed is what was spent.
func (s *Spend) SettleMeasured(id string, actualLamports uint64, tokensOut map[string]uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.openEntry("settle", id)
	if err != nil {
		return err
	}
	reserved := e.tokens
	if tokensOut != nil {
		landed := make(map[string]uint64, len(e.tokens))
		for m := range e.tokens {
			landed[m] = tokensOut[m]
		}
		for m, n := range tokensOut {
			if n > 0 && m != NativeMint {
				landed[m] = n
			}
		}
		e.tokens = landed
	}
	if err := s.persist(id, e, actualLamports, StateSettled, e.signature); err != nil {
		e.tokens = reserved // nothing changed: still reserved as it was
		return fmt.Errorf("settle %s: %w", id, err)
	}
	if e.thisSession {
		s.sessionSpent = addCapped(s.sessionSpent, actualLamports)
	}
	s.settledDay = append(s.settledDay, dayEntry{at: e.at, lamports: actualLamports})
	e.lamports, e.state = actualLamports, StateSettled
	s.open = s.openTotal()
	return nil
}

// Release returns a reservation's budget: only for a spend that provably
// never landed (its blockhash expired unseen, or it was never sent).
func (s *Spend) Release(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.openEntry("release", id)
	if err != nil {
		return err
	}
	// A reservation whose record never committed was never sent (Sent
	// would have failed): nothing durable holds its budget, so it is
	// released in memory alone.
	if err := s.persist(id, e, e.lamports, StateReleased, e.signature); err != nil && !errors.Is(err, errNeverRecorded) {
		return fmt.Errorf("release %s: %w", id, err)
	}
	e.state = StateReleased
	s.open = s.openTotal()
	return nil
}

// Sent attaches the signature, and the block height past which it can no
// longer land, to a reservation before the transaction goes out, so a crash
// right after sending leaves something to reconcile instead of a mystery.
// Callers must not send when it fails.
func (s *Spend) Sent(id, signature string, lastValidBlockHeight uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.openEntry("sent", id)
	if err != nil {
		return err
	}
	prev := e.lastValid
	e.lastValid = lastValidBlockHeight
	if err := s.persist(id, e, e.lamports, StateReserved, signature); err != nil {
		e.lastValid = prev
		return fmt.Errorf("sent %s: %w", id, err)
	}
	e.state, e.signature = StateReserved, signature
	return nil
}

// Unknown records that the outcome could not be established (RPC trouble).
// The reservation keeps holding its budget until reconciliation settles or
// releases it; that is the whole point of not releasing on doubt.
func (s *Spend) Unknown(id, signature string) error {
	return s.mark("unknown", id, StateUnknown, signature)
}

func (s *Spend) mark(op, id, state, signature string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.openEntry(op, id)
	if err != nil {
		return err
	}
	if err := s.persist(id, e, e.lamports, state, signature); err != nil {
		return fmt.Errorf("%s %s: %w", op, id, err)
	}
	e.state, e.signature = state, signature
	return nil
}

// Lookup reports a reservation's state and amount as the ledger holds it.
func (s *Spend) Lookup(id string) (state string, lamports uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[id]
	if !ok {
		return "", 0, false
	}
	return e.state, e.lamports, true
}

// openTotal sums the reservations still open. It is recomputed rather than
// decremented: once a saturated total (addCapped) is decremented it would
// undercount what is still in flight.
func (s *Spend) openTotal() uint64 {
	var t uint64
	for _, e := range s.entries {
		if e.state == StateReserved || e.state == StateUnknown {
			t = addCapped(t, e.lamports)
		}
	}
	return t
}

// tokensByMint reads a stored reservation's token amounts (nil: none).
func tokensByMint(ts []store.TokenAmount) map[string]uint64 {
	if len(ts) == 0 {
		return nil
	}
	out := make(map[string]uint64, len(ts))
	for _, t := range ts {
		out[t.Mint] = addCapped(out[t.Mint], t.Amount)
	}
	return out
}

// storeTokens lists token amounts for the store, sorted by mint so a
// reservation's row is the same bytes whatever the map order.
func storeTokens(m map[string]uint64) []store.TokenAmount {
	if len(m) == 0 {
		return nil
	}
	out := make([]store.TokenAmount, 0, len(m))
	for mint, n := range m {
		out = append(out, store.TokenAmount{Mint: mint, Amount: n})
	}
	slices.SortFunc(out, func(a, b store.TokenAmount) int { return strings.Compare(a.Mint, b.Mint) })
	return out
}
