package policy

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/solgate/solgate/policy/store"
)

// modelEntry is the property test's own, obviously-correct bookkeeping.
type modelEntry struct {
	state    string
	lamports uint64
	// recorded: its row has committed. Reserve only queues the row; the
	// next write of the ledger commits it (see Spend).
	recorded bool
}

type spendModel struct {
	entries map[string]modelEntry
	ids     []string // every id ever used, so ops also hit closed ones
}

func (m *spendModel) totals() (settled, open uint64) {
	return m.totalsOf(false)
}

// totalsOf sums every entry, or with recordedOnly those a restart restores.
func (m *spendModel) totalsOf(recordedOnly bool) (settled, open uint64) {
	for _, e := range m.entries {
		if recordedOnly && !e.recorded {
			continue
		}
		switch e.state {
		case StateSettled:
			settled += e.lamports
		case StateReserved, StateUnknown:
			open += e.lamports
		}
	}
	return settled, open
}

// spendMachine drives a Spend and the model with the same random operations.
type spendMachine struct {
	cfg   Config
	spend *Spend
	model *spendModel
	next  int
}

func newSpendMachine(s *Spend) *spendMachine {
	cfg := testConfig()
	cfg.MaxLamportsPerTx = 400_000_000
	cfg.MaxLamportsPerSession = 1_000_000_000
	return &spendMachine{cfg: cfg, spend: s, model: &spendModel{entries: map[string]modelEntry{}}}
}

// pickID draws an existing id most of the time and sometimes one never seen.
func (m *spendMachine) pickID(t *rapid.T) string {
	if len(m.model.ids) == 0 || rapid.IntRange(0, 9).Draw(t, "fresh") == 0 {
		return fmt.Sprintf("ghost-%d", rapid.IntRange(0, 3).Draw(t, "ghost"))
	}
	return rapid.SampledFrom(m.model.ids).Draw(t, "id")
}

func (m *spendMachine) reserve(t *rapid.T) {
	lamports := rapid.Uint64Range(1, 500_000_000).Draw(t, "lamports")
	var id string
	if len(m.model.ids) > 0 && rapid.IntRange(0, 9).Draw(t, "reuse") == 0 {
		id = rapid.SampledFrom(m.model.ids).Draw(t, "reused id")
	} else {
		id = fmt.Sprintf("r%d", m.next)
		m.next++
	}
	before := m.spend.State()
	d, err := m.spend.Reserve(id, m.cfg, transfer(addr(1), lamports))
	if _, used := m.model.entries[id]; used {
		if !errors.Is(err, ErrDuplicateReservation) || d.Allowed {
			t.Fatalf("reusing id %s: %+v, %v", id, d, err)
		}
		m.unchanged(t, before)
		return
	}
	if err != nil {
		t.Fatalf("reserve %s: %v", id, err)
	}
	settled, open := m.model.totals()
	fits := lamports <= m.cfg.MaxLamportsPerTx && settled+open+lamports <= m.cfg.MaxLamportsPerSession
	if d.Allowed != fits {
		t.Fatalf("reserve %d lamports with %d settled + %d open: allowed=%v, want %v (%s)", lamports, settled, open, d.Allowed, fits, d.Reason)
	}
	if d.Allowed {
		m.model.entries[id] = modelEntry{state: StateReserved, lamports: lamports}
		m.model.ids = append(m.model.ids, id)
	} else {
		m.unchanged(t, before)
	}
}

