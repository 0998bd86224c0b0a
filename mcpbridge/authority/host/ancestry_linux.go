package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A fresh pty of its own does not make the console's terminal the
// operator's: `sudo -u console` (use_pty) and `su -P` give the console a new
// pty while sudo or su, above it, still holds the window the command was
// typed in, and whoever owns that window sees and types everything the
// console's pty carries. So the console looks at every process above it: the
// controlling terminal of each (/proc/PID/stat, readable for any process),
// the terminals on its standard descriptors where the console may read them,
// and who each process runs as (a process of the agent's user above the
// console holds its terminal open for that user).

// Ancestor is one process above the console and the terminals it holds.
type Ancestor struct {
	PID  int
	Comm string
	UID  uint32 // real uid
	EUID uint32
	TTYs []TTY
}

// maxAncestors bounds the walk (a pid loop cannot happen, but a bound costs nothing).
const maxAncestors = 64

// Ancestry lists the console's ancestors, parent first, up to (not
// including) pid 1 and the kernel's threads.
func Ancestry() []Ancestor {
	var out []Ancestor
	devs := ttyDevices()
	pid := os.Getppid()
	for i := 0; i < maxAncestors && pid > 1; i++ {
		a, ppid, ok := readAncestor(pid, devs)
		if !ok {
			break
		}
		out = append(out, a)
		pid = ppid
	}
	return out
}

func readAncestor(pid int, devs map[uint64]string) (Ancestor, int, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Ancestor{}, 0, false
	}
	s := string(raw)
	open, shut := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || shut < open {
		return Ancestor{}, 0, false
	}
	a := Ancestor{PID: pid, Comm: s[open+1 : shut]}
	// After the name: state ppid pgrp session tty_nr ...
	f := strings.Fields(s[shut+1:])
	if len(f) < 5 {
		return Ancestor{}, 0, false
	}
	ppid, _ := strconv.Atoi(f[1])
	ttyNr, _ := strconv.ParseUint(f[4], 10, 64)
	a.UID, a.EUID = procUIDs(pid)
	seen := map[string]bool{}
	add := func(path string) {
		if path == "" || seen[path] {
			return
		}
		seen[path] = true
		if t, ok := StatTTYPath(path); ok {
			a.TTYs = append(a.TTYs, t)
		}
	}
	if ttyNr != 0 {
		add(devs[devKey(unix.Major(ttyNr), unix.Minor(ttyNr))])
	}
	for fd := 0; fd <= 2; fd++ {
		// Readable only for the console's own user's processes (or as root).
		if p, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd)); err == nil && isTTYPath(p) {
			add(p)
		}
	}
	return a, ppid, true
}

func procUIDs(pid int) (real, eff uint32) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(l, "Uid:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				r, _ := strconv.ParseUint(f[0], 10, 32)
				e, _ := strconv.ParseUint(f[1], 10, 32)
				return uint32(r), uint32(e)
			}
		}
	}
	return 0, 0
}

func isTTYPath(p string) bool {
	return strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty")
}

func devKey(major, minor uint32) uint64 { return uint64(major)<<32 | uint64(minor) }

// ttyDevices maps terminal device numbers to their paths.
func ttyDevices() map[uint64]string {
	out := map[uint64]string{}
	pts, _ := filepath.Glob("/dev/pts/[0-9]*")
	ttys, _ := filepath.Glob("/dev/tty*")
	for _, p := range append(pts, ttys...) {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR {
			out[devKey(unix.Major(st.Rdev), unix.Minor(st.Rdev))] = p
		}
	}
	return out
}

// ListeningSocketOf is the path of a Unix socket process pid listens on
// (a tmux server's, whatever -S or -L named it), or "": its descriptors are
// readable to its own user and root only, and /proc/net/unix maps their
// inodes to paths.
func ListeningSocketOf(pid int) string {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return ""
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	raw, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return ""
	}
	// Num RefCount Protocol Flags Type St Inode Path; Flags 00010000 is
	// __SO_ACCEPTCON: a listening socket.
	for _, l := range strings.Split(string(raw), "\n")[1:] {
		f := strings.Fields(l)
		if len(f) >= 8 && f[3] == "00010000" && inodes[f[6]] && strings.HasPrefix(f[7], "/") {
			return f[7]
		}
	}
	return ""
}
