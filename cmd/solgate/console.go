package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/tui"
)

func init() { extraCommands = append(extraCommands, newConsoleCmd) }

type consoleOptions struct {
	rpc, keypair, socket, state, swapAPI string
	swapAPIKey                           string
	swapPrograms                         []string
	noColor                              bool
	policy                               policyFlags
	// Priority fees; the lead folds these into the settings table.
	feePercentile    int
	maxPriorityFee   uint64
	fixedPriorityFee uint64
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
			fees, err := o.feeSettings(cmd.Flags().Changed("priority-fee-lamports"))
			if err != nil {
				return err
			}
			return runConsole(cmd.Context(), cmd.ErrOrStderr(), o, cfg, fees)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.rpc, "rpc", defaultRPC, "Solana JSON-RPC endpoint (env SOLGATE_RPC)")
	f.StringVar(&o.keypair, "keypair", executor.DefaultKeypairPath(), "Solana CLI keypair file that signs and pays (env SOLGATE_KEYPAIR)")
	f.StringVar(&o.socket, "socket", mcpbridge.DefaultSocketPath(), "Unix socket the bridges connect to (env SOLGATE_SOCKET)")
	f.StringVar(&o.state, "state", defaultStateDir(), "state directory: spend ledger, audit trail, log (env SOLGATE_STATE_DIR)")
	f.StringVar(&o.swapAPI, "swap-api", "", "Jupiter Swap API v1 base URL (env SOLGATE_SWAP_API); without it swaps are refused")
	f.StringVar(&o.swapAPIKey, "swap-api-key", "", "API key sent to the swap API as x-api-key (env SOLGATE_SWAP_API_KEY; never printed or logged)")
	f.StringSliceVar(&o.swapPrograms, "swap-program", nil, "aggregator program allowed in swap transactions besides Jupiter v6, judged by the whole-wallet simulation (repeatable; env SOLGATE_SWAP_PROGRAM, comma-separated)")
	f.BoolVar(&o.noColor, "no-color", false, "no colours (also when NO_COLOR is set)")
	o.policy.register(f)
	f.IntVar(&o.feePercentile, "priority-fee-percentile", executor.DefaultPriorityFeePercentile, "priority fee: this percentile of recent non-zero fees for the accounts a transfer writes (1..100)")
	f.Uint64Var(&o.maxPriorityFee, "max-priority-fee-lamports", executor.DefaultPriorityFeeCapLamports, "cap on a transfer's priority fee (unit price × limit), in lamports; above it the cap is used and the preview says so")
	f.Uint64Var(&o.fixedPriorityFee, "priority-fee-lamports", 0, "fixed priority fee per transfer in lamports instead of the fee market (0 = no priority fee)")
	return cmd
}

// feeSettings checks the priority-fee flags, naming the one at fault.
func (o consoleOptions) feeSettings(fixed bool) (executor.FeeSettings, error) {
	fees := executor.FeeSettings{Percentile: o.feePercentile, MaxLamports: o.maxPriorityFee, Fixed: fixed, FixedLamports: o.fixedPriorityFee}
	switch {
	case o.feePercentile < 1 || o.feePercentile > 100:
		return fees, fmt.Errorf("--priority-fee-percentile (%s) %d: must be a whole percentile from 1 to 100", envName("priority-fee-percentile"), o.feePercentile)
	case fixed && o.fixedPriorityFee > o.maxPriorityFee:
		return fees, fmt.Errorf("--priority-fee-lamports (%s) %d is above --max-priority-fee-lamports %d: raise the cap or lower the fee", envName("priority-fee-lamports"), o.fixedPriorityFee, o.maxPriorityFee)
	}
	return fees, fees.Validate()
}

func runConsole(ctx context.Context, stderr io.Writer, o consoleOptions, cfg policy.Config, fees executor.FeeSettings) error {
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
		rpc: o.rpc, key: key, socket: o.socket, state: o.state, policy: cfg, swapAPI: o.swapAPI, stderr: stderr, fees: fees,
		swapAPIKey: o.swapAPIKey, swapPrograms: o.swapPrograms,
	})
	if err != nil {
		return err
	}
	defer auth.Close()
	return tui.Run(ctx, tui.Options{
		Hub:     auth.hub,
		Genesis: auth.genesis,
		NoColor: o.noColor || os.Getenv("NO_COLOR") != "",
	})
}
