package store

import (
	"testing"
	"time"
)

// A write in flight while the store closes (a bridge's handler ending its
// grants as the console shuts down) finishes before the files close under
// it: Close waits for the writers' lock. Without that, Close released the
// head file while the write was about to sync it (a race the -race detector
// reported in make test).
func TestCloseWaitsForAWriteInFlight(t *testing.T) {
	st, dir := openTemp(t)
	inWrite, release := make(chan struct{}), make(chan struct{})
	beforeHeadWrite = func() { close(inWrite); <-release }
	t.Cleanup(func() { beforeHeadWrite = nil })

	wrote := make(chan error, 1)
	go func() {
		_, err := st.AppendAudit("test_write", "", map[string]int{"i": 1})
		wrote <- err
	}()
	<-inWrite
	closed := make(chan error, 1)
	go func() { closed <- st.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a write was between its commit and its head file", err)
	case <-time.After(300 * time.Millisecond): // behaviour under test: Close is still waiting
	}
	close(release)
	if err := <-wrote; err != nil {
		t.Fatalf("the write in flight: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	beforeHeadWrite = nil
	// The head file on disk names the write that was in flight.
	st2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if note := st2.HeadFileNote(); note != "" {
		t.Errorf("the head file lagged behind the last write: %s", note)
	}
}