// closeOp runs settle/release/unknown on an id and checks it succeeded
// exactly when the model says the reservation is open.
func (m *spendMachine) closeOp(t *rapid.T, op string) {
	id := m.pickID(t)
	e, known := m.model.entries[id]
	open := known && (e.state == StateReserved || e.state == StateUnknown)
	before := m.spend.State()
	var err error
	var next modelEntry
	switch op {
	case "settle":
		// The real amount never exceeds the measured reservation: the
		// simulation priced the same message.
		actual := uint64(0)
		if open {
			actual = rapid.Uint64Range(0, e.lamports).Draw(t, "actual")
		}
		err = m.spend.Settle(id, actual)
		next = modelEntry{state: StateSettled, lamports: actual}
	case "release":
		err = m.spend.Release(id)
		next = modelEntry{state: StateReleased, lamports: e.lamports}
	case "unknown":
		err = m.spend.Unknown(id, "sig-"+id)
		next = modelEntry{state: StateUnknown, lamports: e.lamports}
	}
	if !open {
		want := ErrReservationClosed
		if !known {
			want = ErrUnknownReservation
		}
		if !errors.Is(err, want) {
			t.Fatalf("%s of non-open %s (%+v): err %v, want %v", op, id, e, err, want)
		}
		m.unchanged(t, before)
		return
	}
	if err != nil {
		t.Fatalf("%s %s: %v", op, id, err)
	}
	// The write committed every reservation queued before it.
	for qid, q := range m.model.entries {
		q.recorded = true
		m.model.entries[qid] = q
	}
	next.recorded = true
	m.model.entries[id] = next
}

func (m *spendMachine) unchanged(t *rapid.T, before SpendState) {
	if after := m.spend.State(); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused operation changed the ledger: %+v → %+v", before, after)
	}
}

func (m *spendMachine) check(t *rapid.T) {
	settled, open := m.model.totals()
	st := m.spend.State()
	if st.SessionSpent != settled || st.SessionReserved != open || st.DaySpent != settled || st.DayReserved != open {
		t.Fatalf("ledger %+v, model settled=%d open=%d", st, settled, open)
	}
	if st.SessionSpent+st.SessionReserved > m.cfg.MaxLamportsPerSession {
		t.Fatalf("settled %d + reserved %d exceeds the cap %d", st.SessionSpent, st.SessionReserved, m.cfg.MaxLamportsPerSession)
	}
	for id, e := range m.model.entries {
		state, lamports, ok := m.spend.Lookup(id)
		if !ok || state != e.state || lamports != e.lamports {
			t.Fatalf("entry %s: ledger (%s, %d, %v), model %+v", id, state, lamports, ok, e)
		}
	}
}

func (m *spendMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"reserve": m.reserve,
		"settle":  func(t *rapid.T) { m.closeOp(t, "settle") },
		"release": func(t *rapid.T) { m.closeOp(t, "release") },
		"unknown": func(t *rapid.T) { m.closeOp(t, "unknown") },
		"":        m.check,
	}
}

func TestSpendInvariantsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, err := NewSpend(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Repeat(newSpendMachine(s).actions())
	})
}

// The same operations against a store-backed ledger, then a restart: the
// restored ledger holds exactly the model's open reservations whose rows
// committed, and every row agrees with the model. A reservation no later
// write committed has no row and is not restored: it was never sent (Sent
// writes), so nothing of it can land.
func TestSpendPersistedInvariantsProperty(t *testing.T) {
	root := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		dir, err := os.MkdirTemp(root, "prop")
		if err != nil {
			t.Fatal(err)
		}
		st, s := openSpend(t, dir, nil)
		defer st.Close()
		m := newSpendMachine(s)
		acts := m.actions()
		names := []string{"reserve", "reserve", "settle", "release", "unknown"}
		steps := rapid.IntRange(1, 12).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			acts[rapid.SampledFrom(names).Draw(t, "op")](t)
			m.check(t)
		}
		restored, err := NewSpend(st, nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, open := m.model.totalsOf(true)
		if got := restored.State(); got.SessionReserved != open || got.DaySpent != settled || got.SessionSpent != 0 {
			t.Fatalf("restored %+v, model settled=%d open=%d", got, settled, open)
		}
		for id, e := range m.model.entries {
			r, err := st.GetReservation(id)
			if !e.recorded {
				if !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("row %s of a reservation no write committed: %+v, %v", id, r, err)
				}
				continue
			}
			if err != nil || r.State != e.state || r.Lamports != e.lamports {
				t.Fatalf("row %s = %+v, %v; model %+v", id, r, err, e)
			}
		}
		if bad, err := st.VerifyAudit(); err != nil {
			t.Fatalf("audit entry %d: %v", bad, err)
		}
	})
}
