package authority

import (
	"context"
	"strconv"
	"strings"

	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// A proposal belongs to the user that made it: only that user's calls find
// it by its arguments, learn its status, receive its token and execute it.
// Another user gets exactly what an unknown id gets, so it cannot even tell
// that the proposal exists. Once a grant approved a proposal, it belongs to
// the granted process alone (grant.go), checked on each call by the kernel's
// word for that call's sender.

// maxClientName caps the self-described name; a 60 KB name once reached the
// console whole.
const maxClientName = 64

// caller is who sent a call. The name is what the agent says it is (MCP
// clientInfo): display text only, sanitised and capped. The id is what the
// kernel says (uid, pid and the process's start time), which the agent cannot
// choose. The flood limits, the retry breaker and the ownership of proposals
// key on the user (owner): a fork() is a new process but not a new user, so
// it gets no fresh allowance, and renaming itself gives an agent nothing.
type caller struct {
	name string
	id   string
	// proc is the one process that sent this call, by the kernel's word
	// for this call (host/sender.go); zero when it cannot be vouched for, or
	// for a call made inside the console.
	proc host.ProcessID
	// prep is the proposal this call is preparing (see admit); nil for
	// calls that are not proposals.
	prep *prepSlot
}

// owner is the user a caller's limits count against.
func (c caller) owner() string { return ownerOf(c.id) }

// ownerOf reads the user out of a caller id (PeerID.String: "uid 1000 pid
// 42 start 7"); a call from inside the console's process has no uid, and
// its id stands alone.
func ownerOf(id string) string {
	if rest, ok := strings.CutPrefix(id, "uid "); ok {
		if uid, _, ok := strings.Cut(rest, " "); ok {
			return "uid " + uid
		}
	}
	return id
}

func callerOf(ctx context.Context, req wire.CallRequest) caller {
	name := untrusted.Sanitize(req.Client.String(), maxClientName)
	if name == "" {
		name = "unknown-client"
	}
	if pc := host.PeerConnFrom(ctx); pc != nil {
		return caller{name: name, id: pc.Cred().Identity().String(), proc: host.ProcessOf(pc, req.Process), prep: &prepSlot{}}
	}
	// A call from inside the console's own process (tests drive the hub
	// this way) has no peer; its name is all there is to key on.
	return caller{name: name, id: "in-process " + name, prep: &prepSlot{}}
}

// prepSlot marks a proposal admitted but not yet queued: while it is being
// prepared (a simulation), it counts against its user's pending limit, so
// thirty processes proposing at once cannot all pass the check before any
// of them is queued, nor keep the ledger busy simulating past the limit.
type prepSlot struct {
	owner string
	held  bool
}

// OwnerOf is the user a proposal's limits count against, for display.
func OwnerOf(p *Proposal) string { return ownerOf(p.Peer) }

// owns reports whether who may learn of p and use it.
func (who caller) owns(p *queued) bool {
	if ownerOf(p.Peer) != who.owner() {
		return false
	}
	if p.Grant != 0 && p.proc.Valid() {
		return who.proc == p.proc
	}
	return true
}

// ownsStored reports whether who made a proposal recorded with owner (a
// row from before owners were recorded says "": its owner is not known,
// and it is answered as before).
func (who caller) ownsStored(owner string) bool { return owner == "" || owner == who.owner() }

// uidOf reads the uid out of a caller id ("uid 1000 pid 42 start 7").
func uidOf(id string) (uint32, bool) {
	rest, ok := strings.CutPrefix(ownerOf(id), "uid ")
	if !ok {
		return 0, false
	}
	uid, err := strconv.ParseUint(rest, 10, 32)
	return uint32(uid), err == nil
}
