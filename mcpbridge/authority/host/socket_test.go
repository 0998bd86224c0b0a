package host

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
)

// socketPath returns a fresh socket path in a directory Listen must create.
// t.TempDir names can exceed sun_path, so a short directory under /tmp is used.
func socketPath(t *testing.T) string {
	t.Helper()
	root := testkit.SocketDir(t)
	return filepath.Join(root, "solgate", "console.sock")
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// serve runs an HTTP server on l that answers with the caller's credentials.
func serve(t *testing.T, l net.Listener) (hits *atomic.Int64) {
	t.Helper()
	hits = new(atomic.Int64)
	srv := NewSocketHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		cred, ok := PeerCredFromContext(r.Context())
		if !ok {
			http.Error(w, "no peer credentials", http.StatusInternalServerError)
			return
		}
		json.NewEncoder(w).Encode(cred)
	}))
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return hits
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestListenModesAndRealRequest(t *testing.T) {
	path := socketPath(t)
	l, err := ListenConfig{Logger: quietLogger()}.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := mode(t, filepath.Dir(path)); m.Perm() != 0o700 || !m.IsDir() {
		t.Errorf("socket dir mode %v, want drwx------", m)
	}
	if m := mode(t, path); m.Perm() != 0o600 || m.Type() != fs.ModeSocket {
		t.Errorf("socket mode %v, want srw-------", m)
	}
	hits := serve(t, l)

	client := mcpbridge.NewUnixHTTPClient(path, 5*time.Second)
	resp, err := client.Get("http://solgate/whoami")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var cred PeerCred
	if err := json.NewDecoder(resp.Body).Decode(&cred); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || cred.UID != uint32(os.Getuid()) || cred.PID != int32(os.Getpid()) {
		t.Fatalf("status %d cred %+v; want our uid %d pid %d", resp.StatusCode, cred, os.Getuid(), os.Getpid())
	}
	if hits.Load() != 1 || l.Rejected() != 0 {
		t.Fatalf("hits %d rejected %d", hits.Load(), l.Rejected())
	}

	// Close removes the socket: a later client finds no console.
	l.Close()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("socket still there after Close: %v", err)
	}
}

func TestListenReplacesStaleSocket(t *testing.T) {
	path := socketPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	// A crashed console leaves its socket file behind.
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()
	if mode(t, path).Type() != fs.ModeSocket {
		t.Fatal("setup: stale socket missing")
	}
	// A bridge dialling it meanwhile is told no console runs.
	_, err = mcpbridge.NewUnixHTTPClient(path, time.Second).Get("http://solgate/")
	if !errors.Is(err, mcpbridge.ErrNoConsole) {
		t.Fatalf("stale socket: %v, want mcpbridge.ErrNoConsole", err)
	}

	l, err := ListenConfig{Logger: quietLogger()}.Listen(path)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	defer l.Close()
	serve(t, l)
	resp, err := mcpbridge.NewUnixHTTPClient(path, 5*time.Second).Get("http://solgate/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func TestSecondConsoleRefused(t *testing.T) {
	path := socketPath(t)
	l, err := ListenConfig{Logger: quietLogger()}.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, l)
	_, err = Listen(path)
	if err == nil || !strings.Contains(err.Error(), "another solgate console is already serving "+path) {
		t.Fatalf("second Listen: %v", err)
	}
	// The first one is untouched.
	resp, err := mcpbridge.NewUnixHTTPClient(path, 5*time.Second).Get("http://solgate/")
	if err != nil {
		t.Fatalf("first console broken by the refused second: %v", err)
	}
	resp.Body.Close()
	l.Close()
	// Once it is gone, a new console may start.
	l2, err := ListenConfig{Logger: quietLogger()}.Listen(path)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	l2.Close()
}

// A live socket without our lock file (another program, an older console) is
// detected by dialling it, not deleted.
func TestLiveForeignSocketRefused(t *testing.T) {
	path := socketPath(t)
	os.MkdirAll(filepath.Dir(path), 0o700)
	foreign, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Close()
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "already serving") {
		t.Fatalf("Listen over a live socket: %v", err)
	}
	if mode(t, path).Type() != fs.ModeSocket {
		t.Fatal("the live socket was removed")
	}
}

