package host

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ProcessWatch follows one granted process through a pidfd: the kernel
// makes it readable the moment the process exits, so a grant ends then
// (not at the next call), and a pid the kernel later gives to another
// process never reaches the grant.
type ProcessWatch struct{ f *os.File }

// WatchProcess opens a pidfd for p, or says why p cannot be watched (it
// exited, or its pid already names another process).
func WatchProcess(p ProcessID) (*ProcessWatch, error) {
	fd, err := unix.PidfdOpen(int(p.pid), unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("its agent process (pid %d) cannot be followed: %w", p.pid, err)
	}
	// The pidfd names whoever holds the pid now; the start time says that
	// is still the process that proposed.
	if start, err := ProcStartTime(p.pid); err != nil || start != p.start {
		unix.Close(fd)
		return nil, fmt.Errorf("its agent process (pid %d) has exited", p.pid)
	}
	// Non-blocking, so the runtime's poller waits on it (wait), not a thread.
	return &ProcessWatch{f: os.NewFile(uintptr(fd), fmt.Sprintf("pidfd of %d", p.pid))}, nil
}

// Wait returns true once the process exited, false when the watch was
// closed first (the grant ended for another reason).
func (w *ProcessWatch) Wait() bool {
	rc, err := w.f.SyscallConn()
	if err != nil {
		return false
	}
	exited := false
	err = rc.Read(func(fd uintptr) bool {
		exited = pidfdExited(fd)
		return exited
	})
	return err == nil && exited
}

// Alive reports whether the process has not exited; a closed watch is not.
func (w *ProcessWatch) Alive() bool {
	rc, err := w.f.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	if err := rc.Control(func(fd uintptr) { alive = !pidfdExited(fd) }); err != nil {
		return false
	}
	return alive
}

func (w *ProcessWatch) Close() { _ = w.f.Close() }

// pidfdExited looks, without waiting, whether the pidfd is readable: the
// process exited. An error other than EINTR counts as exited (fail closed).
func pidfdExited(fd uintptr) bool {
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		return err != nil || n > 0
	}
}
