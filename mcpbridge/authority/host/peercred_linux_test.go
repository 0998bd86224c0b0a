package host

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
)

// PeerGroupsOf reads the groups of the process cred names, and only while
// the pid still names the process that started at cred.Start: a pid whose
// start time differs (reused), or that is gone, lends no groups.
func TestPeerGroupsOfIsBoundToTheProcess(t *testing.T) {
	// A live process whose groups are not this test's own, when root can
	// give it some; otherwise it inherits this test's.
	want, err := os.Getgroups()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("cat")
	if os.Geteuid() == 0 {
		want = []int{4242, 4243}
		child.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{4242, 4243}}}
	}
	stdin, err := child.StdinPipe() // cat lives until it is closed
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = child.Wait() }()
	pid := int32(child.Process.Pid)
	start, err := ProcStartTime(pid)
	if err != nil || start == 0 {
		t.Fatalf("start time of pid %d: %d, %v", pid, start, err)
	}
	cred := PeerCred{PID: pid, UID: 0, Start: start}

	groups, err := PeerGroupsOf(nil, cred)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range want {
		if !slices.Contains(groups, uint32(g)) {
			t.Errorf("groups of pid %d = %v, lack %d (want %v)", pid, groups, g, want)
		}
	}
	if len(groups) != len(want) {
		t.Errorf("groups of pid %d = %v, want %v", pid, groups, want)
	}

	// The same pid, but not the process that connected: refused.
	other := cred
	other.Start++
	if groups, err := PeerGroupsOf(nil, other); err == nil {
		t.Errorf("pid %d with start time %d (it started at %d) lent its groups %v", pid, other.Start, start, groups)
	}
	// A start time that was never read ties nothing to the pid.
	other.Start = 0
	if groups, err := PeerGroupsOf(nil, other); err == nil {
		t.Errorf("pid %d with no start time lent its groups %v", pid, groups)
	}

	// Gone: its groups are nobody's.
	stdin.Close()
	if err := child.Wait(); err != nil {
		t.Fatal(err)
	}
	if groups, err := PeerGroupsOf(nil, cred); err == nil {
		t.Errorf("pid %d, exited, lent groups %v", pid, groups)
	}
}
