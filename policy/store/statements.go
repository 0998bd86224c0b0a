package store

import (
	"database/sql"
	"fmt"
	"sync"
)

// Every write runs the same few statements, and SQLite's parser was a tenth
// of the console's CPU under load (pprof of the bench's throughput run). So
// each is prepared once and reused by every transaction; database/sql keeps
// one prepared copy per connection.
type statements struct {
	mu sync.Mutex
	db *sql.DB
	m  map[string]*sql.Stmt
}

// in returns query prepared for tx, or nil when it could not be prepared
// (the caller then runs the text, and the error surfaces there).
func (c *statements) in(tx *sql.Tx, query string) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.m[query]
	if !ok {
		var err error
		if st, err = c.db.Prepare(query); err != nil {
			c.mu.Unlock()
			return nil
		}
		if c.m == nil {
			c.m = map[string]*sql.Stmt{}
		}
		c.m[query] = st
	}
	c.mu.Unlock()
	return tx.Stmt(st)
}

func (c *statements) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// txExec is tx.Exec through a prepared statement.
func (s *Store) txExec(tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.stmts.in(tx, query); st != nil {
		return st.Exec(args...)
	}
	return tx.Exec(query, args...)
}

// txQueryRow is tx.QueryRow through a prepared statement.
func (s *Store) txQueryRow(tx *sql.Tx, query string, args ...any) *sql.Row {
	if st := s.stmts.in(tx, query); st != nil {
		return st.QueryRow(args...)
	}
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
