package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// applyEnv fills every flag the user did not set on the command line from
// SOLGATE_<FLAG_NAME>, so flags and environment share one spelling and one
// validation path. A bad value names both the variable and the flag.
func applyEnv(cmd *cobra.Command) error {
	var firstErr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if firstErr != nil || f.Changed || f.Name == "help" {
			return
		}
		name := envName(f.Name)
		val, ok := os.LookupEnv(name)
		if !ok {
			return
		}
		// Repeatable flags take a comma-separated list from the environment.
		if sv, isSlice := f.Value.(pflag.SliceValue); isSlice {
			var items []string
			for _, s := range strings.Split(val, ",") {
				if s = strings.TrimSpace(s); s != "" {
					items = append(items, s)
				}
			}
			if err := sv.Replace(items); err != nil {
				firstErr = fmt.Errorf("%s (for --%s): %v", name, f.Name, err)
			}
			return
		}
		if err := f.Value.Set(val); err != nil {
			firstErr = fmt.Errorf("%s=%q (for --%s): %v", name, val, f.Name, err)
			return
		}
		f.Changed = true
	})
	return firstErr
}

func envName(flag string) string {
	if name, ok := envAliases[flag]; ok {
		return name
	}
	return "SOLGATE_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// envAliases are variables whose documented names differ from the flag's.
var envAliases = map[string]string{"state": "SOLGATE_STATE_DIR"}
