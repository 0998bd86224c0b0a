package testkit

import (
	"os"
	"testing"
)

// SocketDir is a new 0700 directory for one test's Unix sockets, removed
// when the test ends. It lives under the system's temporary directory, not
// t.TempDir(): a socket path is limited to about 104 bytes (108 on Linux),
// and test names make t.TempDir() paths too long.
func SocketDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
