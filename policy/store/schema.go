package store

import (
	"database/sql"
	"fmt"
	"time"
)

// migrations[i] takes the schema from version i to version i+1. They are
// append-only: a released migration is never edited, a change is a new
// entry. Times are INTEGER unix nanoseconds (exact, sortable); lamports are
// INTEGER (SQLite's int64 holds far more than the sanity-bounded caps).
var migrations = []string{
	// 1: the initial schema.
	`
CREATE TABLE proposals (
	id          TEXT PRIMARY KEY,
	client      TEXT NOT NULL,
	tool        TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	args        TEXT NOT NULL,        -- normalised arguments, JSON
	preview     TEXT NOT NULL,        -- what the human was shown
	created_at  INTEGER NOT NULL,
	status      TEXT NOT NULL
);
CREATE TABLE decisions (
	proposal_id TEXT PRIMARY KEY REFERENCES proposals(id),  -- one decision per proposal
	decided_by  TEXT NOT NULL,
	decided_at  INTEGER NOT NULL,
	outcome     TEXT NOT NULL CHECK (outcome IN ('approved','denied','expired')),
	reason      TEXT NOT NULL,
	latency_ms  INTEGER NOT NULL
);
CREATE TABLE executions (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	proposal_id TEXT NOT NULL,
	signature   TEXT NOT NULL,
	slot        INTEGER NOT NULL,
	fee         INTEGER NOT NULL,
	outcome     TEXT NOT NULL CHECK (outcome IN ('executed','failed','expired','unknown')),
	deltas      TEXT NOT NULL,        -- verified balance deltas, JSON
	at          INTEGER NOT NULL
);
CREATE INDEX executions_proposal ON executions(proposal_id);
CREATE TABLE reservations (
	id          TEXT PRIMARY KEY,
	lamports    INTEGER NOT NULL CHECK (lamports >= 0),
	state       TEXT NOT NULL CHECK (state IN ('reserved','settled','released','unknown')),
	signature   TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
);
CREATE INDEX reservations_state ON reservations(state, created_at);
CREATE TABLE audit (
	seq         INTEGER PRIMARY KEY,
	at          INTEGER NOT NULL,
	kind        TEXT NOT NULL,
	proposal_id TEXT NOT NULL,
	body        TEXT NOT NULL,        -- canonical JSON, hashed verbatim
	prev_hash   TEXT NOT NULL,
	hash        TEXT NOT NULL
);
-- The chain alone cannot notice its newest entries being cut off; the head
-- row, written in the same transaction as every append, can.
CREATE TABLE audit_head (
	id   INTEGER PRIMARY KEY CHECK (id = 1),
	seq  INTEGER NOT NULL,
	hash TEXT NOT NULL
);
`,
	// 2: the last block height at which an in-flight transaction can still
	// land, so reconciliation decides "never landed" from the chain, not a clock.
	`ALTER TABLE reservations ADD COLUMN last_valid_block_height INTEGER NOT NULL DEFAULT 0;`,
	// 3: a swap that landed with more lost than approved has an outcome of
	// its own. SQLite cannot alter a CHECK, so the table is rebuilt.
	`
CREATE TABLE executions_v3 (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	proposal_id TEXT NOT NULL,
	signature   TEXT NOT NULL,
	slot        INTEGER NOT NULL,
	fee         INTEGER NOT NULL,
	outcome     TEXT NOT NULL CHECK (outcome IN ('executed','failed','expired','unknown','executed_with_unexpected_losses')),
	deltas      TEXT NOT NULL,        -- verified balance deltas, JSON
	at          INTEGER NOT NULL
);
INSERT INTO executions_v3 (id, proposal_id, signature, slot, fee, outcome, deltas, at)
	SELECT id, proposal_id, signature, slot, fee, outcome, deltas, at FROM executions;
DROP TABLE executions;
ALTER TABLE executions_v3 RENAME TO executions;
CREATE INDEX executions_proposal ON executions(proposal_id);
`,
	// 4: the genesis hash of the one cluster this state directory serves:
	// its spend ledger, daily cap and audit trail mean nothing on another.
	`CREATE TABLE cluster (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	genesis   TEXT NOT NULL,
	pinned_at INTEGER NOT NULL
);`,
	// 5: a reservation of a token spend holds its mint and base units, so
	// the per-mint caps survive a restart like the SOL ones.
	`ALTER TABLE reservations ADD COLUMN mint TEXT NOT NULL DEFAULT '';
ALTER TABLE reservations ADD COLUMN token_amount INTEGER NOT NULL DEFAULT 0;`,
	// 6: a reservation may spend several mints (a transaction built
	// elsewhere), each held against its own caps: one row per mint. The
	// single mint of version 5 moves here; its columns are no longer written.
	`
CREATE TABLE reservation_tokens (
	reservation_id TEXT NOT NULL REFERENCES reservations(id),
	mint           TEXT NOT NULL CHECK (mint != ''),
	amount         INTEGER NOT NULL CHECK (amount >= 0),
	PRIMARY KEY (reservation_id, mint)
);
INSERT INTO reservation_tokens (reservation_id, mint, amount)
	SELECT id, mint, token_amount FROM reservations WHERE mint != '';
UPDATE reservations SET mint = '', token_amount = 0;
`,
	// 7: a decision is found by its proposal only. Without a rowid its
	// table is one b-tree keyed by proposal_id, not a table plus the index
	// its TEXT primary key needed, so recording a decision writes one page
	// fewer to the WAL (5 → 4 a decision, TestFramesPerRecord).
	`
CREATE TABLE decisions_v7 (
	proposal_id TEXT PRIMARY KEY REFERENCES proposals(id),  -- one decision per proposal
	decided_by  TEXT NOT NULL,
	decided_at  INTEGER NOT NULL,
	outcome     TEXT NOT NULL CHECK (outcome IN ('approved','denied','expired')),
	reason      TEXT NOT NULL,
	latency_ms  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO decisions_v7 (proposal_id, decided_by, decided_at, outcome, reason, latency_ms)
	SELECT proposal_id, decided_by, decided_at, outcome, reason, latency_ms FROM decisions;
DROP TABLE decisions;
ALTER TABLE decisions_v7 RENAME TO decisions;
`,
	// 8: the user that made each proposal, by the kernel's word ("uid
	// 1001"), so that after a restart proposal_status still answers only
	// that user. Rows from before say '' (not known).
	`ALTER TABLE proposals ADD COLUMN owner TEXT NOT NULL DEFAULT '';`,
	// 9: the agent user a reservation was made for ("uid 1500"), so each
	// agent's own day cap holds across a restart. Rows from before say ''
	// (counted in the console's total only).
	`ALTER TABLE reservations ADD COLUMN agent TEXT NOT NULL DEFAULT '';`,
	// 10: what identifies a signed x402 payment on chain (the facilitator
	// submits it, so its id is not ours to know): the exact message, the
	// wallet's token account it pays from, the block height past which it
	// cannot land, and the slot from which to search. Only the chain then
	// settles or releases it, across restarts.
	`CREATE TABLE x402_payments (
	reservation_id          TEXT PRIMARY KEY,
	message                 BLOB NOT NULL,
	source                  TEXT NOT NULL,
	last_valid_block_height INTEGER NOT NULL CHECK (last_valid_block_height > 0),
	from_slot               INTEGER NOT NULL
);`,
}

