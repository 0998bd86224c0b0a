package policy

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/solgate/solgate/policy/store"
)

func memSpend(t testing.TB, now func() time.Time) *Spend {
	t.Helper()
	s, err := NewSpend(nil, now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Two concurrent 0.6 SOL spends against a 1.0 SOL session cap: exactly one
// passes, however the goroutines interleave.
func TestTwoConcurrentSpendsCannotBothPass(t *testing.T) {
	cfg := testConfig()
	cfg.MaxLamportsPerTx = 600_000_000
	cfg.MaxLamportsPerSession = 1_000_000_000
	for round := 0; round < 200; round++ {
		s := memSpend(t, nil)
		var wg sync.WaitGroup
		var ok atomic.Int32
		start := make(chan struct{})
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				d, err := s.Reserve(fmt.Sprint(i), cfg, transfer(addr(1), 600_000_000))
				if err != nil {
					t.Error(err)
				}
				if d.Allowed {
					ok.Add(1)
				}
			}(i)
		}
		close(start)
		wg.Wait()
		if ok.Load() != 1 {
			t.Fatalf("round %d: %d of two 0.6 SOL spends passed a 1.0 SOL cap", round, ok.Load())
		}
	}
}

// 1,000 goroutines reserve 0.003 SOL each against a 1.0 SOL session cap:
// exactly 333 fit, and the reserved total never exceeds the cap.
func TestThousandGoroutinesAgainstOneCap(t *testing.T) {
	cfg := testConfig()
	const each = 3_000_000
	s := memSpend(t, nil)
	var wg sync.WaitGroup
	var allowed, denied atomic.Int64
	start := make(chan struct{})
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			d, err := s.Reserve(fmt.Sprintf("r%d", i), cfg, transfer(addr(1), each))
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				allowed.Add(1)
			} else if d.Rule == RulePerSession {
				denied.Add(1)
			} else {
				t.Errorf("unexpected denial %+v", d)
			}
			// Read while others write: the invariant holds at every instant.
			if st := s.State(); st.SessionReserved+st.SessionSpent > cfg.MaxLamportsPerSession {
				t.Errorf("reserved %d over the cap", st.SessionReserved)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	want := int64(cfg.MaxLamportsPerSession / each)
	if allowed.Load() != want || denied.Load() != 1000-want {
		t.Fatalf("allowed %d, denied %d; want %d and %d", allowed.Load(), denied.Load(), want, 1000-want)
	}
	if st := s.State(); st.SessionReserved != uint64(want)*each {
		t.Fatalf("reserved %d, want %d", st.SessionReserved, uint64(want)*each)
	}
}

func TestSettleReleaseUnknown(t *testing.T) {
	cfg := testConfig()
	s := memSpend(t, nil)
	for _, id := range []string{"a", "b", "c"} {
		if d, err := s.Reserve(id, cfg, transfer(addr(1), 100_000_000)); err != nil || !d.Allowed {
			t.Fatalf("reserve %s: %+v %v", id, d, err)
		}
	}
	if _, err := s.Reserve("a", cfg, transfer(addr(1), 1)); !errors.Is(err, ErrDuplicateReservation) {
		t.Fatalf("reusing an id: %v", err)
	}
	// Executed: the real amount (slightly less: rent estimate was high) replaces the hold.
	if err := s.Settle("a", 99_995_000); err != nil {
		t.Fatal(err)
	}
	if err := s.Settle("a", 99_995_000); !errors.Is(err, ErrReservationClosed) {
		t.Fatalf("double settle: %v", err)
	}
	if err := s.Release("a"); !errors.Is(err, ErrReservationClosed) {
		t.Fatalf("release after settle: %v", err)
	}
	if err := s.Settle("nope", 1); !errors.Is(err, ErrUnknownReservation) {
		t.Fatalf("settle unknown id: %v", err)
	}
	if err := s.Release("b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Unknown("c", "sig-c"); err != nil {
		t.Fatal(err)
	}
	want := SpendState{SessionSpent: 99_995_000, SessionReserved: 100_000_000, DaySpent: 99_995_000, DayReserved: 100_000_000}
	if got := s.State(); !reflect.DeepEqual(got, want) {
		t.Fatalf("State = %+v, want %+v (unknown keeps its hold, release frees it, double settle counted once)", got, want)
	}
	// Reconciliation later finds c landed.
	if err := s.Settle("c", 100_000_000); err != nil {
		t.Fatal(err)
	}
	if got := s.State(); got.SessionSpent != 199_995_000 || got.SessionReserved != 0 {
		t.Fatalf("after reconciling c: %+v", got)
	}
}

