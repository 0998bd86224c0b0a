package host

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Every file the console trusts can change what it does: the config file
// sets the caps and the notify command, the notify program runs as the
// console's user, the log file is written to. A file an agent's user can
// write is code execution as the console (a notify_command that copies the
// key), so each must belong to the console's user or root and be writable by
// nobody else, and so must the directory it sits in (whoever can write the
// directory can replace the file). A sticky directory (/tmp) protects the
// files of others, so it is accepted.

// A file is only as safe as the directories above it: whoever can write any
// directory on the way from / can rename the subtree below it and put their
// own in its place (the notify program was swapped that way, through a
// directory two levels up). So, as sshd's StrictModes does, every directory
// the kernel looks a name up in on the way to a trusted file is checked, and
// each symbolic link on the way is followed as the kernel would, its own
// directories checked too.

// maxLinkHops bounds the links followed on one path, as the kernel's
// ELOOP does.
const maxLinkHops = 40

// CheckTrustedPath checks every directory on the way from / to path
// (relative paths from the working directory), following symbolic links as
// the kernel would: each must belong to root or the console's user and be
// writable by nobody else; a root-owned sticky directory (/tmp) is fine,
// since nobody else can rename what is in it. A link on the way must belong
// to root or the console's user too. The last part of path is not judged
// (its loader does that), and it, or any of the directories leading to it,
// may be missing (a file still to be created): what exists is checked.
// It returns path with every link resolved.
func CheckTrustedPath(what, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", what, path, err)
	}
	return walkTrusted(what, abs, uint32(os.Geteuid()))
}

func walkTrusted(what, abs string, self uint32) (string, error) {
	parts := strings.Split(strings.TrimPrefix(filepath.Clean(abs), "/"), "/")
	if err := checkTrustedDirAt(what, "/", self); err != nil {
		return "", err
	}
	cur := "/"
	for hops := 0; len(parts) > 0; {
		part := parts[0]
		parts = parts[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur is already free of links
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{next}, parts...)...), nil
		}
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", what, next, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > maxLinkHops {
				return "", fmt.Errorf("%s: %s: too many symbolic links", what, abs)
			}
			if err := trustedOwner(what+": the link", next, fi, self); err != nil {
				return "", err
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", fmt.Errorf("%s: %s: %w", what, next, err)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(cur, target)
			}
			// Start again from / along the target: its directories are
			// looked up too.
			rest := strings.Split(strings.TrimPrefix(filepath.Clean(target), "/"), "/")
			parts = append(rest, parts...)
			cur = "/"
			continue
		}
		cur = next
		if len(parts) == 0 {
			break // the object itself: its loader judges it
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s: %s is not a directory", what, next)
		}
		if err := checkTrustedDirInfo(what, next, fi, self); err != nil {
			return "", err
		}
	}
	return cur, nil
}

// CheckTrustedFile checks the file at path (following symlinks, since that
// is what will be read) and every directory on the way to it. what names the
// setting in the error (e.g. "--config"). secret additionally refuses a file
// others can read.
func CheckTrustedFile(what, path string, secret bool) error {
	// The file first, then the way to it: the refusal names the nearest
	// problem.
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	return checkTrustedFileAndPath(what, path, fi, secret)
}

// checkTrustedFileAndPath is CheckTrustedFile's checks on fi, what the file
// at path was found to be.
func checkTrustedFileAndPath(what, path string, fi fs.FileInfo, secret bool) error {
	if err := checkTrustedFileInfo(what, path, fi, uint32(os.Geteuid()), secret); err != nil {
		return err
	}
	_, err := CheckTrustedPath(what, path)
	return err
}

// MaxTrustedFileSize bounds what ReadTrustedFile reads. A config file or a
// secret is a few kilobytes; a path that leads to a file without end (a
// link to /proc/self/pagemap passes the owner and mode checks) must not
// fill the console's memory.
const MaxTrustedFileSize = 1 << 20

// ReadTrustedFile reads the file at path (following symlinks, as
// CheckTrustedFile does) after CheckTrustedFile's checks, made on the file it
// opened. Only a regular file of at most MaxTrustedFileSize bytes is read: a
// FIFO or a socket planted at path is refused before it is opened (a FIFO
// would wait for a writer), and the file opened must be the one looked at.
func ReadTrustedFile(what, path string, secret bool) ([]byte, error) {
	seen, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", what, path, err)
	}
	if !seen.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is not a regular file (%s): the console reads only a regular file there: remove it, or choose another file", what, path, seen.Mode().Type())
	}
	f, fi, err := openLookedAt(path, seen, os.O_RDONLY)
	if errors.Is(err, errReplaced) {
		return nil, fmt.Errorf("%s %s was replaced while it was checked: check again", what, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", what, path, err)
	}
	defer f.Close()
	if err := checkTrustedFileAndPath(what, path, fi, secret); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxTrustedFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", what, path, err)
	}
	if len(raw) > MaxTrustedFileSize {
		return nil, fmt.Errorf("%s %s is larger than %d bytes: the console reads at most that much from a file it trusts: choose another file", what, path, MaxTrustedFileSize)
	}
	return raw, nil
}

// errReplaced is a file that was no longer the one looked at when opened.
var errReplaced = errors.New("replaced while it was checked")

// openLookedAt opens path (flag, never creating) and returns it with what
// fstat says, but only if it is still the file seen, which the caller looked
// at (and found regular) before opening: a FIFO is never opened, since the
// open would wait for its other end. A swap between the look and the open
// needs a writer of a trusted directory, the console's user or root, and is
// refused as errReplaced unless it is a FIFO, which that writer can make the
// open wait on; the same writer could stop the console in other ways.
func openLookedAt(path string, seen fs.FileInfo, flag int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	opened, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !os.SameFile(seen, opened) {
		f.Close()
		return nil, nil, errReplaced
	}
	return f, opened, nil
}

