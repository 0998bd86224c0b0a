package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// consoleParts are the parts of the console's CPU a proposal, in the
// order a sampled stack is matched against them: the first part one of
// its frames belongs to takes the sample. What matches none (the Go
// runtime's own work: the garbage collector, the scheduler) is "runtime".
var consoleParts = []struct{ name, frame string }{
	{"store (SQLite, fsync, audit head)", "solgate/solgate/policy/store."},
	{"effects engine and RPC client", "solgate/solgate/executor."},
	{"hub (policy, queue, answers)", "solgate/solgate/mcpbridge/authority."},
	{"socket HTTP server", "net/http.(*conn).serve"},
	{"RPC HTTP transport", "net/http.(*persistConn)"},
}

// consoleBreakdownRow splits the console's CPU a proposal (consoleMS, the
// bench process's) by part, from the throughput profile: an info row
// saying what bounds the goal.
func consoleBreakdownRow(prof *profileSummary, consoleMS float64, proposals int) row {
	const name = "console CPU a proposal, by part (profile)"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	traces, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-traces", prof.Path).Output()
	if err != nil {
		return errorRow(name, fmt.Errorf("go tool pprof -traces %s: %w", prof.Path, err))
	}
	by := make([]time.Duration, len(consoleParts)+1)
	var total time.Duration
	for _, block := range strings.Split(string(traces), "-----------+-------------------------------------------------------") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		f := strings.Fields(lines[0])
		if len(f) < 2 {
			continue
		}
		d, err := time.ParseDuration(f[0])
		if err != nil {
			continue
		}
		total += d
		part := len(consoleParts) // runtime
	match:
		for i, p := range consoleParts {
			for _, l := range lines {
				if strings.Contains(l, p.frame) {
					part = i
					break match
				}
			}
		}
		by[part] += d
	}
	if total <= 0 {
		return errorRow(name, fmt.Errorf("no console samples in %s", prof.Path))
	}
	var parts []string
	for i, d := range by {
		label := "runtime (GC, scheduler)"
		if i < len(consoleParts) {
			label = consoleParts[i].name
		}
		parts = append(parts, fmt.Sprintf("%s %.2f ms", label, consoleMS*float64(d)/float64(total)))
	}
	return singleRow(name, proposals, "ms", consoleMS, nil, strings.Join(parts, ", "))
}
