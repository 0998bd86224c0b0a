package authority

import (
	"github.com/solgate/solgate/mcpbridge/authority/host"
)

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