func checkTrustedFileInfo(what, path string, fi fs.FileInfo, self uint32, secret bool) error {
	if err := trustedOwner(what, path, fi, self); err != nil {
		return err
	}
	perm := fi.Mode().Perm()
	if perm&0o022 != 0 {
		return fmt.Errorf("%s %s is writable by group or others (mode %04o): another user could change what the console does: run `chmod go-w %s`", what, path, perm, path)
	}
	if secret && perm&0o077 != 0 {
		return fmt.Errorf("%s %s is readable by other users (mode %04o) and holds a secret: run `chmod 600 %s`", what, path, perm, path)
	}
	return nil
}

// CheckTrustedDir checks that dir, and every directory on the way to it,
// belongs to the console's user or root and that nobody else can replace
// what is in it.
func CheckTrustedDir(what, dir string) error {
	real, err := CheckTrustedPath(what, dir)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return fmt.Errorf("%s: directory %s: %w", what, dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", what, dir)
	}
	return checkTrustedDirInfo(what, dir, fi, uint32(os.Geteuid()))
}

func checkTrustedDirAt(what, dir string, self uint32) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("%s: directory %s: %w", what, dir, err)
	}
	return checkTrustedDirInfo(what, dir, fi, self)
}

func checkTrustedDirInfo(what, dir string, fi fs.FileInfo, self uint32) error {
	if err := trustedOwner(what+": the directory", dir, fi, self); err != nil {
		return err
	}
	perm := fi.Mode()
	if perm.Perm()&0o022 == 0 {
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == 0 && perm&fs.ModeSticky != 0 {
		return nil // /tmp: nobody else can rename what is in it
	}
	return fmt.Errorf("%s: the directory %s is writable by group or others (mode %04o): another user could replace what is in it: run `chmod go-w %s`, or keep the file elsewhere", what, dir, perm.Perm(), dir)
}

func trustedOwner(what, path string, fi fs.FileInfo, self uint32) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == self || st.Uid == 0 {
		return nil
	}
	return fmt.Errorf("%s %s belongs to %s, not to the console's user (%s) or root: that user could change what the console does: run `sudo chown %d %s`, or keep the file elsewhere",
		what, path, UserName(st.Uid), UserName(self), self, path)
}

// OpenLogFile opens (or creates, mode 0600) the console's log for appending.
// It never follows a symlink (a link planted where the log goes would make
// the console append to whatever it points at, its own key included), and
// refuses a file the console's user does not own, one others can write, one
// with other names (a hard link to another file), or anything not a regular
// file: a FIFO planted there is refused before it is opened, never waited on.
func OpenLogFile(what, path string) (*os.File, error) {
	if err := CheckTrustedDir(what, filepath.Dir(path)); err != nil {
		return nil, err
	}
	seen, err := lookAtLog(what, path)
	if err != nil {
		return nil, err
	}
	if seen == nil {
		// O_EXCL: whatever appeared since the look is not opened.
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_APPEND|os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%s %s appeared while it was checked: check again", what, path)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: create log %s: %w", what, path, err)
		}
		return f, nil
	}
	f, _, err := openLookedAt(path, seen, os.O_APPEND|os.O_WRONLY|syscall.O_NOFOLLOW)
	if errors.Is(err, errReplaced) {
		return nil, fmt.Errorf("%s %s was replaced while it was checked: check again", what, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: open log %s: %w", what, path, err)
	}
	return f, nil
}

// lookAtLog is the log file as Lstat sees it, refused unless it is a
// regular file fit to be the log; nil when there is none yet.
func lookAtLog(what, path string) (fs.FileInfo, error) {
	seen, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s: stat log %s: %w", what, path, err)
	case seen.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s %s is a symbolic link: the log is never written through a link: remove it, or choose another file", what, path)
	}
	return seen, checkLogFile(what, path, seen)
}

func checkLogFile(what, path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s is not a regular file (%s): the log is a regular file of the console's user: remove it, or choose another file", what, path, fi.Mode().Type())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if self := uint32(os.Geteuid()); st.Uid != self {
		return fmt.Errorf("%s %s belongs to %s, not to the console's user (%s): the console writes only a log of its own: remove it, or choose another file", what, path, UserName(st.Uid), UserName(self))
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s %s is writable by group or others (mode %04o): run `chmod 600 %s`", what, path, perm, path)
	}
	if st.Nlink > 1 {
		return fmt.Errorf("%s %s has %d names (a hard link to another file?): the console writes only a log of its own: remove it, or choose another file", what, path, st.Nlink)
	}
	return nil
}

// CheckLogFile is OpenLogFile's checks without creating anything, for
// `solgate console --check`: a missing file is fine if its directory is.
func CheckLogFile(what, path string) error {
	if err := CheckTrustedDir(what, filepath.Dir(path)); err != nil {
		return err
	}
	seen, err := lookAtLog(what, path)
	if err != nil || seen == nil {
		return err
	}
	f, _, err := openLookedAt(path, seen, os.O_RDONLY|syscall.O_NOFOLLOW)
	if errors.Is(err, errReplaced) {
		return fmt.Errorf("%s %s was replaced while it was checked: check again", what, path)
	}
	if err != nil {
		return fmt.Errorf("%s: open log %s: %w", what, path, err)
	}
	return f.Close()
}

// UserName is a uid as the operator reads it: "alice (uid 1001)", or
// "uid 1001" when no user has it.
func UserName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username + " (uid " + id + ")"
	}
	return "uid " + id
}
