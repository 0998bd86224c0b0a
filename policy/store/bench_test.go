package store

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkAuditAppend measures one audit append (a transaction with its
// fsync, synchronous=FULL) and reports the latency distribution.
func BenchmarkAuditAppend(b *testing.B) {
	st, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	body := map[string]any{"proposal": "p1", "lamports": 50_005_000, "outcome": "approved"}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if _, err := st.AppendAudit("decision", "p1", body); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds())
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}
