package store

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

func reopen(t testing.TB, st *Store, dir string) *Store {
	t.Helper()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	return st2
}

func TestOpenCreatesPrivateDirAndWAL(t *testing.T) {
	st, dir := openTemp(t)
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		t.Fatalf("state dir mode %o, want 700", perm)
	}
	var mode string
	if err := st.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
	var sync int
	if err := st.DB().QueryRow(`PRAGMA synchronous`).Scan(&sync); err != nil || sync != 2 {
		t.Fatalf("synchronous = %d, %v; want 2 (FULL)", sync, err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
}

func TestMigrationsAppliedOnce(t *testing.T) {
	st, dir := openTemp(t)
	st = reopen(t, st, dir)
	var n, max int
	if err := st.DB().QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != SchemaVersion() || max != SchemaVersion() {
		t.Fatalf("schema_version has %d rows, max %d; want %d", n, max, SchemaVersion())
	}

	// A new migration is applied exactly once, on the next open only.
	saved := migrations
	t.Cleanup(func() { migrations = saved })
	migrations = append(append([]string(nil), saved...), `CREATE TABLE extra (x INTEGER)`)
	st = reopen(t, st, dir)
	st = reopen(t, st, dir) // a second apply would fail: table extra already exists
	if err := st.DB().QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != len(saved)+1 || max != len(saved)+1 {
		t.Fatalf("after adding a migration: %d rows, max %d", n, max)
	}
	migrations = saved
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "newer than this solgate") {
		t.Fatalf("opening a newer database with an older schema list: %v", err)
	}
}

func TestRecordsReadBackAfterReopen(t *testing.T) {
	st, dir := openTemp(t)
	created := time.Date(2025, 6, 1, 12, 0, 0, 123456789, time.UTC)
	p := Proposal{ID: "p1", Client: "claude-desktop", Tool: "transfer_sol", Fingerprint: "abcd",
		Args: json.RawMessage(`{"to":"X","lamports":"50000000"}`), Preview: "Transfer 0.05 SOL", CreatedAt: created}
	must(t, st.InsertProposal(p))
	if err := st.InsertProposal(p); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second insert: %v", err)
	}
	must(t, st.RecordDecision(Decision{ProposalID: "p1", DecidedBy: "operator", DecidedAt: created.Add(3 * time.Second), Outcome: OutcomeApproved, Reason: "ok", Latency: 3 * time.Second}))
	if err := st.RecordDecision(Decision{ProposalID: "p1", DecidedBy: "timer", Outcome: OutcomeExpired}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second decision: %v", err)
	}
	if err := st.RecordDecision(Decision{ProposalID: "p1", Outcome: "maybe"}); err == nil {
		t.Fatal("bad outcome accepted")
	}
	if err := st.RecordDecision(Decision{ProposalID: "ghost", Outcome: OutcomeDenied}); err == nil {
		t.Fatal("decision for a missing proposal accepted")
	}
	must(t, st.PutReservation(Reservation{ID: "p1", Lamports: 50_005_000, CreatedAt: created}))
	must(t, st.RecordExecution(Execution{ProposalID: "p1", Signature: "sig1", Outcome: ExecUnknown, At: created}))
	must(t, st.UpdateReservation(Reservation{ID: "p1", Lamports: 50_005_000, State: StateSettled, Signature: "sig1", CreatedAt: created, UpdatedAt: created.Add(time.Minute)}))
	if err := st.UpdateReservation(Reservation{ID: "p1", Lamports: 1, State: StateReleased}); !errors.Is(err, ErrReservationDone) {
		t.Fatalf("update of a settled reservation: %v", err)
	}
	if err := st.UpdateReservation(Reservation{ID: "ghost", State: StateReleased}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update of a missing reservation: %v", err)
	}
	must(t, st.RecordExecution(Execution{ProposalID: "p1", Signature: "sig1", Slot: 42, Fee: 5000, Outcome: ExecExecuted,
		Deltas: json.RawMessage(`{"X": 50000000}`), At: created.Add(time.Minute)}))

	st = reopen(t, st, dir)
	gotP, err := st.GetProposal("p1")
	if err != nil || gotP.Status != ExecExecuted || gotP.Client != "claude-desktop" || !gotP.CreatedAt.Equal(created) || string(gotP.Args) != string(p.Args) {
		t.Fatalf("proposal read back: %+v, %v", gotP, err)
	}
	gotD, err := st.GetDecision("p1")
	if err != nil || gotD.Outcome != OutcomeApproved || gotD.DecidedBy != "operator" || gotD.LatencyMS != 3000 {
		t.Fatalf("decision read back: %+v, %v", gotD, err)
	}
	execs, err := st.Executions("p1")
	if err != nil || len(execs) != 2 || execs[1].Slot != 42 || execs[1].Fee != 5000 || execs[1].Outcome != ExecExecuted {
		t.Fatalf("executions read back: %+v, %v", execs, err)
	}
	r, err := st.GetReservation("p1")
	if err != nil || r.State != StateSettled || r.Lamports != 50_005_000 || r.Signature != "sig1" {
		t.Fatalf("reservation read back: %+v, %v", r, err)
	}
	if sum, err := st.DaySpendSince(created.Add(-time.Hour)); err != nil || sum != 50_005_000 {
		t.Fatalf("DaySpendSince = %d, %v", sum, err)
	}
	if sum, err := st.DaySpendSince(created.Add(time.Second)); err != nil || sum != 0 {
		t.Fatalf("DaySpendSince after the spend = %d, %v", sum, err)
	}

	// Every successful write left exactly one audit entry, in order; the
	// refused ones left none.
	entries, err := st.Audit()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, e.Kind)
	}
	want := "proposal decision reservation execution reservation execution"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("audit kinds %q, want %q", strings.Join(kinds, " "), want)
	}
	if bad, err := st.VerifyAudit(); err != nil {
		t.Fatalf("VerifyAudit: %d %v", bad, err)
	}
}

