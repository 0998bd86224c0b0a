package main

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/server"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// world is the ledger every phase runs against: one localnet process, one
// funded wallet and one allowlisted recipient.
type world struct {
	ledger    *localnet.Ledger
	chain     *rpc.Client // the bench's own view of the ledger, for read-backs
	key       *executor.Keypair
	recipient solana.PublicKey
	slotMS    int
	bin       string // the solgate binary under test

	// amounts hands out distinct lamport amounts so that no two proposals
	// of the whole run share a fingerprint (identical arguments while
	// pending would return the same proposal).
	amounts atomic.Uint64
}

func startWorld(ctx context.Context, slotMS int, bin string) (*world, error) {
	l, err := localnet.Start(ctx, localnet.Options{SlotMS: slotMS})
	if err != nil {
		return nil, err
	}
	key, err := executor.NewRandomKeypair()
	if err != nil {
		l.Close()
		return nil, err
	}
	if err := l.Fund(ctx, key.PublicKey().String(), 100*solana.LAMPORTS_PER_SOL); err != nil {
		l.Close()
		return nil, err
	}
	rcpt, err := executor.NewRandomKeypair()
	if err != nil {
		l.Close()
		return nil, err
	}
	// A fee market, so every transfer asks getRecentPrioritizationFees,
	// bids a price and pays a priority fee, as on a busy cluster; the extra
	// round trip is RPC wait in the executor's meter, not solgate's work.
	if err := l.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{0, 50_000, 100_000, 200_000, 400_000}}); err != nil {
		l.Close()
		return nil, err
	}
	w := &world{ledger: l, chain: rpc.New(l.RPC()), key: key, recipient: rcpt.PublicKey(), slotMS: slotMS, bin: bin}
	// Above the rent-exempt minimum, so the first transfer to the fresh
	// recipient account is valid on its own.
	w.amounts.Store(1_000_000)
	return w, nil
}

func (w *world) close() { _ = w.ledger.Close() }

// nextAmount is a lamport amount no other proposal of this run uses.
func (w *world) nextAmount() uint64 { return w.amounts.Add(1) }

// benchPolicy allows the one recipient with caps far above anything the bench
// spends, so every proposal reaches the human's queue.
func (w *world) benchPolicy() (policy.Config, error) {
	cfg := policy.DefaultConfig()
	cfg.AllowRecipients = []string{w.recipient.String()}
	cfg.MaxLamportsPerTx = 1 * solana.LAMPORTS_PER_SOL
	cfg.MaxLamportsPerSession = 10_000 * solana.LAMPORTS_PER_SOL
	return cfg, cfg.Validate()
}

// console is an in-process hub wired the way `solgate console` wires it:
// executor on the ledger, SQLite store, spend ledger, Unix socket. The TUI is
// the only part missing; the bench plays the operator through the hub's Go API.
type console struct {
	authority *authority.Hub
	store     *store.Store
	socket    string
	dir       string
	ln        net.Listener
	exec      *executor.Executor
}

func (w *world) startConsole(ctx context.Context) (*console, error) {
	cfg, err := w.benchPolicy()
	if err != nil {
		return nil, err
	}
	// Short path: Unix socket paths are limited to ~108 bytes.
	dir, err := os.MkdirTemp("", "sgbench")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*console, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	st, err := store.Open(filepath.Join(dir, "state"))
	if err != nil {
		return fail(err)
	}
	client := executor.NewClient(w.ledger.RPC(), executor.ClientOptions{})
	// localnet's swap API, for the market section (the others never swap).
	swapAPI, err := executor.NewSwapClient(w.ledger.SwapAPI(), executor.SwapClientOptions{})
	if err != nil {
		st.Close()
		return fail(err)
	}
	built, err := startup.Build(ctx, startup.Setup{Client: client, Key: w.key, Store: st, SwapAPI: swapAPI}, authority.Options{Policy: cfg,
		// The bench drives one agent (or one process of 50 socket
		// clients) far past the per-agent flood limits on purpose: it
		// measures the console's capacity, not its flood control. The
		// flood section measures that, with the defaults.
		MaxPendingPerUID: math.MaxInt32, MaxPending: math.MaxInt32, ProposalsPerMinute: math.MaxInt32})
	if err != nil {
		st.Close()
		return fail(err)
	}
	h, ex := built.Hub, built.Executor
	sock := filepath.Join(dir, "run", "console.sock")
	ln, err := host.ListenConfig{MaxConnsPerUID: 1 << 16}.Listen(sock)
	if err != nil {
		h.Close()
		st.Close()
		return fail(fmt.Errorf("listen on %s: %w", sock, err))
	}
	go server.Serve(ln, h, server.Options{})
	return &console{authority: h, store: st, socket: sock, dir: dir, ln: ln, exec: ex}, nil
}

func (c *console) close() {
	c.ln.Close()
	c.authority.Close()
	c.store.Close()
	os.RemoveAll(c.dir)
}
