package store

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// A stream of commits pays one data sync of the head file per
// headSyncEvery, not one per commit, yet every head reaches the file as
// soon as it is committed (a process crash loses none), and a flush (here
// HeadFileErr, as Close and VerifyAudit do) syncs the newest at once,
// without waiting out the pace.
func TestHeadFileSyncsPacedButWritesEveryHead(t *testing.T) {
	pace := headSyncEvery
	headSyncEvery = time.Hour // no second sync can be due within the test
	t.Cleanup(func() { headSyncEvery = pace })
	var syncs atomic.Int64
	beforeHeadSync = func() { syncs.Add(1) }
	t.Cleanup(func() { beforeHeadSync = nil })

	st, dir := openTemp(t)
	const n = 20
	var last AuditEntry
	for i := range n {
		e, err := st.AppendAudit("note", "", map[string]int{"i": i})
		if err != nil {
			t.Fatal(err)
		}
		last = e
	}
	// The newest head is in the file (the page cache, which a killed
	// process leaves behind) without a flush.
	deadline := time.Now().Add(time.Minute) // a guard against a hang, not a timing
	for {
		h, err := readHeadFile(st.HeadFilePath())
		if err == nil && h.Seq == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("head file at %+v (%v) a minute after entry %d was committed", h, err, n)
		}
		runtime.Gosched()
	}
	if got := syncs.Load(); got != 1 {
		t.Fatalf("%d data syncs of the head file for %d commits within one pace, want 1 (the first)", got, n)
	}

	flushed := make(chan error, 1)
	go func() { flushed <- st.HeadFileErr() }()
	select {
	case err := <-flushed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("a flush waited out the sync pace")
	}
	if got := syncs.Load(); got != 2 {
		t.Fatalf("%d data syncs after a flush, want 2", got)
	}
	if seq, hash := readHead(t, dir); seq != last.Seq || hash != last.Hash {
		t.Fatalf("head file after the flush: %d %s, want %d %s", seq, hash, last.Seq, last.Hash)
	}
}

// Once the pace allows, the head file is synced right after a commit,
// not at the pace's end between two commits, where its sync often still
// ran when the next commit's own fsync came and held that commit up. A
// head committed within the pace is synced after the next commit or, if
// none comes, once it has waited the pace out.
func TestHeadFileSyncsRightAfterACommitOnceThePaceAllows(t *testing.T) {
	pace := headSyncEvery
	// Long enough that the steps below fall where they are meant to on a
	// busy machine; the passage of time is the behaviour under test.
	headSyncEvery = 3 * time.Second
	t.Cleanup(func() { headSyncEvery = pace })
	var mu sync.Mutex
	var syncs []time.Time
	beforeHeadSync = func() { mu.Lock(); syncs = append(syncs, time.Now()); mu.Unlock() }
	t.Cleanup(func() { beforeHeadSync = nil })
	synced := func() []time.Time { mu.Lock(); defer mu.Unlock(); return slices.Clone(syncs) }
	waitSyncs := func(n int) []time.Time {
		testkit.Eventually(t, time.Minute, "the head syncs", func() bool { return len(synced()) >= n },
			func() string { return fmt.Sprintf("%d of %d", len(synced()), n) })
		return synced()
	}
	for attempt := 1; ; attempt++ {
		mu.Lock()
		syncs = nil
		mu.Unlock()
		st, _ := openTemp(t)
		note := func(i int) time.Time {
			at := time.Now()
			if _, err := st.AppendAudit("note", "", map[string]int{"i": i}); err != nil {
				t.Fatal(err)
			}
			return at
		}
		note(0) // A: the first head is synced at once
		a := waitSyncs(1)[0]
		time.Sleep(headSyncEvery / 4)                        // behaviour under test: B lands inside the pace
		b := note(1)                                         // B: within the pace, not synced yet
		time.Sleep(time.Until(a.Add(headSyncEvery * 9 / 8))) // behaviour under test: C lands past it
		c := note(2)                                         // C: past the pace, before B's head has waited it out
		s := waitSyncs(2)
		st.Close()
		if b.After(a.Add(headSyncEvery/2)) || c.After(b.Add(headSyncEvery*9/10)) {
			// The machine stalled the steps out of their places: again.
			if attempt == 3 {
				t.Fatalf("three attempts stalled: A %v, B +%v, C +%v", a, b.Sub(a), c.Sub(a))
			}
			continue
		}
		if s[1].Before(c) {
			t.Fatalf("second head sync %v after the first, before commit C at %v: it ran at the pace's end between two commits", s[1].Sub(a), c.Sub(a))
		}
		if s[1].After(b.Add(headSyncEvery)) {
			t.Fatalf("second head sync %v after the first: B's head (committed at %v) waited longer than the pace", s[1].Sub(a), b.Sub(a))
		}
		return
	}
}

// While the head writer waits out the pace, a commit writes its head to
// the file itself instead of rousing the writer (a wake-up a commit cost
// more CPU than the write): the file names each head as its write
// returns, no wake-up is sent, and the pace's one sync still comes.
func TestHeadFileWrittenByTheCommitWhileTheWriterPaces(t *testing.T) {
	pace := headSyncEvery
	headSyncEvery = time.Hour // the writer, once it has synced, waits the rest of the test
	t.Cleanup(func() { headSyncEvery = pace })
	var syncs atomic.Int64
	beforeHeadSync = func() { syncs.Add(1) }
	t.Cleanup(func() { beforeHeadSync = nil })

	st, dir := openTemp(t)
	// The first head is synced at once (no sync yet to pace from), the
	// second leaves the writer waiting out the pace. The second is written
	// only once the first's sync happened: on a busy machine the writer
	// could otherwise take both heads in that one sync, and nothing would
	// be left for it to wait out.
	for i := range 2 {
		if _, err := st.AppendAudit("note", "", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			testkit.Eventually(t, time.Minute, "the first head's sync", func() bool { return syncs.Load() == 1 },
				func() string { return fmt.Sprintf("%d syncs", syncs.Load()) })
		}
	}
	testkit.Eventually(t, time.Minute, "the head writer waits out the pace", func() bool {
		st.headMu.Lock()
		defer st.headMu.Unlock()
		return st.headParked && st.headUnsynced != nil
	}, func() string { return "it does not" })
	rousings := st.headRousings.Load()
	var last AuditEntry
	for i := 2; i < 12; i++ {
		e, err := st.AppendAudit("note", "", map[string]int{"i": i})
		last = e
		if err != nil {
			t.Fatal(err)
		}
		if h, err := readHeadFile(st.HeadFilePath()); err != nil || h.Seq != e.Seq || h.Hash != e.Hash {
			t.Fatalf("head file at %+v (%v) as entry %d's write returned", h, err, e.Seq)
		}
	}
	if got := st.headRousings.Load() - rousings; got != 0 {
		t.Fatalf("%d wake-ups of the pacing head writer for 10 commits, want 0", got)
	}
	if got := syncs.Load(); got != 1 {
		t.Fatalf("%d data syncs within one pace, want 1 (the first)", got)
	}
	if err := st.HeadFileErr(); err != nil { // a flush syncs the newest at once
		t.Fatal(err)
	}
	if got := syncs.Load(); got != 2 {
		t.Fatalf("%d data syncs after a flush, want 2", got)
	}
	if seq, hash := readHead(t, dir); seq != last.Seq || hash != last.Hash {
		t.Fatalf("head file after the flush: %d %s, want %d %s", seq, hash, last.Seq, last.Hash)
	}
}
