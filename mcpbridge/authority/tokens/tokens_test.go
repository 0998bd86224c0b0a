package tokens

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/wire"
)

func newFakeClock() *testkit.Clock {
	return testkit.NewClock(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
}

var (
	fpA = args.Fingerprint(wire.ToolTransferSOL, map[string]string{"to": "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", "lamports": "5"})
	fpB = args.Fingerprint(wire.ToolTransferSOL, map[string]string{"to": "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", "lamports": "6"})
)

func issue(t *testing.T, s *Store, proposal, fp string, ttl time.Duration) string {
	t.Helper()
	tok, _, err := s.Issue(proposal, fp, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// wantRefused checks the sentinel and that the refusal names the proposal.
func wantRefused(t *testing.T, err, sentinel error, proposal string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("got %v, want %v", err, sentinel)
	}
	var te *Error
	if proposal != "" && (!errors.As(err, &te) || te.ProposalID != proposal) {
		t.Fatalf("refusal %#v does not name proposal %s", err, proposal)
	}
}

func TestTokenSingleUse(t *testing.T) {
	clock := newFakeClock()
	s := NewStore(clock.Now)
	tok, exp, err := s.Issue("p1", fpA, TransferTTL)
	if err != nil {
		t.Fatal(err)
	}
	if !exp.Equal(clock.Now().Add(5 * time.Minute)) {
		t.Fatalf("expires at %v", exp)
	}
	id, err := s.Consume(tok, fpA)
	if err != nil || id != "p1" {
		t.Fatalf("first use: %q, %v", id, err)
	}
	id, err = s.Consume(tok, fpA)
	if id != "" {
		t.Fatalf("second use returned proposal %q", id)
	}
	wantRefused(t, err, ErrUsed, "p1")
	if s.Live() != 0 {
		t.Fatalf("%d live tokens after use", s.Live())
	}
}

func TestTokenWrongArgumentsKillsIt(t *testing.T) {
	s := NewStore(newFakeClock().Now)
	tok := issue(t, s, "p1", fpA, time.Minute)
	id, err := s.Consume(tok, fpB)
	if id != "" {
		t.Fatalf("mismatch returned proposal %q", id)
	}
	wantRefused(t, err, ErrMismatch, "p1")
	if !strings.Contains(err.Error(), "different arguments") || !strings.Contains(err.Error(), "propose again") {
		t.Fatalf("message does not tell the model what happened and what to do: %v", err)
	}
	// The right arguments are too late now.
	_, err = s.Consume(tok, fpA)
	wantRefused(t, err, ErrUsed, "p1")
}

func TestTokenExpiry(t *testing.T) {
	clock := newFakeClock()
	s := NewStore(clock.Now)
	tok := issue(t, s, "p1", fpA, SwapTTL)
	clock.Advance(SwapTTL - time.Nanosecond)
	if s.Live() != 1 {
		t.Fatal("token dead before its time")
	}
	tok2 := issue(t, s, "p2", fpA, SwapTTL)
	clock.Advance(time.Nanosecond)
	_, err := s.Consume(tok, fpA)
	wantRefused(t, err, ErrExpired, "p1")
	_, err = s.Consume(tok, fpA)
	wantRefused(t, err, ErrUsed, "p1")
	if id, err := s.Consume(tok2, fpA); err != nil || id != "p2" {
		t.Fatalf("a younger token must still work: %q %v", id, err)
	}

	// Dead tokens are remembered for a while, then swept without a goroutine.
	clock.Advance(SwapTTL + tokenRetention + time.Minute)
	_, err = s.Consume(tok, fpA)
	wantRefused(t, err, ErrUnknown, "")
	s.mu.Lock()
	n, np := len(s.byHash), len(s.byProp)
	s.mu.Unlock()
	if n != 0 || np != 0 {
		t.Fatalf("sweep left %d tokens, %d proposal links", n, np)
	}
}

func TestTokenUnknown(t *testing.T) {
	s := NewStore(nil)
	issue(t, s, "p1", fpA, time.Minute)
	for _, tok := range []string{"", "kR3nT9xQm2vP", "x"} {
		id, err := s.Consume(tok, fpA)
		if id != "" || !errors.Is(err, ErrUnknown) {
			t.Fatalf("%q: %q %v", tok, id, err)
		}
	}
	if s.Live() != 1 {
		t.Fatal("a wrong guess must not touch other tokens")
	}
}

func TestTokenConcurrentConsumeExactlyOneWins(t *testing.T) {
	s := NewStore(nil)
	tok := issue(t, s, "p1", fpA, time.Minute)
	const n = 100
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		mu    sync.Mutex
		wins  int
		other []error
	)
	for range n {
		wg.Go(func() {
			<-start
			id, err := s.Consume(tok, fpA)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && id == "p1":
				wins++
			case errors.Is(err, ErrUsed):
			default:
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if wins != 1 || len(other) != 0 {
		t.Fatalf("%d successes (want 1), unexpected outcomes %v", wins, other)
	}
}

func TestTokenRevoke(t *testing.T) {
	clock := newFakeClock()
	s := NewStore(clock.Now)
	t1 := issue(t, s, "p1", fpA, time.Minute)
	t2 := issue(t, s, "p2", fpA, time.Minute)
	t3 := issue(t, s, "p3", fpB, 2*time.Minute)
	issue(t, s, "p4", fpB, time.Second) // expires before RevokeAll: not counted

	if !s.Revoke("p1") || s.Revoke("p1") || s.Revoke("nope") {
		t.Fatal("Revoke must report true once for a live token, then false")
	}
	_, err := s.Consume(t1, fpA)
	wantRefused(t, err, ErrRevoked, "p1")

	clock.Advance(2 * time.Second)
	if n := s.RevokeAll(); n != 2 {
		t.Fatalf("RevokeAll = %d, want 2 (p2, p3)", n)
	}
	for _, tok := range []string{t2, t3} {
		_, err := s.Consume(tok, fpA)
		if !errors.Is(err, ErrRevoked) {
			t.Fatalf("after RevokeAll: %v", err)
		}
	}
	if s.Live() != 0 || s.RevokeAll() != 0 {
		t.Fatal("tokens survive RevokeAll")
	}
	// A new approval after the panic button works again.
	t5 := issue(t, s, "p5", fpA, time.Minute)
	if id, err := s.Consume(t5, fpA); err != nil || id != "p5" {
		t.Fatalf("%q %v", id, err)
	}
}

func TestTokenReissueRevokesPrevious(t *testing.T) {
	s := NewStore(nil)
	old := issue(t, s, "p1", fpA, time.Minute)
	cur := issue(t, s, "p1", fpA, time.Minute)
	_, err := s.Consume(old, fpA)
	wantRefused(t, err, ErrRevoked, "p1")
	if id, err := s.Consume(cur, fpA); err != nil || id != "p1" {
		t.Fatalf("%q %v", id, err)
	}
}

func TestTokenIssueRefusesBadInput(t *testing.T) {
	s := NewStore(nil)
	for _, c := range []struct {
		id, fp string
		ttl    time.Duration
	}{
		{"", fpA, time.Minute},
		{"p1", "", time.Minute},
		{"p1", strings.ToUpper(fpA), time.Minute},
		{"p1", fpA[:31], time.Minute},
		{"p1", fpA, 0},
		{"p1", fpA, -time.Second},
	} {
		if tok, _, err := s.Issue(c.id, c.fp, c.ttl); err == nil {
			t.Errorf("Issue(%q, %q, %v) = %q", c.id, c.fp, c.ttl, tok)
		}
	}
	if s.Live() != 0 {
		t.Fatal("a refused Issue left a token")
	}
}

func TestTokenAlphabetAndLength(t *testing.T) {
	if len(args.TokenAlphabet) != 58 || strings.ContainsAny(args.TokenAlphabet, "0OIl") {
		t.Fatalf("alphabet %q is not base58", args.TokenAlphabet)
	}
	s := NewStore(nil)
	seen := map[string]bool{}
	for i := range 2000 {
		tok := issue(t, s, "p", fpA, time.Minute) // reissue: keeps the store small
		if len(tok) != Length || !args.ValidToken(tok) {
			t.Fatalf("token %q", tok)
		}
		if seen[tok] {
			t.Fatalf("token %q repeated after %d", tok, i)
		}
		seen[tok] = true
	}
}

// Rejection sampling: bytes ≥ 232 are skipped, the rest map b%58.
func TestTokenRejectsBiasedBytes(t *testing.T) {
	s := NewStore(nil)
	feed := []byte{232, 255, 0, 240, 57, 58, 231, 1, 2, 3, 4, 5, 6, 7, 8, 9, 250}
	s.rand = func(b []byte) (int, error) {
		for i := range b {
			if len(feed) > 0 {
				b[i], feed = feed[0], feed[1:]
			} else {
				b[i] = 10
			}
		}
		return len(b), nil
	}
	s.mu.Lock()
	tok, err := s.newTokenLocked()
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	a := args.TokenAlphabet
	want := string([]byte{a[0], a[57], a[0], a[57], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]})
	if tok != want {
		t.Fatalf("token %q, want %q", tok, want)
	}
	s.rand = func([]byte) (int, error) { return 0, errors.New("entropy gone") }
	if _, _, err := s.Issue("p", fpA, time.Minute); err == nil || !strings.Contains(err.Error(), "entropy gone") {
		t.Fatalf("a failing random source must fail Issue: %v", err)
	}
}

// With modulo reduction the first 24 characters would come up 25% more often;
// uniform sampling keeps every character within a few percent of the mean.
func TestTokenCharactersUniform(t *testing.T) {
	s := NewStore(nil)
	counts := map[byte]int{}
	const tokens = 20000
	s.mu.Lock()
	for range tokens {
		tok, err := s.newTokenLocked()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(tok); i++ {
			counts[tok[i]]++
		}
	}
	s.mu.Unlock()
	mean := float64(tokens*Length) / 58
	for i := 0; i < len(args.TokenAlphabet); i++ {
		c := float64(counts[args.TokenAlphabet[i]])
		if c < 0.9*mean || c > 1.1*mean {
			t.Errorf("character %q drawn %v times, mean %.0f", args.TokenAlphabet[i], c, mean)
		}
	}
}
