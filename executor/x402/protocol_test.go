package x402_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solgate/solgate/executor/x402"
)

// Published values: x402 v1's network names and the CAIP-2 ids of the
// public clusters they stand for, as the x402 SVM packages spell them.
func TestV1NetworkNames(t *testing.T) {
	for name, want := range map[string]string{
		"solana":         "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
		"solana-devnet":  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
		"solana-testnet": "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z",
	} {
		if got := x402.V1Networks[name]; got != want {
			t.Errorf("v1 %s = %s, want %s", name, got, want)
		}
	}
}

const (
	devnet   = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
	mint     = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
	payTo    = "7Us1MTDJ7TraDSPewnz7pJp84eJdC8rqQMuEyFHpKky6"
	feePayer = "BbYmErhtDiRVLYYVHvYRBVE1gyQvAyaxTcveJ1hqjb2s"
)

func v2Header(t *testing.T, accepts ...map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"x402Version": 2, "error": "Payment required",
		"resource": map[string]any{"url": "https://api.example.com/data", "description": "weather \x1b[31mnow", "mimeType": "application/json"},
		"accepts":  accepts,
	})
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func exact(network string) map[string]any {
	return map[string]any{"scheme": "exact", "network": network, "amount": "1000", "asset": mint, "payTo": payTo,
		"maxTimeoutSeconds": 60, "extra": map[string]any{"feePayer": feePayer, "memo": "order-7"}}
}

func TestParseV2AndSelectOwnCluster(t *testing.T) {
	evm := map[string]any{"scheme": "exact", "network": "eip155:8453", "amount": "1000", "asset": "0xabc", "payTo": "0xdef"}
	upto := exact(devnet)
	upto["scheme"] = "upto"
	pr, err := x402.ParsePaymentRequired(v2Header(t, evm, upto, exact(devnet)), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := x402.Select(pr, devnet)
	if err != nil {
		t.Fatal(err)
	}
	if r.Amount != 1000 || r.Asset != mint || r.PayTo != payTo || r.FeePayer != feePayer || r.Memo != "order-7" || pr.ResourceURL != "https://api.example.com/data" {
		t.Fatalf("chosen %+v from %+v", r, pr)
	}
	// The retry echoes the chosen offer byte for byte as `accepted`.
	name, value, err := x402.PaymentHeader(pr, r, "AAAA")
	if err != nil || name != "PAYMENT-SIGNATURE" {
		t.Fatalf("%s %v", name, err)
	}
	raw, _ := base64.StdEncoding.DecodeString(value)
	var payload struct {
		X402Version int             `json:"x402Version"`
		Accepted    json.RawMessage `json:"accepted"`
		Payload     struct{ Transaction string }
	}
	if err := json.Unmarshal(raw, &payload); err != nil || payload.X402Version != 2 || string(payload.Accepted) != string(r.Raw) || payload.Payload.Transaction != "AAAA" {
		t.Fatalf("payload %s: %v", raw, err)
	}

	// On mainnet nothing here is payable: refused, listing what was offered.
	_, err = x402.Select(pr, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")
	if !errors.Is(err, x402.ErrNoAcceptableOffer) {
		t.Fatalf("select on mainnet: %v", err)
	}
	for _, want := range []string{"exact on eip155:8453", "upto on " + devnet, "exact on " + devnet} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not list %q", err, want)
		}
	}
}

