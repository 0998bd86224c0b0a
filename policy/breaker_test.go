package policy

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// newFakeClock is a settable clock for the rolling windows.
func newFakeClock() *testkit.Clock {
	return testkit.NewClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
}

func slippageDenial() Decision {
	return Decision{Rule: RuleSlippage, Reason: "slippage too high.", Retryable: true}
}

func TestBreakerRepeatedFingerprintIsNotRetryable(t *testing.T) {
	b := NewBreaker(DefaultConfig(), newFakeClock().Now)
	first := b.Observe("claude", "fp1", slippageDenial())
	if !first.Retryable || strings.Contains(first.Reason, "denied before") {
		t.Fatalf("first denial changed: %+v", first)
	}
	second := b.Observe("claude", "fp1", slippageDenial())
	if second.Retryable || !strings.Contains(second.Reason, "denied before; retrying will not change the answer") {
		t.Fatalf("second denial of the same fingerprint: %+v", second)
	}
	other := b.Observe("claude", "fp2", slippageDenial())
	if !other.Retryable {
		t.Fatalf("a different fingerprint inherited the wall: %+v", other)
	}
	// An allowed decision passes untouched and forgets the fingerprint.
	allowed := Decision{Allowed: true, Reason: "ok"}
	if got := b.Observe("claude", "fp1", allowed); got != allowed {
		t.Fatalf("allowed decision changed: %+v", got)
	}
	if again := b.Observe("claude", "fp1", slippageDenial()); !again.Retryable {
		t.Fatalf("fingerprint not forgotten after an allow: %+v", again)
	}
}

func TestBreakerPausesClientAfterBurst(t *testing.T) {
	clock := newFakeClock()
	cfg := DefaultConfig() // 5 denials in 60 s
	b := NewBreaker(cfg, clock.Now)

	// Four denials, then the window passes: no pause.
	for i := 0; i < 4; i++ {
		b.Observe("claude", "", slippageDenial())
		clock.Advance(time.Second)
	}
	clock.Advance(61 * time.Second)
	b.Observe("claude", "", slippageDenial())
	if b.Paused("claude") {
		t.Fatal("denials spread over more than the window paused the client")
	}
	for i := 0; i < 3; i++ {
		b.Observe("claude", "", slippageDenial())
	}
	if b.Paused("claude") {
		t.Fatal("paused after 4 denials in the window; limit is 5")
	}
	d := b.Observe("claude", "", slippageDenial())
	if !b.Paused("claude") || d.Retryable || !strings.Contains(d.Reason, "paused") {
		t.Fatalf("5th denial in the window: paused=%v %+v", b.Paused("claude"), d)
	}
	if b.Paused("cursor") {
		t.Fatal("another client was paused")
	}
	if d, ok := b.Check("claude"); ok || d.Rule != RuleBreaker || d.Retryable || !strings.Contains(d.Reason, "operator resumes") {
		t.Fatalf("Check on a paused client: %+v ok=%v", d, ok)
	}
	if _, ok := b.Check("cursor"); !ok {
		t.Fatal("Check refused an unpaused client")
	}
	if got := b.PausedClients(); len(got) != 1 || got[0] != "claude" {
		t.Fatalf("PausedClients = %v", got)
	}
	b.Resume("claude")
	if b.Paused("claude") {
		t.Fatal("still paused after Resume")
	}
	b.Observe("claude", "", slippageDenial())
	if b.Paused("claude") {
		t.Fatal("one denial after Resume re-paused the client: history was not cleared")
	}
}

func TestBreakerConcurrent(t *testing.T) {
	b := NewBreaker(DefaultConfig(), nil)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b.Observe("c", "fp", slippageDenial())
			b.Paused("c")
			b.Check("c")
			if i%10 == 0 {
				b.Resume("c")
			}
		}(i)
	}
	wg.Wait()
}
