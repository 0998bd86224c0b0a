package authority

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux: the peer's identity comes from SO_PEERCRED and SO_PEERGROUPS, its
// start time from /proc, and admission ACLs are POSIX ACLs in an xattr.
// peercred_darwin.go answers the same four functions on macOS.

// maxSocketPathLen is sun_path (108 bytes on Linux) minus its terminating NUL.
const maxSocketPathLen = 107

func peerCredOf(c *net.UnixConn) (PeerCred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return PeerCred{}, err
	}
	var uc *unix.Ucred
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		uc, sockErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return PeerCred{}, err
	}
	if sockErr != nil {
		return PeerCred{}, fmt.Errorf("SO_PEERCRED: %w", sockErr)
	}
	cred := PeerCred{PID: uc.Pid, UID: uc.Uid, GID: uc.Gid}
	// Unreadable (the process already exited): 0, which no live process has.
	cred.Start, _ = procStartTime(uc.Pid)
	return cred, nil
}

// procStartTime reads field 22 (starttime, clock ticks after boot) of
// /proc/<pid>/stat. The second field (comm) is in parentheses and may itself
// contain spaces and ')', so the fields are counted from the last ')'.
func procStartTime(pid int32) (uint64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStartTime(raw)
}

// peerGroupsOf reads the peer's supplementary groups as the kernel recorded
// them at connect time (SO_PEERGROUPS, Linux 4.13+). x/sys has no typed
// getter, and its string getter stops at the first zero byte.
func peerGroupsOf(c *net.UnixConn) ([]uint32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	var groups []uint32
	var sockErr error
	ctlErr := raw.Control(func(fd uintptr) {
		buf := make([]byte, 4*64)
		for {
			n := uint32(len(buf))
			_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, fd, unix.SOL_SOCKET, unix.SO_PEERGROUPS,
				uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
			if e == unix.ERANGE && int(n) > len(buf) && n <= 4*65536 {
				buf = make([]byte, n)
				continue
			}
			if e != 0 {
				sockErr = e
				return
			}
			for i := 0; i+4 <= int(n); i += 4 {
				groups = append(groups, binary.NativeEndian.Uint32(buf[i:]))
			}
			return
		}
	})
	if ctlErr != nil {
		return nil, ctlErr
	}
	return groups, sockErr
}

// setACL replaces path's POSIX access ACL (the xattr form Admission.acl
// encodes). A filesystem without ACLs answers EOPNOTSUPP, which dirACL takes
// as "use the plain modes".
func setACL(path string, acl []byte) error {
	return unix.Setxattr(path, "system.posix_acl_access", acl, 0)
}
