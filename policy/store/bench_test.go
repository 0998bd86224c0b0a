package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
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

// BenchmarkProposalRecords is what one proposal costs the store on the
// throughput run: its insert (with the audit entry), then the operator's
// decision. cpu-µs/op is this process's user+system time, fsyncs included,
// which is what the console pays; ns/op is mostly waiting for the disk.
func BenchmarkProposalRecords(b *testing.B) {
	st, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	preview := strings.Repeat("Instruction: System Program: transfer 0.001 SOL to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\n", 8)
	b.ReportAllocs()
	cpu0 := processCPU()
	user0, sys0 := processCPUSplit()
	n := 0
	for b.Loop() {
		id := fmt.Sprintf("p%08d", n)
		n++
		if err := st.InsertProposal(Proposal{ID: id, Client: "bench-agent-01 1", Tool: "transfer_sol", Fingerprint: "0123456789abcdef0123456789abcdef",
			Args: json.RawMessage(`{"lamports":"1000001","to":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"}`), Preview: preview, CreatedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
		if err := st.RecordDecision(Decision{ProposalID: id, DecidedBy: "bench-operator", DecidedAt: time.Now(), Outcome: OutcomeDenied, Reason: "throughput run", Latency: time.Millisecond}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(n), "cpu-µs/op")
	// The split: sys is mostly the kernel's work for the WAL's writes and
	// fsyncs (synchronous=FULL, not negotiable), user the store's and
	// SQLite's own code, the part a change here can move. The sum swings
	// with the disk's load; user alone is steadier to compare.
	user1, sys1 := processCPUSplit()
	b.ReportMetric(float64((user1-user0).Microseconds())/float64(n), "user-µs/op")
	b.ReportMetric(float64((sys1-sys0).Microseconds())/float64(n), "sys-µs/op")
}

// BenchmarkCanonicalBody is the audit entry's body of a proposal record.
func BenchmarkCanonicalBody(b *testing.B) {
	p := Proposal{ID: "p00000001", Client: "bench-agent-01 1", Tool: "transfer_sol", Fingerprint: "0123456789abcdef0123456789abcdef",
		Args:    json.RawMessage(`{"lamports":"1000001","to":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"}`),
		Preview: strings.Repeat("Instruction: System Program: transfer 0.001 SOL to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\n", 8), CreatedAt: time.Now()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canonicalBody(p); err != nil {
			b.Fatal(err)
		}
	}
}

// processCPUSplit is processCPU as user and system time.
func processCPUSplit() (user, sys time.Duration) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkProposalRecordsConcurrent is BenchmarkProposalRecords under the
// throughput run's load: 50 agents' proposals at once, so the writer
// commits what arrives during an fsync as one group. cpu-µs/op is this
// process's CPU a proposal (insert and decision); commits/op how many
// fsynced transactions a proposal took.
func BenchmarkProposalRecordsConcurrent(b *testing.B) {
	st, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	preview := strings.Repeat("Instruction: System Program: transfer 0.001 SOL to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\n", 8)
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(25) // 50 goroutines on 2 CPUs: the throughput run's 50 agents
	cpu0, commits0 := processCPU(), st.commits.Load()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := fmt.Sprintf("p%08d", next.Add(1))
			if err := st.InsertProposal(Proposal{ID: id, Client: "bench-agent-01 1", Tool: "transfer_sol", Fingerprint: "0123456789abcdef0123456789abcdef",
				Args: json.RawMessage(`{"lamports":"1000001","to":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"}`), Preview: preview, CreatedAt: time.Now()}); err != nil {
				b.Error(err)
				return
			}
			if err := st.RecordDecision(Decision{ProposalID: id, DecidedBy: "bench-operator", DecidedAt: time.Now(), Outcome: OutcomeDenied, Reason: "throughput run", Latency: time.Millisecond}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	n := float64(next.Load())
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/n, "cpu-µs/op")
	b.ReportMetric(float64(st.commits.Load()-commits0)/n, "commits/op")
}
