package server

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// handlePresence holds a bridge's presence request open until the bridge
// goes away (its connection closes, which net/http reports by cancelling
// the request context) or the core closes.
func (rt routes) handlePresence(w http.ResponseWriter, r *http.Request) {
	rt.core.SeePeer(r.Context())
	var ci wire.ClientInfo
	bodyRead := host.ReadBodyWithin(w, rt.readTimeout)
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
	leave, stop, ok := rt.core.Arrive(r.Context(), ci)
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	defer leave()
	select {
	case <-r.Context().Done():
	case <-stop:
	}
}
