package policy

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/solgate/solgate/policy/store"
)

func BenchmarkEvaluateAllowed(b *testing.B) {
	cfg := testConfig()
	p := transfer(addr(1), 50_000_000+fee)
	s := SpendState{SessionSpent: 200_000_000}
	b.ReportAllocs()
	for b.Loop() {
		if d := Evaluate(cfg, p, s); !d.Allowed {
			b.Fatal(d)
		}
	}
}

func BenchmarkEvaluateDeniedPerSession(b *testing.B) {
	cfg := testConfig()
	p := transfer(addr(1), 50_000_000+fee)
	s := SpendState{SessionSpent: 990_000_000}
	b.ReportAllocs()
	for b.Loop() {
		if d := Evaluate(cfg, p, s); d.Allowed {
			b.Fatal(d)
		}
	}
}

// benchReserve measures check-and-reserve under contention: every goroutine
// reserves and releases through the one ledger lock.
func benchReserve(b *testing.B, st *store.Store) {
	cfg := testConfig()
	cfg.MaxLamportsPerSession = MaxSaneLamports
	s, err := NewSpend(st, nil)
	if err != nil {
		b.Fatal(err)
	}
	p := transfer(addr(1), 5000)
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := strconv.FormatInt(next.Add(1), 10)
			d, err := s.Reserve(id, cfg, p)
			if err != nil || !d.Allowed {
				b.Fatal(d, err)
			}
			if err := s.Release(id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reservations/s")
}

func BenchmarkReserveParallelMemory(b *testing.B) { benchReserve(b, nil) }

// With the store every reservation and release is an fsynced transaction;
// this is the rate the console can actually sustain.
func BenchmarkReserveParallelPersisted(b *testing.B) {
	st, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	benchReserve(b, st)
}
