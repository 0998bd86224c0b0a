package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagGroup is one heading of `solgate console --help`. Seventy flags in one
// block hid the few a newcomer needs; grouped, each question ("where does it
// connect?", "what may the agent spend?") has one place to look.
type flagGroup struct {
	title string
	flags []string
}

// consoleFlagGroups orders every console flag under a heading. A flag missing
// here is listed under "Other" and fails TestConsoleHelpGroupsEveryFlag.
var consoleFlagGroups = []flagGroup{
	{"Network", []string{"rpc", "allow-mainnet", "allow-unknown-network",
		"priority-fee-source", "priority-fee-percentile", "priority-fee-lamports", "max-priority-fee-lamports", "verify-timeout"}},
	{"Key and state", []string{"config", "keypair", "state", "socket", "log-file", "check"}},
	{"Policy: what the agent may spend, and to whom", []string{"allow-recipient", "max-sol-per-tx", "max-sol-per-session", "max-sol-per-day",
		"max-token-per-tx", "max-token-per-session", "max-token-per-day", "allow-mint", "deny-mint",
		"allow-uncapped-token-transfers", "token-delivery", "no-grants"}},
	{"Kinds: swaps, transactions built elsewhere, x402, Actions", []string{"swap-api", "swap-api-version", "swap-api-key", "swap-api-key-file", "swap-program",
		"allow-uncapped-token-swaps", "max-slippage-bps", "max-price-impact-pct",
		"allow-program", "allow-x402-origin", "x402-pin-pay-to", "allow-action-origin"}},
	{"Operator: who may connect, and how you are told", []string{"allow-uid", "allow-gid", "require-agent-sections", "allow-shared-terminal",
		"approval-grace", "no-bell", "notify-command", "no-color",
		"max-pending-per-uid", "max-pending", "proposals-per-minute-per-uid", "max-connections-per-uid", "reserved-fds"}},
}

// groupedUsage prints cmd's usage with its flags under consoleFlagGroups'
// headings, in pflag's own format.
func groupedUsage(cmd *cobra.Command) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage:\n  %s\n", cmd.UseLine())
	if cmd.Example != "" {
		fmt.Fprintf(&b, "\nExamples:\n%s\n", cmd.Example)
	}
	all := cmd.Flags()
	seen := map[string]bool{}
	printGroup := func(title string, names []string) {
		fs := pflag.NewFlagSet(title, pflag.ContinueOnError)
		fs.SortFlags = false
		for _, n := range names {
			if f := all.Lookup(n); f != nil && !f.Hidden {
				fs.AddFlag(f)
				seen[n] = true
			}
		}
		if fs.HasFlags() {
			fmt.Fprintf(&b, "\n%s:\n%s", title, fs.FlagUsagesWrapped(100))
		}
	}
	for _, g := range consoleFlagGroups {
		printGroup(g.title, g.flags)
	}
	var rest []string
	all.VisitAll(func(f *pflag.Flag) {
		if !seen[f.Name] {
			rest = append(rest, f.Name)
		}
	})
	printGroup("Other", rest)
	_, err := fmt.Fprint(cmd.OutOrStderr(), b.String())
	return err
}
