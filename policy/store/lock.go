package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// LockFileName is the console's lock inside the state directory.
const LockFileName = "console.lock"

// ErrStateInUse is returned by LockDir when another console holds the state.
var ErrStateInUse = errors.New("state directory in use")

// LockDir takes the exclusive lock that makes one console per state
// directory: two consoles on one database would each keep their own session
// budget (doubling it) and interleave one audit trail. The lock is the
// kernel's (flock), so it goes with the process however it ends; the file
// holds the owner's pid only to name it in the refusal, and is never
// removed, since unlinking a flock file reopens the race. `solgate audit`
// does not take it: reading the trail while the console runs is fine.
func LockDir(dir string) (release func(), err error) {
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("state lock %s is a symbolic link: %s", path, lockFileFix)
	}
	if err != nil {
		return nil, fmt.Errorf("open state lock %s: %w", path, err)
	}
	// The pid is written over what the file held: a file with other names
	// (a hard link planted to the key) would be overwritten too.
	if err := checkLockFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			raw, _ := io.ReadAll(io.LimitReader(f, 32))
			owner := "another solgate console"
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(raw))); perr == nil && pid > 0 {
				owner = fmt.Sprintf("another solgate console (pid %d)", pid)
			}
			return nil, fmt.Errorf("%w: %s is using state directory %s: use that console, stop it, or give this one another --state", ErrStateInUse, owner, dir)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Ours now: record who holds it, for the next one's refusal.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// lockFileFix is what to do about a lock file the console cannot use.
const lockFileFix = "the console locks a regular file of its own there and writes its pid into it: remove it"

func checkLockFile(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat state lock %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("state lock %s is not a regular file (%s): %s", path, fi.Mode().Type(), lockFileFix)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return fmt.Errorf("state lock %s has %d names (a hard link to another file?): %s", path, st.Nlink, lockFileFix)
	}
	return nil
}