func TestDailyWindowRolls(t *testing.T) {
	clock := newFakeClock()
	cfg := testConfig()
	cfg.MaxLamportsPerDay = 150_000_000
	s := memSpend(t, clock.Now)
	if d, _ := s.Reserve("a", cfg, transfer(addr(1), 100_000_000)); !d.Allowed {
		t.Fatal(d)
	}
	if err := s.Settle("a", 100_000_000); err != nil {
		t.Fatal(err)
	}
	clock.Advance(23 * time.Hour)
	if d, _ := s.Reserve("b", cfg, transfer(addr(1), 100_000_000)); d.Allowed || d.Rule != RulePerDay {
		t.Fatalf("23 h later the first spend still counts: %+v", d)
	}
	clock.Advance(time.Hour + time.Second)
	if d, _ := s.Reserve("c", cfg, transfer(addr(1), 100_000_000)); !d.Allowed {
		t.Fatalf("24 h later the first spend has aged out: %+v", d)
	}
	if st := s.State(); st.DaySpent != 0 || st.DayReserved != 100_000_000 || st.SessionSpent != 100_000_000 {
		t.Fatalf("state after the window rolled: %+v", st)
	}
}

// The ledger persists: a new Spend over the same database (a restart)
// still holds the open reservations and the daily window, and refuses to
// settle twice what was settled before the restart.
func TestSpendSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	clock := newFakeClock()
	cfg := testConfig()
	cfg.MaxLamportsPerDay = 500_000_000

	st, s := openSpend(t, dir, clock.Now)
	for _, id := range []string{"settled", "open", "unknown", "released"} {
		if d, err := s.Reserve(id, cfg, transfer(addr(1), 100_000_000)); err != nil || !d.Allowed {
			t.Fatalf("reserve %s: %+v %v", id, d, err)
		}
	}
	must(t, s.Settle("settled", 90_000_000))
	must(t, s.Sent("open", "sig-open", 1234))
	must(t, s.Unknown("unknown", "sig-unknown"))
	must(t, s.Release("released"))
	must(t, st.Close())

	clock.Advance(time.Hour)
	st2, s2 := openSpend(t, dir, clock.Now)
	defer st2.Close()
	want := SpendState{SessionSpent: 0, SessionReserved: 200_000_000, DaySpent: 90_000_000, DayReserved: 200_000_000}
	if got := s2.State(); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored state %+v, want %+v", got, want)
	}
	inflight, err := st2.InFlight()
	if err != nil || len(inflight) != 2 || inflight[0].Signature == "" || inflight[1].Signature == "" {
		t.Fatalf("InFlight = %+v, %v; want the two signed open reservations", inflight, err)
	}
	if err := s2.Settle("settled", 1); !errors.Is(err, ErrReservationClosed) {
		t.Fatalf("settling again after restart: %v", err)
	}
	// 90M settled + 200M open + 250M would cross the 500M daily cap.
	cfg.MaxLamportsPerTx = 250_000_000
	if d, _ := s2.Reserve("new", cfg, transfer(addr(1), 250_000_000)); d.Allowed || d.Rule != RulePerDay {
		t.Fatalf("restored daily window not enforced: %+v", d)
	}
	// Reconcile after restart: the unknown one landed, the open one never did.
	must(t, s2.Settle("unknown", 100_000_000))
	must(t, s2.Release("open"))
	r, err := st2.GetReservation("unknown")
	if err != nil || r.State != store.StateSettled || r.Lamports != 100_000_000 || r.Signature != "sig-unknown" {
		t.Fatalf("row after reconciling: %+v, %v", r, err)
	}
	if got := s2.State(); got.SessionReserved != 0 || got.DaySpent != 190_000_000 || got.SessionSpent != 0 {
		t.Fatalf("after reconciling: %+v (earlier session's spend must count only in the day window)", got)
	}
	// 24 h after the original spends, the window is empty again on restart.
	clock.Advance(24 * time.Hour)
	s3, err := NewSpend(st2, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if got := s3.State(); !reflect.DeepEqual(got, SpendState{}) {
		t.Fatalf("a day later: %+v", got)
	}
	if bad, err := st2.VerifyAudit(); err != nil {
		t.Fatalf("audit chain after the ledger's writes: entry %d: %v", bad, err)
	}
}

