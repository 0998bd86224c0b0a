package executor

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// An RPC endpoint that redirects the call is refused with the URL to give
// instead, and the call never reaches the host it was sent on to.
func TestRPCClientRefusesARedirect(t *testing.T) {
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":"ok","id":1}`))
	}))
	defer elsewhere.Close()
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/rpc", code)
		}))
		c := NewClient(srv.URL, ClientOptions{Retries: -1})
		_, err := c.RPC().GetHealth(context.Background())
		if err == nil || !strings.Contains(err.Error(), "give that URL as the RPC endpoint") || !strings.Contains(err.Error(), elsewhere.URL+"/rpc") {
			t.Errorf("redirect %d: %v", code, err)
		}
		c.Close()
		srv.Close()
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the redirect target was called %d times", n)
	}
}
