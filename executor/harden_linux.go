package executor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// MakeUndumpable clears the process's dumpable flag (PR_SET_DUMPABLE 0). The
// kernel then lets no other process of the same user ptrace this one or read
// its /proc/<pid>/mem, so the key cannot be lifted from memory by whoever
// shares the console's account; it also suppresses core dumps. Root keeps its
// power over every process, which is why the console runs as its own user.
func MakeUndumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", err)
	}
	return nil
}

// Dumpable reports the process's dumpable flag, for the console's self-check.
func Dumpable() (bool, error) {
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		return false, fmt.Errorf("prctl(PR_GET_DUMPABLE): %w", err)
	}
	return v != 0, nil
}
