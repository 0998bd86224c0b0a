package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/charmbracelet/x/term"
	"github.com/gagliardetto/solana-go"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
	"github.com/solgate/solgate/mcpbridge/demoagent"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/tui"
)

func init() { extraCommands = append(extraCommands, newDemoCmd) }

type demoOptions struct {
	slotMS  int
	prove   bool
	noColor bool
}

func newDemoCmd() *cobra.Command {
	o := demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch solgate guard a wallet: a local ledger, the console and a scripted assistant",
		Long: `demo starts localnet (the real Solana VM from npm litesvm behind a standard
JSON-RPC on 127.0.0.1), a throwaway wallet funded with 2 SOL, the approval
console on it with a demo policy (one allowed recipient, caps 0.1 SOL per
transfer and 1 SOL per session), and a scripted assistant that drives
` + "`solgate mcp`" + ` like a model would: it reads the balance, proposes 0.05 SOL and
waits for you (press a to approve, d to deny), tries 4.6 SOL, and tries a
look-alike address, then looks up and proposes a swap into a token whose name
tries to talk it into something, and last sends 2.5 of a USDC-like demo token
with transfer_token, under a per-mint cap of 5.0 (each waits for your a or d).
Its narration appears in the console's log.

Nothing touches a public network and nothing is installed at run time
(` + "`make demo`" + ` installs localnet's npm packages first). With --prove it instead
pushes one transfer through the executor and prints a PROOF block, no terminal needed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.prove {
				return runDemoProve(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o.slotMS)
			}
			return runDemo(cmd.Context(), cmd.ErrOrStderr(), o)
		},
	}
	cmd.Flags().IntVar(&o.slotMS, "slot-ms", 400, "ledger slot time in milliseconds")
	cmd.Flags().BoolVar(&o.prove, "prove", false, "only push one transfer and print its PROOF block")
	cmd.Flags().BoolVar(&o.noColor, "no-color", false, "no colours (also when NO_COLOR is set)")
	return cmd
}

// demoLedger starts localnet with a funded throwaway wallet written to dir.
func demoLedger(ctx context.Context, stderr io.Writer, slotMS int, dir string) (*localnet.Ledger, *executor.Keypair, string, error) {
	fmt.Fprintln(stderr, "starting localnet (litesvm) on 127.0.0.1 …")
	l, err := localnet.Start(ctx, localnet.Options{SlotMS: slotMS})
	if err != nil {
		return nil, nil, "", err
	}
	wallet, err := executor.NewRandomKeypair()
	if err != nil {
		l.Close()
		return nil, nil, "", err
	}
	keyPath := filepath.Join(dir, "demo-wallet.json")
	if err := wallet.WriteFile(keyPath); err != nil {
		l.Close()
		return nil, nil, "", err
	}
	if err := l.Fund(ctx, wallet.PublicKey().String(), 2*solana.LAMPORTS_PER_SOL); err != nil {
		l.Close()
		return nil, nil, "", fmt.Errorf("fund demo wallet: %w", err)
	}
	fmt.Fprintf(stderr, "ledger %s, demo wallet %s funded with 2 SOL\n", l.RPC(), wallet.PublicKey())
	return l, wallet, keyPath, nil
}

func runDemoProve(ctx context.Context, stdout, stderr io.Writer, slotMS int) error {
	dir, err := os.MkdirTemp("", "solgate-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	l, _, keyPath, err := demoLedger(ctx, stderr, slotMS, dir)
	if err != nil {
		return err
	}
	defer l.Close()
	return runProve(ctx, stdout, stderr, proveOptions{
		rpc: l.RPC(), keypair: keyPath, lamports: 50_000_000, timeout: defaultProveTimeout,
	})
}

func runDemo(ctx context.Context, stderr io.Writer, o demoOptions) error {
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return errors.New("solgate demo needs an interactive terminal (it opens the approval console); for a non-interactive run use `solgate demo --prove`")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the solgate binary for the demo agent: %w", err)
	}
	// Short: Unix socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "sgdemo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	l, wallet, _, err := demoLedger(ctx, stderr, o.slotMS, dir)
	if err != nil {
		return err
	}
	defer l.Close()
	// A modest fee market, so the transfer's preview shows a priority fee
	// (p75 of these: 50 000 micro-lamports per unit) as on a busy cluster.
	if err := l.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{0, 10_000, 20_000, 50_000, 80_000}}); err != nil {
		return fmt.Errorf("demo fee market: %w", err)
	}

	friend, err := executor.NewRandomKeypair()
	if err != nil {
		return err
	}
	cfg := policy.DefaultConfig()
	cfg.AllowRecipients = []string{friend.PublicKey().String()}
	// The wallet holds 25 of the USDC-like demo token, and may send at most
	// 5 of it per transfer (a cap in display units, read with its decimals).
	tokenMint := l.DemoMints().USDC.Mint
	if _, err := l.MintTo(ctx, tokenMint, wallet.PublicKey().String(), 25_000_000); err != nil {
		return fmt.Errorf("demo tokens: %w", err)
	}
	tokenCap, err := policy.ParseTokenCap(tokenMint + "=5.0")
	if err != nil {
		return err
	}
	cfg.MaxTokenPerTx = []policy.TokenCap{tokenCap}
	socket := filepath.Join(dir, "run", "console.sock")
	auth, err := startAuthority(ctx, authorityConfig{
		rpc: l.RPC(), key: wallet, socket: socket, state: filepath.Join(dir, "state"), policy: cfg,
		swapAPI: l.SwapAPI(), stderr: stderr,
	})
	if err != nil {
		return err
	}
	defer auth.Close()

	agentCtx, stopAgent := context.WithCancel(ctx)
	defer stopAgent()
	go func() {
		err := demoagent.Run(agentCtx, demoagent.Config{
			Command: self, Args: []string{"mcp", "--socket", socket},
			Recipient: friend.PublicKey(),
			BaitMint:  solana.MustPublicKeyFromBase58(l.DemoMints().Bait.Mint),
			TokenMint: solana.MustPublicKeyFromBase58(tokenMint),
			Narrate:   func(line string) { auth.authority.Note("demo-agent", line) },
		})
		if err != nil && agentCtx.Err() == nil {
			auth.authority.Note("demo-agent", "the demo agent stopped: "+err.Error())
		}
	}()
	return tui.Run(ctx, tui.Options{
		Service: consoleservice.Of(auth.authority), Genesis: auth.genesis,
		NoColor: o.noColor || os.Getenv("NO_COLOR") != "",
	})
}
