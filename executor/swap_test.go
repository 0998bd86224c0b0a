package executor_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/solgate/solgate/executor"
)

var (
	testIn  = executor.WrappedSOL
	testOut = fixedPub(4)
	testAMM = fixedPub(8)
)

func quoteJSON(mut func(m map[string]any)) []byte {
	m := map[string]any{
		"inputMint": testIn.String(), "inAmount": "50000000", "outputMint": testOut.String(), "outAmount": "7477127",
		"otherAmountThreshold": "7402355", "swapMode": "ExactIn", "slippageBps": 100, "platformFee": nil,
		"priceImpactPct": "0.0000498475",
		"routePlan": []any{map[string]any{"swapInfo": map[string]any{
			"ammKey": testAMM.String(), "label": "Test", "inputMint": testIn.String(), "outputMint": testOut.String(),
			"inAmount": "50000000", "outAmount": "7477127", "feeAmount": "150000", "feeMint": testIn.String(),
		}, "percent": 100}},
		"contextSlot": 45, "timeTaken": 0.001,
	}
	if mut != nil {
		mut(m)
	}
	b, _ := json.Marshal(m)
	return b
}

func testQuoteRequest() executor.QuoteRequest {
	return executor.QuoteRequest{InputMint: testIn, OutputMint: testOut, Amount: 50_000_000, SlippageBps: 100}
}

func apiServer(t *testing.T, h http.HandlerFunc) *executor.SwapClient {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := executor.NewSwapClient(srv.URL, executor.SwapClientOptions{PrioritizationFeeLamports: 1234})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestQuoteRequestAndParsing(t *testing.T) {
	var got *http.Request
	body := quoteJSON(nil)
	c := apiServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.Write(body)
	})
	q, err := c.Quote(context.Background(), testQuoteRequest())
	if err != nil {
		t.Fatal(err)
	}
	if got.Method != http.MethodGet || got.URL.Path != "/swap/v1/quote" {
		t.Fatalf("%s %s", got.Method, got.URL.Path)
	}
	v := got.URL.Query()
	if v.Get("inputMint") != testIn.String() || v.Get("outputMint") != testOut.String() || v.Get("amount") != "50000000" || v.Get("slippageBps") != "100" {
		t.Fatalf("query %v", v)
	}
	if q.InAmount != 50_000_000 || q.OutAmount != 7477127 || q.OtherAmountThreshold != 7402355 || q.SlippageBps != 100 ||
		len(q.Route) != 1 || !q.Route[0].AMMKey.Equals(testAMM) || q.Route[0].FeeAmount != 150000 || q.ContextSlot != 45 {
		t.Fatalf("quote %+v", q)
	}
	if !bytes.Equal(q.Raw, body) {
		t.Fatal("raw quote is not the body received")
	}
	if pi, err := q.PriceImpact(); err != nil || pi <= 0 || pi > 0.001 {
		t.Fatalf("price impact %v %v", pi, err)
	}
}

func TestQuoteRefusesAnswersThatDoNotMatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"other input mint", quoteJSON(func(m map[string]any) { m["inputMint"] = fixedPub(9).String() }), "inputMint is"},
		{"other output mint", quoteJSON(func(m map[string]any) { m["outputMint"] = fixedPub(9).String() }), "outputMint is"},
		{"other amount", quoteJSON(func(m map[string]any) { m["inAmount"] = "50000001" }), "inAmount is 50000001"},
		{"exact out", quoteJSON(func(m map[string]any) { m["swapMode"] = "ExactOut" }), "swapMode is"},
		{"other slippage", quoteJSON(func(m map[string]any) { m["slippageBps"] = 5000 }), "slippageBps is 5000"},
		{"minimum wider than the slippage", quoteJSON(func(m map[string]any) { m["otherAmountThreshold"] = "1" }), "below what 100 bps of slippage allows"},
		{"minimum above expected", quoteJSON(func(m map[string]any) { m["otherAmountThreshold"] = "9999999" }), "above outAmount"},
		{"amount as a number", quoteJSON(func(m map[string]any) { m["outAmount"] = 7477127 }), "malformed response"},
		{"amount negative", quoteJSON(func(m map[string]any) { m["outAmount"] = "-1" }), "not a decimal integer"},
		{"amount over u64", quoteJSON(func(m map[string]any) { m["outAmount"] = "18446744073709551616" }), "out of the u64 range"},
		{"bad ammKey", quoteJSON(func(m map[string]any) {
			m["routePlan"].([]any)[0].(map[string]any)["swapInfo"].(map[string]any)["ammKey"] = "\x1b[2Jpool"
		}), "is not a base58 public key"},
		{"no route", quoteJSON(func(m map[string]any) { m["routePlan"] = []any{} }), "routePlan is empty"},
		{"trailing data", append(quoteJSON(nil), []byte(" {}")...), "trailing data"},
		{"not json", []byte("<html>"), "malformed response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := apiServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write(tc.body) })
			_, err := c.Quote(context.Background(), testQuoteRequest())
			if !errors.Is(err, executor.ErrSwapAPI) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if strings.ContainsAny(err.Error(), "\x1b\x00") {
				t.Fatalf("control characters in %q", err)
			}
		})
	}
}

