package authority

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRoutesAgreeWithMux holds newRoutes's shortcut for tool calls to the
// mux it skips: every request, well formed or not, gets the same handler,
// status, headers and body from both.
func TestRoutesAgreeWithMux(t *testing.T) {
	stub := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Handler", name)
			_, _ = w.Write([]byte(name + " " + r.Pattern))
		}
	}
	call, presence, health := stub("call"), stub("presence"), stub("health")
	mux, routes := newMux(call, presence, health), newRoutes(call, presence, health)
	var calls int
	for _, method := range []string{"POST", "GET", "HEAD", "PUT", "OPTIONS", "post", "CONNECT"} {
		for _, target := range []string{"/v1/call", "/v1/call?x=1", "/v1/call/", "/v1//call", "//v1/call", "/v1/./call",
			"/v1/%63all", "/v1%2Fcall", "/V1/call", "/v1/presence", "/v1/health", "/", "*", "/v1/call#f", "http://other/v1/call"} {
			raw := method + " " + target + " HTTP/1.1\r\nHost: solgate\r\nContent-Length: 0\r\n\r\n"
			req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
			if err != nil {
				continue // net/http's server answers it 400 before any handler
			}
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			mux.ServeHTTP(want, req.Clone(req.Context()))
			routes.ServeHTTP(got, req.Clone(req.Context()))
			if got.Code != want.Code || got.Body.String() != want.Body.String() || !equalHeaders(got.Header(), want.Header()) {
				t.Errorf("%s %s: routes answered %d %v %q, the mux %d %v %q", method, target,
					got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
			}
			if got.Header().Get("X-Handler") == "call" {
				calls++
			}
		}
	}
	if calls < 3 { // the plain path, the query and the fragment at least
		t.Fatalf("only %d requests reached the call handler: the table does not exercise the shortcut", calls)
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, "\x00") != strings.Join(b[k], "\x00") {
			return false
		}
	}
	return true
}

// TestDecodedCallOutlivesItsBuffer: a decoded call keeps nothing of the
// pooled buffer its body was read into, so the next call's body, read into
// the same buffer, cannot change it. Both the scanner's shape and the
// encoding/json fallback (an escaped key) are checked.
func TestDecodedCallOutlivesItsBuffer(t *testing.T) {
	for _, first := range []string{
		`{"client":{"name":"alpha","version":"1"},"tool":"transfer_sol","arguments":{"to":"A","lamports":1}}`,
		`{"client":{"name":"alpha","version":"1"},"t\u006fol":"transfer_sol","arguments":{"to":"A","lamports":1}}`,
	} {
		req, err := DecodeCallRequest(strings.NewReader(first))
		if err != nil {
			t.Fatal(err)
		}
		for range 4 { // overwrite whatever buffer the pool hands out next
			if _, err := DecodeCallRequest(strings.NewReader(strings.Repeat("Z", len(first)))); err == nil {
				t.Fatal("a body of Zs decoded")
			}
		}
		if req.Client.Name != "alpha" || req.Client.Version != "1" || req.Tool != "transfer_sol" ||
			string(req.Arguments) != `{"to":"A","lamports":1}` {
			t.Fatalf("decoded call changed when its buffer was reused: %+v (arguments %s)", req, req.Arguments)
		}
	}
}