func TestListenRefusesUnsafePaths(t *testing.T) {
	t.Run("dir open to others", func(t *testing.T) {
		path := socketPath(t)
		os.MkdirAll(filepath.Dir(path), 0o700)
		os.Chmod(filepath.Dir(path), 0o755)
		_, err := Listen(path)
		if err == nil || !strings.Contains(err.Error(), "chmod 700 "+filepath.Dir(path)) || !strings.Contains(err.Error(), "0755") {
			t.Fatalf("got %v", err)
		}
		if mode(t, filepath.Dir(path)).Perm() != 0o755 {
			t.Fatal("Listen changed a directory it did not create")
		}
	})
	t.Run("dir is a symlink", func(t *testing.T) {
		path := socketPath(t)
		real := filepath.Join(filepath.Dir(filepath.Dir(path)), "real")
		os.Mkdir(real, 0o700)
		os.Symlink(real, filepath.Dir(path))
		if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "not a plain directory") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("path is a regular file", func(t *testing.T) {
		path := socketPath(t)
		os.MkdirAll(filepath.Dir(path), 0o700)
		os.WriteFile(path, []byte("keep me"), 0o600)
		if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "is not a socket") {
			t.Fatalf("got %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "keep me" {
			t.Fatal("Listen clobbered a regular file")
		}
	})
	t.Run("path too long", func(t *testing.T) {
		path := "/tmp/" + strings.Repeat("x", 120) + "/console.sock"
		if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "at most 107") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("dir owned by another user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("requires root to chown")
		}
		path := socketPath(t)
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.Chown(filepath.Dir(path), 65534, 65534); err != nil {
			t.Skip("requires chown to succeed: " + err.Error())
		}
		if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Fatalf("got %v", err)
		}
	})
}

// The uid policy, exercised with a real connection from this process: a
// policy that refuses our uid must close the connection before any handler runs.
func TestPeerUIDPolicyRefuses(t *testing.T) {
	path := socketPath(t)
	var asked atomic.Uint32
	asked.Store(^uint32(0))
	l, err := ListenConfig{
		AllowUID: func(uid uint32) bool { asked.Store(uid); return false },
		Logger:   quietLogger(),
	}.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	hits := serve(t, l)

	_, err = mcpbridge.NewUnixHTTPClient(path, 5*time.Second).Get("http://solgate/")
	if err == nil {
		t.Fatal("request through a refused connection succeeded")
	}
	if errors.Is(err, mcpbridge.ErrNoConsole) {
		t.Fatalf("a refused peer is not a missing console: %v", err)
	}
	if hits.Load() != 0 || l.Rejected() == 0 || asked.Load() != uint32(os.Geteuid()) {
		t.Fatalf("hits %d rejected %d policy saw uid %d", hits.Load(), l.Rejected(), asked.Load())
	}
}

// The real thing: a process running as another uid (nobody) connects and is
// refused by SO_PEERCRED even though the filesystem guard is deliberately
// opened for the test. It reads the console's refusal, not a bare close.
func TestPeerFromAnotherUIDRefused(t *testing.T) {
	helper, root := otherUserHelper(t)
	path := filepath.Join(root, "s", "console.sock")
	l, err := ListenConfig{Logger: quietLogger()}.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	hits := serve(t, l)
	// Test only: open the directory and socket so that the only guard left is
	// the peer-uid check.
	os.Chmod(filepath.Dir(path), 0o755)
	os.Chmod(path, 0o666)

	out := runAs(t, helper, nobody, "raw", path)
	if !strings.Contains(out, fmt.Sprintf("HELPER: uid=%d ANSWERED 403 Forbidden refused=uid", nobody)) {
		t.Fatalf("helper was not refused with the console's answer:\n%s", out)
	}
	if hits.Load() != 0 || l.Rejected() != 1 {
		t.Fatalf("hits %d rejected %d; want 0 and 1", hits.Load(), l.Rejected())
	}
	// The console still serves its own user.
	resp, err := mcpbridge.NewUnixHTTPClient(path, 5*time.Second).Get("http://solgate/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

const nobody = 65534

// otherUserHelper copies this test binary where uid nobody can run it and
// returns it with a directory nobody can enter. Skips unless root.
func otherUserHelper(t *testing.T) (helper, root string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("requires root to start a process as another uid")
	}
	root = testkit.SocketDir(t)
	os.Chmod(root, 0o755)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper = filepath.Join(root, "helper.test")
	copyFile(t, self, helper, 0o755)
	return helper, root
}

// runAs runs TestHelperDialAsOtherUser as uid (and gid) in mode "raw" (speak
// HTTP by hand) or "client" (mcpbridge.NewUnixHTTPClient, as the bridge does).
func runAs(t *testing.T, helper string, uid uint32, mode, path string) string {
	t.Helper()
	return runAsCred(t, helper, &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}, mode, path)
}

