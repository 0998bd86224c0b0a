package executor_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
)

// skeletonDeadline bounds one impostor check. Token metadata is written by
// whoever mints the token, so a name that makes normalisation loop (as
// golang.org/x/text's norm did on invalid UTF-8 before v0.39.0,
// GO-2026-5970) would hang the console. The real work takes microseconds;
// the bound is generous so that a loaded CI machine does not trip it.
const skeletonDeadline = 10 * time.Second

// FuzzImpostorCheck feeds hostile token names (invalid UTF-8, long runs of
// combining marks, mixtures of both) through the impostor check and fails
// when one does not return within skeletonDeadline, returns invalid UTF-8,
// or names a ticker outside the four it knows.
func FuzzImpostorCheck(f *testing.F) {
	for _, seed := range []string{
		"SOL",
		"\xff\xfe\xfd",
		"S\xc0L",                            // overlong lead byte
		"US\xe2\x80DC",                      // truncated three-byte sequence
		"\xcc",                              // the first byte of U+0301 alone
		"S" + strings.Repeat("\u0301", 512), // one base, hundreds of marks
		strings.Repeat("\u0301", 512),       // marks with no base at all
		strings.Repeat("\u0345\u0301\u0316", 200),
		"U" + strings.Repeat("\u0301\xff", 256) + "SDC",
		strings.Repeat("\u1100\u1161\u11a8", 200), // Hangul jamo that compose
		strings.Repeat("\ufdfa", 100),             // NFKC expands it eighteenfold
		"\xed\xa0\x80",                            // a UTF-16 surrogate, invalid in UTF-8
	} {
		f.Add(seed)
	}
	other := solana.MustPublicKeyFromBase58("GH7ome3EiwEr7tu9JuTh2dpYWBJK3z69Xm1ZE3MEE6JC")
	known := map[string]bool{"SOL": true, "WSOL": true, "USDC": true, "USDT": true}
	f.Fuzz(func(t *testing.T, name string) {
		type result struct {
			skeleton, ticker string
			ok               bool
		}
		done := make(chan result, 1)
		go func() {
			var r result
			r.skeleton = executor.TickerSkeleton(name)
			r.ticker, r.ok = executor.ImitatedTicker(other, name, "x"+name)
			done <- r
		}()
		// The passage of time is the behaviour under test: a check that
		// does not return is the hang this target exists to find.
		timer := time.NewTimer(skeletonDeadline)
		defer timer.Stop()
		select {
		case r := <-done:
			if !utf8.ValidString(r.skeleton) {
				t.Fatalf("skeleton of %q is not valid UTF-8: %q", name, r.skeleton)
			}
			if r.ok && !known[r.ticker] {
				t.Fatalf("impostor check of %q names ticker %q, want one of SOL, WSOL, USDC, USDT", name, r.ticker)
			}
		case <-timer.C:
			t.Fatalf("impostor check of a %d-byte name did not return within %s: %q", len(name), skeletonDeadline, namePrefix(name, 64))
		}
	})
}

func namePrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
