package host

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// The supported deployment runs the console as its own user account, so an
// agent with a shell (running as some other user) cannot read the key, type
// into the console or rewrite its state. The agent's bridge then connects from
// another uid, and the console has to admit it by name: --allow-uid and
// --allow-gid. Admission is enforced twice: by the file modes of the socket
// directory and socket, and by SO_PEERCRED on every connection.

// Admission is who besides the console's own user may talk to the console.
type Admission struct {
	UIDs []uint32 // --allow-uid
	GIDs []uint32 // --allow-gid: a peer whose primary or supplementary group is one of these
}

// Empty reports whether only the console's own user is admitted.
func (a Admission) Empty() bool { return len(a.UIDs) == 0 && len(a.GIDs) == 0 }

// admits decides for one peer. The console's own uid is always admitted: that
// is the same-user setup, which the console flags on screen instead.
func (a Admission) admits(self uint32, cred PeerCred, groups []uint32) bool {
	if cred.UID == self || slices.Contains(a.UIDs, cred.UID) || slices.Contains(a.GIDs, cred.GID) {
		return true
	}
	for _, g := range groups {
		if slices.Contains(a.GIDs, g) {
			return true
		}
	}
	return false
}

// POSIX ACLs name single users and groups, so where the filesystem has them
// the socket directory and the socket admit exactly the admitted users:
//
//	directory  user::rwx  user:U:--x  group::---  group:G:--x  mask::--x  other::---   (mode 0710)
//	socket     user::rw-  user:U:rw-  group::---  group:G:rw-  mask::rw-  other::---   (mode 0660)
//
// Everyone else is stopped by the filesystem (EACCES), and the bridge still
// names its user and the flag. The ACL is the kernel's binary
// system.posix_acl_access value (acl(5); include/uapi/linux/posix_acl_xattr.h).
const (
	aclUserObj  = 0x01
	aclUser     = 0x02
	aclGroupObj = 0x04
	aclGroup    = 0x08
	aclMask     = 0x10
	aclOther    = 0x20
	aclNoID     = 0xffffffff
)

func (a Admission) acl(owner, admitted uint16) []byte {
	buf := binary.LittleEndian.AppendUint32(nil, 2) // POSIX_ACL_XATTR_VERSION
	add := func(tag, perm uint16, id uint32) {
		buf = binary.LittleEndian.AppendUint16(buf, tag)
		buf = binary.LittleEndian.AppendUint16(buf, perm)
		buf = binary.LittleEndian.AppendUint32(buf, id)
	}
	// The kernel wants entries ordered by tag, then id, without duplicates.
	sorted := func(ids []uint32) []uint32 { return slices.Compact(slices.Sorted(slices.Values(ids))) }
	add(aclUserObj, owner, aclNoID)
	for _, u := range sorted(a.UIDs) {
		add(aclUser, admitted, u)
	}
	add(aclGroupObj, 0, aclNoID)
	for _, g := range sorted(a.GIDs) {
		add(aclGroup, admitted, g)
	}
	add(aclMask, admitted, aclNoID)
	add(aclOther, 0, aclNoID)
	return buf
}

// dirACL creates the socket directory and gives it the admission's ACL. It
// reports false, and leaves the directory to the plain modes (fileModes),
// when nobody else is admitted, when the filesystem has no ACLs, or when the
// directory is open to others or writable by its group: the plain modes
// accept an operator's 0711 directory for uid admission and refuse anything
// more, where an ACL would silently change it. Group read and search bits are
// replaced by the ACL, which only closes them.
func (a Admission) dirACL(dir string) (bool, error) {
	if a.Empty() {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("create socket directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return false, fmt.Errorf("check socket directory %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() || !ok || st.Uid != uint32(os.Geteuid()) || fi.Mode().Perm()&0o027 != 0 {
		return false, nil // ensureSocketDir says what is wrong, or applies the plain modes
	}
	err = setACL(dir, a.acl(7, 1))
	switch {
	case errors.Is(err, unix.EOPNOTSUPP):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("set the access list of socket directory %s: %w", dir, err)
	}
	return true, nil
}

// socketACL gives the socket the admission's ACL (its directory has one).
func (a Admission) socketACL(path string) error {
	if err := setACL(path, a.acl(6, 6)); err != nil {
		return fmt.Errorf("set the access list of socket %s: %w", path, err)
	}
	return nil
}

// fileModes is how the socket directory and the socket are created for a
// where ACLs are not available. Plain Unix modes name one owner and one
// group, so:
//   - nobody admitted: 0700 directory, 0600 socket;
//   - exactly one group and no single uids: the directory 0750 and the socket
//     0660, both with that group, so the filesystem lets in exactly its members;
//   - single uids, or several groups: modes cannot name them, so the directory
//     is 0711 (enter, not list) and the socket 0666, and SO_PEERCRED alone
//     decides; everyone else is refused with a sentence naming the flag.
func (a Admission) fileModes() (dir, sock fs.FileMode, gid int) {
	switch {
	case a.Empty():
		return 0o700, 0o600, -1
	case len(a.UIDs) == 0 && len(a.GIDs) == 1:
		return 0o750, 0o660, int(a.GIDs[0])
	}
	return 0o711, 0o666, -1
}

// SocketDirMode is the mode (and group, -1 for none) Listen gives the socket
// directory for a, for `solgate console --check` to show.
func (a Admission) SocketDirMode() (fs.FileMode, int) {
	d, _, g := a.fileModes()
	return d, g
}

// writeRefusal answers a peer that is not admitted with a short HTTP 403 and
// closes. A bare close would leave the bridge guessing (a crash? a restart?);
// the answer lets it tell its user the one thing that helps: who it runs as
// and which flag admits that user. It says nothing about who is admitted.
func writeRefusal(c *net.UnixConn, uid uint32) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	// Answer the request, not the connection (as tooMany does): a client
	// that gets a response before it sent anything discards it, and one
	// whose unread request is dropped sees a reset instead of the reason.
	if req, err := http.ReadRequest(bufio.NewReader(io.LimitReader(c, 128<<10))); err == nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
	answerUnserved(c, http.StatusForbidden, http.Header{wire.RefusalHeader: {"uid"}}, wire.CallResult{IsError: true,
		Text: fmt.Sprintf("the solgate console does not admit uid %d", uid), Structured: map[string]any{"status": "refused", "uid": uid}})
}
