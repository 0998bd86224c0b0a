package host

import (
	"os"
	"strings"
)

// UndumpableText is what executor.MakeUndumpable achieved, for Report.
const UndumpableText = "not dumpable (PR_SET_DUMPABLE 0): no other process of the same user can ptrace it or read /proc/<pid>/mem"

// StdinTerminal is the terminal device on the console's standard input.
func StdinTerminal() (string, bool) {
	tty, err := os.Readlink("/proc/self/fd/0")
	if err != nil || !(strings.HasPrefix(tty, "/dev/pts/") || strings.HasPrefix(tty, "/dev/tty")) {
		return "", false
	}
	return tty, true
}
