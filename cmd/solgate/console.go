package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/hub"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/tui"
)

func init() { extraCommands = append(extraCommands, newConsoleCmd) }

type consoleOptions struct {
	rpc, keypair, socket, state, swapAPI string
	noColor, noBell                      bool
	logFile, notifyCommand               string
	flood                                floodFlags
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
			if err := o.flood.check(); err != nil {
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
	f.StringVar(&o.swapAPI, "swap-api", "", "Jupiter Swap API v1 base URL (env SOLGATE_SWAP_API); without it swaps are refused")
	f.BoolVar(&o.noColor, "no-color", false, "no colours (also when NO_COLOR is set)")
	f.StringVar(&o.logFile, "log-file", "", "write the log here instead of console.log in the state directory")
	f.IntVar(&o.flood.maxPending, "max-pending-per-agent", hub.DefaultMaxPendingPerPeer, "proposals one agent process may have waiting for you; more are denied as retryable")
	f.IntVar(&o.flood.burst, "propose-burst", hub.DefaultProposeBurst, "proposals one agent process may make in a burst")
	f.DurationVar(&o.flood.every, "propose-every", hub.DefaultProposeEvery, "after a burst, one more proposal per agent process this often")
	f.BoolVar(&o.noBell, "no-bell", false, "do not ring the terminal bell when a proposal starts waiting")
	f.StringVar(&o.notifyCommand, "notify-command", "", "run this (sh -c) for every proposal that starts waiting; it gets SOLGATE_PROPOSAL_ID, _TOOL, _AMOUNT, _RECIPIENT, _NETWORK, _FLAGS, _WAITING (never a token)")
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
	auth, err := startAuthority(ctx, authorityConfig{
		rpc: o.rpc, key: key, socket: o.socket, state: o.state, policy: cfg, swapAPI: o.swapAPI, stderr: stderr,
		logFile: o.logFile, flood: o.flood,
	})
	if err != nil {
		return err
	}
	defer auth.Close()
	return tui.Run(ctx, tui.Options{
		Hub:     auth.hub,
		Genesis: auth.genesis,
		NoColor: o.noColor || os.Getenv("NO_COLOR") != "",
		NoBell:  o.noBell, NotifyCommand: o.notifyCommand, Logger: auth.log,
	})
}
