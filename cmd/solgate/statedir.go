package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/solgate/solgate/policy/store"
)

// A state directory belongs to one cluster: its spend ledger, daily cap and
// audit trail count one chain's money. When no source names --state, each
// cluster gets its own directory under the default one, named by its genesis
// hash, so trying localnet and then devnet just works. A state directory
// from before this layout (the database directly in the default directory)
// stays in use for the cluster it is pinned to.

// clusterStateDir is the state directory for the cluster with this genesis
// under base.
func clusterStateDir(base, genesis string) (string, error) {
	switch pinned, err := store.PinnedCluster(base); {
	case err != nil:
		return "", fmt.Errorf("state dir %s: %w", base, err)
	case pinned == genesis || (pinned == "" && hasDatabase(base)):
		return base, nil // the layout before per-cluster directories
	}
	return filepath.Join(base, genesis), nil
}

func hasDatabase(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, store.FileName))
	return err == nil
}

// clusterDirs lists the state directories under base that hold a database:
// base itself (the older layout) and one per cluster.
func clusterDirs(base string) []string {
	var dirs []string
	if hasDatabase(base) {
		dirs = append(dirs, base)
	}
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		if d := filepath.Join(base, e.Name()); e.IsDir() && hasDatabase(d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// otherClusterProblem says why a state directory pinned to another cluster
// cannot serve this one, naming the flag and the variable the console reads.
func otherClusterProblem(dir, pinned, rpc, genesis string) error {
	return fmt.Errorf("--state %s belongs to the cluster with genesis %s, but --rpc %s serves genesis %s: the spend ledger, the daily cap and the audit trail in a state directory belong to one cluster. Give this cluster its own directory with --state DIR (or SOLGATE_STATE=DIR), or leave both unset: by default each cluster has its own state directory",
		dir, pinned, rpc, genesis)
}
