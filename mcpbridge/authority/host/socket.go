package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// The console's API is HTTP over a Unix domain socket and nothing else: there is
// no TCP listener to reach from a browser or another machine. Three layers keep
// other users out: a 0700 directory they cannot enter, a 0600 socket they cannot
// write to, and a SO_PEERCRED check of every connection's uid, which still holds
// if the first two are loosened by mistake. Users admitted with --allow-uid and
// --allow-gid are let through all three (admission.go).

// PeerCred is the process at the other end of a socket connection, as the
// kernel reports it at connect time (it cannot be forged by the peer).
type PeerCred struct {
	PID   int32
	UID   uint32
	GID   uint32
	Start uint64 // the process's start time (see PeerID), read at accept
}

// ListenConfig configures the console's socket listener.
type ListenConfig struct {
	// AllowUID decides which peer uids may talk to the console. Nil: Admission
	// decides.
	AllowUID func(uid uint32) bool
	// Admission admits other users' bridges (--allow-uid, --allow-gid) and
	// sets the modes of the socket directory and socket to match. The zero
	// value admits only the console's own effective uid.
	Admission Admission
	// Logger receives refused connections, summarised per user and
	// interval. Nil: slog.Default().
	Logger *slog.Logger
	// RefusalSummaryEvery is the interval refusals are summarised over
	// (0: DefaultRefusalSummaryEvery).
	RefusalSummaryEvery time.Duration
	// MaxConnsPerUID bounds the connections one user's processes may hold
	// open at once, together (0: DefaultMaxConnsPerUID).
	MaxConnsPerUID int
	// ReservedFDs are file descriptors connections never take: all users'
	// connections together stop at the open-file limit minus these
	// (0: DefaultReservedFDs).
	ReservedFDs int
}

// SocketListener is a net.Listener on a Unix socket that only hands out
// connections from allowed uids. Close removes the socket file.
type SocketListener struct {
	ul       *net.UnixListener
	lock     *os.File
	path     string
	allow    func(uint32) bool
	admit    Admission
	log      *slog.Logger
	peers    *peerLimit
	rejected atomic.Uint64
	refusals *refusalTally
}

// Listen serves on path with the default policy: same uid only.
func Listen(path string) (*SocketListener, error) {
	return ListenConfig{}.Listen(path)
}

// Listen creates the socket directory (0700, or as cfg.Admission needs) if
// needed, refuses a directory that others can enter beyond what the admission
// needs or that belongs to someone else, replaces a stale
// socket left by a crashed console, refuses to start when another console is
// serving path, and listens with the socket file at 0600.
func (cfg ListenConfig) Listen(path string) (*SocketListener, error) {
	if len(path) > maxSocketPathLen {
		return nil, fmt.Errorf("socket path %s is %d bytes; Unix sockets allow at most %d: choose a shorter --socket path", path, len(path), maxSocketPathLen)
	}
	dirMode, sockMode, gid := cfg.Admission.fileModes()
	acl, err := cfg.Admission.dirACL(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if !acl {
		if err := ensureSocketDir(filepath.Dir(path), dirMode, gid); err != nil {
			return nil, err
		}
	}
	// The lock file makes "is another console here?" atomic: two consoles
	// started together cannot both decide the socket is stale and remove each
	// other's. It is never deleted, since unlinking a flock file reopens that race.
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open socket lock %s.lock: %w", path, err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, alreadyServing(path)
		}
		return nil, fmt.Errorf("lock %s.lock: %w", path, err)
	}
	ul, err := listenReplacingStale(path)
	if err != nil {
		lock.Close()
		return nil, err
	}
	if raw, err := ul.SyscallConn(); err != nil || passCredentials(raw) != nil {
		ul.Close()
		lock.Close()
		return nil, fmt.Errorf("listen on %s: cannot ask the kernel for each message's sender (SO_PASSCRED)", path)
	}
	if acl {
		err = cfg.Admission.socketACL(path)
	} else {
		err = setSocketMode(path, sockMode, gid)
	}
	if err != nil {
		ul.Close()
		lock.Close()
		return nil, err
	}
	l := &SocketListener{ul: ul, lock: lock, path: path, allow: cfg.AllowUID, admit: cfg.Admission, log: cfg.Logger,
		peers: newPeerLimit(cfg.MaxConnsPerUID, connectionBudget(cfg.ReservedFDs))}
	if l.log == nil {
		l.log = slog.Default()
	}
	l.refusals = newRefusalTally(l.log, cfg.RefusalSummaryEvery)
	return l, nil
}

func alreadyServing(path string) error {
	return fmt.Errorf("another solgate console is already serving %s: use that one, stop it, or choose another --socket path", path)
}

