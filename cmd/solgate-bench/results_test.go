package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestPercentileIsNearestRank(t *testing.T) {
	var s []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {1, time.Millisecond}} {
		if got := percentile(s, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("p99 of one sample = %v", got)
	}
	if s[0] != 100*time.Millisecond {
		t.Error("percentile sorted the caller's slice")
	}
}

func TestGoalsAreJudgedAndMissesPrinted(t *testing.T) {
	p99 := &goal{Stat: "p99", Op: "<", Limit: 5, Text: "p99 < 5 ms"}
	fast := latencyRow("fast", []time.Duration{time.Millisecond, 2 * time.Millisecond}, p99, "")
	slow := latencyRow("slow", []time.Duration{time.Millisecond, 9 * time.Millisecond}, p99, "why it is slow")
	ratio := singleRow("ratio", 10, "x", 4.9, &goal{Stat: "value", Op: ">=", Limit: 5, Text: "≥ 5×"}, "")
	atMost := &goal{Stat: "value", Op: "<=", Limit: 1, Text: "≤ 1 ms"}
	onLimit := singleRow("on the limit", 10, "ms", 1, atMost, "")
	overLimit := singleRow("over the limit", 10, "ms", 1.01, atMost, "")
	info := latencyRow("info", []time.Duration{time.Millisecond}, nil, "")
	empty := latencyRow("empty", nil, p99, "")
	for _, tc := range []struct {
		r    row
		want string
	}{{fast, verdictPass}, {slow, verdictMiss}, {ratio, verdictMiss}, {onLimit, verdictPass}, {overLimit, verdictMiss}, {info, verdictInfo}, {empty, verdictError}} {
		if tc.r.Verdict != tc.want {
			t.Errorf("%s: verdict %q, want %q", tc.r.Name, tc.r.Verdict, tc.want)
		}
	}
	var b bytes.Buffer
	printTable(&b, []row{fast, slow, ratio})
	out := b.String()
	for _, want := range []string{"MISS [1]", "[1] why it is slow", "4.9×", "9.00 ms", "p99 < 5 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
