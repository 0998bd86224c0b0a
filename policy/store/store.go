// Package store is solgate's persisted state: proposals, decisions,
// executions, spend reservations and the hash-chained audit log, in one
// SQLite file (solgate.db) inside the state directory.
//
// Every write is one SQL transaction that changes its table and appends the
// matching audit entry, so the trail can never disagree with the tables
// about what happened. Commits are fsynced (WAL, synchronous=FULL): once a
// method returns nil, the record survives a crash of the process or machine.
package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite, registers driver "sqlite"
)

// FileName is the database file inside the state directory.
const FileName = "solgate.db"

// Outcomes callers branch on.
var (
	ErrNotFound        = errors.New("not found")
	ErrDuplicate       = errors.New("already recorded")
	ErrReservationDone = errors.New("reservation is not open (already settled or released)")
	ErrNoDatabase      = errors.New("no solgate database")
)

// Store is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	// writers is the writers' lock (a channel of capacity one: holding it
	// is a value inside). It serialises writers inside this process; SQLite
	// allows one writer anyway, and taking the lock here keeps appends in
	// seq order without leaning on busy retries, which are left for other
	// processes. A channel rather than a mutex so that a queued write can
	// wait for the lock or for its own commit, whichever comes first.
	writers chan struct{}
	// queue holds writes waiting for the next group commit (see write).
	queueMu sync.Mutex
	queued  []*queuedWrite
	// commits counts group commits, for tests and figures.
	commits atomic.Int64
	// uncheckpointed counts writes committed since the last WAL checkpoint;
	// read and set with the writers' lock held (see checkpointAfter).
	// checkpointing is true while one runs; Close waits for checkpoints.
	uncheckpointed int
	checkpointing  atomic.Bool
	checkpoints    sync.WaitGroup
	// wc is the writers' own connection (statements.go), nil until the
	// first write; used with the writers' lock held.
	wc *writeConn
	// chain is the audit chain's head as of the last commit, kept by the
	// writers (it is read and set with the writers' lock held) so that an
	// append need not look it up; chainKnown false means read it from the
	// database first: at the first write, and after any commit that failed,
	// when what the database holds is not known for sure. An append whose
	// seq another process took reads it again (appendAuditTx).
	chain      headRecord
	chainKnown bool
	// headFile: every commit also writes the chain's head to HeadFileName
	// (only for a console's Open, after the file was checked against the
	// database). headErr is the last failure to write it.
	headFile *os.File
	// The head file is written by one goroutine at a time (writeHeads),
	// always with the newest head committed, and no write or commit waits
	// for its writes or syncs (while that goroutine waits out the sync
	// pace, a commit writes its slot itself: noteHead). headMu guards the fields below; headIdle is signalled when
	// the writer stops.
	headMu    sync.Mutex
	headIdle  *sync.Cond
	headBusy  bool
	headNext  *headRecord // committed, not yet in the file
	headNextF *os.File
	headErr   error
	headNote  string
	// headSynced is when the file was last synced; headWake (capacity one)
	// rouses a writer pacing its syncs (writeHeads), headUrgent tells it
	// to sync now (a flush).
	headSynced time.Time
	headWake   chan struct{}
	headUrgent bool
	// The head writer's state: headParked while it waits out the pace;
	// headUnsynced the file written since the last sync, headSince when
	// its oldest unsynced head was written, headWrote a head written since
	// the last wait.
	headParked   bool
	headUnsynced *os.File
	headSince    time.Time
	headWrote    bool
	// headRousings counts wake-ups sent to the head writer, for tests.
	headRousings atomic.Int64
}

// headSyncEvery paces the head file's data syncs: each head is written to
// the file as soon as it is committed, but synced at most once in this
// time, so a stream of commits pays one sync for many heads. It bounds
// what a machine crash (not a process crash: the page cache keeps the
// write) can leave the file behind the database by, which the next Open
// catches up and reports, as it does for a console stopped between a
// commit and its head write. A var for tests.
var headSyncEvery = 5 * time.Millisecond

// Open opens (creating if needed) the database in dir, creating dir with
// mode 0700 since it holds the spend history. Pending migrations are
// applied. The console also calls CheckPrivateDir first.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create state dir %s: %w", dir, err)
	}
	s, err := open(dir)
	if err != nil {
		return nil, err
	}
	if s.headNote, err = s.syncHeadFile(); err != nil {
		s.Close()
		return nil, err
	}
	if s.headFile, err = openHeadFile(s.HeadFilePath(), os.O_RDWR); err != nil {
		s.Close()
		return nil, fmt.Errorf("open audit head file: %w", err)
	}
	return s, nil
}

