package host

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// UndumpableText is what executor.MakeUndumpable achieved, for Report. It is
// weaker than Linux's PR_SET_DUMPABLE 0 (SECURITY.md, "macOS").
const UndumpableText = "debugger attach denied (PT_DENY_ATTACH) and core dumps off: a process of the same user cannot ptrace it, but task_for_pid is left to macOS's code-signing rules"

// StdinTerminal is the terminal device on the console's standard input.
// darwin has no /proc: the device is found by its number among /dev/ttys*
// (pseudo-terminals) and /dev/console.
func StdinTerminal() (string, bool) {
	var in unix.Stat_t
	if err := unix.Fstat(0, &in); err != nil || in.Mode&unix.S_IFMT != unix.S_IFCHR {
		return "", false
	}
	candidates, _ := filepath.Glob("/dev/ttys*")
	candidates = append(candidates, "/dev/console")
	for _, p := range candidates {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == in.Rdev {
			return p, true
		}
	}
	return "", false
}
