package host

import (
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Linux: the peer's identity comes from SO_PEERCRED, its start time and
// supplementary groups from /proc, and admission ACLs are POSIX ACLs in an
// xattr.
// peercred_darwin.go answers the same four functions on macOS.

// maxSocketPathLen is sun_path (108 bytes on Linux) minus its terminating NUL.
const maxSocketPathLen = 107

func PeerCredOf(c *net.UnixConn) (PeerCred, error) {
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
	cred.Start, _ = ProcStartTime(uc.Pid)
	return cred, nil
}

// ProcStartTime reads field 22 (starttime, clock ticks after boot) of
// /proc/<pid>/stat. The second field (comm) is in parentheses and may itself
// contain spaces and ')', so the fields are counted from the last ')'.
func ProcStartTime(pid int32) (uint64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return ParseStartTime(raw)
}

// PeerGroupsOf reads the peer's supplementary groups from the Groups line
// of /proc/<pid>/status, then the pid's start time again: if that is not
// the start time read at accept (cred.Start), the pid now names another
// process, and what was read is refused, so a reused pid never lends its
// groups. The trade-off against SO_PEERGROUPS (which needs a raw getsockopt):
// with /proc mounted hidepid, other users' status is hidden, and admission
// falls back to uid and primary gid alone (fail closed). The connection is
// darwin's source (peercred_darwin.go).
func PeerGroupsOf(_ *net.UnixConn, cred PeerCred) ([]uint32, error) {
	if cred.Start == 0 {
		return nil, fmt.Errorf("groups of pid %d: its start time was not read at connect, so what /proc shows cannot be tied to it", cred.PID)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cred.PID))
	if err != nil {
		return nil, err
	}
	groups, err := ParseStatusGroups(status)
	if err != nil {
		return nil, fmt.Errorf("/proc/%d/status: %w", cred.PID, err)
	}
	start, err := ProcStartTime(cred.PID)
	if err != nil {
		return nil, fmt.Errorf("groups of pid %d: start time: %w", cred.PID, err)
	}
	if start != cred.Start {
		return nil, fmt.Errorf("groups of pid %d: it started at %d, not at %d as the process that connected did: the pid was reused", cred.PID, start, cred.Start)
	}
	return groups, nil
}

// setACL replaces path's POSIX access ACL (the xattr form Admission.acl
// encodes). A filesystem without ACLs answers EOPNOTSUPP, which dirACL takes
// as "use the plain modes".
func setACL(path string, acl []byte) error {
	return unix.Setxattr(path, "system.posix_acl_access", acl, 0)
}

// passCredentials asks the kernel to attach its sender's credentials to
// every message read from the connection (SO_PASSCRED; sender.go says why).
// The kernel stamps a message when it is sent, and only if the receiving
// socket asks then (or is not accepted yet), so it is set on the listener,
// whose connections inherit it at accept: a message written between accept
// and a later setsockopt would carry nobody's credentials.
func passCredentials(raw syscall.RawConn) error {
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		sockErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PASSCRED, 1)
	}); err != nil {
		return err
	}
	if sockErr != nil {
		return fmt.Errorf("SO_PASSCRED: %w", sockErr)
	}
	return nil
}

// credSpace holds exactly one SCM_CREDENTIALS message: file descriptors a
// peer sends along (SCM_RIGHTS) do not fit, and the kernel closes them
// instead of installing them in the console.
var credSpace = unix.CmsgSpace(unix.SizeofUcred)

// Read reads as net.UnixConn does, through recvmsg, and notes who sent the
// bytes. The kernel never joins two senders' bytes in one read once
// SO_PASSCRED is set, so one read has one sender.
func (c *PeerConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return c.UnixConn.Read(b)
	}
	var n, oobn int
	var rerr error
	// net/http reads a connection from one goroutine at a time, so one
	// buffer a connection serves every read.
	if c.oob == nil {
		c.oob = make([]byte, credSpace)
	}
	oob := c.oob
	err := c.raw.Read(func(fd uintptr) bool {
		for {
			n, oobn, _, _, rerr = unix.Recvmsg(int(fd), b, oob, unix.MSG_CMSG_CLOEXEC)
			if rerr != unix.EINTR {
				return rerr != unix.EAGAIN
			}
		}
	})
	if err == nil && rerr != nil {
		err = os.NewSyscallError("recvmsg", rerr)
	}
	if err != nil {
		return 0, &net.OpError{Op: "read", Net: "unix", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	if n == 0 {
		return 0, io.EOF
	}
	c.senders.note(senderOf(oob[:oobn]))
	return n, nil
}

// senderOf reads the SCM_CREDENTIALS among a read's control messages, and
// closes any file descriptors that came along all the same.
func senderOf(oob []byte) (sender, bool) {
	var from sender
	ok := false
	for len(oob) > 0 {
		// One message at a time: ParseSocketControlMessage would allocate
		// a slice for every read of every connection.
		hdr, data, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			return from, ok
		}
		oob = rest
		if hdr.Level != unix.SOL_SOCKET {
			continue
		}
		switch m := (unix.SocketControlMessage{Header: hdr, Data: data}); hdr.Type {
		case unix.SCM_CREDENTIALS:
			// pid 0: the message was sent with nobody asking for its
			// sender (see passCredentials), which says nothing.
			if uc, err := unix.ParseUnixCredentials(&m); err == nil && uc.Pid > 0 {
				from, ok = sender{pid: uc.Pid, uid: uc.Uid}, true
			}
		case unix.SCM_RIGHTS:
			if fds, err := unix.ParseUnixRights(&m); err == nil {
				for _, fd := range fds {
					unix.Close(fd)
				}
			}
		}
	}
	return from, ok
}