// CheckPrivateDir refuses a state directory that is not the console's user's
// alone: another owner could rewrite the spend ledger, the audit trail and its
// head file, and readers learn the wallet's history.
func CheckPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state dir %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state dir %s is not a directory", dir)
	}
	self := os.Geteuid()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != uint32(self) {
		return fmt.Errorf("state dir %s belongs to uid %d, not to the user the console runs as (uid %d): it must belong to that user alone: run `sudo chown -R %d %s`, or pass another --state", dir, st.Uid, self, self, dir)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("state dir %s has mode %04o, so other users can reach the spend ledger and audit trail: run `chmod 700 %s`", dir, perm, dir)
	}
	return nil
}

// HeadFileNote says what Open did to the audit head file (created it for a
// state directory that had none, or advanced it), or "" when nothing.
func (s *Store) HeadFileNote() string { return s.headNote }

// HeadFileErr is the last failure to write the audit head file, or nil.
func (s *Store) HeadFileErr() error {
	s.lockWriters()
	defer s.unlockWriters()
	s.headMu.Lock()
	defer s.headMu.Unlock()
	s.flushHeadLocked()
	return s.headErr
}

// OpenExisting opens the database in dir without creating anything; for
// readers such as `solgate audit` that must not invent an empty history.
func OpenExisting(dir string) (*Store, error) {
	p := filepath.Join(dir, FileName)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w at %s: start `solgate console` first or pass --state DIR: %w", ErrNoDatabase, p, err)
		}
		return nil, fmt.Errorf("stat %s: %w", p, err)
	}
	return open(dir)
}

func open(dir string) (*Store, error) {
	p := filepath.Join(dir, FileName)
	// The driver splits the DSN at '?', so such a path would be misread.
	if strings.ContainsRune(p, '?') {
		return nil, fmt.Errorf("state dir %q: paths containing '?' are not supported", dir)
	}
	for _, f := range []string{p, p + "-wal", p + "-shm", p + "-journal"} {
		if err := checkDatabaseFile(f); err != nil {
			return nil, err
		}
	}
	dsn := p + "?_pragma=busy_timeout(10000)" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(FULL)" + // fsync every commit: acknowledged means durable
		"&_pragma=foreign_keys(ON)" +
		"&_pragma=wal_autocheckpoint(0)" + // the console checkpoints between commits (checkpointAfter)
		"&_txlock=immediate" // take the write lock at BEGIN: no deadlocking lock upgrades
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	if err := migrate(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", p, err)
	}
	s := &Store{db: db, path: p, writers: make(chan struct{}, 1)}
	s.headIdle = sync.NewCond(&s.headMu)
	s.headWake = make(chan struct{}, 1)
	return s, nil
}

