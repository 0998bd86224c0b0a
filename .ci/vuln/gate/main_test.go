package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A govulncheck -format json stream, shaped as govulncheck v1.9.0 writes it:
// one vulnerability reached through a call path (trace[0] has a function),
// one only imported.
const stream = `{"config":{"protocol_version":"v1.0.0","scanner_name":"govulncheck"}}
{"osv":{"id":"GO-2026-5970","summary":"Infinite loop on invalid input in golang.org/x/text"}}
{"osv":{"id":"GO-2026-6911","summary":"something in mcp-go"}}
{"finding":{"osv":"GO-2026-6911","trace":[{"module":"github.com/mark3labs/mcp-go","version":"v1.2.1"}]}}
{"finding":{"osv":"GO-2026-5970","fixed_version":"v0.39.0","trace":[{"module":"golang.org/x/text","version":"v0.14.0","package":"golang.org/x/text/unicode/norm"}]}}
{"finding":{"osv":"GO-2026-5970","fixed_version":"v0.39.0","trace":[{"module":"golang.org/x/text","version":"v0.14.0","package":"golang.org/x/text/unicode/norm","function":"String","receiver":"Form"},{"module":"github.com/solgate/solgate","package":"github.com/solgate/solgate/executor","function":"tickerSkeleton"}]}}
`

func TestGateJudgesReachableFindingsAgainstTheBaseline(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, tc := range []struct {
		name, baseline, today string
		fails                 bool
		says                  string
	}{
		{"empty baseline", `[]`, "2026-12-01", true, "NOT IN BASELINE: GO-2026-5970 in golang.org/x/text@v0.14.0, fixed in v0.39.0"},
		{"accepted until later", `[{"id":"GO-2026-5970","why":"waiting for a fix","review_by":"2026-12-31"}]`, "2026-12-01", false, "accepted until 2026-12-31"},
		{"review date is the last accepted day", `[{"id":"GO-2026-5970","why":"w","review_by":"2026-12-01"}]`, "2026-12-01", false, "accepted until"},
		{"review date passed", `[{"id":"GO-2026-5970","why":"w","review_by":"2026-11-30"}]`, "2026-12-01", true, "REVIEW DATE PASSED"},
		// Accepting only the not-called one accepts nothing that is reached.
		{"other id accepted", `[{"id":"GO-2026-6911","why":"w","review_by":"2027-01-01"}]`, "2026-12-01", true, "no longer matches a reached vulnerability"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "baseline.json")
			if err := os.WriteFile(path, []byte(tc.baseline), 0o600); err != nil {
				t.Fatal(err)
			}
			accepted, err := loadBaseline(path)
			if err != nil {
				t.Fatal(err)
			}
			found, err := parse(strings.NewReader(stream))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = judge(found, accepted, day(tc.today), &out)
			if (err != nil) != tc.fails || !strings.Contains(out.String(), tc.says) {
				t.Fatalf("err = %v, want failure %v; output:\n%s\nwant it to say %q", err, tc.fails, out.String(), tc.says)
			}
			if !strings.Contains(out.String(), "executor.tickerSkeleton -> golang.org/x/text/unicode/norm.Form.String") {
				t.Errorf("output does not show the call path:\n%s", out.String())
			}
			if !strings.Contains(out.String(), "GO-2026-6911 (github.com/mark3labs/mcp-go@v1.2.1, fixed in no fixed version)") {
				t.Errorf("output does not list the imported-only vulnerability:\n%s", out.String())
			}
		})
	}
}

func TestGateRefusesIncompleteBaselineEntries(t *testing.T) {
	for _, bad := range []string{
		`[{"id":"GO-2026-5970","why":"","review_by":"2026-12-31"}]`,
		`[{"id":"GO-2026-5970","why":"w","review_by":"soon"}]`,
		`[{"id":"CVE-2026-1","why":"w","review_by":"2026-12-31"}]`,
		`[{"id":"GO-2026-5970","why":"w","review_by":"2026-12-31","extra":1}]`,
		`[{"id":"GO-2026-5970","why":"w","review_by":"2026-12-31"},{"id":"GO-2026-5970","why":"w","review_by":"2026-12-31"}]`,
	} {
		path := filepath.Join(t.TempDir(), "baseline.json")
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := loadBaseline(path); err == nil {
			t.Errorf("baseline %s accepted", bad)
		}
	}
}
