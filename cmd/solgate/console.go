package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/startup"

	// The write kinds register themselves with the approval core.
	_ "github.com/solgate/solgate/mcpbridge/authority/kinds"
	"github.com/solgate/solgate/policy/store"
	"github.com/solgate/solgate/tui"
)

func init() { extraCommands = append(extraCommands, newConsoleCmd) }

func newConsoleCmd() *cobra.Command {
	var sf *settingFlags
	var check bool
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
  solgate console --config '~/.config/solgate/solgate.toml'   # ~: the console user's home, not $HOME`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := sf.build()
			if err != nil {
				return err
			}
			return runConsole(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), s, check)
		},
	}
	sf = registerSettings(cmd.Flags())
	// --check is what to do, not how to run: not a setting of the table.
	cmd.Flags().BoolVar(&check, "check", false, "print who owns the key, the modes of the key file and the state dir, which users may connect, who can reach this terminal, and whether the config file, the notify program and the log file are the console user's alone; then exit (non-zero where the console would refuse to start)")
	cmd.Flags().SortFlags = false
	cmd.SetUsageFunc(groupedUsage)
	return cmd
}

func runConsole(ctx context.Context, stdout, stderr io.Writer, s Settings, check bool) error {
	// Before the key is read: from here on no other process of this user
	// can read the console's memory.
	if err := executor.MakeUndumpable(); err != nil {
		return fmt.Errorf("refusing to hold the key in a process others can read: %w", err)
	}
	adm := host.Admission{UIDs: s.AllowUIDs, GIDs: s.AllowGIDs}
	// The cluster first: it chooses the default state directory, and a
	// console that cannot identify it writes nothing (--check reports it).
	network, genesis, probeErr := probeRPC(ctx, s.RPC)
	if probeErr == nil && s.StateByCluster {
		dir, err := clusterStateDir(s.State, genesis)
		if err != nil {
			return err
		}
		s.State = dir
	}
	exp := exposureOf(s, adm)
	if check {
		return printCheck(stdout, s, exp, network, genesis, probeErr)
	}
	// Every file the console trusts, then its terminal: each refusal names
	// the file or the terminal and the fix.
	notify, problems := trustedFileProblems(s)
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	if problems := exp.TerminalProblems(); len(problems) > 0 && !s.AllowSharedTerminal {
		return terminalRefusal(problems)
	}
	// The key and the state must be this user's alone; checked first, so
	// the refusal names the file whatever else is wrong.
	key, err := executor.LoadKeypair(s.Keypair)
	if err != nil {
		return err
	}
	if exp.State.Err == nil {
		if err := store.CheckPrivateDir(s.State); err != nil {
			return fmt.Errorf("--state: %w", err)
		}
	}
	// Approvals need a human at a keyboard; a console under a pipe or a
	// service manager would have nobody to ask.
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return errors.New("solgate console needs an interactive terminal on stdin and stdout: approvals need a human at a keyboard. Run it in a terminal window (for scripts and tests, inside tmux)")
	}
	// Nobody else writes to this terminal while the console draws on it.
	reopen, err := host.CloseTTYToOthers()
	if err != nil {
		return err
	}
	defer reopen()
	startup.ConsoleRuntime(os.Getenv)
	// Refused here, after the key, the state and the terminal, as the
	// authority would refuse it: and before a default state directory is
	// chosen without knowing the cluster.
	if probeErr != nil {
		return fmt.Errorf("--rpc %s: could not identify the network, so the console will not start (no write is allowed on a cluster it cannot identify); check the URL and that the node is up: %w", s.RPC, probeErr)
	}
	auth, err := startAuthority(ctx, authorityConfig{
		rpc: s.RPC, key: key, socket: s.Socket, state: s.State, policy: s.Policy, swapAPI: s.SwapAPI, stderr: stderr, fees: s.Fees, verifyWindow: s.VerifyWindow,
		swapAPIKey: s.SwapAPIKey, swapAPIVersion: s.SwapAPIVersion, swapPrograms: s.SwapPrograms, logFile: s.LogFile,
		flood: floodLimits{maxPendingPerUID: s.MaxPendingPerUID, maxPending: s.MaxPending, perMinute: s.ProposalsPerMinute,
			maxConnsPerUID: s.MaxConnsPerUID, reservedFDs: s.ReservedFDs},
		admission: adm, exposure: exp, noGrants: s.NoGrants,
	})
	if err != nil {
		return err
	}
	defer auth.Close()
	opts := tui.Options{
		Service: consoleservice.Of(auth.authority),
		Genesis: auth.genesis,
		NoColor: s.NoColor || os.Getenv("NO_COLOR") != "",
		NoBell:  s.NoBell, Logger: auth.log, NoGrants: s.NoGrants,
		Grace: s.ApprovalGrace, TerminalCheck: terminalCheck(s, exp),
	}
	if notify != nil { // a nil *TrustedCommand is not a nil interface
		opts.NotifyCommand = notify
	}
	return tui.Run(ctx, opts)
}

