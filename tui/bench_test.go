package tui

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority"
)

func manyProposals(n int) []*authority.Proposal {
	out := make([]*authority.Proposal, n)
	for i := range out {
		out[i] = transfer(int64(i+10), fmt.Sprintf("agent-%d 1.0", i%7), recipientKey, uint64(1_000_000+i), t0.Add(-time.Duration(n-i)*time.Second))
	}
	return out
}

// BenchmarkView renders the whole screen with n proposals queued and the
// selection in the middle of the queue.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{10, 10_000} {
		for _, size := range [][2]int{{80, 24}, {140, 40}} {
			b.Run(fmt.Sprintf("proposals=%d/%dx%d", n, size[0], size[1]), func(b *testing.B) {
				m := testModel(viewOpts{color: true}, manyProposals(n), spendState(0, 0, false))
				m.Update(sizeMsg(size[0], size[1]))
				m.queue.Select(n / 2)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_ = m.View()
				}
			})
		}
	}
}

// BenchmarkModelMemory reports the heap a console model holds with 10,000
// queued proposals (the hub's own snapshots are not counted). The 2 ms View()
// budget is judged by `make bench`, not by a timed unit test.
func BenchmarkModelMemory(b *testing.B) {
	proposals := manyProposals(10_000)
	var heap int64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := testModel(viewOpts{color: true}, proposals, spendState(0, 0, false))
		m.Update(sizeMsg(140, 40))
		_ = m.View()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(m)
	}
	b.ReportMetric(float64(heap)/1024, "heap-kB")
	runtime.KeepAlive(proposals)
}
