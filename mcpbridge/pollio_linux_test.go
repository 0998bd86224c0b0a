package mcpbridge

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// nonblockingPipe is a pipe whose ends the poller waits on, as `solgate
// mcp` makes its stdin and stdout.
func nonblockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// Through pollIO, a write larger than the pipe holds waits for room (the
// raw write says EAGAIN, the poller waits) and every byte arrives in order;
// a read past the writer's close is EOF.
func TestPollIOWritesPastAFullPipeAndReadsToEOF(t *testing.T) {
	r, w := nonblockingPipe(t)
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB, 16 pipes' worth
	for i := range data {
		data[i] += byte(i / 4096) // no two pages alike
	}
	wrote := make(chan error, 1)
	go func() {
		n, err := PollFile(w).Write(data)
		if err == nil && n != len(data) {
			err = errors.New("short write")
		}
		w.Close()
		wrote <- err
	}()
	got, err := io.ReadAll(PollFile(r))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes, not the %d written, or not in order", len(got), len(data))
	}
}

// A read through pollIO waits with the connection's deadline (the bound on
// a bridge's call to the console), and says so as net does. The passage of
// time is the behaviour under test.
func TestPollIOReadKeepsTheDeadline(t *testing.T) {
	sock := socketPair(t)
	rc, err := sock[0].SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	sock[0].SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err = pollIO{rc: rc}.Read(make([]byte, 8))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
}

func socketPair(t *testing.T) [2]*net.UnixConn {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out [2]*net.UnixConn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "sock")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c.(*net.UnixConn)
		t.Cleanup(func() { c.Close() })
	}
	return out
}
