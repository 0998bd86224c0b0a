package host

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// A bridge names itself (MCP clientInfo), and the agent chooses that name. What
// it cannot choose is what the kernel reports about the process at the other
// end of the socket: its uid and pid (SO_PEERCRED), and that process's start
// time, which tells a reused pid from its predecessor. Flood control, the
// retry breaker and proposals' ownership key on its uid, grants on the
// process (sender.go); the name is display text only.

// PeerID is a connected process as the kernel knows it.
type PeerID struct {
	UID   uint32
	PID   int32
	Start uint64 // start time (Linux: clock ticks after boot, /proc/<pid>/stat field 22; darwin: µs since 1970); 0 if unreadable
}

// String is the identity as a key and for logs: "uid 1000 pid 4242 start 123456".
func (p PeerID) String() string {
	return fmt.Sprintf("uid %d pid %d start %d", p.UID, p.PID, p.Start)
}

// Identity is the peer's identity. The start time is read when the
// connection is accepted (PeerCredOf), so it names the process that connected.
func (c PeerCred) Identity() PeerID { return PeerID{UID: c.UID, PID: c.PID, Start: c.Start} }

func ParseStartTime(stat []byte) (uint64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc stat without a command name")
	}
	fields := bytes.Fields(stat[i+1:])
	// fields[0] is field 3 (state); field 22 is fields[19].
	if len(fields) < 20 {
		return 0, fmt.Errorf("/proc stat has %d fields after the command name, want at least 20", len(fields))
	}
	return strconv.ParseUint(string(fields[19]), 10, 64)
}

// ParseStatusGroups reads the supplementary groups from the "Groups:" line
// of /proc/<pid>/status (proc(5)): decimal gids separated by spaces or tabs,
// none when the process has none. A status without that line, or with a
// field that is not a gid, is an error, never "no groups".
func ParseStatusGroups(status []byte) ([]uint32, error) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("Groups:"))
		if !ok {
			continue
		}
		groups := []uint32{}
		for _, f := range bytes.Fields(rest) {
			g, err := strconv.ParseUint(string(f), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("the Groups line %q: %q is not a gid", bytes.TrimSpace(line), f)
			}
			groups = append(groups, uint32(g))
		}
		return groups, nil
	}
	return nil, fmt.Errorf("no Groups line")
}

// PeerIDFromContext is the identity of the process that sent a request
// through a SocketListener.
func PeerIDFromContext(ctx context.Context) (PeerID, bool) {
	cred, ok := PeerCredFromContext(ctx)
	if !ok {
		return PeerID{}, false
	}
	return cred.Identity(), true
}

// RequestReadTimeout bounds reading a request's headers and its body. Only
// the presence long-poll is held open longer, and only after its body was read.
const RequestReadTimeout = 10 * time.Second

// DefaultMaxConnsPerUID bounds the connections one user's processes may
// hold open at once, all together: a fork gets no fresh allowance. A bridge
// needs one for presence and one per call in flight (a proposal_status
// long-poll holds one up to 45 s); a few bridges of one user fit easily.
const DefaultMaxConnsPerUID = 64

// DefaultReservedFDs are file descriptors the bridges' connections never
// take: the console's own (the database, the RPC client, the log, the
// terminal) and the accept of an honest user's bridge when another floods.
const DefaultReservedFDs = 256

// ReadBodyWithin sets a deadline for reading the request body and returns a
// function that lifts it once the whole body was read: a handler that then
// waits (proposal_status, presence) must not have its connection cut, while a
// client that trickles its body is cut off after d. After a failed read the
// deadline must stay, since net/http drains the rest of the body.
func ReadBodyWithin(w http.ResponseWriter, d time.Duration) (done func()) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
		return func() {}
	}
	return func() { _ = rc.SetReadDeadline(time.Time{}) }
}

// peerLimit counts open connections per user and overall.
type peerLimit struct {
	max, total int // per uid; all users together
	mu         sync.Mutex
	open       map[uint32]int
	all        int
}

func newPeerLimit(max, total int) *peerLimit {
	if max <= 0 {
		max = DefaultMaxConnsPerUID
	}
	return &peerLimit{max: max, total: total, open: map[uint32]int{}}
}

// acquire takes a slot for uid; release gives it back (once). over says
// which limit refused: "user" or "overall".
func (p *peerLimit) acquire(uid uint32) (release func(), over string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open[uid] >= p.max {
		return nil, "user"
	}
	if p.total > 0 && p.all >= p.total {
		return nil, "overall"
	}
	p.open[uid]++
	p.all++
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.all--
			if p.open[uid]--; p.open[uid] <= 0 {
				delete(p.open, uid)
			}
		})
	}, ""
}

// tooManyAnswer is the answer to a connection over the per-peer limit,
// written before it is closed, so the bridge can tell the model what
// happened instead of reporting that no console runs.
func tooManyAnswer(over string, max int) wire.CallResult {
	if over == "overall" {
		return wire.CallResult{IsError: true, Text: fmt.Sprintf("the console has as many connections open as it takes (%d): wait for your earlier calls to finish, then retry", max)}
	}
	return wire.CallResult{IsError: true, Text: fmt.Sprintf("too many connections from this user at once, all its processes together (the console allows %d): wait for your earlier calls to finish, then retry", max)}
}
