//go:build !linux

package mcpbridge

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// pollReadWriter is rw: the raw reads and writes of pollio_linux.go are
// Linux's system calls.
func pollReadWriter(_ syscall.RawConn, rw io.ReadWriter) io.ReadWriter { return rw }

// peekClosed looks at a connection without waiting: whether the peer has
// closed it (0 bytes) or sent something unasked.
func peekClosed(fd uintptr) bool {
	var b [1]byte
	_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EWOULDBLOCK)
}

// PollFile is f.
func PollFile(f *os.File) io.ReadWriter { return f }
