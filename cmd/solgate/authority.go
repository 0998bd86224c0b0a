package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/server"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// authorityConfig is what the console (and the demo) need to hold the key.
type authorityConfig struct {
	rpc    string
	key    *executor.Keypair
	socket string
	state  string
	policy policy.Config
	// swapAPI is a Jupiter Swap API base URL; empty: swaps are refused.
	swapAPI string
	// swapAPIVersion is executor.SwapAPIv2 (the console's default) or
	// SwapAPIv1; 0 (the demo, on localnet's SOL→token pool) means v1.
	swapAPIVersion int
	// swapAPIKey is sent as x-api-key; a secret, never printed or logged.
	swapAPIKey string
	// swapPrograms are aggregator programs allowed besides Jupiter v6 (base58).
	swapPrograms []string
	stderr       io.Writer // startup messages, before the TUI owns the terminal
	// admission admits other users' bridges (--allow-uid, --allow-gid).
	admission host.Admission
	// exposure is what the console found about who can reach it; nil: not checked (tests, demo).
	exposure *host.Exposure
	// fees choose transfers' priority fees; zero: the defaults.
	fees executor.FeeSettings
	// verifyWindow is how long a confirmed transaction is looked for; zero: the default.
	verifyWindow time.Duration
	// logFile overrides where the log goes (default console.log in state).
	logFile string
	// noGrants turns standing grants off (--no-grants).
	noGrants bool
	// flood holds the flood limits; zero values: the hub's defaults.
	flood floodLimits
}

// floodLimits are the flood limits per agent user and overall; zero: the
// defaults.
type floodLimits struct {
	maxPendingPerUID, maxPending, perMinute int
	maxConnsPerUID, reservedFDs             int
}

// runningAuthority is a running authority serving its socket, with everything it owns.
type runningAuthority struct {
	authority *authority.Hub
	genesis   string
	log       *slog.Logger
	closers   []func()
}

// Close stops taking calls, lets executions in flight settle the ledger,
// then closes the store, the RPC client and the log, in that order.
func (a *runningAuthority) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// startAuthority opens the state, reconciles what a previous run left in
// flight, and serves the hub on the socket. On error everything opened so far
// is closed again.
func startAuthority(ctx context.Context, c authorityConfig) (_ *runningAuthority, err error) {
	a := &runningAuthority{}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	if err := os.MkdirAll(c.state, 0o700); err != nil {
		return nil, fmt.Errorf("--state %s: %w", c.state, err)
	}
	if err := store.CheckPrivateDir(c.state); err != nil {
		return nil, fmt.Errorf("--state: %w", err)
	}
	// One console per state directory, whatever its --socket: taken before
	// anything in the directory is opened or written.
	unlock, err := store.LockDir(c.state)
	if err != nil {
		return nil, fmt.Errorf("--state: %w", err)
	}
	a.closers = append(a.closers, unlock)
	if c.exposure != nil {
		// The report (get_spend_status) describes the console as it runs:
		// the state directory exists now, whatever it was before start-up.
		exp := *c.exposure
		exp.State = host.StatFile(c.state)
		c.exposure = &exp
	}
	logPath, logFlag := filepath.Join(c.state, "console.log"), "--state "+c.state+": log"
	if c.logFile != "" {
		logPath, logFlag = c.logFile, "--log-file"
	}
	// The log rotates at a size cap and never blocks a caller: a full disk
	// drops log lines, never an approval.
	logFile, err := host.OpenLog(logFlag, logPath, host.LogOptions{})
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, func() { logFile.Close() })
	a.log = slog.New(slog.NewTextHandler(logFile, nil))
	// Whatever logs through slog.Default or the standard log package (a
	// library, net/http) also goes to the file: the TUI owns the terminal,
	// and a line written there would land on top of it.
	prev := slog.Default()
	slog.SetDefault(a.log)
	a.closers = append(a.closers, func() { slog.SetDefault(prev) })

	client := executor.NewClient(c.rpc, executor.ClientOptions{})
	a.closers = append(a.closers, func() { client.Close() })
	st, err := store.Open(c.state)
	if err != nil {
		return nil, fmt.Errorf("--state %s: %w", c.state, err)
	}
	a.closers = append(a.closers, func() { st.Close() })
	if note := st.HeadFileNote(); note != "" {
		fmt.Fprintln(c.stderr, "audit:", note)
		a.log.Warn("audit head file", "msg", note)
	}
	setup := startup.Setup{Client: client, Key: c.key, Store: st, Fees: c.fees, VerifyWindow: c.verifyWindow,
		Progress: func(line string) {
			fmt.Fprintln(c.stderr, "reconcile:", line)
			a.log.Info("reconcile", "msg", line)
		}}
	if c.swapAPI != "" {
		api, err := executor.NewSwapClient(c.swapAPI, executor.SwapClientOptions{APIKey: c.swapAPIKey, Version: c.swapAPIVersion})
		if err != nil {
			return nil, fmt.Errorf("--swap-api %s: %w", c.swapAPI, err)
		}
		if setup.SwapPrograms, err = parseSwapPrograms(c.swapPrograms); err != nil {
			return nil, err
		}
		setup.SwapAPI = api
	}
	server.Version = buildVersion()
	built, err := startup.Build(ctx, setup, authority.Options{
		Policy: c.policy, Logger: a.log, Exposure: c.exposure, NoGrants: c.noGrants,
		MaxPendingPerUID: c.flood.maxPendingPerUID, MaxPending: c.flood.maxPending, ProposalsPerMinute: c.flood.perMinute,
	})
	if err != nil {
		// Fail closed: a cluster that cannot be identified gets no write, and
		// its state directory's pin cannot be checked, so do not start.
		if errors.Is(err, startup.ErrNetworkUnidentified) {
			return nil, fmt.Errorf("--rpc %s: could not identify the network, so the console will not start (no write is allowed on a cluster it cannot identify); check the URL and that the node is up: %w", c.rpc, err)
		}
		var mm *store.ClusterMismatchError
		if errors.As(err, &mm) {
			return nil, otherClusterProblem(c.state, mm.Pinned, c.rpc, mm.Current)
		}
		return nil, fmt.Errorf("--state %s: %w", c.state, err)
	}
	h, network, genesis := built.Hub, built.Network(), built.Genesis
	a.genesis = genesis
	a.authority = h
	a.closers = append(a.closers, h.Close)
	ln, err := host.ListenConfig{Admission: c.admission, Logger: a.log,
		MaxConnsPerUID: c.flood.maxConnsPerUID, ReservedFDs: c.flood.reservedFDs}.Listen(c.socket)
	if err != nil {
		return nil, fmt.Errorf("--socket %s: %w", c.socket, err)
	}
	a.closers = append(a.closers, func() { ln.Close() })
	go func() {
		if err := server.Serve(ln, h, server.Options{Logger: a.log}); err != nil {
			a.log.Error("socket server stopped", "err", err)
		}
	}()
	a.log.Info("console started", "network", network, "wallet", c.key.PublicKey().String(), "socket", c.socket)
	return a, nil
}

// parseSwapPrograms reads --swap-program values: base58 program ids.
func parseSwapPrograms(ids []string) ([]solana.PublicKey, error) {
	var out []solana.PublicKey
	for _, id := range ids {
		pk, err := solana.PublicKeyFromBase58(strings.TrimSpace(id))
		if err != nil {
			return nil, fmt.Errorf("--swap-program %q: not a base58 program id (give an aggregator's program address, e.g. from its documentation)", id)
		}
		out = append(out, pk)
	}
	return out, nil
}