func TestInFlightOnlySignedOpenReservations(t *testing.T) {
	st, _ := openTemp(t)
	now := time.Now()
	must(t, st.PutReservation(Reservation{ID: "unsigned", Lamports: 1, CreatedAt: now}))
	must(t, st.PutReservation(Reservation{ID: "signed", Lamports: 2, Signature: "s1", CreatedAt: now}))
	must(t, st.PutReservation(Reservation{ID: "unknown", Lamports: 3, CreatedAt: now}))
	must(t, st.UpdateReservation(Reservation{ID: "unknown", Lamports: 3, State: StateUnknown, Signature: "s2", CreatedAt: now, UpdatedAt: now}))
	must(t, st.PutReservation(Reservation{ID: "done", Lamports: 4, Signature: "s3", CreatedAt: now}))
	must(t, st.UpdateReservation(Reservation{ID: "done", Lamports: 4, State: StateSettled, Signature: "s3", CreatedAt: now, UpdatedAt: now}))
	got, err := st.InFlight()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range got {
		ids[r.ID] = true
	}
	if len(got) != 2 || !ids["signed"] || !ids["unknown"] {
		t.Fatalf("InFlight = %+v", got)
	}
	open, err := st.OpenReservations()
	if err != nil || len(open) != 3 {
		t.Fatalf("OpenReservations = %+v, %v", open, err)
	}
}

