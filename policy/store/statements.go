package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The writers run every transaction on a connection of their own, with
// each statement they use prepared on it once, BEGIN IMMEDIATE and COMMIT
// included. Every write runs the same few statements, and SQLite's parser
// was a tenth of the console's CPU under load; database/sql's transactions
// then still parsed BEGIN and COMMIT anew each time and wrapped every
// statement for the transaction's connection (about half of a short
// transaction's CPU before its fsync). Only writers (with the writers'
// lock held) use it; readers keep the pool.
type writeConn struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

// writer is the writers' connection, opened at the first write and after
// one that could not begin. Called with the writers' lock held.
func (s *Store) writer() (*writeConn, error) {
	if s.wc != nil {
		return s.wc, nil
	}
	conn, err := s.db.Conn(context.Background())
	if err != nil {
		return nil, err
	}
	s.wc = &writeConn{conn: conn, stmts: map[string]*sql.Stmt{}}
	return s.wc, nil
}

// dropWriter gives the writers' connection up (a BEGIN failed on it: its
// state is not known); the next write opens another.
func (s *Store) dropWriter() {
	if s.wc != nil {
		s.wc.close()
		s.wc = nil
	}
}

func (w *writeConn) stmt(query string) (*sql.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	st, err := w.conn.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, err
	}
	w.stmts[query] = st
	return st, nil
}

func (w *writeConn) exec(query string, args ...any) (sql.Result, error) {
	st, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.Exec(args...)
}

func (w *writeConn) close() {
	for _, st := range w.stmts {
		st.Close()
	}
	w.stmts = nil
	w.conn.Close()
}

// writeTx is a transaction on the writers' connection: what a write's
// statements run in.
type writeTx struct{ w *writeConn }

// begin starts a write transaction (BEGIN IMMEDIATE: the write lock at
// once, so no lock upgrade can deadlock, as the pool's DSN asks of its own
// transactions).
func (w *writeConn) begin() (*writeTx, error) {
	if _, err := w.exec(`BEGIN IMMEDIATE`); err != nil {
		return nil, err
	}
	return &writeTx{w: w}, nil
}

func (t *writeTx) commit() error {
	_, err := t.w.exec(`COMMIT`)
	return err
}

// rollback ends the transaction unless it has ended: after a COMMIT that
// failed SQLite may or may not have rolled back already, and a ROLLBACK
// with none open only says so.
func (t *writeTx) rollback() { _, _ = t.w.exec(`ROLLBACK`) }

// Exec runs query in the transaction through its prepared statement.
func (t *writeTx) Exec(query string, args ...any) (sql.Result, error) {
	return t.w.exec(query, args...)
}

// QueryRow runs query in the transaction through its prepared statement.
func (t *writeTx) QueryRow(query string, args ...any) *sql.Row {
	st, err := t.w.stmt(query)
	if err != nil {
		// The error surfaces at Scan, as it would from an unprepared query.
		return t.w.conn.QueryRowContext(context.Background(), query, args...)
	}
	return st.QueryRow(args...)
}

// txExec is tx.Exec (kept for the writes' bodies).
func (s *Store) txExec(tx *writeTx, query string, args ...any) (sql.Result, error) {
	return tx.Exec(query, args...)
}

// txQueryRow is tx.QueryRow.
func (s *Store) txQueryRow(tx *writeTx, query string, args ...any) *sql.Row {
	return tx.QueryRow(query, args...)
}

// insertedOne turns an INSERT … ON CONFLICT DO NOTHING that inserted no
// row into ErrDuplicate: the first record stands.
func insertedOne(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n != 1 {
		return fmt.Errorf("%s: %w", what, ErrDuplicate)
	}
	return nil
}
