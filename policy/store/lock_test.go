package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// The lock takes the directory once, and what is planted where the lock
// file goes is refused by name, before the pid is written over it: a hard
// link to the key (the key is left as it was), a link, a FIFO.
func TestLockDirRefusesPlants(t *testing.T) {
	dir := t.TempDir()
	release, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("another solgate console (pid %d) is using state directory %s", os.Getpid(), dir)
	if _, err := LockDir(dir); !errors.Is(err, ErrStateInUse) || !strings.Contains(err.Error(), want) {
		t.Fatalf("a second lock: %v, want %q", err, want)
	}
	release()

	key := filepath.Join(t.TempDir(), "id.json")
	if err := os.WriteFile(key, []byte("[1,2,3]"), 0o600); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, LockFileName)
	for _, tc := range []struct {
		name  string
		plant func() error
		want  string
	}{
		{"a hard link to the key", func() error { return os.Link(key, lock) }, "state lock " + lock + " has 2 names"},
		{"a link to the key", func() error { return os.Symlink(key, lock) }, "state lock " + lock + " is a symbolic link"},
		{"a FIFO", func() error { return syscall.Mkfifo(lock, 0o600) }, "state lock " + lock + " is not a regular file (p---------)"},
	} {
		if err := os.Remove(lock); err != nil {
			t.Fatal(err)
		}
		if err := tc.plant(); err != nil {
			t.Fatal(err)
		}
		err := testkit.Within(t, 10*time.Second, "LockDir with "+tc.name, func() error {
			release, err := LockDir(dir)
			if err == nil {
				release()
			}
			return err
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "remove it") {
			t.Errorf("%s: %v, want %q and the fix", tc.name, err, tc.want)
		}
		if raw, _ := os.ReadFile(key); string(raw) != "[1,2,3]" {
			t.Fatalf("%s: the key now holds %q", tc.name, raw)
		}
	}
}
