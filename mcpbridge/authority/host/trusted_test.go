package host

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
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

// A FIFO planted where the log goes is refused by name, and the check
// returns: opening it would wait for a writer (a hang fails the test by its
// timeout).
func TestCheckLogFileRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "console.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	err := CheckLogFile("--log-file", fifo)
	if want := "--log-file " + fifo + " is not a regular file (p---------)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("--check of a FIFO: %v, want %q", err, want)
	}
}

// The same FIFO given to OpenLogFile, which the console calls at start:
// refused by name, whether or not someone reads it, and never a wait for a
// reader (the console would hang with no word). A socket is refused too.
func TestOpenLogFileRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	// The guard fails the test rather than hang the suite: a hung open is
	// left blocked until the test binary exits.
	open := func(path string) error {
		t.Helper()
		return testkit.Within(t, 10*time.Second, "OpenLogFile("+path+")", func() error {
			f, err := OpenLogFile("--log-file", path)
			if f != nil {
				f.Close()
			}
			return err
		})
	}
	const accepted = "the log is a regular file of the console's user"

	fifo := filepath.Join(dir, "console.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	err := open(fifo)
	if want := "--log-file " + fifo + " is not a regular file"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), accepted) {
		t.Fatalf("a FIFO no one reads: %v, want %q and %q", err, want, accepted)
	}

	// Opened for reading and writing, a FIFO opens at once (Linux).
	reader, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	err = open(fifo)
	if want := "--log-file " + fifo + " is not a regular file (p---------)"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), accepted) {
		t.Fatalf("a FIFO someone reads: %v, want %q and %q", err, want, accepted)
	}

	sock := filepath.Join(dir, "sock.log")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := open(sock); err == nil || !strings.Contains(err.Error(), "--log-file "+sock+" is not a regular file") {
		t.Fatalf("a socket: %v", err)
	}
}

// mkdirOwned makes dir with mode and owner (root only changes owners).
func mkdirOwned(t *testing.T, dir string, mode os.FileMode, uid int) string {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // past the umask, sticky bit too
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Chown(dir, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeProgram(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every directory from / down to a trusted file, links followed as the
// kernel follows them, as sshd's StrictModes: a directory of the agent's
// user, or one anyone can write, anywhere above the file is refused by name;
// a root-owned sticky directory (/tmp) is fine; a file still to be created
// under trusted directories is fine.
func TestTrustedPathIsCheckedToTheRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("requires root: the test gives directories to another uid (64102) with chown")
	}
	const agent = 64102
	base := mkdirOwned(t, filepath.Join(t.TempDir(), "base"), 0o755, -1)
	good := mkdirOwned(t, filepath.Join(base, "good"), 0o755, -1)
	goodProg := writeProgram(t, filepath.Join(good, "prog"), "exit 0")

	agentDir := mkdirOwned(t, filepath.Join(base, "agent"), 0o755, agent)
	deep := mkdirOwned(t, filepath.Join(agentDir, "bin"), 0o755, -1)
	deepProg := writeProgram(t, filepath.Join(deep, "prog"), "exit 0")

	open := mkdirOwned(t, filepath.Join(base, "open"), 0o777, -1)
	openDeep := mkdirOwned(t, filepath.Join(open, "bin"), 0o755, -1)
	openProg := writeProgram(t, filepath.Join(openDeep, "prog"), "exit 0")

	sticky := mkdirOwned(t, filepath.Join(base, "sticky"), 0o777|os.ModeSticky, -1)
	stickyProg := writeProgram(t, filepath.Join(sticky, "prog"), "exit 0")
	agentSticky := mkdirOwned(t, filepath.Join(base, "agentsticky"), 0o777|os.ModeSticky, agent)
	agentStickyProg := writeProgram(t, filepath.Join(agentSticky, "prog"), "exit 0")

	// A link in a trusted directory into the agent's, and the agent's own
	// link (in a sticky directory) to a trusted file.
	linkToAgent := filepath.Join(good, "to-agent")
	if err := os.Symlink(deepProg, linkToAgent); err != nil {
		t.Fatal(err)
	}
	agentLink := filepath.Join(sticky, "agent-link")
	if err := os.Symlink(goodProg, agentLink); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(agentLink, agent, agent); err != nil {
		t.Fatal(err)
	}
	// A relative link through .. out of a trusted directory into the open one.
	relLink := filepath.Join(good, "rel")
	if err := os.Symlink("../open/bin/prog", relLink); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, path, want string // want "": accepted
	}{
		{"trusted all the way", goodProg, ""},
		{"the agent's directory two levels up", deepProg, "the directory " + agentDir + " belongs to uid 64102"},
		{"a world-writable directory two levels up", openProg, "the directory " + open + " is writable by group or others (mode 0777)"},
		{"root's sticky directory", stickyProg, ""},
		{"the agent's sticky directory", agentStickyProg, "the directory " + agentSticky + " belongs to uid 64102"},
		{"a link into the agent's directory", linkToAgent, "the directory " + agentDir + " belongs to uid 64102"},
		{"the agent's link to a trusted file", agentLink, "the link " + agentLink + " belongs to uid 64102"},
		{"a relative link through ..", relLink, "the directory " + open + " is writable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckTrustedFile("--notify-command: the program", tc.path, false)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	// Not yet there: what exists on the way is checked.
	if err := CheckLogFile("--log-file", filepath.Join(good, "new", "console.log")); err == nil {
		t.Fatal("a log in a missing directory passed --check") // the directory must exist to be judged
	}
	if real, err := CheckTrustedPath("--state", filepath.Join(good, "state", "x")); err != nil || real != filepath.Join(good, "state", "x") {
		t.Fatalf("a state directory still to be made: %q %v", real, err)
	}
	if _, err := CheckTrustedPath("--state", filepath.Join(deep, "state")); err == nil || !strings.Contains(err.Error(), agentDir) {
		t.Fatalf("a state directory under the agent's: %v", err)
	}
}

// ReadTrustedFile (the config file, a secret file) reads only a regular
// file and only so much of it: a FIFO planted at the path is refused by
// name, not waited on for a writer, and a file without end (a link to
// /proc/self/pagemap passes the owner and mode checks; a sparse file stands
// in for it) is refused at MaxTrustedFileSize.
func TestReadTrustedFileRefusesAFIFOAndAFileWithoutEnd(t *testing.T) {
	dir := t.TempDir()
	read := func(path string) error {
		t.Helper()
		return testkit.Within(t, 10*time.Second, "ReadTrustedFile("+path+")", func() error {
			_, err := ReadTrustedFile("--config", path, false)
			return err
		})
	}
	fifo := filepath.Join(dir, "solgate.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err, want := read(fifo), "--config "+fifo+" is not a regular file (p---------)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a FIFO: %v, want %q", err, want)
	}

	sock := filepath.Join(dir, "sock.toml")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err, want := read(sock), "--config "+sock+" is not a regular file (S---------)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a socket: %v, want %q", err, want)
	}

	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxTrustedFileSize+1); err != nil {
		t.Fatal(err)
	}
	if err, want := read(big), "--config "+big+" is larger than 1048576 bytes"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a file past the bound: %v, want %q", err, want)
	}

	good := filepath.Join(dir, "good.toml")
	if err := os.WriteFile(good, []byte("max_sol_per_tx = 0.05\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if raw, err := ReadTrustedFile("--config", good, false); err != nil || string(raw) != "max_sol_per_tx = 0.05\n" {
		t.Fatalf("a good file: %q %v", raw, err)
	}
}