func TestConcurrentAppendsKeepOneChain(t *testing.T) {
	st, _ := openTemp(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				if _, err := st.AppendAudit("note", "", map[string]int{"g": g, "i": i}); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	entries, err := st.Audit()
	if err != nil || len(entries) != 80 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	if bad, err := st.VerifyAudit(); err != nil {
		t.Fatalf("entry %d: %v", bad, err)
	}
}

// seedAudit writes n entries and returns the store.
func seedAudit(t *testing.T, n int) *Store {
	st, _ := openTemp(t)
	for i := 1; i <= n; i++ {
		if _, err := st.AppendAudit("note", "p", map[string]any{"i": i, "memo": "hello"}); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func TestVerifyAuditDetectsTampering(t *testing.T) {
	tests := []struct {
		name    string
		sql     string
		badSeq  int64
		wantErr error
	}{
		{"body edited", `UPDATE audit SET body = '{"i":3,"memo":"HELLO"}' WHERE seq = 3`, 3, ErrAuditHashMismatch},
		{"kind edited", `UPDATE audit SET kind = 'other' WHERE seq = 2`, 2, ErrAuditHashMismatch},
		{"timestamp edited", `UPDATE audit SET at = at + 1 WHERE seq = 4`, 4, ErrAuditHashMismatch},
		{"hash edited to match nothing", `UPDATE audit SET hash = 'ff' WHERE seq = 5`, 5, ErrAuditHashMismatch},
		{"middle row deleted", `DELETE FROM audit WHERE seq = 3`, 3, ErrAuditGap},
		{"first row deleted", `DELETE FROM audit WHERE seq = 1`, 1, ErrAuditGap},
		{"last row deleted", `DELETE FROM audit WHERE seq = 5`, 5, ErrAuditTruncated},
		{"all rows deleted", `DELETE FROM audit`, 1, ErrAuditTruncated},
		{"prev hash relinked", `UPDATE audit SET prev_hash = (SELECT hash FROM audit WHERE seq = 1) WHERE seq = 3`, 3, ErrAuditHashMismatch},
		{"head removed", `DELETE FROM audit_head`, 6, ErrAuditTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := seedAudit(t, 5)
			if bad, err := st.VerifyAudit(); err != nil {
				t.Fatalf("fresh chain: %d %v", bad, err)
			}
			if _, err := st.DB().Exec(tt.sql); err != nil {
				t.Fatal(err)
			}
			bad, err := st.VerifyAudit()
			if bad != tt.badSeq || !errors.Is(err, tt.wantErr) {
				t.Fatalf("VerifyAudit = %d, %v; want %d, %v", bad, err, tt.badSeq, tt.wantErr)
			}
			var ae *AuditError
			if !errors.As(err, &ae) || ae.Seq != tt.badSeq {
				t.Fatalf("error %v is not an AuditError for %d", err, tt.badSeq)
			}
		})
	}
}

// A forger who rewrites an entry and recomputes its hash still breaks the
// next link.
func TestVerifyAuditDetectsRecomputedHash(t *testing.T) {
	st := seedAudit(t, 4)
	entries, err := st.Audit()
	if err != nil {
		t.Fatal(err)
	}
	e := entries[1]
	body := `{"i":2,"memo":"forged"}`
	hash := entryHash(e.PrevHash, canonicalEntry(e.Seq, e.At.UnixNano(), e.Kind, e.ProposalID, body))
	if _, err := st.DB().Exec(`UPDATE audit SET body = ?, hash = ? WHERE seq = 2`, body, hash); err != nil {
		t.Fatal(err)
	}
	bad, err := st.VerifyAudit()
	if bad != 3 || !errors.Is(err, ErrAuditPrevHash) {
		t.Fatalf("VerifyAudit = %d, %v; want entry 3 prev-hash mismatch", bad, err)
	}
}

func TestCanonicalBodyIsStable(t *testing.T) {
	a, err := canonicalBody(map[string]any{"b": 1, "a": json.RawMessage(`{"z": 18446744073709551615, "y": [1, 2]}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := canonicalBody(json.RawMessage(`{"a":{"y":[1,2],"z":18446744073709551615},"b":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a != `{"a":{"y":[1,2],"z":18446744073709551615},"b":1}` {
		t.Fatalf("canonical forms differ: %s vs %s", a, b)
	}
}

func TestOpenExistingDoesNotCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	if _, err := OpenExisting(dir); !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("OpenExisting on nothing: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenExisting created %s", dir)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// What is planted where the database's files go is refused by name before
// SQLite opens it: a link to another state directory's database (two
// consoles, two locks, one ledger; a hard link: the next test), a FIFO where
// the database or its write-ahead log goes.
func TestOpenRefusesPlantedDatabaseFiles(t *testing.T) {
	other := seedAudit(t, 1)
	for _, tc := range []struct {
		name, file string
		existing   bool // the database is there already
		plant      func(path string) error
		want       string
	}{
		{"a link to another state's database", FileName, false, func(p string) error { return os.Symlink(other.Path(), p) }, " is a symbolic link"},
		{"a FIFO as the database", FileName, false, func(p string) error { return syscall.Mkfifo(p, 0o600) }, " is not a regular file (p---------)"},
		{"a FIFO as the write-ahead log", FileName + "-wal", true, func(p string) error { return syscall.Mkfifo(p, 0o600) }, " is not a regular file (p---------)"},
	} {
		dir := filepath.Join(t.TempDir(), "state")
		if tc.existing {
			st, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
		} else if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, tc.file)
		if err := tc.plant(path); err != nil {
			t.Fatal(err)
		}
		err := testkit.Within(t, 10*time.Second, "Open with "+tc.name, func() error {
			st, err := Open(dir)
			if err == nil {
				st.Close()
			}
			return err
		})
		if want := "database file " + path + tc.want; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", tc.name, err, want)
		}
	}
}

// A state directory copied with hard links (`cp -al`, a link-dest backup)
// shares its database with the copy: the console refuses it at its next
// start as it refuses the copy, since two consoles would hold one ledger
// under two locks.
func TestOpenRefusesADatabaseWithASecondName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	copyDir := filepath.Join(t.TempDir(), "state-copy")
	if err := os.Mkdir(copyDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, FileName), filepath.Join(copyDir, FileName)); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, copyDir} {
		st, err := Open(d)
		if err == nil {
			st.Close()
		}
		if want := "database file " + filepath.Join(d, FileName) + " has 2 names"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s): %v, want %q", d, err, want)
		}
	}
}
