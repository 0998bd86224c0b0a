package authority

import (
	"context"
	"sort"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// SeePeer notes the user on the other end of a bridge's request (the warnings it
// raises); the socket server calls it before it answers.
func (h *Hub) SeePeer(ctx context.Context) { h.warnings.SeePeer(ctx) }

// Arrive notes a bridge of the agent ci present, for as long as the socket
// server holds its presence request open: leave, once the bridge goes away,
// ends the grants given to its process and forgets the agent when it was
// the last; stop is closed when the hub closes. ok is false when the hub is
// already closed.
func (h *Hub) Arrive(ctx context.Context, ci wire.ClientInfo) (leave func(), stop <-chan struct{}, ok bool) {
	who := callerOf(ctx, wire.CallRequest{Client: ci})
	client := who.name
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, nil, false
	}
	h.present[client]++
	delete(h.departed, who.id)
	first := h.present[client] == 1
	h.clients[client] = h.opts.Now()
	h.mu.Unlock()
	if first {
		h.events.Publish(Event{Kind: approval.EventAgentConnected, At: h.opts.Now(), Client: client, Message: client + " connected"})
	}
	return func() {
		// This bridge process going away ends its grants: they were given
		// to this process, and a new one is a new agent to the human.
		// Marked departed first, under the lock the grants are made under:
		// a grant being made now is either ended here or refused there.
		h.depart(who.id)
		h.endGrants(func(g *Grant) bool { return g.Peer == who.id }, "its agent disconnected")
		h.leave(client)
	}, h.done, true
}

// depart notes that peer's presence ended. The set keeps only peers that
// still have a proposal held by the hub, as only a proposal can become a
// grant, so it never grows past the proposals in memory.
func (h *Hub) depart(peer string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.departed[peer] = struct{}{}
	if len(h.departed) <= maxDepartedUnpruned {
		return
	}
	held := make(map[string]bool, len(h.proposals))
	for _, p := range h.proposals {
		held[p.Peer] = true
	}
	for d := range h.departed {
		if !held[d] {
			delete(h.departed, d)
		}
	}
}

// maxDepartedUnpruned is how many departed peers are kept before the set
// is pruned to those with a proposal held.
const maxDepartedUnpruned = 256

// leave drops one bridge of client; the last one out is announced, and the
// client is forgotten so the list of agents never grows without bound.
func (h *Hub) leave(client string) {
	h.mu.Lock()
	h.present[client]--
	last := h.present[client] <= 0
	if last {
		delete(h.present, client)
		delete(h.clients, client)
	}
	closed := h.closed
	h.mu.Unlock()
	if last && !closed {
		h.events.Publish(Event{Kind: approval.EventAgentDisconnected, At: h.opts.Now(), Client: client, Message: client + " disconnected"})
	}
}

// Connected lists the agents with a running bridge, sorted.
func (h *Hub) Connected() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.present))
	for c := range h.present {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
