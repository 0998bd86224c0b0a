package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/tui"
)

func init() { extraCommands = append(extraCommands, newConsoleCmd) }

func newConsoleCmd() *cobra.Command {
	var sf *settingFlags
	cmd := &cobra.Command{
		Use:   "console",
		Short: "The approval console: holds the key, policy, caps and audit trail",
		Long: `console is the authority. Keep it open in a side terminal: it holds the
keypair and the RPC connection, queues the proposals your assistant makes
through ` + "`solgate mcp`" + `, shows each as solgate would execute it, and only your
key press issues the single-use token that lets the identical call execute.

Policy is deny by default: with no --allow-recipient every transfer is refused.

Every setting below can be given three ways, named after its flag:
  flag       --max-sol-per-tx 0.05        --allow-recipient A --allow-recipient B
  variable   SOLGATE_MAX_SOL_PER_TX=0.05  SOLGATE_ALLOW_RECIPIENT=A,B
  TOML file  max_sol_per_tx = 0.05        allow_recipient = ["A", "B"]
A flag beats a variable, a variable beats the --config file, and the file beats
the defaults; a list from one source replaces the list below it. Still read:
SOLGATE_STATE_DIR for SOLGATE_STATE, and the TOML keys allow_recipients,
allow_mints, deny_mints. An unknown TOML key or SOLGATE_* variable, or a bad
value anywhere, stops the console with an error naming where it came from.

The state directory keeps the spend ledger and the hash-chained audit trail
(` + "`solgate audit`" + ` verifies it); logs go to console.log there.`,
		Example: `  solgate console --rpc https://api.devnet.solana.com --allow-recipient <ADDR>
  solgate console --config ~/.config/solgate/policy.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := sf.build()
			if err != nil {
				return err
			}
			return runConsole(cmd.Context(), cmd.ErrOrStderr(), s)
		},
	}
	sf = registerSettings(cmd.Flags())
	cmd.Flags().SortFlags = false // the table's order: connection first, then policy
	return cmd
}

func runConsole(ctx context.Context, stderr io.Writer, s Settings) error {
	// Approvals need a human at a keyboard; a console under a pipe or a
	// service manager would have nobody to ask.
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return errors.New("solgate console needs an interactive terminal on stdin and stdout: approvals need a human at a keyboard. Run it in a terminal window (for scripts and tests, inside tmux)")
	}
	key, err := executor.LoadKeypair(s.Keypair)
	if err != nil {
		return err
	}
	auth, err := startAuthority(ctx, authorityConfig{
		rpc: s.RPC, key: key, socket: s.Socket, state: s.State, policy: s.Policy, swapAPI: s.SwapAPI, stderr: stderr, fees: s.Fees,
		swapAPIKey: s.SwapAPIKey, swapPrograms: s.SwapPrograms, logFile: s.LogFile,
		flood: floodLimits{maxPending: s.MaxPendingPerAgent, burst: s.ProposeBurst, every: s.ProposeEvery},
	})
	if err != nil {
		return err
	}
	defer auth.Close()
	return tui.Run(ctx, tui.Options{
		Hub:     auth.hub,
		Genesis: auth.genesis,
		NoColor: s.NoColor || os.Getenv("NO_COLOR") != "",
		NoBell:  s.NoBell, NotifyCommand: s.NotifyCommand, Logger: auth.log,
	})
}
