package main

import (
	"strings"
	"testing"
)

// Bad priority-fee settings stop the real console at start, with one error
// naming the flag, before any key or RPC is touched.
func TestBadPriorityFeeFlagsRefusedNamingTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--priority-fee-percentile", "0"}, `--priority-fee-percentile: "0" is not accepted; want a whole percentile from 1 to 100`},
		{[]string{"--priority-fee-percentile", "101"}, `--priority-fee-percentile: "101"`},
		{[]string{"--priority-fee-lamports", "200000"}, "--priority-fee-lamports: 200000 lamports is above the 100000-lamport cap (max_priority_fee_lamports (default))"},
		{[]string{"--max-priority-fee-lamports", "-1"}, `--max-priority-fee-lamports: "-1" is not accepted; want a whole number of lamports`},
	} {
		r := runSolgate(t, append([]string{"console", "--keypair", "/nonexistent/id.json"}, tc.args...)...)
		if r.exit == 0 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "nonexistent") {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", tc.args, r.exit, r.stderr, tc.want)
		}
	}
}
