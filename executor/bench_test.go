package executor_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
)

// BenchmarkPrepare times what building and simulating a transfer costs
// against localnet: for a proposal's preview (which may reuse a blockhash
// fetched a moment ago) and for execution (always a fresh blockhash).
func BenchmarkPrepare(b *testing.B) {
	for _, bc := range []struct {
		name    string
		prepare func(*executor.Executor, context.Context, executor.Transfer) (*executor.Prepared, error)
	}{
		{"preview", (*executor.Executor).PreviewTransfer},
		{"execution", (*executor.Executor).PrepareTransfer},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := newFixture(b, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
			to := freshAddress(b)
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				lamports := uint64(1_000_000 + i)
				start := time.Now()
				p, err := bc.prepare(f.ex, ctx, executor.Transfer{To: to, Lamports: lamports})
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				if p.Preview.SpendLamports != lamports+fee {
					b.Fatalf("preview spend %d, want %d", p.Preview.SpendLamports, lamports+fee)
				}
			}
			b.StopTimer()
			reportPercentiles(b, lat)
		})
	}
}

// reportPercentiles adds p50 and p99 in milliseconds to the benchmark line.
func reportPercentiles(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	at := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
