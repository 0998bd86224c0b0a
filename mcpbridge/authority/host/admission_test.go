package host

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// aclOf reads a file's access ACL, decoded as acl(5) and the kernel's
// posix_acl_xattr.h lay it out: a little-endian u32 version 2, then entries
// of (u16 tag, u16 perm, u32 id). It renders them like getfacl.
func aclOf(t *testing.T, path string) string {
	t.Helper()
	buf := make([]byte, 1024)
	n, err := unix.Getxattr(path, "system.posix_acl_access", buf)
	if err != nil {
		t.Fatalf("read the ACL of %s: %v", path, err)
	}
	buf = buf[:n]
	if binary.LittleEndian.Uint32(buf) != 2 {
		t.Fatalf("ACL version %d", binary.LittleEndian.Uint32(buf))
	}
	names := map[uint16]string{0x01: "user:", 0x02: "user:", 0x04: "group:", 0x08: "group:", 0x10: "mask:", 0x20: "other:"}
	var out []string
	for i := 4; i+8 <= len(buf); i += 8 {
		tag, perm, id := binary.LittleEndian.Uint16(buf[i:]), binary.LittleEndian.Uint16(buf[i+2:]), binary.LittleEndian.Uint32(buf[i+4:])
		e := names[tag]
		if tag == 0x02 || tag == 0x08 {
			e += fmt.Sprint(id)
		}
		rwx := []byte("---")
		for j, c := range "rwx" {
			if perm&(4>>j) != 0 {
				rwx[j] = byte(c)
			}
		}
		out = append(out, e+":"+string(rwx))
	}
	return strings.Join(out, " ")
}

// The filesystem half of admission, read back with stat and getxattr: the
// directory and the socket name exactly the admitted users and groups.
func TestAdmissionFileModes(t *testing.T) {
	gid := uint32(os.Getegid())
	cases := []struct {
		name      string
		adm       Admission
		dir, sock fs.FileMode
		dirACL    string
		sockACL   string
	}{
		{"own user only", Admission{}, 0o700, 0o600, "", ""},
		{"one group", Admission{GIDs: []uint32{4243}}, 0o710, 0o660,
			"user::rwx group::--- group:4243:--x mask::--x other::---",
			"user::rw- group::--- group:4243:rw- mask::rw- other::---"},
		{"uids, repeated, and a group", Admission{UIDs: []uint32{4242, 17, 4242}, GIDs: []uint32{gid}}, 0o710, 0o660,
			fmt.Sprintf("user::rwx user:17:--x user:4242:--x group::--- group:%d:--x mask::--x other::---", gid),
			fmt.Sprintf("user::rw- user:17:rw- user:4242:rw- group::--- group:%d:rw- mask::rw- other::---", gid)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := socketPath(t)
			l, err := ListenConfig{Admission: c.adm, Logger: quietLogger()}.Listen(path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if got := mode(t, filepath.Dir(path)).Perm(); got != c.dir {
				t.Errorf("directory mode %04o, want %04o", got, c.dir)
			}
			if got := mode(t, path).Perm(); got != c.sock {
				t.Errorf("socket mode %04o, want %04o", got, c.sock)
			}
			if c.dirACL == "" {
				return
			}
			if got := aclOf(t, filepath.Dir(path)); got != c.dirACL {
				t.Errorf("directory ACL\n got %s\nwant %s", got, c.dirACL)
			}
			if got := aclOf(t, path); got != c.sockACL {
				t.Errorf("socket ACL\n got %s\nwant %s", got, c.sockACL)
			}
		})
	}
}

// An operator's 0711 directory (open to others for search) is not changed
// into an ACL: the plain modes apply, and SO_PEERCRED decides.
func TestOperatorDirectoryKeepsPlainModes(t *testing.T) {
	path := socketPath(t)
	os.MkdirAll(filepath.Dir(path), 0o711)
	os.Chmod(filepath.Dir(path), 0o711)
	l, err := ListenConfig{Admission: Admission{UIDs: []uint32{4242}}, Logger: quietLogger()}.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := mode(t, filepath.Dir(path)).Perm(); got != 0o711 {
		t.Errorf("directory mode %04o, want 0711", got)
	}
	if got := mode(t, path).Perm(); got != 0o666 {
		t.Errorf("socket mode %04o, want 0666", got)
	}
}

