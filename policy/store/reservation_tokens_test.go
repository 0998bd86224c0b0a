package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// A token reservation written under schema 5 (one mint in the
// reservations row) keeps holding its mint after migration 6 moves it to
// one row per mint, and a new reservation stores each of its mints.
func TestReservationTokensMigrateAndStoreEveryMint(t *testing.T) {
	now := time.Now().UnixNano()
	st := atOldSchema(t, `DROP TABLE reservation_tokens`, `ALTER TABLE proposals DROP COLUMN owner`, `ALTER TABLE reservations DROP COLUMN agent`, `DROP TABLE x402_payments`, `DELETE FROM schema_version WHERE version >= 6`,
		fmt.Sprintf(`INSERT INTO reservations (id, lamports, state, signature, created_at, updated_at, mint, token_amount) VALUES ('old', 5000, 'reserved', '', %d, %d, 'MintA', 7)`, now, now))
	r, err := st.GetReservation("old")
	if err != nil || len(r.Tokens) != 1 || r.Tokens[0] != (TokenAmount{Mint: "MintA", Amount: 7}) {
		t.Fatalf("schema-5 reservation after migration: %+v %v", r, err)
	}
	at := time.Now()
	if err := st.PutReservation(Reservation{ID: "new", Lamports: 5000, Tokens: []TokenAmount{{Mint: "MintA", Amount: 1}, {Mint: "MintB", Amount: 2}}, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	open, err := st.OpenReservations()
	if err != nil || len(open) != 2 || len(open[1].Tokens) != 2 || open[1].Tokens[1] != (TokenAmount{Mint: "MintB", Amount: 2}) {
		t.Fatalf("open reservations: %+v %v", open, err)
	}
	if err := st.PutReservation(Reservation{ID: "blank", Lamports: 5000, Tokens: []TokenAmount{{Mint: "", Amount: 1}}, CreatedAt: at}); err == nil {
		t.Fatal("a token amount with a blank mint was stored")
	}
	if _, err := st.GetReservation("blank"); err == nil {
		t.Fatal("a refused reservation left a row")
	}
}

// A reservation from before migration 9 names no agent (it counts in the
// console's total only); a new one keeps the agent it was made for.
func TestReservationAgentMigratesAndRoundTrips(t *testing.T) {
	now := time.Now().UnixNano()
	st := atOldSchema(t, `ALTER TABLE reservations DROP COLUMN agent`, `DROP TABLE x402_payments`, `DELETE FROM schema_version WHERE version >= 9`,
		fmt.Sprintf(`INSERT INTO reservations (id, lamports, state, signature, created_at, updated_at) VALUES ('old', 5000, 'settled', '', %d, %d)`, now, now))
	if r, err := st.GetReservation("old"); err != nil || r.Agent != "" {
		t.Fatalf("schema-8 reservation: %+v %v", r, err)
	}
	if err := st.PutReservation(Reservation{ID: "new", Lamports: 5000, Agent: "uid 1500", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := st.UpdateReservation(Reservation{ID: "new", Lamports: 4000, State: StateSettled, UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if r, err := st.GetReservation("new"); err != nil || r.Agent != "uid 1500" || r.Lamports != 4000 {
		t.Fatalf("new reservation: %+v %v", r, err)
	}
}

// atOldSchema makes a fresh state directory, takes its database back to an
// older schema (and rows written under it) with queries run directly, and
// opens it again, which migrates it forward. Closed at cleanup.
func atOldSchema(t *testing.T, queries ...string) *Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// An x402 payment's record is kept with its reservation and read back
// whole; a record missing what identifies the payment is refused.
func TestX402PaymentRoundTrips(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok, err := st.X402PaymentFor("p1"); ok || err != nil {
		t.Fatalf("before: %v %v", ok, err)
	}
	want := X402Payment{ReservationID: "p1", Message: []byte{0x80, 1, 2, 3}, Source: "Src", LastValidBlockHeight: 165, FromSlot: 12}
	if err := st.PutX402Payment(want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := st.X402PaymentFor("p1")
	if err != nil || !ok || string(got.Message) != string(want.Message) || got.Source != "Src" || got.LastValidBlockHeight != 165 || got.FromSlot != 12 {
		t.Fatalf("read back %+v %v %v", got, ok, err)
	}
	if err := st.PutX402Payment(X402Payment{ReservationID: "p2", Message: []byte{1}, Source: "Src"}); err == nil {
		t.Fatal("a payment without its last valid block height was stored")
	}
}
