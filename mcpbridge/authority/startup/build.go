// Package startup assembles an authority in the one order that is safe:
// identify the cluster, pin the state to it, restore the spend ledger,
// settle what a previous console left in flight, and only then make the
// hub. It also holds the settings of the process that hosts a hub.
package startup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/reconcile"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// Setup is what an authority is built from: the chain, the key and the
// state. The console, the demo, the bench and the tests all build theirs
// with Build, so none of them can skip a step (the bench's hand-wired copy
// once skipped reconciliation).
type Setup struct {
	Client *executor.Client  // RPC of the cluster; the caller closes it
	Key    *executor.Keypair // the signing key
	Store  *store.Store      // the state; the caller closes it after the hub
	Fees   executor.FeeSettings
	// VerifyWindow is how long a confirmed transaction is looked for
	// before its outcome is unknown; zero: executor.DefaultVerifyWindow.
	VerifyWindow time.Duration
	// PreviewBlockhashAge is how long previews may reuse a blockhash
	// (tests that count RPCs); zero: the executor's default.
	PreviewBlockhashAge time.Duration
	// SwapAPI is the aggregator's API; nil: swaps are refused.
	SwapAPI      *executor.SwapClient
	SwapPrograms []solana.PublicKey // aggregator programs allowed besides Jupiter v6
	// ReconcileNow is reconciliation's clock (tests); nil: time.Now.
	ReconcileNow func() time.Time
	// Progress hears one line per reconciliation decision; nil: dropped.
	Progress func(line string)
}

// Built is a hub with the parts Build made for it.
type Built struct {
	*authority.Hub
	Executor *executor.Executor
	Spend    *policy.Spend
	Genesis  string // the cluster's genesis hash (its network: authority.Hub.Network)
}

// ErrNetworkUnidentified wraps a failure to read the cluster's genesis hash:
// a cluster that cannot be identified gets no write, so nothing is built.
var ErrNetworkUnidentified = errors.New("could not identify the network")

// Build identifies the cluster, pins the state directory to it, restores
// the spend ledger, settles what a previous console left in flight, and only
// then makes the hub, in that order. opts carries the rest (policy, limits,
// logger, TTLs); its Executor, Swapper, Network, Genesis, Spend and Store
// are Build's. A state directory of another cluster is a
// *store.ClusterMismatchError.
func Build(ctx context.Context, s Setup, opts authority.Options) (*Built, error) {
	if s.Client == nil || s.Key == nil || s.Store == nil {
		return nil, errors.New("authority: Client, Key and Store are required")
	}
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	network, genesis, err := s.Client.DetectNetwork(dctx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNetworkUnidentified, err)
	}
	if err := s.Store.PinCluster(genesis); err != nil {
		return nil, err
	}
	spend, err := policy.NewSpend(s.Store, nil)
	if err != nil {
		return nil, fmt.Errorf("restore spend ledger: %w", err)
	}
	ex := executor.New(s.Client, s.Key, executor.Options{Fees: s.Fees, VerifyWindow: s.VerifyWindow, PreviewBlockhashAge: s.PreviewBlockhashAge})
	if err := reconcile.Run(ctx, ex, spend, s.Store, s.ReconcileNow, s.Progress); err != nil {
		return nil, err
	}
	opts.Executor, opts.Network, opts.Genesis, opts.Spend, opts.Store = ex, network, genesis, spend, s.Store
	opts.Swapper = nil
	if s.SwapAPI != nil {
		opts.Swapper = executor.NewSwapper(ex, s.SwapAPI, executor.SwapOptions{SwapPrograms: s.SwapPrograms})
	}
	h, err := authority.New(opts)
	if err != nil {
		return nil, err
	}
	return &Built{Hub: h, Executor: ex, Spend: spend, Genesis: genesis}, nil
}
