package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// solgate mcp is non-dumpable (PR_SET_DUMPABLE 0): another process of the
// agent's own uid cannot read its memory (its process secret, which a grant
// binds to) nor, through /proc, its connections, while it can read a
// process of that uid that did not opt out (the control).
func TestBridgeMemoryUnreadableBySameUser(t *testing.T) {
	requireRootAndTools(t)
	root := testkit.SocketDir(t)
	must(t, os.Chmod(root, 0o755))
	bin, reader := filepath.Join(root, "solgate"), filepath.Join(root, "reader.test")
	copyExecutable(t, solgateBinary(t), bin)
	self, err := os.Executable()
	must(t, err)
	copyExecutable(t, self, reader)
	as := func(name string, args ...string) *exec.Cmd {
		return exec.Command("setpriv", append([]string{fmt.Sprintf("--reuid=%d", uidAgent), fmt.Sprintf("--regid=%d", uidAgent), "--clear-groups", name}, args...)...)
	}
	started := func(cmd *exec.Cmd, comm string) int {
		t.Helper()
		must(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		testkit.Eventually(t, 30*time.Second, "setpriv exec'ing "+comm, func() bool {
			raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid))
			return strings.TrimSpace(string(raw)) == comm
		}, nil)
		return cmd.Process.Pid
	}
	control := started(as("sleep", "60"), "sleep")
	bridge := as(bin, "mcp", "--socket", filepath.Join(root, "no-console.sock"))
	stdin, err := bridge.StdinPipe() // held open: the bridge serves until it closes
	must(t, err)
	defer stdin.Close()
	pid := started(bridge, "solgate")
	// The kernel shows a non-dumpable process's /proc files (not its
	// directory) as root's: wait for that, the sign the bridge has made
	// the call.
	testkit.Eventually(t, 30*time.Second, "the bridge's /proc/PID/status owned by root (PR_SET_DUMPABLE 0)", func() bool {
		fi, err := os.Stat(fmt.Sprintf("/proc/%d/status", pid))
		return err == nil && fi.Sys().(*syscall.Stat_t).Uid == 0
	}, nil)

	read := func(pid int) string {
		cmd := as(reader, "-test.run=^TestHelperReadProcMem$", "-test.v")
		cmd.Env = append(os.Environ(), "SOLGATE_TEST_MEM_PID="+strconv.Itoa(pid))
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := read(control); !strings.Contains(out, "MEM: read") {
		t.Fatalf("the reader cannot read even a dumpable process of the same uid here, so this machine cannot show the difference:\n%s", out)
	}
	out := read(pid)
	if !strings.Contains(out, "MEM: denied") {
		t.Fatalf("a process of the bridge's uid read its memory:\n%s", out)
	}
	t.Logf("reader against the bridge: %s", strings.TrimSpace(lastLine(out, "MEM:")))
}