func runAsCred(t *testing.T, helper string, cred *syscall.Credential, mode, path string) string {
	t.Helper()
	uid := cred.Uid
	cmd := exec.Command(helper, "-test.run=^TestHelperDialAsOtherUser$", "-test.v")
	cmd.Env = append(os.Environ(), "SOLGATE_TEST_HELPER_SOCKET="+path, "SOLGATE_TEST_HELPER_MODE="+mode)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "HELPER:") {
		t.Fatalf("cannot run a process as uid %d here: %v\n%s", uid, err, out)
	}
	return string(out)
}

// TestHelperDialAsOtherUser is the helper process of the other-uid tests.
func TestHelperDialAsOtherUser(t *testing.T) {
	path := os.Getenv("SOLGATE_TEST_HELPER_SOCKET")
	if path == "" {
		t.Skip("requires the helper-process environment: started by the other-uid tests as root")
	}
	verdict := "REFUSED"
	if os.Getenv("SOLGATE_TEST_HELPER_MODE") == "client" {
		resp, err := mcpbridge.NewUnixHTTPClient(path, 5*time.Second).Get("http://solgate/")
		if err != nil {
			verdict = "ERROR " + err.Error()
		} else {
			verdict = "ANSWERED " + resp.Status
			resp.Body.Close()
		}
		fmt.Printf("HELPER: uid=%d %s\n", os.Getuid(), verdict)
		return
	}
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		verdict = "DIAL-FAILED " + err.Error() // not what we test: the filesystem stopped it
	} else {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: solgate\r\n\r\n")
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			verdict = "ANSWERED " + resp.Status + " refused=" + resp.Header.Get("X-Solgate-Refused")
		}
		c.Close()
	}
	fmt.Printf("HELPER: uid=%d %s\n", os.Getuid(), verdict)
}

func TestNoConsole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nothing.sock")
	client := mcpbridge.NewUnixHTTPClient(path, 2*time.Second)
	start := time.Now()
	_, err := client.Post("http://solgate/propose", "application/json", strings.NewReader("{}"))
	if !errors.Is(err, mcpbridge.ErrNoConsole) {
		t.Fatalf("got %v, want mcpbridge.ErrNoConsole", err)
	}
	var nc *mcpbridge.NoConsoleError
	if !errors.As(err, &nc) || nc.Path != path {
		t.Fatalf("error %v does not carry the path", err)
	}
	want := "no approval console is running at " + path + ": start `solgate console`, or, if it listens elsewhere, give `solgate mcp` the same --socket PATH (or SOLGATE_SOCKET)"
	if nc.Error() != want {
		t.Fatalf("message %q, want %q", nc.Error(), want)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v", d)
	}
}

// A console that accepts but never answers must not hang the bridge.
func TestWedgedConsoleTimesOut(t *testing.T) {
	path := socketPath(t)
	os.MkdirAll(filepath.Dir(path), 0o700)
	wedged, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer wedged.Close()
	go func() {
		for {
			c, err := wedged.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	start := time.Now()
	_, err = mcpbridge.NewUnixHTTPClient(path, 300*time.Millisecond).Get("http://solgate/")
	if err == nil {
		t.Fatal("got an answer from a silent console")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v despite a 300ms timeout", d)
	}
}

func TestPeerCredFromContextWithoutSocket(t *testing.T) {
	if _, ok := PeerCredFromContext(t.Context()); ok {
		t.Fatal("credentials out of nowhere")
	}
}

func copyFile(t *testing.T, from, to string, perm fs.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
