// Package warnings holds the console's session-long warnings about who can
// reach it: a bridge of the console's own user, a user who can send keys to
// its terminal, a shared terminal the operator allowed. Each is raised
// once, stays for the rest of the session, and is announced when raised.
package warnings

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// Warning is one warning: its text, shown for the session, and the detail
// logged with it.
type Warning struct{ Text, Detail string }

// Board is the session's warnings.
type Board struct {
	exposure   *host.Exposure // nil: not checked
	consoleUID uint32
	announce   func(Warning) // called without mu, once per warning raised

	mu   sync.Mutex
	list []string
	seen map[uint32]bool // bridge users seen
}

// New makes the board and raises what is known before any bridge connects:
// a shared terminal the operator allowed, and a terminal owned by a user
// admitted by uid.
func New(exposure *host.Exposure, consoleUID uint32, announce func(Warning)) *Board {
	b := &Board{exposure: exposure, consoleUID: consoleUID, announce: announce, seen: map[uint32]bool{}}
	e := exposure
	if e == nil {
		return b
	}
	if e.SharedTerminal {
		if problems := e.TerminalProblems(); len(problems) > 0 {
			b.Raise(Warning{host.WarnSharedTerminal, problems[0]})
		}
	}
	for _, uid := range e.Admission.UIDs {
		for _, t := range e.ReachableBy(uid) {
			b.Raise(Warning{host.WarnTerminal, fmt.Sprintf("the console's %s %s belongs to %s, which --allow-uid admits as an agent: that user can send keys to this console", t.Kind, t.Path, host.UserName(uid))})
		}
	}
	return b
}

// SeePeer notes who is on the other end of a bridge's request: a bridge of
// the console's own user, and a user who owns the console's terminal, each
// raise a warning. A request is answered only after its peer's warnings
// are raised, so get_spend_status never misses them.
func (b *Board) SeePeer(ctx context.Context) {
	cred, ok := host.PeerCredFromContext(ctx)
	if !ok {
		return
	}
	b.mu.Lock()
	seen := b.seen[cred.UID]
	b.mu.Unlock()
	if seen {
		return
	}
	var raise []Warning
	if cred.UID == b.consoleUID {
		raise = append(raise, Warning{host.WarnSameUser, fmt.Sprintf("a bridge (pid %d) runs as %s, the console's own user: that user can read the key file and use it without you", cred.PID, host.UserName(cred.UID))})
	}
	if e := b.exposure; e != nil {
		for _, t := range e.ReachableBy(cred.UID) {
			raise = append(raise, Warning{host.WarnTerminal, fmt.Sprintf("the console's %s %s belongs to %s, whose bridge (pid %d) is connected: that user can send keys to this console", t.Kind, t.Path, host.UserName(cred.UID), cred.PID)})
		}
	}
	// Marked seen together with raising: a second request of this user
	// returns early only once the warnings are in place.
	b.mu.Lock()
	b.seen[cred.UID] = true
	fresh := b.addLocked(raise)
	b.mu.Unlock()
	b.tell(fresh)
}

// Raise raises warnings, each once, and announces the new ones.
func (b *Board) Raise(ws ...Warning) {
	b.mu.Lock()
	fresh := b.addLocked(ws)
	b.mu.Unlock()
	b.tell(fresh)
}

// List is the warnings raised so far, oldest first.
func (b *Board) List() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.list)
}

// addLocked records the warnings not raised before and returns them.
func (b *Board) addLocked(ws []Warning) (fresh []Warning) {
	for _, w := range ws {
		if !slices.Contains(b.list, w.Text) {
			b.list = append(b.list, w.Text)
			fresh = append(fresh, w)
		}
	}
	return fresh
}

func (b *Board) tell(ws []Warning) {
	for _, w := range ws {
		b.announce(w)
	}
}
