package host

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"github.com/charmbracelet/x/term"
)

// The console's terminal device as the kernel and the user database say:
// who owns it and who may open it. The authority judges it (terminal.go).

// TTY is the console's terminal device as fstat saw it on standard input.
type TTY struct {
	Path     string
	OwnerUID uint32
	GID      uint32
	Mode     fs.FileMode
}

// StatTTY reads the terminal device on standard input. ok is false when
// standard input is not a terminal device.
func StatTTY() (t TTY, ok bool) {
	if !term.IsTerminal(os.Stdin.Fd()) {
		return TTY{}, false // /dev/null, a pipe, a file: nobody types here
	}
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		return TTY{}, false
	}
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat {
		return TTY{}, false
	}
	t = TTY{Path: "standard input", OwnerUID: st.Uid, GID: st.Gid, Mode: fi.Mode().Perm()}
	if p, err := os.Readlink("/proc/self/fd/0"); err == nil {
		t.Path = p
	}
	return t, true
}

// GroupsOfUID lists the groups a user is in, from the user database; a uid
// without an account has none that can be known.
func GroupsOfUID(uid uint32) []uint32 {
	u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10))
	if err != nil {
		return nil
	}
	ids, _ := u.GroupIds()
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	out := []uint32{uint32(gid)}
	for _, g := range ids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			out = append(out, uint32(n))
		}
	}
	return out
}

// CloseTTYToOthers takes the group and other bits off the console's
// terminal device when the console's user owns it, as `mesg n` does: a pty
// is created 0620 group tty, so `write` and `wall` (setgid tty) let any local
// user put text on the console's screen. restore puts the mode back when the
// console exits. Nothing happens for a terminal of another user (the
// console cannot change it; TerminalProblems judges it).
func CloseTTYToOthers() (restore func(), err error) {
	t, ok := StatTTY()
	if !ok || t.OwnerUID != uint32(os.Geteuid()) || t.Mode&0o077 == 0 {
		return func() {}, nil
	}
	if err := os.Stdin.Chmod(t.Mode &^ 0o077); err != nil {
		return func() {}, fmt.Errorf("close terminal %s to other users (chmod %04o): %w", t.Path, t.Mode&^0o077, err)
	}
	return func() { _ = os.Stdin.Chmod(t.Mode) }, nil
}

// StatTTYPath reads a terminal device's owner, group and mode.
func StatTTYPath(path string) (TTY, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFCHR {
		return TTY{}, false
	}
	return TTY{Path: path, OwnerUID: st.Uid, GID: st.Gid, Mode: os.FileMode(st.Mode & 0o777)}, true
}
