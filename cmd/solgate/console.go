//go:build solgate_console_wip

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/hub"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
	"github.com/solgate/solgate/tui"
)

func init() { extraCommands = append(extraCommands, newConsoleCmd) }

type consoleOptions struct {
	rpc, keypair, socket, state, swapAPI string
	noColor                              bool
	policy                               policyFlags
}

func newConsoleCmd() *cobra.Command {
	o := consoleOptions{}
	cmd := &cobra.Command{
		Use:   "console",
		Short: "The approval console: holds the key, policy, caps and audit trail",
		Long: `console is the authority. Keep it open in a side terminal: it holds the
keypair and the RPC connection, queues the proposals your assistant makes
through ` + "`solgate mcp`" + `, shows each as solgate would execute it, and only your
key press issues the single-use token that lets the identical call execute.

Policy is deny by default: with no --allow-recipient every transfer is refused.
Settings come from defaults, then --config FILE (TOML), then SOLGATE_* variables
and flags. The state directory keeps the spend ledger and the hash-chained
audit trail (` + "`solgate audit`" + ` verifies it); logs go to console.log there.`,
		Example: `  solgate console --rpc https://api.devnet.solana.com --allow-recipient <ADDR>
  solgate console --config ~/.config/solgate/policy.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := o.policy.build(cmd.Flags())
			if err != nil {
				return err
			}
			return runConsole(cmd.Context(), cmd.ErrOrStderr(), o, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.rpc, "rpc", defaultRPC, "Solana JSON-RPC endpoint (env SOLGATE_RPC)")
	f.StringVar(&o.keypair, "keypair", executor.DefaultKeypairPath(), "Solana CLI keypair file that signs and pays (env SOLGATE_KEYPAIR)")
	f.StringVar(&o.socket, "socket", mcpbridge.DefaultSocketPath(), "Unix socket the bridges connect to (env SOLGATE_SOCKET)")
	f.StringVar(&o.state, "state", defaultStateDir(), "state directory: spend ledger, audit trail, log (env SOLGATE_STATE_DIR)")
	f.StringVar(&o.swapAPI, "swap-api", "", "Jupiter Swap API v1 base URL (env SOLGATE_SWAP_API); swaps are not available yet")
	f.BoolVar(&o.noColor, "no-color", false, "no colours (also when NO_COLOR is set)")
	o.policy.register(f)
	return cmd
}

func runConsole(ctx context.Context, stderr io.Writer, o consoleOptions, cfg policy.Config) error {
	// Approvals need a human at a keyboard; a console under a pipe or a
	// service manager would have nobody to ask.
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return errors.New("solgate console needs an interactive terminal on stdin and stdout: approvals need a human at a keyboard. Run it in a terminal window (for scripts and tests, inside tmux)")
	}
	key, err := executor.LoadKeypair(o.keypair)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.state, 0o700); err != nil {
		return fmt.Errorf("--state %s: %w", o.state, err)
	}
	logFile, err := os.OpenFile(filepath.Join(o.state, "console.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("--state %s: open log: %w", o.state, err)
	}
	defer logFile.Close()
	logger := slog.New(slog.NewTextHandler(logFile, nil))

	client := executor.NewClient(o.rpc, executor.ClientOptions{})
	defer client.Close()
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	network, genesis, err := client.DetectNetwork(dctx)
	cancel()
	if err != nil {
		return fmt.Errorf("--rpc %s: cannot reach the node: %w", o.rpc, err)
	}
	st, err := store.Open(o.state)
	if err != nil {
		return fmt.Errorf("--state %s: %w", o.state, err)
	}
	defer st.Close()
	spend, err := policy.NewSpend(st, nil)
	if err != nil {
		return fmt.Errorf("--state %s: restore spend ledger: %w", o.state, err)
	}
	ex := executor.New(client, key, executor.Options{})

	// Settle whatever a previous console left in flight before accepting writes.
	if err := hub.Reconcile(ctx, ex, spend, st, nil, func(line string) {
		fmt.Fprintln(stderr, "reconcile:", line)
		logger.Info("reconcile", "msg", line)
	}); err != nil {
		return err
	}

	h, err := hub.New(hub.Options{
		Executor: ex, Network: network, Genesis: genesis, Policy: cfg,
		Spend: spend, Store: st, Logger: logger,
	})
	if err != nil {
		return err
	}
	ln, err := mcpbridge.Listen(o.socket)
	if err != nil {
		return fmt.Errorf("--socket %s: %w", o.socket, err)
	}
	go func() {
		if err := h.Serve(ln); err != nil {
			logger.Error("socket server stopped", "err", err)
		}
	}()
	logger.Info("console started", "network", network, "wallet", key.PublicKey().String(), "socket", o.socket)

	runErr := tui.Run(ctx, tui.Options{
		Hub:     h,
		Genesis: genesis,
		NoColor: o.noColor || os.Getenv("NO_COLOR") != "",
	})
	// Stop taking calls, then let executions in flight settle the ledger.
	ln.Close()
	h.Close()
	return runErr
}
