package store

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
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
