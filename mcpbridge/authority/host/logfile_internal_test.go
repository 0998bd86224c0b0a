package host

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// The log rotates at its cap, keeping old files beside it; each rotation
// checks the way to the log again, and a directory that opened to others
// stops the log (lines dropped and counted) instead of writing where someone
// else could have chosen. Once the directory is the console user's alone
// again, the log goes on and says how many lines it dropped.
func TestLogRotatesAtItsCapAndChecksBeforeReopening(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "console.log")
	l, err := OpenLog("--log-file", path, LogOptions{maxBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(l, nil))
	for i := 0; i < 200; i++ {
		log.Info("proposal queued", "n", i)
	}
	drained := func() bool { return l.pending.Load() == 0 }
	testkit.Eventually(t, 10*time.Second, "the queue written", drained, nil)
	backups, _ := filepath.Glob(filepath.Join(dir, "console-*.log"))
	fi, err := os.Stat(path)
	if err != nil || len(backups) == 0 || fi.Size() > 4096 {
		t.Fatalf("after 200 lines: %d rotated files, current %v bytes (%v), want some rotated and at most 4096", len(backups), fi.Size(), err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new log is %04o, want 0600", fi.Mode().Perm())
	}

	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	for i := 0; i < 200; i++ {
		log.Info("proposal queued", "n", i)
	}
	testkit.Eventually(t, 10*time.Second, "the refusal to rotate", func() bool {
		return l.Err() != nil && strings.Contains(l.Err().Error(), "log not rotated, lines dropped") && drained()
	}, func() string { return fmt.Sprint(l.Err()) })
	if after, _ := os.ReadFile(path); len(after) > 4096 || !strings.HasPrefix(string(after), string(before)) {
		t.Fatalf("the log was rotated in a directory others can write: %d bytes", len(after))
	}
	if l.Dropped() == 0 {
		t.Fatal("no line counted as dropped")
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	log.Info("back")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), "log lines dropped") || !strings.Contains(string(raw), `msg=back`) {
		t.Fatalf("after the directory was fixed: %q", raw)
	}
}

// stuckDisk is a log file on a disk that does not answer until released.
type stuckDisk struct{ release chan struct{} }

func (d stuckDisk) Write(p []byte) (int, error) { <-d.release; return len(p), nil }
func (d stuckDisk) Close() error                { return nil }
func (d stuckDisk) Rotate() error               { return nil }

// A disk that does not answer holds up no caller: every Write returns at
// once (an approval logs a line), lines past the queue are dropped and
// counted, and Close gives up after its bound.
func TestLogNeverBlocksItsCallers(t *testing.T) {
	d := stuckDisk{release: make(chan struct{})}
	l := newLog("--log-file", "stuck.log", d, 1<<20, 0)
	log := slog.New(slog.NewTextHandler(l, nil))
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10*logQueue; i++ {
			log.Info("approved", "id", i)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("logging blocked on a stuck disk")
	}
	if l.Dropped() < 8*logQueue {
		t.Fatalf("dropped %d, want the lines past the queue", l.Dropped())
	}
	if err := l.Close(); err == nil || !strings.Contains(err.Error(), "did not take its last lines") {
		t.Fatalf("close on a stuck disk: %v", err)
	}
	close(d.release)
}

// A full disk (a 64 KiB tmpfs filled up): writes keep returning, the
// failure is ENOSPC in Err, and lines come back once there is room, with the
// count of those lost.
func TestLogOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("requires root: the test mounts a 64 KiB tmpfs to fill")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	filler := filepath.Join(dir, "filler")
	path := filepath.Join(dir, "console.log")
	l, err := OpenLog("--log-file", path, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Fill the disk to the last byte.
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	log := slog.New(slog.NewTextHandler(l, nil))
	start := time.Now()
	for i := 0; i < 1000; i++ {
		log.Info("approved", "id", i)
	}
	took := time.Since(start)
	testkit.Eventually(t, 10*time.Second, "ENOSPC seen", func() bool { return errors.Is(l.Err(), syscall.ENOSPC) }, func() string { return fmt.Sprint(l.Err()) })
	t.Logf("1000 lines onto a full disk returned in %s", took)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	log.Info("room again")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), "msg=\"room again\"") || !strings.Contains(string(raw), "log lines dropped") {
		t.Fatalf("after room was made: %q", raw)
	}
}

// The log writes to the file it checked: a link to the key or a FIFO put
// where the log was, after it was opened and before its first line, is
// neither written through (the key is left as it was) nor waited on.
func TestLogWritesTheFileItChecked(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "id.json")
	if err := os.WriteFile(key, []byte("[1,2,3]"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		plant func(path string) error
	}{
		{"a link to the key", func(path string) error { return os.Symlink(key, path) }},
		{"a FIFO", func(path string) error { return syscall.Mkfifo(path, 0o600) }},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".log")
		l, err := OpenLog("--log-file", path, LogOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := tc.plant(path); err != nil {
			t.Fatal(err)
		}
		slog.New(slog.NewTextHandler(l, nil)).Info("approved", "id", 1)
		err = testkit.Within(t, 10*time.Second, "Close of the log with "+tc.name, l.Close)
		if err != nil || l.Err() != nil {
			t.Errorf("%s: close %v, log %v", tc.name, err, l.Err())
		}
		if raw, _ := os.ReadFile(key); string(raw) != "[1,2,3]" {
			t.Fatalf("%s: the key now holds %q", tc.name, raw)
		}
	}
}

// A rotation keeps the newest backups up to the count, by the time in their
// names, and removes nothing else: not the log, not a file of another name,
// not a link that looks like a backup.
func TestLogKeepsTheNewestBackups(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "console.log")
	w := &logFile{what: "--log-file", path: path, backups: 2}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var names []string
	for i := range 4 {
		names = append(names, w.backupName(start.Add(time.Duration(i)*time.Hour)))
	}
	others := []string{path, filepath.Join(dir, "console-notes.log"), filepath.Join(dir, "other-2026-01-01T00-00-00.000.log")}
	for _, p := range append(slices.Clone(names), others...) {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := w.backupName(start.Add(-time.Hour))
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	w.prune()
	for i, p := range names {
		_, err := os.Lstat(p)
		if kept := i >= 2; kept != (err == nil) {
			t.Errorf("backup %s: kept %v, want %v", filepath.Base(p), err == nil, kept)
		}
	}
	for _, p := range append(others, link) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}

// Lines written while the log closes (a listener's last counts, written as
// the console shuts down) are either in the file or dropped: Write neither
// panics nor races Close (the race detector watches this test), and a line
// written after Close returns as any other.
func TestLogWritesRacingCloseAreSafe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "console.log")
	l, err := OpenLog("--log-file", path, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(l, nil))
	log.Info("before close")
	start := make(chan struct{})
	var writers sync.WaitGroup
	for range 4 {
		writers.Go(func() {
			<-start
			for i := range 2000 {
				log.Info("racing close", "i", i)
			}
		})
	}
	close(start)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	writers.Wait()
	if n, err := l.Write([]byte("after close\n")); n != len("after close\n") || err != nil {
		t.Fatalf("a write after Close: %d, %v", n, err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "before close") || strings.Contains(string(raw), "after close") {
		t.Fatalf("the log after Close holds:\n%.300s", raw)
	}
}