// SchemaVersion is the version a freshly migrated database is at.
func SchemaVersion() int { return len(migrations) }

// migrate applies every migration the database has not seen, each in its own
// transaction together with its schema_version row, so a crash mid-way
// leaves the database at a whole version and the next start resumes.
func migrate(db *sql.DB) error {
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS schema_version (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("create schema_version: %w", err)
	}
	for {
		done, err := migrateOne(db)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

func migrateOne(db *sql.DB) (done bool, err error) {
	tx, err := db.Begin() // BEGIN IMMEDIATE (see dsn): a second process waits here
	if err != nil {
		return false, fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback()
	var current int
	if err := tx.QueryRow(`SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return false, fmt.Errorf("read schema version: %w", err)
	}
	if current > len(migrations) {
		return false, fmt.Errorf("database schema version %d is newer than this solgate understands (%d); use a newer solgate", current, len(migrations))
	}
	if current == len(migrations) {
		return true, nil
	}
	if _, err := tx.Exec(migrations[current]); err != nil {
		return false, fmt.Errorf("apply migration %d: %w", current+1, err)
	}
	if _, err := tx.Exec(`INSERT INTO schema_version (version, applied_at) VALUES (?, ?)`, current+1, time.Now().UnixNano()); err != nil {
		return false, fmt.Errorf("record migration %d: %w", current+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("commit migration %d: %w", current+1, err)
	}
	return false, nil
}
