package authority_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// BenchmarkProposeDeny is one proposal of the throughput run, in one
// process: a client on the console's socket proposes a SOL transfer, and the
// operator denies it. The ledger runs in its own process, so the
// cpu-ms/op metric (this process's user+system time a proposal) is the
// console's hub plus one in-process HTTP client; -cpuprofile tells them
// apart.
func BenchmarkProposeDeny(b *testing.B) {
	w := newWorldB(b)
	c := mcpbridge.NewUnixHTTPClient(w.socket, 30*time.Second)
	defer c.CloseIdleConnections()
	ctx := context.Background()
	to := w.allowed.String()
	propose := func(lamports uint64) string {
		args, _ := json.Marshal(map[string]any{"to": to, "lamports": lamports})
		res, err := mcpbridge.PostCall(ctx, c, wire.CallRequest{Client: wire.ClientInfo{Name: "bench", Version: "1"}, Tool: wire.ToolTransferSOL, Arguments: args})
		if err != nil {
			b.Fatal(err)
		}
		if res.Status() != "pending_approval" {
			b.Fatalf("want pending_approval, got %q: %s", res.Status(), res.Text)
		}
		return res.Str("proposal_id")
	}
	propose(1_000_000) // warm: blockhash, fee market, connections
	b.ReportAllocs()
	cpu0, ledger0, gc0 := processCPU(), ledgerCPU(b, w), gcCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := propose(1_000_001 + uint64(i))
		if _, err := w.authority.Deny(id, "bench", "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(ledgerCPU(b, w)-ledger0)/1e6/float64(b.N), "ledger-cpu-ms/op")
	b.ReportMetric((gcCPU()-gc0)*1e3/float64(b.N), "gc-cpu-ms/op")
}

// BenchmarkProposeDenyConcurrent is BenchmarkProposeDeny under the
// throughput run's load: 50 clients propose at once, each denying its
// proposal as soon as it is answered, so the store's writer groups what
// arrives together and the hub's locks and events are contended as there.
// cpu-ms/op is this process's CPU a proposal (hub and the clients).
func BenchmarkProposeDenyConcurrent(b *testing.B) {
	w := newWorldB(b)
	to := w.allowed.String()
	clients := socketClients(b, w, 50)
	ctx := context.Background()
	var next atomic.Uint64
	propose := func(c *http.Client) (string, error) {
		args, _ := json.Marshal(map[string]any{"to": to, "lamports": 1_000_000 + next.Add(1)})
		res, err := mcpbridge.PostCall(ctx, c, wire.CallRequest{Client: wire.ClientInfo{Name: "bench", Version: "1"}, Tool: wire.ToolTransferSOL, Arguments: args})
		if err != nil {
			return "", err
		}
		if res.Status() != "pending_approval" {
			return "", fmt.Errorf("want pending_approval, got %q: %s", res.Status(), res.Text)
		}
		return res.Str("proposal_id"), nil
	}
	if _, err := propose(clients[0]); err != nil { // warm: blockhash, fee market, connections
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0, ledger0 := processCPU(), ledgerCPU(b, w)
	shareN(b, clients, func(c *http.Client) error {
		id, err := propose(c)
		if err == nil {
			_, err = w.authority.Deny(id, "bench", "bench")
		}
		return err
	})
	b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(ledgerCPU(b, w)-ledger0)/1e6/float64(b.N), "ledger-cpu-ms/op")
}

// gcCPU is the runtime's estimate of the CPU seconds the garbage collector
// has spent (mark assists, mark workers, pauses): the share of cpu-ms/op
// that GC settings move.
func gcCPU() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64()
}

// ledgerCPU is the ledger process's user+system time, from /proc (Linux).
func ledgerCPU(b *testing.B, w *world) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", w.ledger.Pid()))
	if err != nil {
		b.Skipf("ledger CPU: %v", err)
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ
	return time.Duration(ut+st) * time.Second / ticks
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// newWorldB is newWorld for a benchmark, with flood control out of the way.
// socketClients are n kept-alive HTTP clients on w's console socket, as
// many agents' bridges would hold; their connections close when b ends.
func socketClients(b *testing.B, w *world, n int) []*http.Client {
	clients := make([]*http.Client, n)
	for i := range clients {
		clients[i] = mcpbridge.NewUnixHTTPClient(w.socket, 30*time.Second)
		b.Cleanup(clients[i].CloseIdleConnections)
	}
	return clients
}

// shareN runs op b.N times in all, every client at once in a goroutine of
// its own, with the timer running only meanwhile.
func shareN(b *testing.B, clients []*http.Client, op func(*http.Client) error) {
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := op(c); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
}

func newWorldB(b *testing.B) *world {
	return newWorld(b, func(o *authority.Options) {
		o.MaxPendingPerUID, o.MaxPending, o.ProposalsPerMinute = math.MaxInt32, math.MaxInt32, math.MaxInt32
	})
}
