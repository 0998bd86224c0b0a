package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// nearest is the candidate closest to typed by edit distance, if it is close
// enough to be a typo (at most 3 edits, and at most a third of the name
// without the SOLGATE_ prefix every variable shares), or "" when nothing is.
func nearest(typed string, candidates []string) string {
	bare := func(s string) string { return strings.TrimPrefix(strings.ToUpper(s), "SOLGATE_") }
	best, bestD := "", 0
	for _, c := range candidates {
		d := editDistance(bare(typed), bare(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > 3 || bestD*3 > len(bare(best)) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes (flag
// and variable names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// flagError adds "did you mean --x?" to pflag's "unknown flag: --y", with
// the flags the command takes. Other flag errors pass unchanged.
func flagError(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if n := nearest(name, names); n != "" {
		return fmt.Errorf("%w: did you mean --%s? (solgate %s --help lists the flags)", err, n, c.Name())
	}
	return fmt.Errorf("%w (solgate %s --help lists the flags)", err, c.Name())
}
