package host

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// SO_PEERCRED names the process that connected, once. A child forked after
// the connect, or a process handed the connection over SCM_RIGHTS, writes
// under that name. So the console also asks the kernel who wrote each
// message (SO_PASSCRED, SCM_CREDENTIALS): the kernel stamps every write with
// its sender's credentials (a process can claim no pid but its own without
// CAP_SYS_ADMIN), and one read never joins the bytes of two senders. What a
// grant is bound to is then judged per call, on who wrote that call.

// sender is the process that wrote some bytes, by the kernel's word.
type sender struct {
	pid int32
	uid uint32
}

// senders records who wrote the bytes read from one connection so far.
type senders struct {
	owner uint32 // the uid that connected (SO_PEERCRED)

	mu    sync.Mutex
	first sender
	// stranger is a uid other than owner that wrote on the connection
	// (strange set): an admitted user handed its connection to someone
	// else, whom admission never judged.
	stranger uint32
	strange  bool
	seen     bool // first is set
	mixed    bool // bytes of a second sender were read too
	blind    bool // a read came without the kernel's word on its sender
}

// note records the sender of one read (ok false: the kernel said nothing).
func (s *senders) note(from sender, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok && from.uid != s.owner && !s.strange {
		s.stranger, s.strange = from.uid, true
	}
	switch {
	case !ok:
		s.blind = true
	case !s.seen:
		s.first, s.seen = from, true
	case from != s.first:
		s.mixed = true
	}
}

// only is the one process that wrote every byte read so far; false when
// there were several, or any read came without credentials, or none yet.
func (s *senders) only() (sender, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first, s.seen && !s.mixed && !s.blind
}

// foreign is a uid other than the connecting one that wrote on the
// connection, if any did.
func (s *senders) foreign() (uint32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stranger, s.strange
}

// ProcessID is one running process as a grant binds to it: the kernel's uid,
// pid and the process's start time (which tell it from a fork and from a
// later process given the same pid), and the bridge's per-process secret
// (wire.CallRequest.Process). execve keeps the pid and the start time;
// the new program does not know the old one's secret, which lives only in
// the memory of a non-dumpable process and never leaves it but to the
// console. The zero value is no process: a call the kernel could not vouch
// for as one process's, or one made inside the console.
type ProcessID struct {
	uid   uint32
	pid   int32
	start uint64
	// nonce is the secret's SHA-256, not the secret: equal for equal
	// secrets, and a ProcessID printed whole (a grant in a test's failure,
	// a debugging line) does not give the secret away.
	nonce string
}

func (p ProcessID) Valid() bool { return p.pid > 0 && p.start != 0 && p.nonce != "" }

// ProcessOf is the process that sent a call on pc with the secret nonce,
// or the zero ProcessID when the kernel cannot vouch that one process,
// the one that connected, wrote every byte the connection carried so far.
func ProcessOf(pc *PeerConn, nonce string) ProcessID {
	s, ok := pc.senders.only()
	if !ok || s.pid != pc.cred.PID || s.uid != pc.cred.UID {
		return ProcessID{}
	}
	id := ProcessID{uid: s.uid, pid: s.pid, start: pc.cred.Start}
	if nonce != "" {
		sum := sha256.Sum256([]byte(nonce))
		id.nonce = hex.EncodeToString(sum[:])
	}
	return id
}

// PID is the process's id (0: no process).
func (p ProcessID) PID() int32 { return p.pid }
