package mcpbridge

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerUIDOf is the uid of the process serving the socket, as the kernel
// reports it (SO_PEERCRED): what trustedServer judges.
func peerUIDOf(c *net.UnixConn) (uint32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uc *unix.Ucred
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		uc, sockErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if sockErr != nil {
		return 0, fmt.Errorf("SO_PEERCRED: %w", sockErr)
	}
	return uc.Uid, nil
}
