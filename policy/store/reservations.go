package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Reservation states.
const (
	StateReserved = "reserved" // approved spend, outcome not yet known
	StateSettled  = "settled"  // landed; Lamports is the real amount
	StateReleased = "released" // provably never landed
	StateUnknown  = "unknown"  // sent but unconfirmed (RPC trouble): counts until reconciled
)

// Reservation is one spend held against the caps. Its ID is normally the
// proposal ID, and it is audited under that ID.
type Reservation struct {
	ID       string `json:"id"`
	Lamports uint64 `json:"lamports"`
	// Agent is the user the spend counts against besides the console's
	// total ("uid 1500"); "" for a spend of the console's own.
	Agent string `json:"agent,omitempty"`
	// Tokens are the non-SOL mints the spend moves and how many base units
	// of each, held against the per-mint caps (empty: SOL only).
	Tokens    []TokenAmount `json:"tokens,omitempty"`
	State     string        `json:"state"`
	Signature string        `json:"signature,omitempty"`
	// LastValidBlockHeight is the height past which Signature's transaction
	// can no longer land (0: unknown, e.g. a reservation from schema 1).
	LastValidBlockHeight uint64    `json:"last_valid_block_height,omitempty"`
	CreatedAt            time.Time `json:"created_at"`
	UpdatedAt            time.Time `json:"updated_at"`
}

// TokenAmount is one mint's base units in a reservation.
type TokenAmount struct {
	Mint   string `json:"mint"`
	Amount uint64 `json:"amount"`
}

// putTokens replaces a reservation's token rows inside the caller's
// transaction, so they change together with the reservation or not at all.
func putTokens(tx *writeTx, id string, ts []TokenAmount) error {
	if _, err := tx.Exec(`DELETE FROM reservation_tokens WHERE reservation_id = ?`, id); err != nil {
		return err
	}
	for _, t := range ts {
		n, err := toInt64("token amount", t.Amount)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO reservation_tokens (reservation_id, mint, amount) VALUES (?, ?, ?)`, id, t.Mint, n); err != nil {
			return err
		}
	}
	return nil
}

// PutReservation records a new reservation (state reserved unless given).
func (s *Store) PutReservation(r Reservation) error { return s.QueueReservation(r).Wait() }

// QueueReservation puts the insert of a new reservation (and its audit
// entry) in line and returns at once, like QueueProposal: a write queued
// after it commits with it or after it, never before.
func (s *Store) QueueReservation(r Reservation) *Queued {
	if r.ID == "" {
		return &Queued{err: errors.New("put reservation: empty id")}
	}
	if r.State == "" {
		r.State = StateReserved
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = r.CreatedAt
	}
	lamports, err := toInt64("lamports", r.Lamports)
	if err != nil {
		return &Queued{err: fmt.Errorf("put reservation %s: %w", r.ID, err)}
	}
	lastValid, err := toInt64("last_valid_block_height", r.LastValidBlockHeight)
	if err != nil {
		return &Queued{err: fmt.Errorf("put reservation %s: %w", r.ID, err)}
	}
	for _, t := range r.Tokens {
		if _, err := toInt64("token amount", t.Amount); err != nil || t.Mint == "" {
			return &Queued{err: fmt.Errorf("put reservation %s: token %q: amount %d is not storable or the mint is blank", r.ID, t.Mint, t.Amount)}
		}
	}
	w := s.queue("reservation", r.ID, r, func(tx *writeTx) error {
		var n int
		if err := s.txQueryRow(tx, `SELECT COUNT(*) FROM reservations WHERE id = ?`, r.ID).Scan(&n); err != nil {
			return fmt.Errorf("put reservation %s: %w", r.ID, err)
		}
		if n > 0 {
			return fmt.Errorf("put reservation %s: %w", r.ID, ErrDuplicate)
		}
		if _, err := s.txExec(tx, `INSERT INTO reservations (id, lamports, state, signature, created_at, updated_at, last_valid_block_height, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, lamports, r.State, r.Signature, nanos(r.CreatedAt), nanos(r.UpdatedAt), lastValid, r.Agent); err != nil {
			return fmt.Errorf("put reservation %s: %w", r.ID, err)
		}
		if err := putTokens(tx, r.ID, r.Tokens); err != nil {
			return fmt.Errorf("put reservation %s: %w", r.ID, err)
		}
		return nil
	})
	return &Queued{s: s, w: w}
}

