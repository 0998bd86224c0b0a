package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// A notify command that hangs is killed at its timeout, with whatever it
// started (its process group), and the failure says so. The command's own
// child records its pid: killing only the shell (Process.Kill) would leave
// that child running, and this test red.
func TestNotifyCommandTimesOut(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	n := newNotifier(notifyScript(t, "sleep 60 & echo $! > "+pidFile+"; wait"), 5*time.Second, nil)
	start := time.Now()
	err := n.run(notifyFields{ID: "p_x"})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 5s") {
		t.Fatalf("err %v", err)
	}
	if took > 20*time.Second {
		t.Fatalf("run returned after %s", took)
	}
	raw, err := os.ReadFile(pidFile)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || perr != nil {
		t.Fatalf("the command did not record its child within its 5 s: %q %v", raw, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if !testkit.Poll(10*time.Second, func() bool { return !pidAlive(pid) }) {
		t.Fatalf("the command's child %d went on after its timeout", pid)
	}
}

// pidAlive reports whether pid runs (a zombie has exited).
func pidAlive(pid int) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// Fields reach the command as sanitised environment variables: an escape
// sequence in them never does.
func TestNotifyFieldsAreSanitised(t *testing.T) {
	out := filepath.Join(t.TempDir(), "env")
	n := newNotifier(notifyScript(t, `printf '%s' "$SOLGATE_FLAGS" > `+out), time.Second, nil)
	if err := n.run(notifyFields{ID: "p_x", Flags: "LOOK-ALIKE\x1b]2;pwned\x07,text!"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if strings.ContainsAny(string(got), "\x1b\x07") || !strings.HasPrefix(string(got), "LOOK-ALIKE") {
		t.Fatalf("SOLGATE_FLAGS=%q", got)
	}
}

// notifyScript writes body as a private #!/bin/sh script and returns it as
// the notify command (a program, no shell line).
func notifyScript(t *testing.T, body string) *host.TrustedCommand {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := host.ParseTrustedCommand("--notify-command", path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
