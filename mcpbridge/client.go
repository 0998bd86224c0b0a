package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// The bridge's side of the console's socket: where it is, how to dial it,
// and whom to believe at the other end. The console's side (the listener,
// admission, peer limits) is in mcpbridge/authority.

// DefaultSocketPath is where the console listens and the bridge dials unless
// told otherwise: $XDG_RUNTIME_DIR/solgate/console.sock, or
// /tmp/solgate-<uid>/console.sock. It is /tmp and not $TMPDIR because the two
// processes are started from different places (a terminal, an MCP client) and
// must agree without configuration.
func DefaultSocketPath() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "solgate", "console.sock")
	}
	return filepath.Join("/tmp", fmt.Sprintf("solgate-%d", os.Getuid()), "console.sock")
}

// ErrNoConsole means no console answers on the socket. Writes must fail closed
// on it; the *NoConsoleError that carries it says how to fix it.
var ErrNoConsole = errors.New("no approval console is running")

// NoConsoleError is a failed connection to the console's socket.
type NoConsoleError struct {
	Path string
	Err  error // the dial error
}

func (e *NoConsoleError) Error() string {
	// The path and the setting that chose it: a typo in SOLGATE_SOCKET in an
	// MCP client's config otherwise reads like a console that is not running.
	msg := fmt.Sprintf("no approval console is running at %s: start `solgate console`, or, if it listens elsewhere, give `solgate mcp` the same --socket PATH (or SOLGATE_SOCKET)", e.Path)
	// The common causes say nothing the sentence does not; others (permission
	// denied, timeout) help whoever debugs it.
	if e.Err != nil && !errors.Is(e.Err, fs.ErrNotExist) && !errors.Is(e.Err, syscall.ECONNREFUSED) {
		msg += " (" + e.Err.Error() + ")"
	}
	return msg
}

func (e *NoConsoleError) Is(target error) bool { return target == ErrNoConsole }
func (e *NoConsoleError) Unwrap() error        { return e.Err }

// consoleDialTimeout bounds connecting; a Unix connect only waits when the
// console's accept backlog is full, i.e. when it is wedged.
const consoleDialTimeout = 3 * time.Second

// NewUnixHTTPClient returns a client whose every request goes to the console's
// socket at path, whatever host the URL names (use http://solgate/...).
// timeout bounds each whole request and must exceed the longest long-poll.
// A failed connection is a *NoConsoleError (errors.Is ErrNoConsole, also
// through the *url.Error the client wraps it in); a console that does not
// admit our user is a *NotAdmittedError. The client also checks the server's
// uid: see trustedServer.
func NewUnixHTTPClient(path string, timeout time.Duration) *http.Client {
	dialer := net.Dialer{Timeout: consoleDialTimeout}
	if timeout > 0 && timeout < consoleDialTimeout {
		dialer.Timeout = timeout
	}
	transport := &http.Transport{
		// Proxy stays nil: HTTP_PROXY in the environment must not send the
		// bridge's requests anywhere but the socket.
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			c, err := dialConsole(ctx, &dialer, path)
			if err != nil {
				return nil, err // not a nil *UnixConn in a non-nil net.Conn
			}
			return c, nil
		},
		DisableCompression:  true,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{Transport: refusalTransport{base: transport, path: path}, Timeout: timeout}
}

// dialConsole connects to the console's socket at path and checks whom it
// reached: a failed connection is a *NoConsoleError or a
// *NotAdmittedError, a server that may not be our console is refused (see
// trustedServer).
func dialConsole(ctx context.Context, dialer *net.Dialer, path string) (*net.UnixConn, error) {
	c, err := dialer.DialContext(ctx, "unix", path)
	if err != nil {
		if na := notAdmittedDial(path, err); na != nil {
			return nil, na
		}
		return nil, &NoConsoleError{Path: path, Err: err}
	}
	uc := c.(*net.UnixConn)
	uid, err := peerUIDOf(uc)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("check the console serving %s: %w", path, err)
	}
	if err := trustedServer(path, uid); err != nil {
		c.Close()
		return nil, err
	}
	return uc, nil
}

// ErrNotAdmitted means the console refused this process's user.
var ErrNotAdmitted = errors.New("not admitted by the approval console")

// NotAdmittedError is the bridge's one sentence when the console will not
// talk to its user: refused by SO_PEERCRED (the console's 403) or already by
// the filesystem (EACCES on the socket or its directory).
type NotAdmittedError struct {
	Path string
	UID  uint32
}

func (e *NotAdmittedError) Error() string {
	who, name := fmt.Sprintf("uid %d", e.UID), fmt.Sprintf("uid %d", e.UID)
	if u, err := user.LookupId(strconv.FormatUint(uint64(e.UID), 10)); err == nil {
		who, name = fmt.Sprintf("user %s (uid %d)", u.Username, e.UID), u.Username
	}
	return fmt.Sprintf("solgate mcp runs as %s, which the approval console at %s does not admit: its operator can start it with --allow-uid %d (or --allow-gid with a group %s is in)",
		who, e.Path, e.UID, name)
}

func (e *NotAdmittedError) Is(target error) bool { return target == ErrNotAdmitted }

// notAdmittedDial maps a dial failure that means "the filesystem keeps this
// user out" to a NotAdmittedError.
func notAdmittedDial(path string, err error) error {
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
		return &NotAdmittedError{Path: path, UID: uint32(os.Geteuid())}
	}
	return nil
}

// trustedServer decides whether the process serving path may be the
// console. Our own user's console always is. In the own-user setup the
// console runs as another account: it is trusted when it owns the socket's
// directory and nobody else can write there — whoever owns that directory
// decides what listens in it anyway. Our default path is named after our uid,
// so another owner there is a squatter, never our console.
func trustedServer(path string, serverUID uint32) error {
	self := uint32(os.Geteuid())
	if serverUID == self {
		return nil
	}
	if path == DefaultSocketPath() {
		return fmt.Errorf("the process serving %s runs as uid %d, not as you (uid %d), on your own default path: refusing to talk to it; start your own `solgate console`, or pass --socket with the path of the console you mean", path, serverUID, self)
	}
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check the console's socket directory %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok || !fi.IsDir() || st.Uid != serverUID:
		return fmt.Errorf("the process serving %s runs as uid %d, which neither is you (uid %d) nor owns %s: refusing to talk to it", path, serverUID, self, dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("the process serving %s runs as uid %d, and %s is writable by others (mode %04o), so anyone could have put that socket there: refusing to talk to it", path, serverUID, dir, fi.Mode().Perm())
	}
	return nil
}

// refusalTransport turns the console's refusal answer into a
// *NotAdmittedError, so every caller of the client sees the same sentence.
type refusalTransport struct {
	base http.RoundTripper
	path string
}

func (t refusalTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusForbidden && resp.Header.Get(wire.RefusalHeader) != "" {
		resp.Body.Close()
		return nil, &NotAdmittedError{Path: t.path, UID: uint32(os.Geteuid())}
	}
	return resp, err
}