func TestParseV1Body(t *testing.T) {
	body := `{"x402Version":1,"error":"X-PAYMENT header is required","accepts":[{"scheme":"exact","network":"solana-devnet",
	"maxAmountRequired":"2500","resource":"https://api.example.com/v1","description":"v1 data","mimeType":"application/json",
	"payTo":"` + payTo + `","maxTimeoutSeconds":60,"asset":"` + mint + `","extra":{"feePayer":"` + feePayer + `"}}]}`
	pr, err := x402.ParsePaymentRequired("", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	r, err := x402.Select(pr, devnet)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Version != 1 || r.Amount != 2500 || r.V1Network != "solana-devnet" || pr.ResourceURL != "https://api.example.com/v1" {
		t.Fatalf("v1 read as %+v / %+v", pr, r)
	}
	name, value, err := x402.PaymentHeader(pr, r, "AAAA")
	raw, _ := base64.StdEncoding.DecodeString(value)
	if err != nil || name != "X-PAYMENT" || !strings.Contains(string(raw), `"network":"solana-devnet"`) || !strings.Contains(string(raw), `"scheme":"exact"`) {
		t.Fatalf("v1 header %s %s %v", name, raw, err)
	}
}

func TestSelectRefusesIncompleteOffers(t *testing.T) {
	for name, change := range map[string]func(map[string]any){
		"no fee payer": func(m map[string]any) { m["extra"] = map[string]any{} },
		"float amount": func(m map[string]any) { m["amount"] = "0.001" },
		"zero amount":  func(m map[string]any) { m["amount"] = "0" },
		"bad asset":    func(m map[string]any) { m["asset"] = "USDC" },
		"huge amount":  func(m map[string]any) { m["amount"] = "18446744073709551616" },
		"memo too large": func(m map[string]any) {
			m["extra"] = map[string]any{"feePayer": feePayer, "memo": strings.Repeat("m", 257)}
		},
	} {
		offer := exact(devnet)
		change(offer)
		pr, err := x402.ParsePaymentRequired(v2Header(t, offer), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := x402.Select(pr, devnet); !errors.Is(err, x402.ErrNoAcceptableOffer) || !strings.Contains(err.Error(), "unusable") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := x402.ParsePaymentRequired("", []byte(`{"x402Version":2}`)); err == nil {
		t.Error("a v2 body without the header was accepted")
	}
	if _, err := x402.ParsePaymentRequired("not base64!", nil); err == nil {
		t.Error("a garbage header was accepted")
	}
}

func TestCheckURLAndOrigin(t *testing.T) {
	for _, ok := range []string{"https://api.example.com/x", "http://127.0.0.1:8080/paid", "http://localhost/x", "http://[::1]:9/x"} {
		if err := x402.CheckURL(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://api.example.com/x", "ftp://x/y", "https://user:pw@api.example.com/", "/relative", "https://a.example.com/#frag"} {
		if err := x402.CheckURL(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if got := x402.Origin("HTTPS://API.Example.com:443/a?b"); got != "https://api.example.com" {
		t.Errorf("origin %s", got)
	}
	if got := x402.Origin("http://127.0.0.1:8080/paid"); got != "http://127.0.0.1:8080" {
		t.Errorf("origin %s", got)
	}
}

// The console never follows a redirect: a payment header sent to the
// approved origin must not be replayed to another one. The redirect comes
// back as the answer, and the other server is never reached.
func TestDoNeverFollowsRedirects(t *testing.T) {
	var hit atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit.Store(true) }))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	resp, err := x402.Do(context.Background(), x402.NewHTTPClient(5*time.Second), x402.Request{URL: origin.URL + "/paid"}, map[string]string{"PAYMENT-SIGNATURE": "signed"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusTemporaryRedirect || hit.Load() {
		t.Fatalf("status %d, other server reached: %v", resp.Status, hit.Load())
	}
}

// A body past MaxBodyBytes is cut and marked.
func TestDoBoundsTheBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", x402.MaxBodyBytes+100)))
	}))
	defer srv.Close()
	resp, err := x402.Do(context.Background(), x402.NewHTTPClient(5*time.Second), x402.Request{URL: srv.URL}, nil)
	if err != nil || len(resp.Body) != 65536 || !resp.Truncated {
		t.Fatalf("body %d truncated %v: %v", len(resp.Body), resp.Truncated, err)
	}
}

// extra.transactionVersions (the x402 SVM version negotiation: numbers for
// versioned messages, "legacy" for a legacy one): absent or naming 0, the
// payment is v0; only "legacy" asked for, legacy; a list that names neither
// (e.g. only transaction v1) makes the offer unusable, and so does a
// malformed one.
func TestTransactionVersionsChooseTheMessage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions any // nil: absent
		want     string
		refused  string
	}{
		{"absent", nil, "v0", ""},
		{"v0", []any{0}, "v0", ""},
		{"v0 and legacy", []any{"legacy", 0}, "v0", ""},
		{"legacy only", []any{"legacy"}, "legacy", ""},
		{"v1 only", []any{1}, "", "accepts only 1; solgate builds v0"},
		{"not a list", "0", "", "extra.transactionVersions is not a list"},
		{"unknown word", []any{"v0"}, "", `holds "v0"`},
		{"fraction", []any{0.5}, "", "holds 0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			offer := exact(devnet)
			if tc.versions != nil {
				offer["extra"].(map[string]any)["transactionVersions"] = tc.versions
			}
			pr, err := x402.ParsePaymentRequired(v2Header(t, offer), nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := x402.Select(pr, devnet)
			if tc.refused != "" {
				if !errors.Is(err, x402.ErrNoAcceptableOffer) || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("err = %v; want a refusal saying %q", err, tc.refused)
				}
				return
			}
			if err != nil || r.MessageVersion() != tc.want {
				t.Fatalf("version %q, err %v; want %s", r.MessageVersion(), err, tc.want)
			}
		})
	}
}

// extra.recentBlockhash is read (the console checks it before use);
// `extensions` of the PaymentRequired are echoed in the payload as
// received (x402 v2: the client must include at least the info received).
func TestRecentBlockhashReadAndExtensionsEchoed(t *testing.T) {
	offer := exact(devnet)
	offer["extra"].(map[string]any)["recentBlockhash"] = "EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k"
	ext := `{"bazaar":{"info":{"input":{"type":"http","method":"GET"}},"schema":{"type":"object"}},"payment-identifier":{"info":{"id":"pi_7"},"schema":{}}}`
	b, _ := json.Marshal(map[string]any{"x402Version": 2, "resource": map[string]any{"url": "https://api.example.com/data"},
		"accepts": []any{offer}, "extensions": json.RawMessage(ext)})
	pr, err := x402.ParsePaymentRequired(base64.StdEncoding.EncodeToString(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := x402.Select(pr, devnet)
	if err != nil || r.RecentBlockhash != "EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k" {
		t.Fatalf("recentBlockhash %q, err %v", r.RecentBlockhash, err)
	}
	_, value, err := x402.PaymentHeader(pr, r, "AAAA")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(value)
	var payload struct {
		Extensions json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	if string(payload.Extensions) != ext {
		t.Fatalf("extensions echoed as %s; want %s", payload.Extensions, ext)
	}
	// No extensions offered: none sent.
	pr, _ = x402.ParsePaymentRequired(v2Header(t, exact(devnet)), nil)
	r, _ = x402.Select(pr, devnet)
	_, value, _ = x402.PaymentHeader(pr, r, "AAAA")
	raw, _ = base64.StdEncoding.DecodeString(value)
	if strings.Contains(string(raw), "extensions") {
		t.Fatalf("payload has extensions nobody offered: %s", raw)
	}
}
