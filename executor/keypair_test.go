package executor

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

func writeFile(t *testing.T, name string, data []byte, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	// WriteFile's mode is filtered by umask; set it exactly.
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadKeypairRoundTrip(t *testing.T) {
	kp, err := NewRandomKeypair()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "id.json")
	if err := kp.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("written keypair has mode %04o, want 0600", info.Mode().Perm())
	}
	got, err := LoadKeypair(p)
	if err != nil {
		t.Fatal(err)
	}
	if !got.PublicKey().Equals(kp.PublicKey()) {
		t.Fatalf("loaded %s, wrote %s", got.PublicKey(), kp.PublicKey())
	}
}

func TestLoadKeypairRefusesBadFiles(t *testing.T) {
	good, _ := NewRandomKeypair()
	goodPath := filepath.Join(t.TempDir(), "good.json")
	if err := good.WriteFile(goodPath); err != nil {
		t.Fatal(err)
	}
	goodBytes, _ := os.ReadFile(goodPath)

	nums := func(n int) []byte {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "1"
		}
		return []byte("[" + strings.Join(parts, ",") + "]")
	}
	cases := []struct {
		name string
		path func(t *testing.T) string
		want string
	}{
		{"missing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope.json") }, "does not exist"},
		{"directory", func(t *testing.T) string { return t.TempDir() }, "is a directory"},
		{"world readable", func(t *testing.T) string { return writeFile(t, "k.json", goodBytes, 0o644) }, "chmod 600"},
		{"group readable", func(t *testing.T) string { return writeFile(t, "k.json", goodBytes, 0o640) }, "readable by other users"},
		{"owned by another user", func(t *testing.T) string {
			if os.Geteuid() != 0 {
				t.Skip("requires root to chown a file to another user")
			}
			p := writeFile(t, "k.json", goodBytes, 0o600)
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return p
		}, "belongs to uid 65534"},
		{"not json", func(t *testing.T) string { return writeFile(t, "k.json", []byte("hello"), 0o600) }, "not a JSON array"},
		{"wrong length", func(t *testing.T) string { return writeFile(t, "k.json", nums(32), 0o600) }, "holds 32 numbers, expected 64"},
		{"empty", func(t *testing.T) string { return writeFile(t, "k.json", nil, 0o600) }, "not a JSON array"},
		{"out of range", func(t *testing.T) string {
			s := strings.Replace(string(nums(64)), "[1,", "[256,", 1)
			return writeFile(t, "k.json", []byte(s), 0o600)
		}, "element 0 is not a byte"},
		// 64 valid bytes whose second half is not the seed's public key.
		{"mismatched halves", func(t *testing.T) string { return writeFile(t, "k.json", nums(64), 0o600) }, "does not match the seed"},
		{"trailing data", func(t *testing.T) string {
			return writeFile(t, "k.json", append(append([]byte(nil), goodBytes...), []byte(" [1]")...), 0o600)
		}, "unexpected data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path(t)
			_, err := LoadKeypair(p)
			if err == nil {
				t.Fatalf("LoadKeypair(%s) succeeded, want error containing %q", tc.name, tc.want)
			}
			if !errors.Is(err, ErrKeypair) {
				t.Errorf("error %v does not wrap ErrKeypair", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			// Never echo key material.
			if strings.Contains(err.Error(), string(goodBytes[:20])) {
				t.Errorf("error leaks file contents: %q", err)
			}
		})
	}
}

// A FIFO planted where the key is expected is refused by name, not waited
// on for a writer (the console would hang at start), so is one swapped in
// after the file was checked; a file without end (a link to
// /proc/self/pagemap passes the owner and mode checks; a sparse file stands
// in for it) is refused at its bound, not read into memory.
func TestLoadKeypairNeverWaitsNorReadsWithoutEnd(t *testing.T) {
	dir := t.TempDir()
	within := func(what string, f func() error) error {
		t.Helper()
		return testkit.Within(t, 10*time.Second, what, f)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	err := within("LoadKeypair of a FIFO", func() error { _, err := LoadKeypair(fifo); return err })
	if want := fifo + " is not a regular file (p---------)"; err == nil || !errors.Is(err, ErrKeypair) || !strings.Contains(err.Error(), want) {
		t.Fatalf("a FIFO: %v, want %q", err, want)
	}

	checked := writeFile(t, "id.json", []byte("[1]"), 0o600)
	seen, err := os.Stat(checked)
	if err != nil {
		t.Fatal(err)
	}
	err = within("reading a FIFO swapped in after the check", func() error { _, err := readKeypairFile(fifo, seen); return err })
	if want := fifo + " was replaced while it was checked"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a FIFO swapped in: %v, want %q", err, want)
	}

	big := writeFile(t, "big.json", nil, 0o600)
	if err := os.Truncate(big, maxKeypairFile+1); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKeypair(big); err == nil || !strings.Contains(err.Error(), big+" is larger than 65536 bytes") {
		t.Fatalf("a file past the bound: %v", err)
	}
}

// The secret must not be printable through any formatting path.
func TestKeypairNeverPrintsSecret(t *testing.T) {
	kp, _ := NewRandomKeypair()
	secret := kp.priv.String()
	var logBuf bytes.Buffer
	slog.New(slog.NewTextHandler(&logBuf, nil)).Info("loaded", "key", kp)
	outputs := []string{
		fmt.Sprint(kp), fmt.Sprintf("%v", kp), fmt.Sprintf("%+v", kp), fmt.Sprintf("%#v", kp),
		fmt.Sprintf("%s", kp), fmt.Sprintf("%x", kp), kp.String(), logBuf.String(),
	}
	for _, out := range outputs {
		if strings.Contains(out, secret) {
			t.Fatalf("secret leaked in %q", out)
		}
		if !strings.Contains(out, kp.PublicKey().String()) {
			t.Fatalf("output %q does not show the public key", out)
		}
	}
}
