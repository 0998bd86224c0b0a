package authority_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// rotating posts calls over the socket from this test process, under a new
// client name every time: what an agent that renames itself would do.
type rotating struct {
	t *testing.T
	w *world
	n int
}

func (r *rotating) call(tool, args string) wire.CallResult {
	r.t.Helper()
	r.n++
	res, err := mcpbridge.PostCall(context.Background(), mcpbridge.NewUnixHTTPClient(r.w.socket, time.Minute), wire.CallRequest{
		Client: wire.ClientInfo{Name: fmt.Sprintf("renamed-%d", r.n), Version: "1.0"}, Tool: tool, Arguments: json.RawMessage(args),
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return res
}

func transferArgs(to fmt.Stringer, lamports int) string {
	return fmt.Sprintf(`{"to":%q,"lamports":%d}`, to, lamports)
}

// The pending limit keys on the user, not on the name it gives nor on the
// process: twenty pending proposals under twenty names fill it, the next
// name is refused with a retryable denial, and so is another process of the
// same user (a real bridge: a fork gets no fresh allowance).
func TestRenamingDoesNotResetThePendingLimit(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) { o.ProposalsPerMinute = 1000 })
	r := &rotating{t: t, w: w}
	for i := 0; i < authority.DefaultMaxPendingPerUID; i++ {
		if res := r.call("transfer_sol", transferArgs(w.allowed, 1_000_000+i)); res.Status() != "pending_approval" {
			t.Fatalf("proposal %d: %+v", i, res)
		}
	}
	res := r.call("transfer_sol", transferArgs(w.allowed, 2_000_000))
	if res.Status() != "denied" || res.Str("rule") != authority.RuleFlood || res.Structured["retryable"] != true ||
		!strings.Contains(res.Str("reason"), "waiting for the operator") {
		t.Fatalf("the 11th pending proposal under a new name: %+v", res)
	}
	pending := 0
	for _, p := range w.authority.Proposals() {
		if p.Status == approval.StatusPending {
			pending++
		}
	}
	if pending != authority.DefaultMaxPendingPerUID {
		t.Fatalf("%d proposals pending in the hub, want %d", pending, authority.DefaultMaxPendingPerUID)
	}
	a := startAgent(t, w.socket)
	if ans := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 3_000_000}); ans.Status() != "denied" || ans.Str("rule") != authority.RuleFlood {
		t.Fatalf("another process of the same user got a fresh allowance: %+v", ans)
	}
	// A decision frees a place.
	for _, p := range w.authority.Proposals() {
		if p.Status == approval.StatusPending && strings.HasPrefix(p.Client, "renamed-") {
			if _, err := w.authority.Deny(p.ID, "operator", "test"); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if res := r.call("transfer_sol", transferArgs(w.allowed, 2_000_001)); res.Status() != "pending_approval" {
		t.Fatalf("after a decision: %+v", res)
	}
}

// The rate limit keys on the user too: a burst under fresh names is cut
// at ProposalsPerMinute, retryable.
func TestRenamingDoesNotResetTheRateLimit(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) { o.ProposalsPerMinute, o.MaxPendingPerUID = 3, 100 })
	r := &rotating{t: t, w: w}
	for i := 0; i < 3; i++ {
		if res := r.call("transfer_sol", transferArgs(w.allowed, 1_000_000+i)); res.Status() != "pending_approval" {
			t.Fatalf("proposal %d: %+v", i, res)
		}
	}
	res := r.call("transfer_sol", transferArgs(w.allowed, 2_000_000))
	if res.Status() != "denied" || res.Str("rule") != authority.RuleFlood || res.Structured["retryable"] != true ||
		!strings.Contains(res.Str("reason"), "too many proposals") {
		t.Fatalf("the 4th proposal in a burst under a new name: %+v", res)
	}
}

// The retry breaker keys on the user: denials collected under five names
// pause it, and a sixth name is still paused, and so is another process of
// the same user (a fork escapes nothing). TestBreakerCountsPerUser shows
// another user is not.
func TestRenamingDoesNotResetTheBreaker(t *testing.T) {
	w := newWorld(t, nil)
	r := &rotating{t: t, w: w}
	var last wire.CallResult
	for i := 0; i < 5; i++ { // policy.DefaultBreakerDenials
		last = r.call("transfer_sol", transferArgs(w.stranger, 1_000_000+i))
		if last.Status() != "denied" {
			t.Fatalf("denial %d: %+v", i, last)
		}
	}
	if last.Structured["retryable"] != false || !strings.Contains(last.Str("reason"), "paused") {
		t.Fatalf("the fifth denial did not trip the breaker: %+v", last)
	}
	res := r.call("transfer_sol", transferArgs(w.allowed, 1_500_000))
	if res.Status() != "denied" || res.Str("rule") != "retry_breaker" {
		t.Fatalf("a new name reset the breaker: %+v", res)
	}
	if got := w.authority.PausedClients(); len(got) != 1 || got[0] != fmt.Sprintf("uid %d", os.Geteuid()) {
		t.Fatalf("paused: %v, want this user", got)
	}
	a := startAgent(t, w.socket)
	if ans := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 3_000_000}); ans.Status() != "denied" || ans.Str("rule") != "retry_breaker" {
		t.Fatalf("another process of the paused user: %+v", ans)
	}
}

// The name is display text: capped at 64 characters and sanitised, in the
// hub and in the audit database.
func TestClientNameIsCappedAndSanitised(t *testing.T) {
	w := newWorld(t, nil)
	long := "solgate-console OPERATOR\x1b[31m" + strings.Repeat("A", 60_000)
	res, err := mcpbridge.PostCall(context.Background(), mcpbridge.NewUnixHTTPClient(w.socket, time.Minute), wire.CallRequest{
		Client: wire.ClientInfo{Name: long}, Tool: "transfer_sol", Arguments: json.RawMessage(transferArgs(w.allowed, 1_000_000)),
	})
	if err != nil || res.Status() != "pending_approval" {
		t.Fatalf("%v %+v", err, res)
	}
	rec, err := w.store.GetProposal(res.Str("proposal_id"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(rec.Client)); n > 64 || strings.ContainsRune(rec.Client, '\x1b') || !strings.HasPrefix(rec.Client, "solgate-console OPERATOR") {
		t.Fatalf("stored client name (%d runes): %q", n, rec.Client)
	}
}
