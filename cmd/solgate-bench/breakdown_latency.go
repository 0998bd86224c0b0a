package main

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"time"

	"github.com/solgate/solgate/executor"
)

// previewAloneRow times the part of propose → visible that is the ledger's
// round and the effects engine, apart from everything else solgate does on
// that path: the console's own executor previews n transfers in-process,
// one after another, as the hub's Prepare does (balances,
// simulation of the exact bytes, balances and the fee market in one batch,
// then the effects decoded). solgate's part of "propose → visible" is the
// share row below, per proposal: percentiles do not subtract.
func previewAloneRow(ctx context.Context, c *console, w *world, n int) row {
	const name = "info: the proposal's round of RPCs alone (in-process preview)"
	var took []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := c.exec.PreviewTransfer(ctx, executor.Transfer{To: w.recipient, Lamports: w.nextAmount()}); err != nil {
			return errorRow(name, fmt.Errorf("preview transfer: %w", err))
		}
		took = append(took, time.Since(start))
	}
	return latencyRow(name, took, nil,
		"executor.PreviewTransfer on the console's executor, called directly: the ledger's round (balances, simulation, balances and the fee market as one batch) and the effects decoding; for solgate's part of propose → visible see the share row, taken per proposal (percentiles do not subtract)")
}

// shareRow is propose → visible less, for each proposal, the time its own
// preview spent waiting for the ledger's answers (executor.Preview.RPC,
// the executor's meter: wall time with a call in flight). Taken per
// proposal, not as a difference of percentiles, whose tails need not
// belong to the same proposals. The note names what the samples include
// that a steady console would not pay: the first proposal (a fresh bridge
// connection, and its shape's compute units measured by a simulation of
// their own, whose wait is subtracted), and the bench process's garbage
// collections over the run (its hub runs with the console's settings).
func shareRow(share []time.Duration, windows []window, gc gcStats) row {
	const name = "info: propose → visible, solgate's share"
	if len(share) == 0 || len(windows) != len(share) {
		return errorRow(name, fmt.Errorf("%d shares measured over %d windows", len(share), len(windows)))
	}
	slow, withGC := slowestWithGC(share, windows, gc)
	return latencyRow(name, share, nil, fmt.Sprintf(
		"per proposal: agent's transfer_sol call → EventProposalAdded at a hub subscriber, less that proposal's preview's wait for RPC answers: the agent's MCP client, the bridge, the socket, admission, policy, building, effects decoding, queueing the record and publishing. Included: the first proposal (fresh connections, its shape's units measured first), %.2f ms of the samples; %d GC cycles of the bench process during the run, %.2f ms of stop-the-world pauses in all; a cycle ended inside %d of the %d slowest shares",
		float64(share[0])/1e6, gc.cycles, float64(gc.pause)/1e6, withGC, slow))
}

// window is one proposal's propose → visible interval.
type window struct{ from, to time.Time }

// slowestWithGC counts how many of the slowest 1% of shares (at least one)
// had a garbage collection cycle end inside their window: the runtime
// keeps the end time of each of the last 256 cycles.
func slowestWithGC(share []time.Duration, windows []window, gc gcStats) (slow, withGC int) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	var ends []time.Time
	for i := uint32(0); i < gc.cycles && i < 256; i++ {
		ends = append(ends, time.Unix(0, int64(m.PauseEnd[(m.NumGC-1-i)%256])))
	}
	order := make([]int, len(share))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return share[order[a]] > share[order[b]] })
	slow = max(1, len(share)/100)
	for _, i := range order[:slow] {
		for _, e := range ends {
			if !e.Before(windows[i].from) && !e.After(windows[i].to) {
				withGC++
				break
			}
		}
	}
	return slow, withGC
}

// gcStats are the garbage collector's cycles and stop-the-world pause time
// of this process (the in-process hub's, the bench's own clients' too).
type gcStats struct {
	cycles uint32
	pause  time.Duration
}

func readGC() gcStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return gcStats{cycles: m.NumGC, pause: time.Duration(m.PauseTotalNs)}
}

func (g gcStats) since(o gcStats) gcStats {
	return gcStats{cycles: g.cycles - o.cycles, pause: g.pause - o.pause}
}
