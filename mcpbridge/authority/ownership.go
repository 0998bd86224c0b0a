package authority

import (
	"strconv"
	"strings"

	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// A proposal belongs to the user that made it: only that user's calls find
// it by its arguments, learn its status, receive its token and execute it.
// Another user gets exactly what an unknown id gets, so it cannot even tell
// that the proposal exists. Once a grant approved a proposal, it belongs to
// the granted process alone (grant.go), checked on each call by the kernel's
// word for that call's sender.

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

// userOf is who's user as the console shows it, "alice (uid 1001)", looked
// up once per uid; "" for a call made inside the console.
func (h *Hub) userOf(who caller) string {
	uid, ok := uidOf(who.id)
	if !ok {
		return ""
	}
	if name, ok := h.userNames.Load(uid); ok {
		return name.(string)
	}
	name := host.UserName(uid)
	h.userNames.Store(uid, name)
	return name
}

// callerLabel is who as the console's log names it: the kernel's user first,
// then the self-described name, as the queue shows a proposal.
func (h *Hub) callerLabel(who caller) string {
	if u := h.userOf(who); u != "" {
		return u + " · " + who.name
	}
	return who.name
}
