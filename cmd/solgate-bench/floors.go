package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/policy/store"
)

// measureFloors times the two things every proposal waits on and solgate
// cannot make faster by itself: one fsynced commit of the SQLite store (a
// proposal is one, a decision another; the store serialises them) and one
// JSON-RPC round trip to the ledger (a proposal makes three: blockhash,
// balances, simulation). They are measured in the same run so that a goal
// missed on a loaded machine can be read against the floor it stands on.
func measureFloors(ctx context.Context, w *world, n int) ([]row, error) {
	dir, err := os.MkdirTemp("", "sgbench-store")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(filepath.Join(dir, "state"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var commits []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := st.AppendAudit("bench", "", map[string]int{"i": i}); err != nil {
			return nil, fmt.Errorf("store append: %w", err)
		}
		commits = append(commits, time.Since(start))
	}

	var rpcs []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := w.chain.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed); err != nil {
			return nil, fmt.Errorf("getLatestBlockhash: %w", err)
		}
		rpcs = append(rpcs, time.Since(start))
	}
	return []row{
		latencyRow("floor: fsynced SQLite commit (audit append)", commits, nil,
			"store.AppendAudit on a scratch store in the same temp filesystem; a proposal costs one such commit, a decision another; writes that arrive during a commit share the next one (group commit)"),
		latencyRow("floor: localnet RPC round trip (getLatestBlockhash)", rpcs, nil,
			"the Node ledger on loopback; a proposal waits for one round: balances, simulation, balances and the fee market as one batch (see the round-trips row); blockhashes are refreshed in the background"),
	}, nil
}
