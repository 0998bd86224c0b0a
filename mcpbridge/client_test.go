package mcpbridge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobody is the uid and gid of the nobody account on Debian-like systems.
const nobody = 65534

// The bridge trusts a console of another user only where that user owns the
// directory and nobody else can write it; never on its own default path.
func TestTrustedServer(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	sock := filepath.Join(dir, "console.sock")
	self := uint32(os.Geteuid())
	if err := trustedServer(sock, self); err != nil {
		t.Fatalf("own user refused: %v", err)
	}
	if err := trustedServer(sock, self+1); err == nil || !strings.Contains(err.Error(), "neither is you") {
		t.Fatalf("a stranger's console in our directory: %v", err)
	}
	if err := trustedServer(DefaultSocketPath(), self+1); err == nil || !strings.Contains(err.Error(), "default path") {
		t.Fatalf("a squatter on the default path: %v", err)
	}
}

// A console of another user is trusted in a directory that user owns, and
// not once others may write there. Giving a directory away needs root.
func TestTrustedServerOfTheDirectoryOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("requires root: it gives a directory to the user nobody (CI runs as root)")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "console.sock")
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody, -1); err != nil {
		t.Fatal(err)
	}
	if err := trustedServer(sock, nobody); err != nil {
		t.Fatalf("the directory owner's console refused: %v", err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := trustedServer(sock, nobody); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("a console in a world-writable directory: %v", err)
	}
}

func TestDefaultSocketPath(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got := DefaultSocketPath(); got != "/run/user/1000/solgate/console.sock" {
		t.Errorf("with XDG_RUNTIME_DIR: %s", got)
	}
	for _, v := range []string{"", "relative/dir"} {
		t.Setenv("XDG_RUNTIME_DIR", v)
		if got, want := DefaultSocketPath(), fmt.Sprintf("/tmp/solgate-%d/console.sock", os.Getuid()); got != want {
			t.Errorf("XDG_RUNTIME_DIR=%q: %s, want %s", v, got, want)
		}
	}
}
