package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
)

func init() { extraCommands = append(extraCommands, newKeygenCmd) }

// newKeygenCmd builds `solgate keygen`, so a newcomer without the Solana CLI
// can make the console's wallet. It writes the Solana CLI's format, so
// solana-keygen and solgate read each other's files.
func newKeygenCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Create a new keypair file for the console (Solana CLI format, mode 0600)",
		Long: `keygen makes a new random keypair and writes it in the Solana CLI's format
(a JSON array of 64 numbers) to a file only you can read. It never replaces an
existing file. Run it as the user the console runs as (you, the operator;
never the assistant's account), so the key belongs to that user (see README,
"Run it safely").`,
		Example: `  solgate keygen                                  # ~/.config/solana/id.json, for the console you run as yourself
  solgate keygen -o ~/.config/solgate/devnet.json # a second wallet, e.g. one per cluster`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, err := executor.NewRandomKeypair()
			if err != nil {
				return err
			}
			if err := key.CreateFile(out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote a new keypair to %s (mode 0600)\naddress %s\n", out, key.PublicKey())
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "outfile", "o", executor.DefaultKeypairPath(), "where to write the keypair")
	return cmd
}