func TestSwapAPIErrorsAreClearAndSanitised(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		header map[string]string
		body   string
		want   string
	}{
		{"jupiter error json", 400, nil, `{"error":"Could not find any route \u001b[31mnow","errorCode":"COULD_NOT_FIND_ANY_ROUTE"}`, "HTTP 400: Could not find any route ?[31mnow (COULD_NOT_FIND_ANY_ROUTE)"},
		{"empty 502", 502, nil, "", "HTTP 502: (empty body)"},
		{"html 503", 503, nil, "<html>\n<body>overloaded</body>", "HTTP 503: <html> <body>overloaded</body>"},
		{"declared too large", 200, map[string]string{"Content-Length": fmt.Sprint(2 << 20)}, "", "over the 1048576-byte limit; refused"},
		{"redirect", 302, map[string]string{"Location": "http://127.0.0.1:1/elsewhere"}, "", "redirects are not followed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := apiServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			})
			_, err := c.Quote(context.Background(), testQuoteRequest())
			if !errors.Is(err, executor.ErrSwapAPI) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSwapTransactionRequest(t *testing.T) {
	f := newInspectFixture(t)
	txBytes := f.build(t, f.wallet.PublicKey(), f.solSwap(), false, f.pool)
	var req map[string]json.RawMessage
	c := apiServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/swap/v1/quote" {
			w.Write(quoteJSON(nil))
			return
		}
		if r.Method != http.MethodPost || r.URL.Path != "/swap/v1/swap" {
			http.Error(w, "wrong endpoint", 404)
			return
		}
		json.NewDecoder(r.Body).Decode(&req)
		fmt.Fprintf(w, `{"swapTransaction":%q,"lastValidBlockHeight":321,"prioritizationFeeLamports":1234,"computeUnitLimit":60000}`, base64.StdEncoding.EncodeToString(txBytes))
	})
	q, err := c.Quote(context.Background(), testQuoteRequest())
	if err != nil {
		t.Fatal(err)
	}
	stx, err := c.SwapTransaction(context.Background(), q, f.wallet.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	if stx.LastValidBlockHeight != 321 || stx.PrioritizationFeeLamports != 1234 || !bytes.Equal(stx.Tx.Raw, txBytes) || !stx.Tx.FeePayer().Equals(f.wallet.PublicKey()) {
		t.Fatalf("swap tx %+v", stx)
	}
	// Jupiter's field names, and the quote sent back byte for byte.
	if string(req["userPublicKey"]) != fmt.Sprintf("%q", f.wallet.PublicKey()) || !bytes.Equal(req["quoteResponse"], q.Raw) ||
		string(req["wrapAndUnwrapSol"]) != "true" || string(req["dynamicComputeUnitLimit"]) != "true" || string(req["prioritizationFeeLamports"]) != "1234" {
		t.Fatalf("swap request %s", func() string { b, _ := json.Marshal(req); return string(b) }())
	}
}

func TestSwapTransactionRefusesBadAnswers(t *testing.T) {
	f := newInspectFixture(t)
	good := base64.StdEncoding.EncodeToString(f.build(t, f.wallet.PublicKey(), f.solSwap(), false, f.pool))
	for _, tc := range []struct{ name, body, want string }{
		{"simulation error", fmt.Sprintf(`{"swapTransaction":%q,"lastValidBlockHeight":1,"simulationError":{"error":"boom"}}`, good), "the API's own simulation failed"},
		{"not base64", `{"swapTransaction":"!!!","lastValidBlockHeight":1}`, "not base64"},
		{"not a transaction", `{"swapTransaction":"AAAA","lastValidBlockHeight":1}`, "swapTransaction:"},
		{"no block height", fmt.Sprintf(`{"swapTransaction":%q}`, good), "no lastValidBlockHeight"},
		{"no transaction", `{"lastValidBlockHeight":1}`, "no swapTransaction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := apiServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, tc.body) })
			q := &executor.Quote{Raw: quoteJSON(nil)}
			_, err := c.SwapTransaction(context.Background(), q, f.wallet.PublicKey())
			if !errors.Is(err, executor.ErrSwapAPI) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestNewSwapClientRefusesBadBase(t *testing.T) {
	for _, base := range []string{"", "ftp://x", "http://", "127.0.0.1:8899", "http://h/?q=1"} {
		if _, err := executor.NewSwapClient(base, executor.SwapClientOptions{}); err == nil {
			t.Errorf("%q accepted", base)
		}
	}
	c, err := executor.NewSwapClient("http://127.0.0.1:1/prefix/", executor.SwapClientOptions{})
	if err != nil || c.BaseURL() != "http://127.0.0.1:1/prefix" {
		t.Fatalf("%v %v", c, err)
	}
}
