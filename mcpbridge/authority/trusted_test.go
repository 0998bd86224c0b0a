package authority

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The log file: created 0600, never through a symlink (the key it points at
// is left as it was), never a file with two names, never another user's.
func TestOpenLogFileRefusesWhatItDoesNotOwn(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "id.json")
	if err := os.WriteFile(key, []byte("[1,2,3]"), 0o600); err != nil {
		t.Fatal(err)
	}

	fresh := filepath.Join(dir, "console.log")
	f, err := OpenLogFile("--log-file", fresh)
	if err != nil {
		t.Fatalf("a new log: %v", err)
	}
	f.Close()
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new log created %04o, want 0600", fi.Mode().Perm())
	}

	link := filepath.Join(dir, "link.log")
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLogFile("--log-file", link); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("a symlink to the key: %v", err)
	}
	hard := filepath.Join(dir, "hard.log")
	if err := os.Link(key, hard); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLogFile("--log-file", hard); err == nil || !strings.Contains(err.Error(), "has 2 names") {
		t.Fatalf("a hard link to the key: %v", err)
	}
	if raw, _ := os.ReadFile(key); string(raw) != "[1,2,3]" {
		t.Fatalf("the key was written to: %q", raw)
	}

	shared := filepath.Join(dir, "shared.log")
	if err := os.WriteFile(shared, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLogFile("--log-file", shared); err == nil || !strings.Contains(err.Error(), "writable by group or others (mode 0666)") {
		t.Fatalf("a world-writable log: %v", err)
	}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(dir, "theirs.log")
		if err := os.WriteFile(theirs, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 64102, 64102); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenLogFile("--log-file", theirs); err == nil || !strings.Contains(err.Error(), "belongs to uid 64102") {
			t.Fatalf("another user's log: %v", err)
		}
	}
	// CheckLogFile (for --check) says the same without creating anything.
	if err := CheckLogFile("--log-file", link); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("--check of a symlink: %v", err)
	}
	if err := CheckLogFile("--log-file", filepath.Join(dir, "not-yet.log")); err != nil {
		t.Fatalf("--check of a log to be created: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "not-yet.log")); err == nil {
		t.Fatal("--check created the log")
	}
}