// ensureSocketDir makes dir if missing and checks that nobody beyond the
// admitted users can enter it. A directory that is too open is never repaired
// silently: if someone else owns it or could have planted files in it, the
// operator should know. One that is too closed for the admitted users (an
// earlier same-user run's 0700) is opened exactly as far as they need.
func ensureSocketDir(dir string, want fs.FileMode, gid int) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create socket directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check socket directory %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a plain directory (%s): remove it or choose another --socket path", dir, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != uint32(os.Geteuid()) {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to you (uid %d): remove it, or choose another --socket path", dir, st.Uid, os.Geteuid())
	}
	perm := fi.Mode().Perm()
	st, _ := fi.Sys().(*syscall.Stat_t)
	groupOK := gid >= 0 && st != nil && st.Gid == uint32(gid)
	extra := perm &^ want & 0o077
	if gid >= 0 && !groupOK {
		extra |= perm & want & 0o070 // group bits meant for the admitted group only
	}
	if extra != 0 {
		fix := fmt.Sprintf("chmod %o %s", want&0o777, dir)
		if gid >= 0 && !groupOK {
			fix = fmt.Sprintf("chgrp %d %s && %s", gid, dir, fix)
		}
		return fmt.Errorf("socket directory %s has mode %04o, so other users could reach the socket: run `%s`", dir, perm, fix)
	}
	if perm&want != want&0o777 || (gid >= 0 && !groupOK) {
		if gid >= 0 && !groupOK {
			if err := os.Chown(dir, -1, gid); err != nil {
				return fmt.Errorf("give socket directory %s to group %d (the console's user must be a member of it): %w", dir, gid, err)
			}
		}
		if err := os.Chmod(dir, perm|want); err != nil {
			return fmt.Errorf("chmod socket directory %s: %w", dir, err)
		}
	}
	return nil
}

// setSocketMode gives the socket file the mode (and group) of the admission.
func setSocketMode(path string, mode fs.FileMode, gid int) error {
	if gid >= 0 {
		if err := os.Chown(path, -1, gid); err != nil {
			return fmt.Errorf("give socket %s to group %d (the console's user must be a member of it): %w", path, gid, err)
		}
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("chmod socket %s: %w", path, err)
	}
	return nil
}

func listenReplacingStale(path string) (*net.UnixListener, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("check socket %s: %w", path, err)
	case fi.Mode().Type() != fs.ModeSocket:
		return nil, fmt.Errorf("%s exists and is not a socket: remove it or choose another --socket path", path)
	default:
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
			return nil, alreadyServing(path)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("check existing socket %s: %w", path, err)
		}
		// Nobody accepts on it: a console crashed without cleaning up.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
		}
	}
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ul.SetUnlinkOnClose(true)
	return ul, nil
}

// Accept returns the next connection from an allowed uid. Connections from any
// other uid, or whose credentials cannot be read, are closed before a byte is
// read from them, counted and logged.
func (l *SocketListener) Accept() (net.Conn, error) {
	for {
		c, err := l.ul.AcceptUnix()
		if err != nil {
			return nil, err
		}
		cred, err := PeerCredOf(c)
		if err != nil {
			l.count(otherUsers, "connection whose peer credentials cannot be read refused", slog.String("err", err.Error()))
			c.Close()
			continue
		}
		if !l.admits(c, cred) {
			l.count(cred.UID, "connection from a user who is not admitted refused",
				slog.Uint64("uid", uint64(cred.UID)), slog.Int("pid", int(cred.PID)))
			// Off the accept loop: a peer that never reads must not stall it.
			go writeRefusal(c, cred.UID)
			continue
		}
		raw, err := c.SyscallConn()
		if err == nil {
			err = passCredentials(raw)
		}
		if err != nil {
			// Without the kernel's word on each call's sender, no grant
			// could be checked: refuse rather than serve blind.
			l.count(cred.UID, "connection refused: cannot ask for the sender of each message (SO_PASSCRED)", slog.String("err", err.Error()))
			c.Close()
			continue
		}
		release, over := l.peers.acquire(cred.UID)
		if over != "" {
			go l.tooMany(c, cred, over)
			continue
		}
		pc := &PeerConn{UnixConn: c, raw: raw, cred: cred, release: release}
		pc.senders.owner = cred.UID
		return pc, nil
	}
}

func (l *SocketListener) admits(c *net.UnixConn, cred PeerCred) bool {
	if l.allow != nil {
		return l.allow(cred.UID)
	}
	var groups []uint32
	if len(l.admit.GIDs) > 0 {
		groups, _ = PeerGroupsOf(c, cred) // unreadable: judged on uid and primary gid alone
	}
	return l.admit.admits(uint32(os.Geteuid()), cred, groups)
}

// tooMany answers a connection over the per-peer limit with a 429 and
// closes it. It runs on its own goroutine with a deadline, so a peer that
// neither writes nor reads cannot hold up Accept or keep the goroutine.
func (l *SocketListener) tooMany(c *net.UnixConn, cred PeerCred, over string) {
	n := l.rejected.Add(1)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	// Answer the request, not the connection: an HTTP client that gets a
	// response before it sent anything discards it, and one whose unread
	// request is dropped sees a reset instead of the reason.
	if req, err := http.ReadRequest(bufio.NewReader(io.LimitReader(c, 128<<10))); err == nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
	limit := l.peers.max
	if over == "overall" {
		limit = l.peers.total
	}
	// Noted before the peer has its answer, as count is.
	l.refusals.note(cred.UID, "connection over the "+over+" limit refused", slog.String("peer", cred.Identity().String()),
		slog.Int("limit", limit), slog.String("socket", l.path), slog.Uint64("refused_total", n))
	answerUnserved(c, http.StatusTooManyRequests, nil, tooManyAnswer(over, limit))
}

