package host

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// openLookedAt opens only the file its caller looked at: a file swapped in
// at the path between the look and the open (a rename over it, as a writer
// of the directory could race) is closed and refused, and the file looked
// at is opened when it is still there.
func TestOpenLookedAtRefusesAFileSwappedIn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key.json")
	if err := os.WriteFile(path, []byte("looked at"), 0o600); err != nil {
		t.Fatal(err)
	}
	seen, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, fi, err := openLookedAt(path, seen, os.O_RDONLY)
	if err != nil || !os.SameFile(seen, fi) {
		t.Fatalf("the file looked at, still in place: %v %v", fi, err)
	}
	f.Close()

	swap := filepath.Join(dir, "planted")
	if err := os.WriteFile(swap, []byte("planted"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(swap, path); err != nil {
		t.Fatal(err)
	}
	if f, _, err := openLookedAt(path, seen, os.O_RDONLY); !errors.Is(err, errReplaced) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("a file swapped in after the look: err %v, want errReplaced", err)
	}
}
