package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd()
	if err := root.ExecuteContext(ctx); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			fmt.Fprintln(os.Stderr, "solgate:", ee.msg)
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "solgate:", err)
		os.Exit(1)
	}
}

// exitError carries a specific exit status (e.g. 2 for "the chain did not confirm").
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "solgate",
		Short: "Let an AI assistant propose Solana spends that only a human can approve",
		Long: `solgate puts a human between an AI assistant and a Solana wallet.
Start with "solgate demo"; the commands are listed below.

The console's settings (and --rpc, --keypair, --socket, --state wherever a
command takes them) can also be set as SOLGATE_<FLAG> in the environment
(--rpc → SOLGATE_RPC, --max-sol-per-tx → SOLGATE_MAX_SOL_PER_TX) or, for the
console, in its --config TOML file; see solgate console --help.`,
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Every subcommand refuses a SOLGATE_* variable that is not a
		// setting: a typo in SOLGATE_SOCKET in an MCP client's config would
		// otherwise end at "no approval console is running".
		PersistentPreRunE: func(*cobra.Command, []string) error { return refuseUnknownEnv() },
	}
	// --version prints exactly what `solgate version` prints.
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetFlagErrorFunc(flagError)
	// Shell completion stays available (solgate completion bash) but out of
	// the overview, which lists what a newcomer runs.
	root.CompletionOptions.HiddenDefaultCmd = true
	root.AddCommand(newProveCmd(), newAuditCmd())
	for _, c := range extraCommands {
		root.AddCommand(c())
	}
	return root
}

// extraCommands lets subcommands that live in their own files register
// themselves without editing this one.
var extraCommands []func() *cobra.Command
