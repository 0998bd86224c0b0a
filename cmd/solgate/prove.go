package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
)

type proveOptions struct {
	rpc, keypair string // from the settings table (rows rpc, keypair)
	to           string
	lamports     uint64
	allowMainnet bool
	// allowUnknown: an unrecognised cluster off this machine may hold real
	// funds, so it needs its own opt-in, like mainnet.
	allowUnknown bool
	timeout      time.Duration
}

func newProveCmd() *cobra.Command {
	o := proveOptions{}
	var sf *settingFlags
	cmd := &cobra.Command{
		Use:   "prove",
		Short: "Push one real transfer through the executor and print a PROOF block",
		Long: `prove sends one SOL transfer through exactly the path the console uses —
fresh blockhash, simulate, sign, send, rebroadcast, confirm — then re-fetches
the transaction from the chain and prints a PROOF block with the signature,
slot, wall time and the verified fee and balance changes.

It exits 0 only when the chain confirmed the transfer and the re-fetch agrees.
Without --to it sends to a fresh random address (so --lamports must cover the
rent-exempt minimum, 890880 lamports). On mainnet it refuses to run unless
--allow-mainnet is given: it moves real funds. On a cluster whose genesis hash
is none of the public ones and whose RPC is not on this machine, it refuses
unless --allow-unknown-network is given.`,
		Example: `  solgate prove --rpc http://127.0.0.1:8899 --keypair ~/.config/solana/id.json
  solgate prove --rpc https://api.devnet.solana.com --to <ADDR> --lamports 1000000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := sf.build()
			if err != nil {
				return err
			}
			o.rpc, o.keypair = s.RPC, s.Keypair
			return runProve(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	sf = registerSettings(f, "rpc", "keypair")
	f.StringVar(&o.to, "to", "", "recipient address (default: a fresh random address)")
	f.Uint64Var(&o.lamports, "lamports", 1_000_000, "amount in lamports (1 SOL = 1000000000)")
	f.BoolVar(&o.allowMainnet, "allow-mainnet", false, "allow running on mainnet-beta, spending real SOL")
	f.BoolVar(&o.allowUnknown, "allow-unknown-network", false, "allow running on a cluster with an unrecognised genesis hash that is not on this machine")
	f.DurationVar(&o.timeout, "timeout", defaultProveTimeout, "give up waiting for the chain after this long (the outcome is then unknown)")
	return cmd
}

// defaultRPC is a local validator's address: a default that cannot spend real funds.
const defaultRPC = "http://127.0.0.1:8899"

// defaultProveTimeout covers a blockhash lifetime (~60–90 s on public clusters) so
// that a dropped transaction is normally declared expired rather than unknown.
const defaultProveTimeout = 120 * time.Second

func runProve(ctx context.Context, stdout, stderr io.Writer, o proveOptions) error {
	if o.lamports == 0 {
		return fmt.Errorf("--lamports must be greater than zero (1 SOL = 1000000000 lamports)")
	}
	key, err := executor.LoadKeypair(o.keypair)
	if err != nil {
		return err
	}
	var to solana.PublicKey
	if o.to == "" {
		fresh, err := executor.NewRandomKeypair()
		if err != nil {
			return err
		}
		to = fresh.PublicKey()
	} else if to, err = solana.PublicKeyFromBase58(o.to); err != nil {
		return fmt.Errorf("--to %q is not a base58 Solana address: %v", o.to, err)
	}

	client := executor.NewClient(o.rpc, executor.ClientOptions{})
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	network, genesis, err := client.DetectNetwork(ctx)
	if err != nil {
		return fmt.Errorf("cannot reach %s: %w", o.rpc, err)
	}
	if network.IsMainnet() && !o.allowMainnet {
		return fmt.Errorf("%s is MAINNET (genesis %s): prove would spend real SOL; pass --allow-mainnet if you mean it", o.rpc, genesis)
	}
	if network == executor.UnknownNetwork && !o.allowUnknown {
		return fmt.Errorf("%s is an UNKNOWN NETWORK (genesis %s is none of the public clusters' and the RPC is not on this machine): its SOL may be real; pass --allow-unknown-network if you mean it", o.rpc, genesis)
	}

	ex := executor.New(client, key, executor.Options{})
	res, err := ex.ExecuteTransfer(ctx, executor.Transfer{To: to, Lamports: o.lamports}, func(p executor.Progress) {
		switch p.Step {
		case executor.StepConfirming:
			if p.Attempt%5 == 1 {
				fmt.Fprintf(stderr, "  confirming %s … %s\n", short(p.Signature.String()), p.Elapsed.Round(100*time.Millisecond))
			}
		case executor.StepRebroadcast:
			fmt.Fprintf(stderr, "  rebroadcast #%d (signature not seen yet)\n", p.Attempt)
		case executor.StepDone:
		default:
			fmt.Fprintf(stderr, "  %s\n", p.Step)
		}
	})
	if err != nil {
		return exitError{code: 2, msg: "no transaction was sent: " + err.Error()}
	}
	printProof(stdout, network, genesis, key.PublicKey(), to, o.lamports, res)
	if res.Outcome != executor.Executed {
		return exitError{code: 2, msg: fmt.Sprintf("NOT PROVEN: outcome %s: %s", res.Outcome, res.Reason)}
	}
	return nil
}

func printProof(w io.Writer, network executor.Network, genesis string, from, to solana.PublicKey, lamports uint64, r *executor.Result) {
	title := "PROOF"
	if r.Outcome != executor.Executed {
		title = "NO PROOF — " + string(r.Outcome)
	}
	t := r.Timings
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "  network    %s (genesis %s)\n", network.Label(), genesis)
	fmt.Fprintf(w, "  from       %s\n", from)
	fmt.Fprintf(w, "  to         %s\n", to)
	fmt.Fprintf(w, "  amount     %d lamports (%s SOL)\n", lamports, executor.FormatSOL(lamports))
	fmt.Fprintf(w, "  signature  %s\n", r.Signature)
	fmt.Fprintf(w, "  slot       %d\n", r.Slot)
	fmt.Fprintf(w, "  wall time  %s (simulate %s, sign %s, send %s, confirm %s, verify %s)\n",
		ms(t.Total), ms(t.Simulate), ms(t.Sign), ms(t.Send), ms(t.Confirm), ms(t.Verify))
	fmt.Fprintf(w, "  rpc calls  %d (%d retries, %d rebroadcasts; %s waiting on the node)\n", r.RPC.Calls, r.RPC.Retries, r.Rebroadcasts, ms(r.RPC.Waiting))
	fmt.Fprintf(w, "  overhead   %s (wall time less RPC waits and %s of status-poll sleeps)\n", ms(max(0, t.Total-r.RPC.Waiting-t.PollSleep)), ms(t.PollSleep))
	if r.Outcome == executor.Executed {
		var delta int64
		for _, c := range r.Changes {
			if c.Account.Equals(to) {
				delta = c.Delta()
			}
		}
		fmt.Fprintf(w, "verified slot=%d err=null fee=%d recipient_delta=+%d\n", r.Slot, r.Fee, delta)
		return
	}
	fmt.Fprintf(w, "  reason     %s\n", r.Reason)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}

func short(s string) string {
	if len(s) <= 12 {
		return s
	}
	return s[:6] + "…" + s[len(s)-4:]
}