// terminalCheck is what the console runs while it runs to see whether an
// admitted agent can reach a terminal showing it; nil when the operator
// accepted that (--allow-shared-terminal: the red line stays instead) or
// admits nobody.
func terminalCheck(s Settings, exp *host.Exposure) func() []string {
	if s.AllowSharedTerminal || exp.Admission.Empty() {
		return nil
	}
	return func() []string { return exp.LiveTerminalProblems(os.Getenv) }
}

// exposureOf gathers who can reach what the console guards.
func exposureOf(s Settings, adm host.Admission) *host.Exposure {
	dumpable, err := executor.Dumpable()
	var tty *host.TTY
	exp := &host.Exposure{
		TTY:            tty,
		SharedTerminal: s.AllowSharedTerminal,
		ConsoleUID:     uint32(os.Geteuid()),
		Key:            host.StatFile(s.Keypair),
		State:          host.StatFile(s.State),
		Socket:         s.Socket,
		Admission:      adm,
		Terminals:      host.DetectTerminals(os.Getenv),
		Dumpable:       dumpable || err != nil,
	}
	// The terminals around the console too: the processes above it (the
	// window around sudo or su -P) and its tmux server's clients and
	// access list.
	exp.RefreshTerminals(os.Getenv)
	return exp
}

// probeRPC asks the node at url for its genesis hash, within 10 s.
func probeRPC(ctx context.Context, url string) (executor.Network, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	client := executor.NewClient(url, executor.ClientOptions{})
	defer client.Close()
	return client.DetectNetwork(ctx)
}

// printCheck is `solgate console --check`: the situation before anything
// starts, and the same refusals the console would give. It fails when the
// console would refuse to start.
func printCheck(out io.Writer, s Settings, exp *host.Exposure, network executor.Network, genesis string, probeErr error) error {
	for _, l := range exp.Report() {
		fmt.Fprintln(out, l)
	}
	var problems []error
	// The console identifies the cluster before anything else and refuses
	// to start without it, so --check asks the node too.
	if probeErr != nil {
		problems = append(problems, fmt.Errorf("rpc %s cannot be reached, so the network cannot be identified (check --rpc or SOLGATE_RPC): %w", s.RPC, probeErr))
	} else {
		fmt.Fprintf(out, "rpc %s: %s (genesis %s)\n", s.RPC, network.Label(), genesis)
		// The console refuses a state directory of another cluster: so
		// does --check, rather than saying "ok" for it.
		switch pinned, err := store.PinnedCluster(s.State); {
		case err != nil:
			problems = append(problems, fmt.Errorf("--state %s: %w", s.State, err))
		case pinned != "" && pinned != genesis:
			problems = append(problems, otherClusterProblem(s.State, pinned, s.RPC, genesis))
		default:
			fmt.Fprintf(out, "state %s (this cluster's)\n", s.State)
		}
	}
	if key, err := executor.LoadKeypair(s.Keypair); err != nil {
		problems = append(problems, err)
	} else {
		fmt.Fprintln(out, "wallet", key.PublicKey())
	}
	if exp.State.Err == nil {
		if err := store.CheckPrivateDir(s.State); err != nil {
			problems = append(problems, err)
		}
	}
	_, fileProblems := trustedFileProblems(s)
	problems = append(problems, fileProblems...)
	if tp := exp.TerminalProblems(); len(tp) > 0 {
		if s.AllowSharedTerminal {
			for _, p := range tp {
				fmt.Fprintf(out, "WARNING: %s (--allow-shared-terminal: the console would start with a red warning)\n", p)
			}
		} else {
			problems = append(problems, terminalRefusal(tp))
		}
	}
	for _, uid := range exp.Admission.UIDs {
		for _, t := range exp.ReachableBy(uid) {
			fmt.Fprintf(out, "WARNING: %s: the %s %s belongs to an admitted agent user\n", host.WarnTerminal, t.Kind, t.Path)
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

// terminalRefusal is the console's refusal to start in a terminal an
// admitted agent can reach.
func terminalRefusal(problems []string) error {
	return fmt.Errorf("an admitted agent can reach this console's terminal, so it could repaint what you approve and read the keys you type: %s. Fix: %s",
		strings.Join(problems, "; "), host.TerminalFix)
}

// trustedFileProblems checks the files settings name that the console runs,
// reads or writes, every directory from / down to each (the config file is
// checked when it is read, in build; the key file and the state directory
// themselves by their loaders): the notify command (a program with fixed
// arguments, no shell), the log file, and the ways to the key, the state
// directory and the socket's directory. It returns the notify command,
// parsed and checked.
func trustedFileProblems(s Settings) (*host.TrustedCommand, []error) {
	var problems []error
	notify, err := host.ParseTrustedCommand("--notify-command", s.NotifyCommand)
	if err != nil {
		problems = append(problems, err)
	}
	if s.LogFile != "" {
		if err := host.CheckLogFile("--log-file", s.LogFile); err != nil {
			problems = append(problems, err)
		}
	}
	for _, p := range []struct{ what, path string }{
		{"--keypair", s.Keypair}, {"--state", s.State}, {"--socket", filepath.Dir(s.Socket)},
	} {
		if p.path == "" || p.path == "." {
			continue
		}
		if _, err := host.CheckTrustedPath(p.what, p.path); err != nil {
			problems = append(problems, err)
		}
	}
	return notify, problems
}
