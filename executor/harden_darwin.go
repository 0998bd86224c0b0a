package executor

import (
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// denied records that PT_DENY_ATTACH succeeded: darwin has no call that
// reports it afterwards, so Dumpable answers from what this process did.
var denied atomic.Bool

// MakeUndumpable is darwin's nearest equivalent of Linux's PR_SET_DUMPABLE 0:
// ptrace(PT_DENY_ATTACH) makes the kernel refuse every later attach to this
// process (a debugger of the same user gets EBUSY), and RLIMIT_CORE 0 stops
// core dumps. It is weaker than Linux: task_for_pid is governed by code
// signing and System Integrity Protection rather than by this call, so a
// process holding the debugging entitlement, and root, can still read memory.
func MakeUndumpable() error {
	if err := unix.PtraceDenyAttach(); err != nil {
		return fmt.Errorf("ptrace(PT_DENY_ATTACH): %w", err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_CORE, 0): %w", err)
	}
	denied.Store(true)
	return nil
}

// Dumpable reports whether MakeUndumpable has not (yet) protected this process.
func Dumpable() (bool, error) {
	return !denied.Load(), nil
}
