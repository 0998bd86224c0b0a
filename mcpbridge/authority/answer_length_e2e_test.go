package authority_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// A proposal's answer outgrows net/http's 2 KiB buffer; it goes with its
// length, not chunked, and decodes to the proposal.
func TestProposalAnswerCarriesItsLength(t *testing.T) {
	w := newWorld(t, nil)
	resp, body := postCall(t, w, proposalCall(t, w, "length"))
	if len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(body)) || len(body) <= 2048 {
		t.Errorf("answer of %d bytes: transfer encoding %v, content length %d; want its length given, not chunked", len(body), resp.TransferEncoding, resp.ContentLength)
	}
	var res wire.CallResult
	if err := json.Unmarshal(body, &res); err != nil || res.Status() != "pending_approval" {
		t.Fatalf("answer %v: %s", err, body)
	}
}

// Every call answer, a malformed call's included, says the output contract
// the console's answers are held to, and it is the one a bridge of this
// build has: so a real bridge relays them without checking each again
// (wire.OutputContractHeader), and a bridge of another contract checks them.
func TestCallAnswersSayTheConsolesOutputContract(t *testing.T) {
	w := newWorld(t, nil)
	for name, body := range map[string][]byte{"a proposal": proposalCall(t, w, "contract"), "a malformed call": []byte(`{"tool":`)} {
		resp, _ := postCall(t, w, body)
		if got := resp.Header.Get(wire.OutputContractHeader); got != wire.OutputContract() {
			t.Errorf("%s (HTTP %d): %s %q, want this build's %q", name, resp.StatusCode, wire.OutputContractHeader, got, wire.OutputContract())
		}
	}
}

// proposalCall is a socket API call proposing a transfer to w's allowed
// recipient, from a client of that name.
func proposalCall(t *testing.T, w *world, client string) []byte {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"to": w.allowed.String(), "lamports": 1_000_000})
	req, err := json.Marshal(wire.CallRequest{Client: wire.ClientInfo{Name: client}, Tool: wire.ToolTransferSOL, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// postCall posts body to w's console as a bridge does and reads the answer
// whole.
func postCall(t *testing.T, w *world, body []byte) (*http.Response, []byte) {
	t.Helper()
	c := mcpbridge.NewUnixHTTPClient(w.socket, 10*time.Second)
	defer c.CloseIdleConnections()
	resp, err := c.Post("http://solgate"+wire.CallPath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, answer
}
