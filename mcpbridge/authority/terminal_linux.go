package authority

import (
	"os"
	"strings"
)

// undumpableText is what executor.MakeUndumpable achieved, for Report.
const undumpableText = "not dumpable (PR_SET_DUMPABLE 0): no other process of the same user can ptrace it or read /proc/<pid>/mem"

// stdinTerminal is the terminal device on the console's standard input.
func stdinTerminal() (string, bool) {
	tty, err := os.Readlink("/proc/self/fd/0")
	if err != nil || !(strings.HasPrefix(tty, "/dev/pts/") || strings.HasPrefix(tty, "/dev/tty")) {
		return "", false
	}
	return tty, true
}