// If the store cannot record a reservation, nothing can be sent: Reserve
// only queues the record, Sent (which must succeed before any send) fails,
// and Release gives the budget back without a record to write.
func TestSentFailsClosedWhenStoreFails(t *testing.T) {
	dir := t.TempDir()
	st, s := openSpend(t, dir, nil)
	st.Close() // every write now fails
	d, err := s.Reserve("x", testConfig(), transfer(addr(1), 1000))
	if err != nil || !d.Allowed {
		t.Fatalf("Reserve with a dead store: %+v, %v (it queues, and the failure belongs to Sent)", d, err)
	}
	if err := s.Sent("x", "sig-x", 100); err == nil {
		t.Fatal("Sent with a dead store succeeded: the caller would send a spend the ledger never recorded")
	}
	if state, _, ok := s.Lookup("x"); !ok || state != StateReserved {
		t.Fatalf("after a failed Sent: %s %v, want still reserved (holding its budget)", state, ok)
	}
	if err := s.Release("x"); err != nil {
		t.Fatalf("release of a reservation never recorded: %v", err)
	}
	if got := s.State(); !reflect.DeepEqual(got, SpendState{}) {
		t.Fatalf("state after releasing the unrecorded reservation: %+v", got)
	}
	// The database, opened again, holds no trace of it.
	st2, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if r, err := st2.GetReservation("x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("row of a reservation the dead store never took: %+v, %v", r, err)
	}
}

// A reservation that is never sent leaves no row behind a restart, and
// one that Sent wrote is restored with its signature: the record of a
// reservation commits with the signature, in one fsync.
func TestReservationIsRecordedWithItsSignature(t *testing.T) {
	dir := t.TempDir()
	st, s := openSpend(t, dir, nil)
	reserve := func(id string) {
		t.Helper()
		if d, err := s.Reserve(id, testConfig(), transfer(addr(1), 1000)); err != nil || !d.Allowed {
			t.Fatalf("reserve %s: %+v %v", id, d, err)
		}
	}
	commits := st.Commits()
	reserve("sent")
	if n := st.Commits() - commits; n != 0 {
		t.Fatalf("Reserve committed %d times, want 0 (its record waits for Sent)", n)
	}
	must(t, s.Sent("sent", "sig-sent", 100))
	if n := st.Commits() - commits; n != 1 {
		t.Fatalf("Reserve and Sent took %d commits, want 1 (the record with the signature)", n)
	}
	// Released before it was sent (signing failed): its record and its
	// release commit together, and the row says released.
	reserve("unsigned")
	commits = st.Commits()
	must(t, s.Release("unsigned"))
	if n := st.Commits() - commits; n != 1 {
		t.Fatalf("Release of a reservation never sent took %d commits, want 1", n)
	}
	if r, err := st.GetReservation("unsigned"); err != nil || r.State != StateReleased {
		t.Fatalf("row of the released reservation: %+v %v", r, err)
	}
	reserve("unsent") // the console stops before it is sent
	must(t, st.Close())
	st2, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	r, err := st2.GetReservation("sent")
	if err != nil || r.State != StateReserved || r.Signature != "sig-sent" || r.LastValidBlockHeight != 100 || r.Lamports != 1000 {
		t.Fatalf("row of the sent reservation: %+v %v", r, err)
	}
	s2, err := NewSpend(st2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.State(); got.SessionReserved != 1000 {
		t.Fatalf("restored %+v, want only the sent reservation open (1000)", got)
	}
	if _, err := st2.GetReservation("unsent"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("row of the reservation never sent: %v, want none", err)
	}
	if bad, err := st2.VerifyAudit(); err != nil {
		t.Fatalf("audit chain: entry %d: %v", bad, err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// openSpend opens the store in dir and restores a spend ledger from it on
// now's clock, as the console does at start; t is a *testing.T or rapid's
// *T, which rapid.TB covers. The caller closes the store: a restart test
// closes it before opening the directory again.
func openSpend(t rapid.TB, dir string, now func() time.Time) (*store.Store, *Spend) {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSpend(st, now)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	return st, s
}
