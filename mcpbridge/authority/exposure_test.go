package authority_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// Bridges of the console's own user (this test process) hitting the socket
// at once: every get_spend_status answer carries the same-user warning, even
// the ones that raced the request that raised it, and it is raised once.
func TestSameUserWarningInEveryAnswer(t *testing.T) {
	w := newWorld(t, nil)
	events, stop := w.authority.Subscribe(64)
	defer stop()
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A client of its own: a new connection, as a new bridge makes.
			httpc := mcpbridge.NewUnixHTTPClient(w.socket, 10*time.Second)
			res, err := mcpbridge.PostCall(context.Background(), httpc,
				wire.CallRequest{Client: wire.ClientInfo{Name: "same-user"}, Tool: "get_spend_status", Arguments: json.RawMessage(`{}`)})
			if err != nil {
				t.Error(err)
				return
			}
			if !strings.Contains(res.Text, "WARNING: agent runs as your user: it can use the key without you") {
				t.Errorf("an answer without the warning:\n%s", res.Text)
			}
			safety, _ := res.Structured["safety"].(map[string]any)
			if ws, _ := safety["warnings"].([]any); len(ws) != 1 {
				t.Errorf("structured warnings %v", safety["warnings"])
			}
		}()
	}
	wg.Wait()
	if got := w.authority.Warnings(); len(got) != 1 || got[0] != "agent runs as your user: it can use the key without you" {
		t.Fatalf("hub warnings %q", got)
	}
	// Events arrive in publish order: a note published now comes after
	// every warning the answers above could have raised.
	w.authority.Note("test", "fence")
	raised := 0
	for fenced := false; !fenced; {
		select {
		case ev := <-events:
			raised += map[bool]int{true: 1}[ev.Kind == "warning"]
			fenced = ev.Kind == "note" && ev.Message == "fence"
		case <-time.After(30 * time.Second):
			t.Fatal("the fence note never arrived")
		}
	}
	if raised != 1 {
		t.Fatalf("the warning was announced %d times, want once", raised)
	}
}
