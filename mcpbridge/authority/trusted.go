package authority

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// CheckTrustedFile checks the file at path (following symlinks, since that
// is what will be read) and its directory. what names the setting in the
// error (e.g. "--config"). secret additionally refuses a file others can
// read.
func CheckTrustedFile(what, path string, secret bool) error {
	self := uint32(os.Geteuid())
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
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
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	for _, p := range dedupe(path, real) {
		if err := CheckTrustedDir(what, filepath.Dir(p)); err != nil {
			return err
		}
	}
	return nil
}

// CheckTrustedDir checks that dir belongs to the console's user or root and
// that nobody else can replace what is in it.
func CheckTrustedDir(what, dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: directory %s: %w", what, dir, err)
	}
	if err := trustedOwner(what+": the directory", dir, fi, uint32(os.Geteuid())); err != nil {
		return err
	}
	if perm := fi.Mode(); perm.Perm()&0o022 != 0 && perm&fs.ModeSticky == 0 {
		return fmt.Errorf("%s: the directory %s is writable by group or others (mode %04o): another user could replace the file in it: run `chmod go-w %s`, or keep the file elsewhere", what, dir, perm.Perm(), dir)
	}
	return nil
}

func trustedOwner(what, path string, fi fs.FileInfo, self uint32) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == self || st.Uid == 0 {
		return nil
	}
	return fmt.Errorf("%s %s belongs to %s, not to the console's user (%s) or root: that user could change what the console does: run `sudo chown %d %s`, or keep the file elsewhere",
		what, path, userName(st.Uid), userName(self), self, path)
}

func dedupe(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// OpenLogFile opens (or creates, mode 0600) the console's log for appending.
// It never follows a symlink (a link planted where the log goes would make
// the console append to whatever it points at, its own key included), and
// refuses a file the console's user does not own, one others can write, or
// one with other names (a hard link to another file).
func OpenLogFile(what, path string) (*os.File, error) {
	if err := CheckTrustedDir(what, filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s %s is a symbolic link: the log is never written through a link: remove it, or choose another file", what, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: open log %s: %w", what, path, err)
	}
	if err := checkLogFile(what, path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func checkLogFile(what, path string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: stat log %s: %w", what, path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s is not a regular file (%s): choose another file", what, path, fi.Mode().Type())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if self := uint32(os.Geteuid()); st.Uid != self {
		return fmt.Errorf("%s %s belongs to %s, not to the console's user (%s): the console writes only a log of its own: remove it, or choose another file", what, path, userName(st.Uid), userName(self))
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
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s %s is a symbolic link: the log is never written through a link: remove it, or choose another file", what, path)
	case err != nil:
		return fmt.Errorf("%s: open log %s: %w", what, path, err)
	}
	defer f.Close()
	return checkLogFile(what, path, f)
}
