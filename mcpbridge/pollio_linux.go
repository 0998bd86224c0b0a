package mcpbridge

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// pollIO reads and writes a non-blocking descriptor that the Go runtime's
// poller waits on (a socket, or a pipe made non-blocking), calling read and
// write without the runtime's bookkeeping for a system call that may block.
// On such a descriptor neither blocks: it moves what it can and says EAGAIN,
// and the wait is the poller's, with the descriptor's deadlines.
//
// Why: every read and write through os or net marks the goroutine's
// thread as in a system call, and the first such call after the bridge sat
// idle wakes the runtime's monitor thread (sysmon) from its sleep, to take
// the P back should the call block. It then naps in 20 µs steps until the
// process is idle again. A bridge goes idle twice a call (waiting for the
// console, waiting for the next line), so each call paid for two of those
// wake-ups: futex calls, nanosleeps and thread switches that were about a
// tenth of its CPU per call.
type pollIO struct {
	rc syscall.RawConn
}

func (p pollIO) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := p.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			if e == syscall.EINTR {
				continue
			}
			n, errno = int(r), e
			return e != syscall.EAGAIN
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (p pollIO) Write(b []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	for written < len(b) && errno == 0 {
		err := p.rc.Write(func(fd uintptr) bool {
			for written < len(b) {
				rest := b[written:]
				r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)))
				switch e {
				case 0:
					written += int(r)
				case syscall.EINTR:
				case syscall.EAGAIN:
					return false // the poller waits until there is room
				default:
					errno = e
					return true
				}
			}
			return true
		})
		if err != nil {
			return written, err
		}
	}
	if errno != 0 {
		return written, os.NewSyscallError("write", errno)
	}
	return written, nil
}

// PollFile is f, a pipe or socket in non-blocking mode that the runtime's
// poller waits on (os.NewFile registers such a descriptor), read and
// written through pollIO: `solgate mcp` reads its stdin and writes its
// stdout this way.
func PollFile(f *os.File) io.ReadWriter {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	return pollIO{rc: rc}
}