// answerUnserved answers the request read from c, one the HTTP server
// never serves, with code, header and res, and tells the client the
// connection ends.
func answerUnserved(c net.Conn, code int, header http.Header, res wire.CallResult) {
	body, _ := json.Marshal(res)
	h := http.Header{"Content-Type": {"application/json"}}
	maps.Copy(h, header)
	resp := &http.Response{StatusCode: code, ProtoMajor: 1, ProtoMinor: 1, Header: h, Close: true,
		ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body))}
	_ = resp.Write(c)
}

// connectionBudget is how many connections all users may hold together:
// the open-file limit minus the reserve (Go raises the soft limit to the
// hard one at start). Unknown limit: no overall bound beyond the per-user
// one.
func connectionBudget(reserved int) int {
	if reserved <= 0 {
		reserved = DefaultReservedFDs
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > 1<<30 {
		return 0
	}
	return max(int(lim.Cur)-reserved, 1)
}

// count records a refused connection of uid. It runs before the peer is
// answered: once the peer sees the answer, Rejected says so. The log gets
// the first of a user's refusals, then a count per interval.
func (l *SocketListener) count(uid uint32, msg string, attrs ...any) {
	n := l.rejected.Add(1)
	l.refusals.note(uid, msg, append(attrs, slog.String("socket", l.path), slog.Uint64("refused_total", n))...)
}

// Close stops listening, removes the socket file and releases the lock.
func (l *SocketListener) Close() error {
	err := l.ul.Close()
	l.lock.Close()
	l.refusals.stop()
	return err
}

// Addr is the socket's address.
func (l *SocketListener) Addr() net.Addr { return l.ul.Addr() }

// Path is the socket file's path.
func (l *SocketListener) Path() string { return l.path }

// Rejected is how many connections were refused so far.
func (l *SocketListener) Rejected() uint64 { return l.rejected.Load() }

// PeerConn is an accepted connection that remembers who is on the other end.
type PeerConn struct {
	*net.UnixConn
	raw     syscall.RawConn
	cred    PeerCred
	senders senders // who wrote what was read (sender.go), where the kernel says
	oob     []byte  // control-message buffer of its reads (peercred_linux.go)
	release func()  // gives back the per-peer slot; safe to call twice
	// seen is set once the hub has noted this peer (Hub.SeePeer): its
	// later requests skip the hub's lock for a user already seen.
	seen atomic.Bool
}

// Cred is who connected, as the kernel said at accept.
func (c *PeerConn) Cred() PeerCred { return c.cred }

// Foreign is a uid other than the connecting one that wrote on the
// connection, if any did (sender.go).
func (c *PeerConn) Foreign() (uint32, bool) { return c.senders.foreign() }

// Seen reports whether the hub has noted this peer; MarkSeen notes it.
func (c *PeerConn) Seen() bool { return c.seen.Load() }
func (c *PeerConn) MarkSeen()  { c.seen.Store(true) }

func (c *PeerConn) Close() error {
	c.release()
	return c.UnixConn.Close()
}

type peerCredKey struct{}

// ConnContext is for http.Server.ConnContext: it puts the peer's credentials
// of a SocketListener connection into every request's context.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if pc, ok := c.(*PeerConn); ok {
		return context.WithValue(ctx, peerCredKey{}, pc)
	}
	return ctx
}

// PeerCredFromContext returns the credentials ConnContext stored. ok is false
// when the request did not come through a SocketListener.
func PeerCredFromContext(ctx context.Context) (cred PeerCred, ok bool) {
	if pc := PeerConnFrom(ctx); pc != nil {
		return pc.cred, true
	}
	return PeerCred{}, false
}

func PeerConnFrom(ctx context.Context) *PeerConn {
	pc, _ := ctx.Value(peerCredKey{}).(*PeerConn)
	return pc
}

// NewSocketHTTPServer returns an http.Server for a SocketListener, with
// ConnContext wired and header/idle timeouts set. Handlers bound reading
// their bodies (ReadBodyWithin); there is no whole-request read or write
// timeout, because proposal_status and presence long-poll.
func NewSocketHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ConnContext:       ConnContext,
		ReadHeaderTimeout: RequestReadTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// MostConnsOfOnePeer is the largest number of connections one peer holds
// open on l: tests wait for it instead of guessing when the console has
// accepted or seen the close of a connection.
func (l *SocketListener) MostConnsOfOnePeer() int {
	l.peers.mu.Lock()
	defer l.peers.mu.Unlock()
	most := 0
	for _, n := range l.peers.open {
		most = max(most, n)
	}
	return most
}
