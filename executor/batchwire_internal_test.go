package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// The batch's own encoder writes what encoding/json would, as JSON values:
// the node reads the same requests.
func TestAppendBatchIsTheRequestsJSON(t *testing.T) {
	reqs := jsonrpc.RPCRequests{
		{Method: "getMultipleAccounts", Params: []any{[]string{"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "11111111111111111111111111111111"}, accountsOpts}},
		{Method: "simulateTransaction", Params: simulationParams([]byte{1, 2, 3, 250}, []string{"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"})},
		{Method: "simulateTransaction", Params: simulationParams(nil, nil)},
		{Method: "getRecentPrioritizationFees", Params: []any{[]string(nil)}},
		{Method: "getPriorityFeeEstimate", Params: []any{map[string]any{"accountKeys": []string{"a"}, "options": map[string]any{"priorityLevel": "High"}}}},
		{Method: "getSlot"},
		{Method: "odd \"method\" \n\u2028<>", Params: []any{"tab\there", 12, nil, true, []any(nil), 1.5}},
	}
	got, err := appendBatch(nil, reqs)
	if err != nil {
		t.Fatal(err)
	}
	type wireReq struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}
	var want []wireReq
	for i, r := range reqs {
		want = append(want, wireReq{JSONRPC: "2.0", ID: i, Method: r.Method, Params: r.Params})
	}
	wantRaw, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("the batch is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(wantRaw, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("batch differs from encoding/json's\ngot  %s\nwant %s", got, wantRaw)
	}
}

// postBatch reads a node's answer as solana-go's CallBatch does: the same
// responses, and an error (an HTTP error where solana-go gives one) for
// the same answers, hostile ones included. Served by a fake node: these
// answers are what no real node should send.
func TestPostBatchReadsAnswersAsSolanaGo(t *testing.T) {
	answers := []struct {
		status int
		body   string
	}{
		{200, `[{"jsonrpc":"2.0","result":{"context":{"slot":5},"value":[null,{"lamports":1,"owner":"11111111111111111111111111111111","data":["","base64"]}]},"id":0},{"jsonrpc":"2.0","error":{"code":-32602,"message":"bad \"params\"","data":{"x":[1,2]}},"id":1}]`},
		{200, ` [ {"id":1,"jsonrpc":"2.0","result":null} , {"result":[1,2,{"a":"\u00e9\n"}],"id":"two","jsonrpc":"2.0"}, null, {"jsonrpc":"2.0","id":null,"result":12345678901234567890} ] `},
		{200, `[{"jsonrpc":"2.0","result":"x","id":0,"extra":1}]`},
		{200, `[{"jsonrpc":"2.0","result":"x","id":0}] [1]`},
		{200, `[{"jsonrpc":"2.0","result":"x","id":0}`},
		{200, `[]`},
		{200, `null`},
		{200, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"batch not supported"},"id":null}`},
		{200, `[{"jsonrpc":"2.0","result":"bad utf-8 \xff here","id":0},{"jsonrpc":"2.0","result":1,"result":2,"id":1}]`},
		{200, `[{"jsonrpc":2,"result":1,"id":0}]`},
		{200, `[{"jsonrpc":"2.0","result":1,"id":[0]}]`},
		{200, `[{"jsonrpc":"2.0","result":1,"id":0,"error":null}]`},
		{413, `request too large`},
		{429, `[{"jsonrpc":"2.0","error":{"code":429,"message":"slow down"},"id":0}]`},
		{500, ``},
		{200, ``},
		{200, `not json`},
	}
	for i, a := range answers {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(a.status)
				_, _ = w.Write([]byte(a.body))
			}))
			defer srv.Close()
			reqs := func() jsonrpc.RPCRequests {
				return jsonrpc.RPCRequests{{Method: "getSlot"}, {Method: "getBalance", Params: []any{"11111111111111111111111111111111"}}}
			}
			want, werr := jsonrpc.NewClientWithOpts(srv.URL, &jsonrpc.RPCClientOpts{HTTPClient: srv.Client()}).CallBatch(context.Background(), reqs())
			got, gerr := postBatch(context.Background(), srv.Client(), srv.URL, reqs())
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("answer %q: error %v, solana-go's %v", a.body, gerr, werr)
			}
			var whttp, ghttp *jsonrpc.HTTPError
			if errors.As(werr, &whttp) != errors.As(gerr, &ghttp) || (whttp != nil && whttp.Code != ghttp.Code) {
				t.Fatalf("answer %q: HTTP error %v, solana-go's %v", a.body, gerr, werr)
			}
			if werr != nil {
				return
			}
			if len(got) != len(want) {
				t.Fatalf("answer %q: %d responses, solana-go %d", a.body, len(got), len(want))
			}
			for j := range want {
				if !reflect.DeepEqual(got[j], want[j]) {
					t.Errorf("answer %q: response %d: %#v, solana-go %#v", a.body, j, got[j], want[j])
				}
			}
		})
	}
}

// BenchmarkBatchWire is a proposal's batch written and its answer read.
func BenchmarkBatchWire(b *testing.B) {
	names := []string{"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"}
	reqs := jsonrpc.RPCRequests{
		{Method: "getMultipleAccounts", Params: []any{names, accountsOpts}},
		{Method: "simulateTransaction", Params: simulationParams(make([]byte, 300), names)},
		{Method: "getMultipleAccounts", Params: []any{names, accountsOpts}},
		{Method: "getRecentPrioritizationFees", Params: []any{names}},
	}
	acct := `{"data":["","base64"],"executable":false,"lamports":9999995000,"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":0}`
	accts := `{"context":{"apiVersion":"2.1.0","slot":1234},"value":[` + acct + `,` + acct + `]}`
	sim := `{"context":{"apiVersion":"2.1.0","slot":1234},"value":{"err":null,"logs":["Program 11111111111111111111111111111111 invoke [1]","Program 11111111111111111111111111111111 success"],"accounts":[` + acct + `,` + acct + `],"unitsConsumed":150,"returnData":null,"innerInstructions":[]}}`
	fees := `[` + strings.Repeat(`{"slot":1234,"prioritizationFee":0},`, 149) + `{"slot":1234,"prioritizationFee":0}]`
	answer := []byte(`[{"jsonrpc":"2.0","result":` + accts + `,"id":0},{"jsonrpc":"2.0","result":` + sim + `,"id":1},{"jsonrpc":"2.0","result":` + accts + `,"id":2},{"jsonrpc":"2.0","result":` + fees + `,"id":3}]`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := appendBatch(make([]byte, 0, 1024), reqs); err != nil {
			b.Fatal(err)
		}
		if _, err := decodeBatchAnswer(answer); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBatchRoundTrip is BenchmarkBatchWire over loopback HTTP, beside
// solana-go's CallBatch on the same answer.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkBatchRoundTrip(b *testing.B) {
	names := []string{"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"}
	reqs := func() jsonrpc.RPCRequests {
		return jsonrpc.RPCRequests{
			{Method: "getMultipleAccounts", Params: []any{names, accountsOpts}},
			{Method: "simulateTransaction", Params: simulationParams(make([]byte, 300), names)},
			{Method: "getMultipleAccounts", Params: []any{names, accountsOpts}},
			{Method: "getRecentPrioritizationFees", Params: []any{names}},
		}
	}
	acct := `{"data":["","base64"],"executable":false,"lamports":9999995000,"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":0}`
	accts := `{"context":{"apiVersion":"2.1.0","slot":1234},"value":[` + acct + `,` + acct + `]}`
	sim := `{"context":{"apiVersion":"2.1.0","slot":1234},"value":{"err":null,"logs":["Program 11111111111111111111111111111111 invoke [1]","Program 11111111111111111111111111111111 success"],"accounts":[` + acct + `,` + acct + `],"unitsConsumed":150,"returnData":null,"innerInstructions":[]}}`
	fees := `[` + strings.Repeat(`{"slot":1234,"prioritizationFee":0},`, 149) + `{"slot":1234,"prioritizationFee":0}]`
	answer := []byte(`[{"jsonrpc":"2.0","result":` + accts + `,"id":0},{"jsonrpc":"2.0","result":` + sim + `,"id":1},{"jsonrpc":"2.0","result":` + accts + `,"id":2},{"jsonrpc":"2.0","result":` + fees + `,"id":3}]`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(answer)))
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	ctx := context.Background()
	old := jsonrpc.NewClientWithOpts(srv.URL, &jsonrpc.RPCClientOpts{HTTPClient: srv.Client()})
	for _, bc := range []struct {
		name string
		call func() (jsonrpc.RPCResponses, error)
	}{
		{"solana-go", func() (jsonrpc.RPCResponses, error) { return old.CallBatch(ctx, reqs()) }},
		{"postBatch", func() (jsonrpc.RPCResponses, error) { return postBatch(ctx, srv.Client(), srv.URL, reqs()) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := bc.call(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
