package host

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// macOS: the peer's uid and groups come from LOCAL_PEERCRED (a struct
// xucred), its pid from LOCAL_PEERPID, and its start time from
// sysctl kern.proc.pid. Both options report the process that connected, as
// Linux's SO_PEERCRED does. Differences SECURITY.md lists (macOS):
//   - xucred carries at most 16 groups (NGROUPS), so --allow-gid sees a
//     peer's first 16 groups only;
//   - the start time is wall-clock microseconds since 1970, not ticks after
//     boot: it still tells a reused pid from its predecessor;
//   - admission ACLs are not set (darwin's ACLs are not POSIX xattrs), so the
//     socket directory falls back to ownership and mode (Admission.fileModes),
//     and LOCAL_PEERCRED is checked on every connection either way.

// maxSocketPathLen is sun_path (104 bytes on darwin) minus its terminating NUL.
const maxSocketPathLen = 103

func PeerCredOf(c *net.UnixConn) (PeerCred, error) {
	xu, pid, err := xucredOf(c)
	if err != nil {
		return PeerCred{}, err
	}
	cred := PeerCred{PID: pid, UID: xu.Uid}
	if xu.Ngroups > 0 {
		cred.GID = xu.Groups[0] // cr_groups[0] is the effective gid
	}
	// Unreadable (the process already exited): 0, which no live process has.
	cred.Start, _ = ProcStartTime(pid)
	return cred, nil
}

func xucredOf(c *net.UnixConn) (*unix.Xucred, int32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, 0, err
	}
	var xu *unix.Xucred
	var pid int
	var credErr, pidErr error
	if err := raw.Control(func(fd uintptr) {
		xu, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		pid, pidErr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return nil, 0, err
	}
	if credErr != nil {
		return nil, 0, fmt.Errorf("LOCAL_PEERCRED: %w", credErr)
	}
	if pidErr != nil {
		return nil, 0, fmt.Errorf("LOCAL_PEERPID: %w", pidErr)
	}
	return xu, int32(pid), nil
}

// ProcStartTime is the process's start time in microseconds since 1970,
// from sysctl kern.proc.pid.<pid> (struct extern_proc p_starttime).
func ProcStartTime(pid int32) (uint64, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", int(pid))
	if err != nil {
		return 0, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	}
	if kp.Proc.P_pid != pid {
		return 0, fmt.Errorf("sysctl kern.proc.pid.%d: no such process", pid)
	}
	t := kp.Proc.P_starttime
	return uint64(t.Sec)*1_000_000 + uint64(t.Usec), nil
}

// PeerGroupsOf is the peer's groups as LOCAL_PEERCRED recorded them at
// connect time: at most 16. They are the connection's own record, so no pid
// (cred, Linux's source) is involved.
func PeerGroupsOf(c *net.UnixConn, _ PeerCred) ([]uint32, error) {
	xu, _, err := xucredOf(c)
	if err != nil {
		return nil, err
	}
	n := min(int(xu.Ngroups), len(xu.Groups))
	return append([]uint32(nil), xu.Groups[:max(n, 0)]...), nil
}

// setACL reports that admission ACLs are not available, so dirACL falls
// back to ownership and mode.
func setACL(path string, acl []byte) error {
	return fmt.Errorf("admission ACL on %s: not set on darwin: %w", path, unix.EOPNOTSUPP)
}

// passCredentials: darwin has no per-message credentials (no
// SCM_CREDENTIALS), so a call's sender is never known beyond the process
// that connected, and no grant can be bound to a process there (the
// console refuses to make one; README, "macOS").
func passCredentials(syscall.RawConn) error { return nil }
