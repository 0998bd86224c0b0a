package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/policy/store"
)

// newAuditCmd builds `solgate audit`: print the trail, verify the chain, and
// fail (non-zero exit through the root's error handling) naming the first
// bad entry if anything was altered or removed.
func newAuditCmd() *cobra.Command {
	var (
		sf            *settingFlags
		asJSON        bool
		acceptMissing bool
	)
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Print the audit trail and verify its hash chain",
		Long: "Print every audit entry (proposals, decisions, executions, reservations) " +
			"and verify the SHA-256 hash chain, and that it ends at the head recorded in " +
			"audit.head beside the database. Exits non-zero naming the first entry " +
			"that was altered or removed.\n\nThe state directory is --state, else SOLGATE_STATE " +
			"(or SOLGATE_STATE_DIR), else state in the --config file (or SOLGATE_CONFIG), " +
			"else $XDG_STATE_HOME/solgate or ~/.local/state/solgate, where each cluster has a " +
			"directory of its own (all of them are audited): the console's own rule.",
		Args:         cobra.NoArgs,
		SilenceUsage: true, // a broken chain is not a usage mistake
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := sf.build()
			if err != nil {
				return err
			}
			if s.StateByCluster {
				// The default: one state directory per cluster.
				return auditEachCluster(cmd.OutOrStdout(), s.State, asJSON, acceptMissing)
			}
			return runAudit(cmd.OutOrStdout(), s.State, asJSON, acceptMissing)
		},
	}
	// The console's state and config rows: the same flags, variables,
	// file and default, so audit finds the database the console uses.
	sf = registerSettings(cmd.Flags(), "state", "config")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per entry instead of a table")
	cmd.Flags().BoolVar(&acceptMissing, "accept-missing-head", false, "pass a trail that has entries but no audit.head file (only the database then vouches for it; a same-user forger can delete the head file)")
	return cmd
}

// auditEachCluster audits every cluster's state directory under the default
// base, one after the other; the first broken chain fails the command.
func auditEachCluster(out io.Writer, base string, asJSON, acceptMissingHead bool) error {
	dirs := clusterDirs(base)
	if len(dirs) == 0 {
		// runAudit names the missing database and what to do.
		return runAudit(out, base, asJSON, acceptMissingHead)
	}
	for i, dir := range dirs {
		if !asJSON {
			if i > 0 {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "state %s\n", dir)
		}
		if err := runAudit(out, dir, asJSON, acceptMissingHead); err != nil {
			return fmt.Errorf("state %s: %w", dir, err)
		}
	}
	return nil
}

func runAudit(out io.Writer, dir string, asJSON, acceptMissingHead bool) error {
	st, err := store.OpenExisting(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	entries, err := st.Audit()
	if err != nil {
		return err
	}
	cluster, err := st.Cluster()
	if err != nil {
		return err
	}
	if !asJSON {
		fmt.Fprintf(out, "cluster: %s\n\n", auditClusterLine(cluster))
	}
	if asJSON {
		if err := auditPrintJSON(out, entries); err != nil {
			return err
		}
	} else if err := auditPrintTable(out, entries); err != nil {
		return err
	}

	bad, verr := st.VerifyAudit()
	if verr != nil {
		var ae *store.AuditError
		if errors.As(verr, &ae) {
			// The summary goes to stdout with the trail; the returned error
			// makes the root exit non-zero with the same words on stderr.
			if !asJSON {
				fmt.Fprintf(out, "\nchain BROKEN at entry %d: %v\n", bad, ae.Err)
			}
			return fmt.Errorf("audit trail failed verification: entry %d: %w (%s)", bad, ae.Err, ae.Detail)
		}
		return verr
	}
	if !asJSON {
		head := store.GenesisHash
		if n := len(entries); n > 0 {
			head = entries[n-1].Hash
		}
		fmt.Fprintf(out, "\nchain intact: %d entries, head %s\n", len(entries), head)
		if st.HasHeadFile() {
			fmt.Fprintf(out, "head file %s agrees\n", st.HeadFilePath())
		} else {
			fmt.Fprintf(out, "no head file at %s: only the database vouches for the chain (a console creates it the next time it opens this state directory)\n", st.HeadFilePath())
		}
	}
	// Whoever can rewrite the database can also delete the head file, so a
	// trail with entries and no head is not vouched for: fail unless the
	// operator says they know why it is missing.
	if len(entries) > 0 && !st.HasHeadFile() && !acceptMissingHead {
		return fmt.Errorf("audit trail has %d entries but no head file at %s: whoever can write the state directory could have rewritten the database and deleted the head with it; if you know why it is missing (an older solgate, a restore), run again with --accept-missing-head", len(entries), st.HeadFilePath())
	}
	return nil
}

// auditClusterLine names the cluster the trail belongs to: its genesis hash
// and, for a public cluster, its name.
func auditClusterLine(genesis string) string {
	if genesis == "" {
		return "not pinned yet (no console has started on this state directory since pins were introduced)"
	}
	if n := executor.NetworkFromGenesis(genesis); n != executor.UnknownNetwork {
		return fmt.Sprintf("%s (genesis %s)", n, genesis)
	}
	return fmt.Sprintf("genesis %s (not a public cluster)", genesis)
}

func auditPrintTable(out io.Writer, entries []store.AuditEntry) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SEQ\tAT (UTC)\tKIND\tPROPOSAL\tHASH\tBODY")
	for _, e := range entries {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n",
			e.Seq,
			e.At.UTC().Format(time.DateTime),
			auditPlain(e.Kind, 24),
			auditPlain(e.ProposalID, 24),
			auditShort(e.Hash),
			auditPlain(string(e.Body), 100))
	}
	return tw.Flush()
}

func auditPrintJSON(out io.Writer, entries []store.AuditEntry) error {
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode audit entry %d: %w", e.Seq, err)
		}
		if _, err := fmt.Fprintln(out, auditEscapeJSON(line)); err != nil {
			return err
		}
	}
	return nil
}

func auditShort(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// auditUnsafe reports runes that could restyle or reorder a terminal: C0/C1
// controls (ESC, CSI), bidi overrides and zero-width characters. Audit bodies
// carry attacker-influenced text (token names, memos, model-chosen IDs).
func auditUnsafe(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0xFEFF:
		return true
	}
	return false
}

// auditPlain makes text safe for one table cell: unsafe runes shown as
// \uXXXX, tabs and newlines too (they would break the columns), cut to max.
func auditPlain(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		if auditUnsafe(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}

// auditEscapeJSON escapes what encoding/json leaves raw but a terminal
// would act on (C1 controls, bidi, zero-width). Such runes can only occur
// inside JSON strings, where \uXXXX is the same character to a parser.
func auditEscapeJSON(line []byte) string {
	var b strings.Builder
	for _, r := range string(line) {
		if r >= 0x80 && auditUnsafe(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
