package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// walFrame is one page in the WAL file: a 24-byte frame header and a page
// of the database's page size (4096, SQLite's default).
const walFrame = 24 + 4096

// TestFramesPerRecord counts the pages a proposal's two records write to
// the WAL, read from the WAL file's growth: each one is a write system call
// pair, and more data for the commit's fsync to push to the disk. Ids are
// random, as the hub's are. No checkpoint runs within the 120 commits (the
// WAL checkpoints at 1000 pages).
func TestFramesPerRecord(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	preview := strings.Repeat("Instruction: System Program: transfer 0.001 SOL to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\n", 8)
	walSize := func() int64 {
		fi, err := os.Stat(st.Path() + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	record := func(id string) (insert, decision int64) {
		a := walSize()
		if err := st.InsertProposal(Proposal{ID: id, Client: "agent 1", Tool: "transfer_sol", Fingerprint: "0123456789abcdef0123456789abcdef",
			Args: json.RawMessage(`{"lamports":"1000001","to":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"}`), Preview: preview, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		b := walSize()
		if err := st.RecordDecision(Decision{ProposalID: id, DecidedBy: "operator", DecidedAt: time.Now(), Outcome: OutcomeDenied, Reason: "no", Latency: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		return (b - a) / walFrame, (walSize() - b) / walFrame
	}
	for i := range 10 { // the tables' first pages
		record(fmt.Sprintf("warm%d", i))
	}
	const n = 60
	var ins, dec int64
	for i := range n {
		a, b := record(fmt.Sprintf("p_%016x", uint64(i+1)*0x9E3779B97F4A7C15))
		ins, dec = ins+a, dec+b
	}
	perInsert, perDecision := float64(ins)/n, float64(dec)/n
	t.Logf("WAL frames: %.2f a proposal's insert, %.2f a decision", perInsert, perDecision)
	// A decision: its row, the proposal's status, the audit entry and the
	// audit head, one page each; page splits add a fraction.
	if perDecision > 4.5 {
		t.Errorf("a decision writes %.2f pages to the WAL, want at most 4.5 (its row, the proposal's status, the audit entry, the audit head)", perDecision)
	}
}

// A decision recorded under schema 6 (a rowid table with an index on its
// key) is still found, and still the only one, after migration 7 rebuilds
// the table without a rowid.
func TestDecisionsMigrateWithoutRowid(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	for _, id := range []string{"old", "new"} {
		if err := st.InsertProposal(Proposal{ID: id, Client: "agent", Tool: "transfer_sol", Fingerprint: "fp-" + id, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	// Back to schema 6: the table as migration 1 made it, with a decision.
	db, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE decisions`, `ALTER TABLE proposals DROP COLUMN owner`, `ALTER TABLE reservations DROP COLUMN agent`, `DROP TABLE x402_payments`, `DELETE FROM schema_version WHERE version >= 7`,
		`CREATE TABLE decisions (
			proposal_id TEXT PRIMARY KEY REFERENCES proposals(id),
			decided_by  TEXT NOT NULL,
			decided_at  INTEGER NOT NULL,
			outcome     TEXT NOT NULL CHECK (outcome IN ('approved','denied','expired')),
			reason      TEXT NOT NULL,
			latency_ms  INTEGER NOT NULL)`,
		fmt.Sprintf(`INSERT INTO decisions VALUES ('old', 'operator', %d, 'denied', 'too much', 1234)`, at.UnixNano()),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ddl string
	if err := st.DB().QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'decisions'`).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ddl, "WITHOUT ROWID") {
		t.Fatalf("decisions after migration 7: %s; want a table WITHOUT ROWID", ddl)
	}
	d, err := st.GetDecision("old")
	if err != nil || d.DecidedBy != "operator" || d.Outcome != OutcomeDenied || d.Reason != "too much" || d.LatencyMS != 1234 || !d.DecidedAt.Equal(at.UTC().Truncate(0)) {
		t.Fatalf("schema-6 decision after migration: %+v %v", d, err)
	}
	if err := st.RecordDecision(Decision{ProposalID: "old", DecidedBy: "operator", DecidedAt: at, Outcome: OutcomeApproved}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("a second decision for a migrated one: %v, want ErrDuplicate", err)
	}
	if err := st.RecordDecision(Decision{ProposalID: "new", DecidedBy: "operator", DecidedAt: at, Outcome: OutcomeApproved}); err != nil {
		t.Fatal(err)
	}
	if p, err := st.GetProposal("new"); err != nil || p.Status != OutcomeApproved {
		t.Fatalf("proposal after its decision: %+v %v", p, err)
	}
	if err := st.RecordDecision(Decision{ProposalID: "nosuch", DecidedBy: "operator", DecidedAt: at, Outcome: OutcomeDenied}); err == nil {
		t.Fatal("a decision for no proposal was recorded")
	}
	if _, err := st.VerifyAudit(); err != nil {
		t.Fatalf("audit after migration: %v", err)
	}
}
