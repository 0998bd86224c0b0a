package authority

import (
	"encoding/json"
	"io"
	"net/http"
	"sort"

	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// handlePresence holds a bridge's presence request open until the bridge
// goes away (its connection closes, which net/http reports by cancelling
// the request context) or the console closes.
func (h *Hub) handlePresence(w http.ResponseWriter, r *http.Request) {
	h.seePeer(r.Context())
	var ci wire.ClientInfo
	bodyRead := host.ReadBodyWithin(w, h.opts.ReadTimeout)
	dec := json.NewDecoder(io.LimitReader(r.Body, 4<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ci); err != nil {
		writeJSON(w, http.StatusBadRequest, wire.CallResult{IsError: true, Text: "malformed presence request: " + err.Error()})
		return
	}
	// Read to the end: only then does net/http watch the connection and
	// cancel the request context when the bridge goes away.
	if _, err := io.Copy(io.Discard, io.LimitReader(r.Body, 4<<10)); err != nil {
		writeJSON(w, http.StatusBadRequest, wire.CallResult{IsError: true, Text: "presence request body not finished in time: " + err.Error()})
		return
	}
	bodyRead() // from here on the request is held open on purpose
	who := callerOf(r.Context(), wire.CallRequest{Client: ci})
	client := who.name
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	h.present[client]++
	first := h.present[client] == 1
	h.clients[client] = h.opts.Now()
	h.mu.Unlock()
	if first {
		h.events.Publish(Event{Kind: EventAgentConnected, At: h.opts.Now(), Client: client, Message: client + " connected"})
	}
	defer h.leave(client)
	// This bridge process going away ends its grants: they were given to
	// this process, and a new one is a new agent to the human.
	defer h.endGrants(func(g *Grant) bool { return g.Peer == who.id }, "its agent disconnected")

	select {
	case <-r.Context().Done():
	case <-h.done:
	}
}

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
		h.events.Publish(Event{Kind: EventAgentDisconnected, At: h.opts.Now(), Client: client, Message: client + " disconnected"})
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
