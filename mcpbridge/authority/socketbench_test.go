package authority_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// BenchmarkSocketCall is the console's socket HTTP server on its own: 50
// kept-alive clients post calls of an unknown tool, which the hub answers
// without the ledger or the store, so cpu-ms/op is the HTTP exchange at
// both ends (server and in-process client) plus a trivial handler.
func BenchmarkSocketCall(b *testing.B) {
	w := newWorldB(b)
	clients := socketClients(b, w, 50)
	ctx := context.Background()
	args, _ := json.Marshal(map[string]any{"to": w.allowed.String(), "lamports": 1_000_000})
	req := wire.CallRequest{Client: wire.ClientInfo{Name: "bench", Version: "1"}, Tool: "no_such_tool", Arguments: args}
	call := func(c *http.Client) error {
		res, err := mcpbridge.PostCall(ctx, c, req)
		if err == nil && (!res.IsError || !strings.Contains(res.Text, "no_such_tool")) {
			b.Fatalf("want the unknown tool named in an error, got %+v", res)
		}
		return err
	}
	for _, c := range clients { // warm: one connection each
		if err := call(c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	cpu0 := processCPU()
	shareN(b, clients, call)
	b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}
