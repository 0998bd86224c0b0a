package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// A pipe's blocking mode belongs to the pipe, not to the process: an MCP
// client (or the shell) holding the other copies of the bridge's stdin and
// stdout would find them non-blocking and its own reads failing with
// EAGAIN. solgate mcp leaves the mode alone. Here the test holds the same
// pipe ends as the bridge's stdin and stdout and reads their modes while
// the bridge serves and after it has exited.
func TestMCPLeavesItsStdioPipesAsItFoundThem(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	nonblocking := func(f *os.File) bool {
		t.Helper()
		// f.Fd() would set the mode itself: read it through the raw descriptor.
		raw, err := f.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var flags uintptr
		var errno syscall.Errno
		if err := raw.Control(func(fd uintptr) { flags, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0) }); err != nil || errno != 0 {
			t.Fatal(err, errno)
		}
		return flags&syscall.O_NONBLOCK != 0
	}
	cmd := exec.Command(testkit.Binary(t), "mcp", "--socket", t.TempDir()+"/none.sock")
	cmd.Stdin, cmd.Stdout = inR, outW
	// The pipes in blocking mode, as an MCP client's spawn hands them
	// over (and as Start would leave them: Fd sets it so).
	inR.Fd()
	outW.Fd()
	if nonblocking(inR) || nonblocking(outW) {
		t.Fatal("a pipe is non-blocking before solgate mcp ran")
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := inW.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("no initialize answer: %q, %v", line, err)
	}
	// The answer came after the bridge set its stdio up.
	if nonblocking(inR) || nonblocking(outW) {
		t.Error("solgate mcp made its stdio pipes non-blocking while it served")
	}
	inW.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("solgate mcp at EOF: %v", err)
	}
	if nonblocking(inR) {
		t.Error("solgate mcp left its stdin pipe non-blocking after it exited")
	}
	if nonblocking(outW) {
		t.Error("solgate mcp left its stdout pipe non-blocking after it exited")
	}
}

// SOLGATE_MCP_CPUPROFILE=DIR (a debugging aid) leaves one CPU profile per
// bridge in DIR when it exits, readable by its user only.
func TestMCPWritesItsCPUProfileWhenAsked(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(testkit.Binary(t), "mcp", "--socket", t.TempDir()+"/none.sock")
	cmd.Env = append(os.Environ(), "SOLGATE_MCP_CPUPROFILE="+dir)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), `"serverInfo"`) {
		t.Fatalf("solgate mcp: %v\n%s", err, out)
	}
	path := fmt.Sprintf("%s/solgate-mcp-%d.pprof", dir, cmd.Process.Pid)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no profile where asked: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the profile's mode is %04o, want 0600", fi.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Errorf("the profile is not a gzipped pprof file (%d bytes, %v)", len(raw), err)
	}
}

// A client that closes the bridge's stdout can read no answer again, so the
// bridge ends, while its stdin is still open, rather than go on forwarding
// calls to the console whose answers nobody reads. Its first write to the
// closed pipe ends it by SIGPIPE, as it ends any Unix filter (the Go
// runtime raises it for a broken stdout).
func TestMCPEndsWhenItsStdoutIsClosed(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outW.Close()
	var stderr strings.Builder
	cmd := exec.Command(testkit.Binary(t), "mcp", "--socket", t.TempDir()+"/none.sock")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outR.Close()
	if _, err := inW.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGPIPE) {
			t.Errorf("solgate mcp ended with %v, want a clean exit or SIGPIPE; stderr: %s", err, stderr.String())
		}
	case <-time.After(30 * time.Second): // a bound on a hang, not a wait
		cmd.Process.Kill()
		t.Fatalf("solgate mcp still runs 30 s after its stdout was closed; stderr: %s", stderr.String())
	}
}

// A bridge's collector waits for a 6 MB heap (relayRuntime): the garbage of
// package initialisation and of a hundred calls after the handshake and
// tools/list are not collected, where under GOGC 100 they were, once. The
// runtime's own trace (GODEBUG=gctrace=1, one stderr line a cycle) counts
// the cycles; GOGC in the environment still wins.
func TestMCPCollectsNoGarbageInAHundredCalls(t *testing.T) {
	var frames strings.Builder
	frames.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	frames.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	frames.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	for i := range 100 {
		// No console: each call fails closed, after trying the socket.
		fmt.Fprintf(&frames, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"transfer_sol","arguments":{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":%d}}}`+"\n", i+2, 10000000+i)
	}
	cycles := func(env ...string) int {
		t.Helper()
		cmd := exec.Command(testkit.Binary(t), "mcp", "--socket", t.TempDir()+"/none.sock")
		cmd.Env = append(os.Environ(), append(env, "GODEBUG=gctrace=1")...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		// stdin stays open until every answer is out: closing it ends the
		// calls still in flight.
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.WriteString(stdin, frames.String()) }()
		r := bufio.NewReader(stdout)
		refused := 0
		for range 102 {
			line, err := r.ReadString('\n')
			if err != nil {
				stdin.Close()
				_ = cmd.Wait()
				t.Fatalf("solgate mcp: %v\n%s", err, stderr.String())
			}
			if strings.Contains(line, "no approval console") {
				refused++
			}
		}
		stdin.Close()
		if err := cmd.Wait(); err != nil || refused != 100 {
			t.Fatalf("solgate mcp: %v, %d of 100 calls refused for want of a console\n%s", err, refused, stderr.String())
		}
		n := 0
		for _, line := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(line, "gc ") {
				n++
			}
		}
		return n
	}
	// os.Environ may carry GOGC or GOMEMLIMIT; the bridge must see neither.
	if n := cycles("GOGC=", "GOMEMLIMIT="); n != 0 {
		t.Errorf("solgate mcp ran %d garbage collections in its handshake and a hundred calls, want none", n)
	}
	// The control: the environment's GOGC wins, and the count counts. GOGC=10
	// (a heap goal of a few hundred kB) collects several times during init
	// alone; GOGC=100 was a coin toss, as the bridge's whole run allocates
	// about the default 4 MB goal (one collection, or none in CI).
	if n := cycles("GOGC=10", "GOMEMLIMIT="); n == 0 {
		t.Error("with GOGC=10 in its environment solgate mcp ran no garbage collection: the environment's setting was not used, or this test counts nothing")
	}
}
