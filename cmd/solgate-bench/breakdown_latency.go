package main

import (
	"context"
	"fmt"
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
// belong to the same proposals.
func shareRow(share []time.Duration) row {
	return latencyRow("info: propose → visible, solgate's share", share, nil,
		"per proposal: agent's transfer_sol call → EventProposalAdded at a hub subscriber, less that proposal's preview's wait for RPC answers; what remains is the agent's MCP client, the bridge, the socket, admission, policy, building, effects decoding and publishing (and, for the first proposal of a shape, nothing of the measuring simulation's wait: that is RPC wait too)")
}
