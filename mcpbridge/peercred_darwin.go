package mcpbridge

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerUIDOf is the uid of the process serving the socket, as the kernel
// reports it (LOCAL_PEERCRED, darwin's SO_PEERCRED): what trustedServer judges.
func peerUIDOf(c *net.UnixConn) (uint32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var xu *unix.Xucred
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		xu, sockErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if sockErr != nil {
		return 0, fmt.Errorf("LOCAL_PEERCRED: %w", sockErr)
	}
	return xu.Uid, nil
}