// checkDatabaseFile looks at one of the database's files before SQLite
// opens it. SQLite follows a link there, and the lock is the state
// directory's: a link to another state directory's database would give two
// consoles one ledger, each with a session budget of its own, and so would
// a hard link. A FIFO or a device there would end in "disk I/O error",
// naming nothing.
func checkDatabaseFile(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("stat %s: %w", path, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("database file %s is a symbolic link: the console keeps its database in the state directory itself, never through a link: point --state at the directory that holds the database, or remove the link", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("database file %s is not a regular file (%s): the console keeps its database in regular files of its own: remove it", path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		// A hard link shares the file as a symbolic link does: `cp -al` or
		// a link-dest backup of a state directory gives a second console
		// the same ledger under a lock of its own.
		return fmt.Errorf("database file %s has %d names (a hard link, as `cp -al` or a link-dest backup makes): another state directory would share this spend ledger and audit trail: copy the database instead of linking it, and remove the other name", path, st.Nlink)
	}
	return nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database and the head file.
func (s *Store) Close() error {
	// The writers' lock: a write still in flight (a bridge's handler that
	// ends its grants as the console shuts down) finishes, and the head
	// file catches up, before the files close under them; a write that
	// comes later fails on the closed database.
	s.lockWriters()
	defer s.unlockWriters()
	s.checkpoints.Wait() // none starts while the lock is held
	s.headMu.Lock()
	s.flushHeadLocked()
	s.headMu.Unlock()
	if s.headFile != nil {
		s.headFile.Close()
		s.headFile = nil
	}
	s.dropWriter()
	return s.db.Close()
}

// Commits is how many transactions this store has committed, each one
// fsync of the log, however many writes it grouped; for tests and figures.
func (s *Store) Commits() int64 { return s.commits.Load() }

// DB exposes the handle for read-only inspection in tests and tools; writes
// must go through the methods so the audit chain stays complete.
func (s *Store) DB() *sql.DB { return s.db }

// lockWriters takes the writers' lock; unlockWriters gives it back.
func (s *Store) lockWriters()   { s.writers <- struct{}{} }
func (s *Store) unlockWriters() { <-s.writers }

// write runs fn and the audit append for (kind, proposalID, body) in one
// transaction, and returns once that transaction is durable.
//
// The commit rule: no answer to the agent, no decision and no token may
// come before the record it depends on is durable. A method that returns
// nil has made its record durable (fsynced). A caller that queues a write
// (queue) and acts before awaiting it may only do what does not depend on
// the record, and must await it before anything that does.
//
// Order: writes commit in the order they were queued, a later one in the
// same commit as an earlier one or in a later commit, never before it. So a
// decision queued after its proposal's insert cannot be durable before the
// insert, and fails (its proposal row is missing) if the insert failed.
//
// Group commit: writes that arrive while another commit is being fsynced
// wait together, and the first of them to get the writers' lock commits
// them all in one transaction (one fsync), each inside a savepoint of its
// own when there are several, so one write's failure undoes that write
// alone. No write waits for a group to form (the committing writer only
// lets the goroutines already runnable queue theirs first), and none
// returns before the commit holding it is durable:
// under load a denial's row shares its commit with others, and its answer
// still follows its row to disk. The audit head file follows the commits
// (writeHeads), but no write or commit waits for its writer or its syncs
// (a commit may write its head's slot, never sync it: noteHead): the
// records are durable already, and a head file behind after a crash is
// caught up by the next Open, as it always was.
func (s *Store) write(kind, proposalID string, body any, fn func(tx *writeTx) error) (AuditEntry, error) {
	return s.queue(kind, proposalID, body, fn).await(s)
}

// queue puts a write in line for the next group commit and returns at once;
// await it for its result.
func (s *Store) queue(kind, proposalID string, body any, fn func(tx *writeTx) error) *queuedWrite {
	w := &queuedWrite{kind: kind, proposalID: proposalID, body: body, fn: fn, ready: make(chan struct{})}
	s.queueMu.Lock()
	s.queued = append(s.queued, w)
	s.queueMu.Unlock()
	return w
}

// await returns once w's commit is durable, or w failed: either another
// writer committed it, or this one takes the writers' lock and commits
// everything queued.
func (w *queuedWrite) await(s *Store) (AuditEntry, error) {
	select {
	case <-w.ready:
		return w.entry, w.err // committed by another writer
	case s.writers <- struct{}{}:
	}
	select {
	case <-w.ready: // committed while we waited for the lock
		s.unlockWriters()
		return w.entry, w.err
	default:
	}
	// Let the goroutines already runnable go first: under load some of
	// them are about to queue a write, which then joins this commit
	// instead of paying for an fsync of its own. Nothing waits for them;
	// with none runnable this returns at once. With 50 agents proposing
	// (the bench's throughput run) a commit held 5.4 writes instead of
	// 3.5; BenchmarkProposalRecordsConcurrent's commits/op fell from 0.079
	// to 0.065 and its CPU a proposal from 167 to 145 µs (medians of four).
	runtime.Gosched()
	s.queueMu.Lock()
	group := s.queued
	s.queued = nil
	s.queueMu.Unlock()
	head, moved := s.commitGroup(group)
	if moved && s.headFile != nil {
		s.noteHead(head, s.headFile)
	}
	if s.uncheckpointed += len(group); s.uncheckpointed >= checkpointEvery && !s.checkpointing.Load() {
		s.uncheckpointed = 0
		s.checkpointing.Store(true)
		s.checkpoints.Add(1)
		go s.checkpointAfter()
	}
	s.unlockWriters()
	return w.entry, w.err
}

// checkpointEvery is how many writes the store commits between two WAL
// checkpoints: at 4-5 WAL pages a write, about SQLite's default of one at
// 1000 pages, however the writes were grouped. A var for tests.
var checkpointEvery = 200

// afterCheckpoint, when set by a test, runs after each checkpoint with its
// error.
var afterCheckpoint func(error)

// checkpointAfter copies the WAL into the database file, started after a
// commit, on a connection of its own. SQLite's own automatic checkpoint
// (off: wal_autocheckpoint(0)) ran inside the commit that crossed its
// threshold, whose caller waited for it: about one commit in a hundred, a
// decision among them, took a WAL sync, the pages' writes and a database
// sync longer (2-8 ms on this machine, far more when the disk is busy).
// Here the commit's callers already have their answer, and later commits
// go on beside it (a passive checkpoint and a WAL writer do not exclude
// each other): holding the writers' lock instead made the next commit wait
// for all of it. A checkpoint that fails (another process in the way)
// leaves the WAL to the next one: nothing durable depends on it. The last
// connection to close checkpoints too, as SQLite always does.
func (s *Store) checkpointAfter() {
	defer s.checkpoints.Done()
	_, err := s.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
	if afterCheckpoint != nil {
		afterCheckpoint(err)
	}
	s.checkpointing.Store(false)
}

// noteHead hands a committed head to the head file's writer, starting it
// when it is not running. No writer waits for the file's writer or its
// syncs: the records are durable already. While that writer waits out the
// sync pace (and so neither writes nor syncs the file), the commit writes
// the slot itself, one write into the page cache: rousing the writer for
// it cost more CPU than the write (a goroutine's wake-up, often a thread's,
// and a timer a commit), and the pace's timer syncs it as before. Called with the writers' lock held, so heads arrive in
// commit order.
func (s *Store) noteHead(h headRecord, f *os.File) {
	s.headMu.Lock()
	defer s.headMu.Unlock()
	if s.headBusy && s.headParked && !s.headUrgent && s.headUnsynced == f && time.Since(s.headSynced) < headSyncEvery {
		// The writer waits out the pace, no sync of f runs, and none is
		// due yet (else it is roused to sync right after this commit).
		err := writeHeadSlot(f, h)
		s.headErr = err
		if err == nil {
			s.headWrote = true
		}
		return
	}
	s.headNext, s.headNextF = &h, f
	if !s.headBusy {
		s.headBusy = true
		go s.writeHeads()
		return
	}
	s.wakeHeadWriter()
}

func (s *Store) wakeHeadWriter() {
	select {
	case s.headWake <- struct{}{}:
		s.headRousings.Add(1)
	default: // already roused
	}
}

// writeHeads writes the newest noted head until none is left: heads
// committed while one is being written are folded into the next, so the
// file only moves forward. Each head is written at once; the data sync
// comes at most once in headSyncEvery (sooner on a flush), for the newest
// head written. A crash in between leaves the file behind the database,
// which the next Open catches up and reports, as it always could.
func (s *Store) writeHeads() {
	s.headMu.Lock()
	defer s.headMu.Unlock()
	s.headUnsynced, s.headWrote = nil, false
	for {
		if s.headNext != nil {
			h, f := *s.headNext, s.headNextF
			s.headNext = nil
			s.headMu.Unlock()
			if beforeHeadWrite != nil {
				beforeHeadWrite()
			}
			err := writeHeadSlot(f, h)
			s.headMu.Lock()
			s.headErr = err
			if err == nil {
				if s.headUnsynced == nil {
					s.headSince = time.Now()
				}
				s.headUnsynced, s.headWrote = f, true
			}
			continue
		}
		if s.headUnsynced == nil {
			break
		}
		// A sync runs right after a commit once the pace allows, and
		// otherwise when the oldest unsynced head has waited the pace out.
		// Not at the pace's end between two commits: a sync there often
		// still ran when the next commit's own fsync came, which then
		// waited for it (a decision's commit was several times slower at
		// p90 when one overlapped it, on this machine's disk). The bound is
		// the same: no head stays unsynced longer than headSyncEvery.
		wait := time.Until(s.headSynced.Add(headSyncEvery))
		if wait > 0 || !s.headWrote {
			wait = max(wait, time.Until(s.headSince.Add(headSyncEvery)))
		}
		s.headWrote = false
		if wait > 0 && !s.headUrgent {
			// Wait out the pace; a newer head or a flush rouses it.
			s.headParked = true
			s.headMu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-s.headWake:
			}
			t.Stop()
			s.headMu.Lock()
			s.headParked = false
			continue
		}
		f := s.headUnsynced
		s.headUnsynced = nil
		s.headMu.Unlock()
		if beforeHeadSync != nil {
			beforeHeadSync()
		}
		err := dataSync(f)
		s.headMu.Lock()
		s.headSynced = time.Now()
		if err != nil {
			s.headErr = fmt.Errorf("sync audit head file %s: %w", f.Name(), err)
		}
	}
	s.headBusy, s.headUrgent = false, false
	s.headIdle.Broadcast()
}

// flushHeadLocked waits, with headMu held, until the head file names the
// last commit, synced (or failed to).
func (s *Store) flushHeadLocked() {
	for s.headBusy {
		s.headUrgent = true
		s.wakeHeadWriter()
		s.headIdle.Wait()
	}
}

// queuedWrite is one write waiting for its group's commit. Its result
// fields are written by the committing writer before ready is closed.
type queuedWrite struct {
	kind, proposalID string
	body             any
	fn               func(tx *writeTx) error
	entry            AuditEntry
	err              error
	done             bool
	ready            chan struct{} // closed once entry and err are final
}

// commitGroup commits group in one transaction and releases every write
// of it. moved reports a commit that moved the audit chain's head to head,
// which the head file must then follow. Called with the writers' lock held.
//
// A group of several is first run without savepoints: writes almost never
// fail, and a savepoint and its release were two of a write's five or six
// statements. Should any write fail, that transaction is rolled back
// whole, and the group runs again with each write in a savepoint of its
// own (writeInGroup), where the failure undoes that write alone. A write's
// answer is only what the committed pass gave it.
func (s *Store) commitGroup(group []*queuedWrite) (head headRecord, moved bool) {
	defer func() {
		for _, w := range group {
			close(w.ready)
		}
	}()
	if len(group) > 1 {
		if head, moved, ok := s.tryGroup(group, false, true); ok {
			return head, moved
		}
		for _, w := range group {
			w.entry, w.err, w.done = AuditEntry{}, nil, false
		}
	}
	head, moved, _ = s.tryGroup(group, len(group) > 1, false)
	return head, moved
}

// tryGroup runs group in one transaction, each write in a savepoint when
// savepoints is set, and commits it. On an optimistic attempt, a write
// that fails ends it (ok false) with nothing committed and no write
// answered; otherwise every write is answered.
func (s *Store) tryGroup(group []*queuedWrite, savepoints, optimistic bool) (head headRecord, moved, ok bool) {
	finish := func(err error) {
		for _, w := range group {
			if !w.done {
				w.err, w.done = err, true
			}
		}
	}
	wc, err := s.writer()
	if err != nil {
		finish(fmt.Errorf("begin: %w", err))
		return headRecord{}, false, true
	}
	tx, err := wc.begin()
	if err != nil {
		s.dropWriter()
		finish(fmt.Errorf("begin: %w", err))
		return headRecord{}, false, true
	}
	ended := false // committed: nothing to roll back
	defer func() {
		if !ended {
			tx.rollback()
		}
	}()
	// Until this transaction is known to have committed, the chain's head
	// is whatever the database says next time.
	chain, known := s.chain, s.chainKnown
	s.chainKnown = false
	if !known {
		if chain, err = s.readChainHeadTx(tx); err != nil {
			finish(err)
			return headRecord{}, false, true
		}
	}
	var last *AuditEntry
	committed := 0
	for _, w := range group {
		e, err := s.writeInGroup(tx, w, chain, !savepoints)
		var broken *savepointBroken
		if errors.As(err, &broken) {
			finish(err) // the transaction is in no known state: nothing of it is kept
			return headRecord{}, false, true
		}
		if err != nil {
			if optimistic {
				// Rolled back whole (the deferred Rollback); the next pass
				// reads the chain's head again.
				return headRecord{}, false, false
			}
			w.err, w.done = err, true
			continue
		}
		w.entry = e
		last = &w.entry
		chain = headRecord{Seq: e.Seq, Hash: e.Hash}
		committed++
	}
	if committed == 0 {
		// Every write failed on its own and the transaction rolls back:
		// the chain is where it was.
		s.chain, s.chainKnown = chain, true
		return headRecord{}, false, true
	}
	if err := s.moveHeadTx(tx, *last); err != nil {
		for _, w := range group {
			if !w.done {
				w.entry = AuditEntry{}
			}
		}
		finish(err)
		return headRecord{}, false, true
	}
	if err := tx.commit(); err != nil {
		for _, w := range group {
			if !w.done {
				w.entry = AuditEntry{}
			}
		}
		finish(fmt.Errorf("commit %s: %w", group[0].kind, err))
		return headRecord{}, false, true
	}
	ended = true
	finish(nil)
	s.chain, s.chainKnown = chain, true
	s.commits.Add(1)
	// The records are durable already; a head file that lags behind is
	// reported by HeadFileErr and `solgate audit`, and caught up by the
	// next Open.
	return headRecord{Seq: last.Seq, Hash: last.Hash}, true, true
}

// savepointBroken: a write's savepoint could not be set, rolled back or
// released, so the group's transaction cannot be trusted.
type savepointBroken struct{ err error }

func (e *savepointBroken) Error() string { return e.err.Error() }
func (e *savepointBroken) Unwrap() error { return e.err }

// writeInGroup runs one write, and its audit append after chain, inside
// the group's transaction. Unless alone, the write has a savepoint, rolled
// back on error, leaving the group as if that write never ran. A write
// alone (in its transaction, or in a pass without savepoints) needs none:
// when it fails, nothing of its transaction is committed (commitGroup),
// which is what the savepoint would have done.
func (s *Store) writeInGroup(tx *writeTx, w *queuedWrite, chain headRecord, alone bool) (AuditEntry, error) {
	run := func() (AuditEntry, error) {
		if w.fn != nil {
			if err := w.fn(tx); err != nil {
				return AuditEntry{}, err
			}
		}
		return s.appendAuditTx(tx, chain, w.kind, w.proposalID, w.body)
	}
	if alone {
		return run()
	}
	if _, err := s.txExec(tx, `SAVEPOINT sg_write`); err != nil {
		return AuditEntry{}, &savepointBroken{fmt.Errorf("%s: savepoint: %w", w.kind, err)}
	}
	e, err := run()
	if err != nil {
		if _, rerr := s.txExec(tx, `ROLLBACK TO sg_write`); rerr != nil {
			return AuditEntry{}, &savepointBroken{fmt.Errorf("%w (and rolling it back failed: %v)", err, rerr)}
		}
	}
	if _, rerr := s.txExec(tx, `RELEASE sg_write`); rerr != nil {
		return AuditEntry{}, &savepointBroken{fmt.Errorf("%s: release savepoint: %w", w.kind, rerr)}
	}
	return e, err
}

// beforeHeadWrite, when set by a test, runs between a write's commit and
// its head-file update: the moment Close must not interleave with.
// beforeHeadSync runs before each data sync of the head file.
var beforeHeadWrite, beforeHeadSync func()

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func toInt64(field string, v uint64) (int64, error) {
	if v > math.MaxInt64 {
		return 0, fmt.Errorf("%s %d does not fit the database", field, v)
	}
	return int64(v), nil
}

func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}

// Proposal is one write tool call awaiting (or past) a human decision.
type Proposal struct {
	ID          string          `json:"id"`
	Client      string          `json:"client"`
	Tool        string          `json:"tool"`
	Fingerprint string          `json:"fingerprint"`
	Args        json.RawMessage `json:"args"`
	Preview     string          `json:"preview"`
	CreatedAt   time.Time       `json:"created_at"`
	Status      string          `json:"status"`
	// Owner is the user that made it, by the kernel's word ("uid 1001");
	// '' for rows from before it was recorded.
	Owner string `json:"owner,omitempty"`
}

// InsertProposal records a new proposal (status "pending" when empty).
func (s *Store) InsertProposal(p Proposal) error { return s.QueueProposal(p).Wait() }

// Queued is a write put in line for the next commit but perhaps not yet
// durable; see write for what may and may not be done before Wait.
type Queued struct {
	s   *Store
	w   *queuedWrite
	err error // refused before it was queued
}

// Refused is why the write was refused before it was queued (nil: it is
// in line); unlike Wait, it never commits anything.
func (q *Queued) Refused() error { return q.err }

// Wait returns once the write is durable (nil), or why it failed. It may be
// called more than once.
func (q *Queued) Wait() error {
	if q.err != nil {
		return q.err
	}
	_, err := q.w.await(q.s)
	return err
}

// QueueProposal puts the insert of a new proposal (and its audit entry) in
// line and returns at once. Writes queued after it (the proposal's
// decision) commit with it or after it, never before; nothing that depends
// on the proposal's record may be answered before Wait returns nil.
func (s *Store) QueueProposal(p Proposal) *Queued {
	if p.ID == "" {
		return &Queued{err: errors.New("insert proposal: empty id")}
	}
	if p.Status == "" {
		p.Status = "pending"
	}
	if len(p.Args) == 0 {
		p.Args = json.RawMessage("{}")
	}
	if !json.Valid(p.Args) {
		return &Queued{err: fmt.Errorf("insert proposal %s: args are not valid JSON", p.ID)}
	}
	w := s.queue("proposal", p.ID, p, func(tx *writeTx) error {
		// One statement: the primary key finds a duplicate (no row
		// inserted), where a look-up first cost a second one.
		res, err := s.txExec(tx, `INSERT INTO proposals (id, client, tool, fingerprint, args, preview, created_at, status, owner)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			p.ID, p.Client, p.Tool, p.Fingerprint, string(p.Args), p.Preview, nanos(p.CreatedAt), p.Status, p.Owner)
		if err != nil {
			return fmt.Errorf("insert proposal %s: %w", p.ID, err)
		}
		return insertedOne(res, "insert proposal "+p.ID)
	})
	return &Queued{s: s, w: w}
}

// SetProposalStatus moves a proposal to status (e.g. "executed", "failed").
func (s *Store) SetProposalStatus(id, status string) error {
	_, err := s.write("proposal_status", id, map[string]string{"status": status}, func(tx *writeTx) error {
		return s.setStatusTx(tx, id, status)
	})
	return err
}

func (s *Store) setStatusTx(tx *writeTx, id, status string) error {
	res, err := s.txExec(tx, `UPDATE proposals SET status = ? WHERE id = ?`, status, id)
	if err != nil {
		return fmt.Errorf("set proposal %s status: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("set proposal %s status: %w", id, ErrNotFound)
	}
	return nil
}

// GetProposal reads one proposal back.
func (s *Store) GetProposal(id string) (Proposal, error) {
	var p Proposal
	var args string
	var created int64
	err := s.db.QueryRow(`SELECT id, client, tool, fingerprint, args, preview, created_at, status, owner FROM proposals WHERE id = ?`, id).
		Scan(&p.ID, &p.Client, &p.Tool, &p.Fingerprint, &args, &p.Preview, &created, &p.Status, &p.Owner)
	if errors.Is(err, sql.ErrNoRows) {
		return Proposal{}, fmt.Errorf("proposal %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Proposal{}, fmt.Errorf("proposal %s: %w", id, err)
	}
	p.Args = json.RawMessage(args)
	p.CreatedAt = fromNanos(created)
	return p, nil
}

// Decision outcomes.
const (
	OutcomeApproved = "approved"
	OutcomeDenied   = "denied"
	OutcomeExpired  = "expired"
)

// Decision is the human's (or the expiry timer's) answer to a proposal.
type Decision struct {
	ProposalID string        `json:"proposal_id"`
	DecidedBy  string        `json:"decided_by"`
	DecidedAt  time.Time     `json:"decided_at"`
	Outcome    string        `json:"outcome"`
	Reason     string        `json:"reason"`
	Latency    time.Duration `json:"-"`
	LatencyMS  int64         `json:"latency_ms"`
}

// RecordDecision stores the one decision a proposal gets and sets the
// proposal's status to the outcome. A second decision is ErrDuplicate: the
// first one stands.
func (s *Store) RecordDecision(d Decision) error {
	switch d.Outcome {
	case OutcomeApproved, OutcomeDenied, OutcomeExpired:
	default:
		return fmt.Errorf("record decision %s: outcome %q is not approved, denied or expired", d.ProposalID, d.Outcome)
	}
	d.LatencyMS = d.Latency.Milliseconds()
	_, err := s.write("decision", d.ProposalID, d, func(tx *writeTx) error {
		res, err := s.txExec(tx, `INSERT INTO decisions (proposal_id, decided_by, decided_at, outcome, reason, latency_ms)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (proposal_id) DO NOTHING`,
			d.ProposalID, d.DecidedBy, nanos(d.DecidedAt), d.Outcome, d.Reason, d.LatencyMS)
		if err != nil {
			return fmt.Errorf("record decision %s: %w", d.ProposalID, err)
		}
		if err := insertedOne(res, "record decision "+d.ProposalID); err != nil {
			return err
		}
		return s.setStatusTx(tx, d.ProposalID, d.Outcome)
	})
	return err
}

// GetDecision reads a proposal's decision back.
func (s *Store) GetDecision(proposalID string) (Decision, error) {
	var d Decision
	var at int64
	err := s.db.QueryRow(`SELECT proposal_id, decided_by, decided_at, outcome, reason, latency_ms FROM decisions WHERE proposal_id = ?`, proposalID).
		Scan(&d.ProposalID, &d.DecidedBy, &at, &d.Outcome, &d.Reason, &d.LatencyMS)
	if errors.Is(err, sql.ErrNoRows) {
		return Decision{}, fmt.Errorf("decision for %s: %w", proposalID, ErrNotFound)
	}
	if err != nil {
		return Decision{}, fmt.Errorf("decision for %s: %w", proposalID, err)
	}
	d.DecidedAt = fromNanos(at)
	d.Latency = time.Duration(d.LatencyMS) * time.Millisecond
	return d, nil
}

// Execution outcomes.
const (
	ExecExecuted = "executed"
	ExecFailed   = "failed"
	ExecExpired  = "expired"
	ExecUnknown  = "unknown"
	// ExecLosses: landed, but the wallet lost more than was approved.
	ExecLosses = "executed_with_unexpected_losses"
)

// Execution is what happened on chain for an approved proposal. A proposal
// can have several (e.g. "unknown", then "executed" after reconciliation).
type Execution struct {
	ProposalID string          `json:"proposal_id"`
	Signature  string          `json:"signature"`
	Slot       uint64          `json:"slot"`
	Fee        uint64          `json:"fee"`
	Outcome    string          `json:"outcome"`
	Deltas     json.RawMessage `json:"deltas"` // verified balance changes
	At         time.Time       `json:"at"`
}

// RecordExecution stores an execution outcome and sets the proposal status.
func (s *Store) RecordExecution(e Execution) error { return s.QueueExecution(e).Wait() }

// QueueExecution puts RecordExecution's write in line and returns at once,
// like QueueProposal: a write queued after it commits with it or after it.
func (s *Store) QueueExecution(e Execution) *Queued {
	switch e.Outcome {
	case ExecExecuted, ExecFailed, ExecExpired, ExecUnknown, ExecLosses:
	default:
		return &Queued{err: fmt.Errorf("record execution %s: outcome %q is not executed, failed, expired, unknown or executed_with_unexpected_losses", e.ProposalID, e.Outcome)}
	}
	if len(e.Deltas) == 0 {
		e.Deltas = json.RawMessage("null")
	}
	if !json.Valid(e.Deltas) {
		return &Queued{err: fmt.Errorf("record execution %s: deltas are not valid JSON", e.ProposalID)}
	}
	slot, err := toInt64("slot", e.Slot)
	if err != nil {
		return &Queued{err: fmt.Errorf("record execution %s: %w", e.ProposalID, err)}
	}
	fee, err := toInt64("fee", e.Fee)
	if err != nil {
		return &Queued{err: fmt.Errorf("record execution %s: %w", e.ProposalID, err)}
	}
	w := s.queue("execution", e.ProposalID, e, func(tx *writeTx) error {
		if _, err := s.txExec(tx, `INSERT INTO executions (proposal_id, signature, slot, fee, outcome, deltas, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			e.ProposalID, e.Signature, slot, fee, e.Outcome, jsonText(e.Deltas), nanos(e.At)); err != nil {
			return fmt.Errorf("record execution %s: %w", e.ProposalID, err)
		}
		return s.setStatusTx(tx, e.ProposalID, e.Outcome)
	})
	return &Queued{s: s, w: w}
}

// Executions reads a proposal's executions back, oldest first.
func (s *Store) Executions(proposalID string) ([]Execution, error) {
	rows, err := s.db.Query(`SELECT proposal_id, signature, slot, fee, outcome, deltas, at FROM executions WHERE proposal_id = ? ORDER BY id`, proposalID)
	if err != nil {
		return nil, fmt.Errorf("executions for %s: %w", proposalID, err)
	}
	defer rows.Close()
	var out []Execution
	for rows.Next() {
		var e Execution
		var slot, fee, at int64
		var deltas string
		if err := rows.Scan(&e.ProposalID, &e.Signature, &slot, &fee, &e.Outcome, &deltas, &at); err != nil {
			return nil, fmt.Errorf("executions for %s: %w", proposalID, err)
		}
		e.Slot, e.Fee, e.Deltas, e.At = uint64(slot), uint64(fee), json.RawMessage(deltas), fromNanos(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
