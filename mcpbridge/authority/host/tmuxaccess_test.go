package host

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A tmux server whose server-access list admits an admitted agent's user
// (tmux 3.3: `server-access -a USER`) is named; the same server without it
// is not. The server is a real tmux, asked by the console's code the way it
// asks its own; nobody (uid 65534) stands in for the agent's user, since
// server-access takes a user name from the user database.
func TestTmuxServerAccessListIsJudged(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("requires tmux on PATH (.ci/run installs it): %v", err)
	}
	socket := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("tmux", append([]string{"-S", socket}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
	}
	tmux("new-session", "-d", "-s", "console", "sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() })
	const nobody = 65534
	e := &Exposure{ConsoleUID: uint32(os.Geteuid()), Admission: Admission{UIDs: []uint32{nobody}}}
	problems := func() string {
		_, e.TmuxAccess = tmuxView(socket, "")
		return strings.Join(e.TerminalProblems(), "; ")
	}
	if got := problems(); strings.Contains(got, "server-access") {
		t.Fatalf("a server nobody else may attach to: %s", got)
	}
	tmux("server-access", "-a", "nobody")
	if got := problems(); !strings.Contains(got, fmt.Sprintf("lets nobody (uid %d), which --allow-uid admits as an agent, attach (server-access)", nobody)) {
		t.Fatalf("with server-access -a nobody: %q (access list %v)", got, e.TmuxAccess)
	}
}