// UpdateReservation changes an open (reserved or unknown) reservation's
// amount, state and signature. A closed one is never reopened or recounted:
// that is ErrReservationDone, and nothing is written.
func (s *Store) UpdateReservation(r Reservation) error {
	lamports, err := toInt64("lamports", r.Lamports)
	if err != nil {
		return fmt.Errorf("update reservation %s: %w", r.ID, err)
	}
	lastValid, err := toInt64("last_valid_block_height", r.LastValidBlockHeight)
	if err != nil {
		return fmt.Errorf("update reservation %s: %w", r.ID, err)
	}
	_, err = s.write("reservation", r.ID, r, func(tx *writeTx) error {
		res, err := s.txExec(tx, `UPDATE reservations SET lamports = ?, state = ?, signature = ?, updated_at = ?, last_valid_block_height = ?
			WHERE id = ? AND state IN ('reserved', 'unknown')`,
			lamports, r.State, r.Signature, nanos(r.UpdatedAt), lastValid, r.ID)
		if err != nil {
			return fmt.Errorf("update reservation %s: %w", r.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			// A settlement replaces each mint's reserved amount with
			// what landed.
			if err := putTokens(tx, r.ID, r.Tokens); err != nil {
				return fmt.Errorf("update reservation %s: %w", r.ID, err)
			}
			return nil
		}
		var state string
		switch err := s.txQueryRow(tx, `SELECT state FROM reservations WHERE id = ?`, r.ID).Scan(&state); {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("update reservation %s: %w", r.ID, ErrNotFound)
		case err != nil:
			return fmt.Errorf("update reservation %s: %w", r.ID, err)
		}
		return fmt.Errorf("update reservation %s (%s): %w", r.ID, state, ErrReservationDone)
	})
	return err
}

const reservationCols = `id, lamports, state, signature, created_at, updated_at, last_valid_block_height, agent`

// scanReservations reads the rows, then each one's token rows (after the
// first query is closed: the pool may hold a single connection).
func (s *Store) scanReservations(rows *sql.Rows) ([]Reservation, error) {
	var out []Reservation
	for rows.Next() {
		var r Reservation
		var lamports, created, updated, lastValid int64
		if err := rows.Scan(&r.ID, &lamports, &r.State, &r.Signature, &created, &updated, &lastValid, &r.Agent); err != nil {
			rows.Close()
			return nil, err
		}
		r.Lamports, r.CreatedAt, r.UpdatedAt = uint64(lamports), fromNanos(created), fromNanos(updated)
		r.LastValidBlockHeight = uint64(lastValid)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	rows.Close()
	for i := range out {
		ts, err := s.db.Query(`SELECT mint, amount FROM reservation_tokens WHERE reservation_id = ? ORDER BY mint`, out[i].ID)
		if err != nil {
			return nil, err
		}
		for ts.Next() {
			var t TokenAmount
			var n int64
			if err := ts.Scan(&t.Mint, &n); err != nil {
				ts.Close()
				return nil, err
			}
			t.Amount = uint64(n)
			out[i].Tokens = append(out[i].Tokens, t)
		}
		err = ts.Err()
		ts.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GetReservation reads one reservation back.
func (s *Store) GetReservation(id string) (Reservation, error) {
	rows, err := s.db.Query(`SELECT `+reservationCols+` FROM reservations WHERE id = ?`, id)
	if err != nil {
		return Reservation{}, fmt.Errorf("reservation %s: %w", id, err)
	}
	rs, err := s.scanReservations(rows)
	if err != nil {
		return Reservation{}, fmt.Errorf("reservation %s: %w", id, err)
	}
	if len(rs) == 0 {
		return Reservation{}, fmt.Errorf("reservation %s: %w", id, ErrNotFound)
	}
	return rs[0], nil
}

// OpenReservations lists every reservation still counting against the caps
// (reserved or unknown), oldest first.
func (s *Store) OpenReservations() ([]Reservation, error) {
	rows, err := s.db.Query(`SELECT ` + reservationCols + ` FROM reservations WHERE state IN ('reserved', 'unknown') ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("open reservations: %w", err)
	}
	return s.scanReservations(rows)
}

// InFlight lists open reservations that carry a signature: transactions that
// may have reached the chain and must be reconciled after a restart before
// new writes are accepted.
func (s *Store) InFlight() ([]Reservation, error) {
	rows, err := s.db.Query(`SELECT ` + reservationCols + ` FROM reservations WHERE state IN ('reserved', 'unknown') AND signature != '' ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("in-flight reservations: %w", err)
	}
	return s.scanReservations(rows)
}

// SettledSince lists settled reservations created at or after t, for
// rebuilding the rolling daily window after a restart.
func (s *Store) SettledSince(t time.Time) ([]Reservation, error) {
	rows, err := s.db.Query(`SELECT `+reservationCols+` FROM reservations WHERE state = 'settled' AND created_at >= ? ORDER BY created_at, id`, nanos(t))
	if err != nil {
		return nil, fmt.Errorf("settled since %s: %w", t, err)
	}
	return s.scanReservations(rows)
}

// DaySpendSince sums the settled lamports of reservations created at or
// after t.
func (s *Store) DaySpendSince(t time.Time) (uint64, error) {
	var sum int64
	if err := s.db.QueryRow(`SELECT COALESCE(SUM(lamports), 0) FROM reservations WHERE state = 'settled' AND created_at >= ?`, nanos(t)).Scan(&sum); err != nil {
		return 0, fmt.Errorf("day spend since %s: %w", t, err)
	}
	return uint64(sum), nil
}
