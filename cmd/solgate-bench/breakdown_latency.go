package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/solgate/solgate/executor"
)

// previewAloneRow times the part of propose → visible that is the ledger's
// round and the effects engine, apart from everything else solgate does on
// that path: the console's own executor previews n transfers in-process,
// one after another, as the hub's Prepare does (balances,
// simulation of the exact bytes, balances and the fee market in one batch,
// then the effects decoded). Read beside "propose → visible": the
// difference is the bridge, the socket, admission, policy and publishing.
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
		"executor.PreviewTransfer on the console's executor, called directly: the ledger's round (balances, simulation, balances and the fee market as one batch) and the effects decoding; propose → visible less this is the bridge, socket, admission, policy and publishing")
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
func shareRow(share []time.Duration, gc gcStats) row {
	const name = "info: propose → visible, solgate's share"
	if len(share) == 0 {
		return errorRow(name, fmt.Errorf("no proposals measured"))
	}
	return latencyRow(name, share, nil, fmt.Sprintf(
		"per proposal: agent's transfer_sol call → EventProposalAdded at a hub subscriber, less that proposal's preview's wait for RPC answers: the agent's MCP client, the bridge, the socket, admission, policy, building, effects decoding, queueing the record and publishing. Included: the first proposal (fresh connections, its shape's units measured first), %.2f ms of the samples; %d GC cycles of the bench process during the run, %.2f ms of stop-the-world pauses in all",
		float64(share[0])/1e6, gc.cycles, float64(gc.pause)/1e6))
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
