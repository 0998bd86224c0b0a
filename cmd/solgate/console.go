package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

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
	noColor, check                       bool
	allowUIDs, allowGIDs                 []uint
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
			return runConsole(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o, cfg, fees)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.rpc, "rpc", defaultRPC, "Solana JSON-RPC endpoint (env SOLGATE_RPC)")
	f.StringVar(&o.keypair, "keypair", executor.DefaultKeypairPath(), "Solana CLI keypair file that signs and pays (env SOLGATE_KEYPAIR)")
	f.StringVar(&o.socket, "socket", mcpbridge.DefaultSocketPath(), "Unix socket the bridges connect to (env SOLGATE_SOCKET)")
	f.StringVar(&o.state, "state", defaultStateDir(), "state directory: spend ledger, audit trail, log (env SOLGATE_STATE_DIR)")
	f.StringVar(&o.swapAPI, "swap-api", "", "Jupiter Swap API v1 base URL (env SOLGATE_SWAP_API); without it swaps are refused")
	f.BoolVar(&o.noColor, "no-color", false, "no colours (also when NO_COLOR is set)")
	f.UintSliceVar(&o.allowUIDs, "allow-uid", nil, "uid whose `solgate mcp` may connect, besides the console's own user (repeatable; env SOLGATE_ALLOW_UID)")
	f.UintSliceVar(&o.allowGIDs, "allow-gid", nil, "gid whose members' `solgate mcp` may connect (repeatable; env SOLGATE_ALLOW_GID)")
	f.BoolVar(&o.check, "check", false, "print who can reach the key, the state and this terminal, and which users may connect; then exit")
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

func runConsole(ctx context.Context, stdout, stderr io.Writer, o consoleOptions, cfg policy.Config, fees executor.FeeSettings) error {
	// Before the key is read: from here on no other process of this user
	// can read the console's memory.
	if err := executor.MakeUndumpable(); err != nil {
		return fmt.Errorf("refusing to hold the key in a process others can read: %w", err)
	}
	adm, err := admissionOf(o.allowUIDs, o.allowGIDs)
	if err != nil {
		return err
	}
	exp := exposureOf(o, adm)
	if o.check {
		return printCheck(stdout, o, exp)
	}
	// The key and the state must be this user's alone; checked first, so
	// the refusal names the file whatever else is wrong.
	key, err := executor.LoadKeypair(o.keypair)
	if err != nil {
		return err
	}
	if exp.State.Err == nil {
		if err := store.CheckPrivateDir(o.state); err != nil {
			return fmt.Errorf("--state: %w", err)
		}
	}
	// Approvals need a human at a keyboard; a console under a pipe or a
	// service manager would have nobody to ask.
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return errors.New("solgate console needs an interactive terminal on stdin and stdout: approvals need a human at a keyboard. Run it in a terminal window (for scripts and tests, inside tmux)")
	}
	auth, err := startAuthority(ctx, authorityConfig{
		rpc: o.rpc, key: key, socket: o.socket, state: o.state, policy: cfg, swapAPI: o.swapAPI, stderr: stderr, fees: fees,
		admission: adm, exposure: exp,
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

// admissionOf turns --allow-uid / --allow-gid into an admission; ids are
// 32-bit on Linux.
func admissionOf(uids, gids []uint) (mcpbridge.Admission, error) {
	var a mcpbridge.Admission
	for _, u := range uids {
		if u > math.MaxUint32 {
			return a, fmt.Errorf("--allow-uid %d (%s): not a uid; accepted: 0 to %d", u, envName("allow-uid"), uint32(math.MaxUint32))
		}
		a.UIDs = append(a.UIDs, uint32(u))
	}
	for _, g := range gids {
		if g > math.MaxUint32 {
			return a, fmt.Errorf("--allow-gid %d (%s): not a gid; accepted: 0 to %d", g, envName("allow-gid"), uint32(math.MaxUint32))
		}
		a.GIDs = append(a.GIDs, uint32(g))
	}
	return a, nil
}

// exposureOf gathers who can reach what the console guards.
func exposureOf(o consoleOptions, adm mcpbridge.Admission) *hub.Exposure {
	dumpable, err := executor.Dumpable()
	return &hub.Exposure{
		ConsoleUID: uint32(os.Geteuid()),
		Key:        hub.StatFile(o.keypair),
		State:      hub.StatFile(o.state),
		Socket:     o.socket,
		Admission:  adm,
		Terminals:  hub.DetectTerminals(os.Getenv),
		Dumpable:   dumpable || err != nil,
	}
}

// printCheck is `solgate console --check`: the situation before anything
// starts, and the same refusals the console would give. It fails when the
// console would refuse to start.
func printCheck(out io.Writer, o consoleOptions, exp *hub.Exposure) error {
	for _, l := range exp.Report() {
		fmt.Fprintln(out, l)
	}
	var problems []error
	if key, err := executor.LoadKeypair(o.keypair); err != nil {
		problems = append(problems, err)
	} else {
		fmt.Fprintln(out, "wallet", key.PublicKey())
	}
	if exp.State.Err == nil {
		if err := store.CheckPrivateDir(o.state); err != nil {
			problems = append(problems, err)
		}
	}
	for _, uid := range exp.Admission.UIDs {
		for _, t := range exp.ReachableBy(uid) {
			fmt.Fprintf(out, "WARNING: %s: the %s %s belongs to an admitted agent user\n", hub.WarnTerminal, t.Kind, t.Path)
		}
	}
	if exp.Admission.Empty() {
		fmt.Fprintln(out, "WARNING: only the console's own user may connect: an agent that runs as this user can use the key without you (see README, Run it safely)")
	}
	for _, p := range problems {
		fmt.Fprintln(out, "REFUSED:", p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the console would refuse to start: %w", errors.Join(problems...))
	}
	fmt.Fprintln(out, "ok: the console would start with this key and state directory")
	return nil
}
