package host

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/solgate/solgate/localnet/testkit"
)

// TestPeerCredOfARealConnection asks the kernel, through each OS's own
// calls (peercred_linux.go, peercred_darwin.go), who is on the other end of
// a Unix socket, and checks the answer against what the connecting process
// knows about itself. On macOS this is the test that shows LOCAL_PEERCRED,
// LOCAL_PEERPID and kern.proc.pid work; it is vetted here and runs there.
func TestPeerCredOfARealConnection(t *testing.T) {
	dir := testkit.SocketDir(t)
	path := filepath.Join(dir, "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan *net.UnixConn, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer server.Close()

	cred, err := PeerCredOf(server)
	if err != nil {
		t.Fatal(err)
	}
	if cred.UID != uint32(os.Geteuid()) || cred.PID != int32(os.Getpid()) || cred.GID != uint32(os.Getegid()) {
		t.Errorf("peer = uid %d pid %d gid %d, want this process: uid %d pid %d gid %d",
			cred.UID, cred.PID, cred.GID, os.Geteuid(), os.Getpid(), os.Getegid())
	}
	self, err := ProcStartTime(int32(os.Getpid()))
	if err != nil || self == 0 || cred.Start != self {
		t.Errorf("peer start time %d, this process's %d (%v)", cred.Start, self, err)
	}

	// A process started later has a later start time, so a reused pid is
	// told from its predecessor.
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	later, err := ProcStartTime(int32(sleeper.Process.Pid))
	if err != nil || later < self {
		t.Errorf("start time of a process started later: %d (%v), this process's %d", later, err, self)
	}

	groups, err := PeerGroupsOf(server, cred)
	if err != nil {
		t.Fatal(err)
	}
	own, _ := os.Getgroups()
	for _, g := range own {
		// darwin's xucred holds at most 16 groups (SECURITY.md, "macOS").
		if !slices.Contains(groups, uint32(g)) && len(groups) < 16 {
			t.Errorf("peer groups %v lack group %d of this process (%v)", groups, g, own)
		}
	}
}
