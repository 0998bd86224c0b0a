package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/solgate/solgate/localnet/testkit"
)

// The version an operator sees must name the code they run: it is checked
// against git's own answer for this checkout, not against buildVersion.
func TestVersionNamesTheCheckout(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("requires a git checkout: %v", err)
	}
	// The go command stamps a revision only where .git is a directory; a
	// linked worktree has a .git file, and its binaries say "(devel)".
	if fi, err := os.Stat(filepath.Join(repoRoot(t), ".git")); err != nil || !fi.IsDir() {
		t.Skip("requires a plain git checkout, not a linked worktree: go build records no revision there")
	}
	// What the go command counts as modified: untracked files too.
	status, err := exec.Command("git", "status", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := strings.TrimSpace(string(head))[:12]
	dirty := len(strings.TrimSpace(string(status))) > 0
	bin := testkit.Binary(t)

	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("solgate --version: %v\n%s", err, out)
	}
	// "solgate VERSION (commit REV, GO)"
	got, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "solgate ")
	got, _, _ = strings.Cut(got, " ")
	if !ok || !strings.Contains(got, rev) || strings.HasSuffix(got, "+dirty") != dirty {
		t.Fatalf("solgate --version = %q, want a version naming revision %s (dirty: %v)", out, rev, dirty)
	}

	// The MCP client sees the same version in serverInfo.
	_, res := testkit.StartMCPClient(t, "version-test", nil, bin, "mcp", "--socket", t.TempDir()+"/none.sock")
	if res.ServerInfo.Name != "solgate" || res.ServerInfo.Version != got {
		t.Fatalf("serverInfo = %+v, want solgate %s", res.ServerInfo, got)
	}
}

func repoRoot(t *testing.T) string {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
