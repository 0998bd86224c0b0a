package store

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// notesInDatabaseFile counts the "note" audit rows in the database file
// alone, as it stands between checkpoints: a copy of it without its WAL.
func notesInDatabaseFile(t *testing.T, st *Store) int {
	t.Helper()
	b, err := os.ReadFile(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", cp)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'audit'`).Scan(&n); err != nil || n == 0 {
		return 0 // not even the tables' creation is in the file
	}
	if err := db.QueryRow(`SELECT count(*) FROM audit WHERE kind = 'note'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// No commit copies the WAL into the database file itself: SQLite's
// automatic checkpoint, which ran inside the commit that crossed 1000 WAL
// pages and held that commit's caller, is off.
func TestCommitsDoNotCheckpoint(t *testing.T) {
	every := checkpointEvery
	checkpointEvery = 1 << 30
	t.Cleanup(func() { checkpointEvery = every })
	st, _ := openTemp(t)
	const n = 800 // well past 1000 WAL pages
	for i := range n {
		if _, err := st.AppendAudit("note", "", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(st.Path() + "-wal"); err != nil || fi.Size() < 1000*walFrame {
		t.Fatalf("WAL %v (%v): the test meant to pass 1000 pages", fi.Size(), err)
	}
	if got := notesInDatabaseFile(t, st); got != 0 {
		t.Fatalf("%d of %d records in the database file: a commit checkpointed", got, n)
	}
}

// Every checkpointEvery writes the store checkpoints by itself, after the
// commit's caller has its answer: the records reach the database file.
func TestStoreCheckpointsAfterACommitNotInsideIt(t *testing.T) {
	every := checkpointEvery
	checkpointEvery = 50
	t.Cleanup(func() { checkpointEvery = every })
	answered := make(chan struct{})
	done := make(chan error, 1)
	afterCheckpoint = func(err error) {
		// A checkpoint inside the commit would wait here for ever: the
		// caller is answered only after it.
		select {
		case <-answered:
		case <-time.After(time.Minute): // a guard against a hang, not a timing
			err = errCheckpointInsideCommit
		}
		done <- err
	}
	t.Cleanup(func() { afterCheckpoint = nil })
	st, _ := openTemp(t)
	for i := range checkpointEvery {
		if _, err := st.AppendAudit("note", "", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	close(answered)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("no checkpoint a minute after 50 writes")
	}
	if got := notesInDatabaseFile(t, st); got != checkpointEvery {
		t.Fatalf("%d records in the database file after the checkpoint, want %d", got, checkpointEvery)
	}
}

var errCheckpointInsideCommit = errors.New("the checkpoint ran before the commit's caller had its answer")

// A commit does not wait for a checkpoint in progress: a passive
// checkpoint and a WAL writer go on side by side.
func TestCommitsGoOnBesideACheckpoint(t *testing.T) {
	every := checkpointEvery
	checkpointEvery = 10
	t.Cleanup(func() { checkpointEvery = every })
	inside, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	afterCheckpoint = func(error) { once.Do(func() { close(inside); <-release }) }
	t.Cleanup(func() { afterCheckpoint = nil })
	st, _ := openTemp(t)
	defer close(release) // before the store's close, which waits for the checkpoint
	for i := range checkpointEvery {
		if _, err := st.AppendAudit("note", "", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	<-inside // the checkpoint is still running
	wrote := make(chan error, 1)
	go func() { _, err := st.AppendAudit("note", "", map[string]int{"i": -1}); wrote <- err }()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("a commit waited for the checkpoint in progress")
	}
}
