package authority_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// A proposal's answer outgrows net/http's 2 KiB buffer; it goes with its
// length, not chunked, and decodes to the proposal.
func TestProposalAnswerCarriesItsLength(t *testing.T) {
	w := newWorld(t, nil)
	c := mcpbridge.NewUnixHTTPClient(w.socket, 10*time.Second)
	defer c.CloseIdleConnections()
	args, _ := json.Marshal(map[string]any{"to": w.allowed.String(), "lamports": 1_000_000})
	req, _ := json.Marshal(wire.CallRequest{Client: wire.ClientInfo{Name: "length"}, Tool: wire.ToolTransferSOL, Arguments: args})
	resp, err := c.Post("http://solgate"+wire.CallPath, "application/json", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(body)) || len(body) <= 2048 {
		t.Errorf("answer of %d bytes: transfer encoding %v, content length %d; want its length given, not chunked", len(body), resp.TransferEncoding, resp.ContentLength)
	}
	var res wire.CallResult
	if err := json.Unmarshal(body, &res); err != nil || res.Status() != "pending_approval" {
		t.Fatalf("answer %v: %s", err, body)
	}
}