// A directory left 0700 by a same-user run is opened exactly as far as the
// admitted users need; one opened further than they need is refused and
// left alone.
func TestExistingSocketDirectory(t *testing.T) {
	t.Run("too closed is opened to the admitted users", func(t *testing.T) {
		path := socketPath(t)
		os.MkdirAll(filepath.Dir(path), 0o700)
		l, err := ListenConfig{Admission: Admission{UIDs: []uint32{4242}}, Logger: quietLogger()}.Listen(path)
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		if got := aclOf(t, filepath.Dir(path)); !strings.Contains(got, "user:4242:--x") || !strings.Contains(got, "other::---") {
			t.Fatalf("directory ACL %s", got)
		}
	})
	t.Run("a restart finds what it made", func(t *testing.T) {
		gid := uint32(os.Getegid())
		for _, adm := range []Admission{{UIDs: []uint32{4242}}, {GIDs: []uint32{gid}}, {}} {
			path := socketPath(t)
			for i := 0; i < 2; i++ {
				l, err := ListenConfig{Admission: adm, Logger: quietLogger()}.Listen(path)
				if err != nil {
					t.Fatalf("%+v, start %d: %v", adm, i+1, err)
				}
				l.Close()
			}
		}
	})
	t.Run("too open is refused", func(t *testing.T) {
		path := socketPath(t)
		os.MkdirAll(filepath.Dir(path), 0o700)
		os.Chmod(filepath.Dir(path), 0o755)
		_, err := ListenConfig{Admission: Admission{UIDs: []uint32{4242}}, Logger: quietLogger()}.Listen(path)
		if err == nil || !strings.Contains(err.Error(), "chmod 711 "+filepath.Dir(path)) {
			t.Fatalf("got %v", err)
		}
		if got := mode(t, filepath.Dir(path)).Perm(); got != 0o755 {
			t.Fatalf("Listen changed a too-open directory to %04o", got)
		}
	})
	t.Run("a directory another group can write is refused", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("requires root to chgrp to a group we are not in")
		}
		path := socketPath(t)
		os.MkdirAll(filepath.Dir(path), 0o770)
		os.Chmod(filepath.Dir(path), 0o770)
		os.Chown(filepath.Dir(path), -1, nobody)
		_, err := ListenConfig{Admission: Admission{GIDs: []uint32{4243}}, Logger: quietLogger()}.Listen(path)
		if err == nil || !strings.Contains(err.Error(), "chgrp 4243 "+filepath.Dir(path)) {
			t.Fatalf("got %v", err)
		}
	})
}

// Another user's bridge, admitted by uid, by primary group, or by a
// supplementary group, gets an answer from the console, which runs as root
// here and owns the socket directory (so the client trusts it).
func TestAdmittedOtherUserGetsIn(t *testing.T) {
	helper, root := otherUserHelper(t)
	cases := []struct {
		name string
		adm  Admission
		cred *syscall.Credential
	}{
		{"by uid", Admission{UIDs: []uint32{nobody}}, &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}},
		{"by primary group", Admission{GIDs: []uint32{nobody}}, &syscall.Credential{Uid: nobody - 1, Gid: nobody, Groups: []uint32{}}},
		{"by supplementary group", Admission{GIDs: []uint32{nobody}}, &syscall.Credential{Uid: nobody - 1, Gid: nobody - 1, Groups: []uint32{nobody}}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(root, fmt.Sprintf("a%d", i), "console.sock")
			l, err := ListenConfig{Admission: c.adm, Logger: quietLogger()}.Listen(path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			hits := serve(t, l)
			out := runAsCred(t, helper, c.cred, "client", path)
			if !strings.Contains(out, fmt.Sprintf("HELPER: uid=%d ANSWERED 200 OK", c.cred.Uid)) {
				t.Fatalf("admitted user was not answered:\n%s", out)
			}
			if hits.Load() != 1 || l.Rejected() != 0 {
				t.Fatalf("hits %d rejected %d; want 1 and 0", hits.Load(), l.Rejected())
			}
		})
	}
}

// A user who is not admitted learns, in one sentence, who it runs as and the
// flag that would admit it — whether SO_PEERCRED refused it (the console's
// 403) or the filesystem did (EACCES on a 0700 directory).
func TestNotAdmittedUserIsToldTheFlag(t *testing.T) {
	helper, root := otherUserHelper(t)
	cases := []struct {
		name string
		adm  Admission
	}{
		{"refused by peer credentials", Admission{UIDs: []uint32{4242}}},
		{"refused by the filesystem", Admission{}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(root, fmt.Sprintf("n%d", i), "console.sock")
			l, err := ListenConfig{Admission: c.adm, Logger: quietLogger()}.Listen(path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			hits := serve(t, l)
			out := runAs(t, helper, nobody, "client", path)
			want := fmt.Sprintf("solgate mcp runs as user nobody (uid %d), which the approval console at %s does not admit: its operator can start it with --allow-uid %d", nobody, path, nobody)
			if !strings.Contains(out, want) {
				t.Fatalf("helper output lacks the sentence %q:\n%s", want, out)
			}
			if hits.Load() != 0 {
				t.Fatalf("a refused user reached the handler %d times", hits.Load())
			}
		})
	}
}
