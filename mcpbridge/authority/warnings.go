package authority

import (
	"context"
	"fmt"
	"slices"

	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// seePeer notes who is on the other end of a bridge's request: a bridge of
// the console's own user, and a user who owns the console's terminal, each
// raise a warning that stays for the rest of the session. A request is
// answered only after its peer's warnings are raised, so get_spend_status
// never misses them.
func (h *Hub) seePeer(ctx context.Context) {
	cred, ok := host.PeerCredFromContext(ctx)
	if !ok {
		return
	}
	h.mu.Lock()
	seen := h.peerUIDs[cred.UID]
	h.mu.Unlock()
	if seen {
		return
	}
	var raise []warning
	if cred.UID == h.consoleUID {
		raise = append(raise, warning{host.WarnSameUser, fmt.Sprintf("a bridge (pid %d) runs as %s, the console's own user: that user can read the key file and use it without you", cred.PID, host.UserName(cred.UID))})
	}
	if e := h.opts.Exposure; e != nil {
		for _, t := range e.ReachableBy(cred.UID) {
			raise = append(raise, warning{host.WarnTerminal, fmt.Sprintf("the console's %s %s belongs to %s, whose bridge (pid %d) is connected: that user can send keys to this console", t.Kind, t.Path, host.UserName(cred.UID), cred.PID)})
		}
	}
	// Marked seen together with raising: a second request of this user
	// returns early only once the warnings are in place.
	h.mu.Lock()
	h.peerUIDs[cred.UID] = true
	fresh := h.addWarningsLocked(raise)
	h.mu.Unlock()
	h.announce(fresh)
}

type warning struct{ text, detail string }

// warn raises persistent warnings, each once, logs them with their detail,
// and tells the console.
func (h *Hub) warn(ws ...warning) {
	h.mu.Lock()
	fresh := h.addWarningsLocked(ws)
	h.mu.Unlock()
	h.announce(fresh)
}

// addWarningsLocked records the warnings not raised before and returns them.
func (h *Hub) addWarningsLocked(ws []warning) (fresh []warning) {
	for _, w := range ws {
		if !slices.Contains(h.warnings, w.text) {
			h.warnings = append(h.warnings, w.text)
			fresh = append(fresh, w)
		}
	}
	return fresh
}

func (h *Hub) announce(ws []warning) {
	for _, w := range ws {
		h.log.Warn(w.text, "detail", w.detail)
		h.events.Publish(Event{Kind: EventWarning, At: h.opts.Now(), Message: w.text + ": " + w.detail})
	}
}

// Warnings are the persistent warnings raised so far, oldest first.
func (h *Hub) Warnings() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.warnings)
}

// startupWarnings raises what is known before any bridge connects: a
// terminal owned by a user admitted by uid.
func (h *Hub) startupWarnings() {
	e := h.opts.Exposure
	if e == nil {
		return
	}
	h.sharedTerminalWarning()
	for _, uid := range e.Admission.UIDs {
		for _, t := range e.ReachableBy(uid) {
			h.warn(warning{host.WarnTerminal, fmt.Sprintf("the console's %s %s belongs to %s, which --allow-uid admits as an agent: that user can send keys to this console", t.Kind, t.Path, host.UserName(uid))})
		}
	}
}

// sharedTerminalWarning raises the session-long warning when the operator
// overrode the refusal.
func (h *Hub) sharedTerminalWarning() {
	e := h.opts.Exposure
	if e == nil || !e.SharedTerminal {
		return
	}
	if problems := e.TerminalProblems(); len(problems) > 0 {
		h.warn(warning{host.WarnSharedTerminal, problems[0]})
	}
}
