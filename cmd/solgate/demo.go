package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gagliardetto/solana-go"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
)

func init() { extraCommands = append(extraCommands, newDemoCmd) }

func newDemoCmd() *cobra.Command {
	var slotMS int
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Start a throwaway local ledger and push a real transfer through solgate",
		Long: `demo starts localnet (the real Solana VM from npm litesvm behind a standard
JSON-RPC on 127.0.0.1), creates and funds a throwaway wallet, and runs
` + "`solgate prove`" + ` against it: one transfer simulated, signed, sent, confirmed and
verified on the ledger. Nothing touches a public network and nothing is installed
at run time (` + "`make demo`" + ` installs localnet's npm packages first).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), slotMS)
		},
	}
	cmd.Flags().IntVar(&slotMS, "slot-ms", 400, "ledger slot time in milliseconds")
	return cmd
}

func runDemo(ctx context.Context, stdout, stderr io.Writer, slotMS int) error {
	fmt.Fprintln(stderr, "starting localnet (litesvm) on 127.0.0.1 …")
	l, err := localnet.Start(ctx, localnet.Options{SlotMS: slotMS})
	if err != nil {
		return err
	}
	defer l.Close()

	dir, err := os.MkdirTemp("", "solgate-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	wallet, err := executor.NewRandomKeypair()
	if err != nil {
		return err
	}
	keyPath := filepath.Join(dir, "demo-wallet.json")
	if err := wallet.WriteFile(keyPath); err != nil {
		return err
	}
	if err := l.Fund(ctx, wallet.PublicKey().String(), 2*solana.LAMPORTS_PER_SOL); err != nil {
		return fmt.Errorf("fund demo wallet: %w", err)
	}
	fmt.Fprintf(stderr, "ledger %s, demo wallet %s funded with 2 SOL\n\n", l.RPC(), wallet.PublicKey())
	return runProve(ctx, stdout, stderr, proveOptions{
		rpc: l.RPC(), keypair: keyPath, lamports: 50_000_000, timeout: defaultProveTimeout,
	})
}
