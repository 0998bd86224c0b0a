package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/solgate/solgate/localnet/testkit"
)

// The version an operator sees must name the code they run: it is checked
// against git's own answer for this checkout, not against buildVersion.
// Others may commit to or edit this checkout while the test runs, and the go
// command stamps it as it found it at some moment of the build. So the test
// builds a binary of its own between two readings of the checkout: the
// version must name a commit HEAD went through between them (HEAD itself
// when it did not move), and say "+dirty" as both readings do (either, when
// they differ).
func TestVersionNamesTheCheckout(t *testing.T) {
	before, err := readCheckout()
	if err != nil {
		t.Skipf("requires a git checkout: %v", err)
	}
	// The go command stamps a revision only where .git is a directory; a
	// linked worktree has a .git file, and its binaries say "(devel)".
	if fi, err := os.Stat(filepath.Join(repoRoot(t), ".git")); err != nil || !fi.IsDir() {
		t.Skip("requires a plain git checkout, not a linked worktree: go build records no revision there")
	}
	bin := testkit.BuildBinary(t, t.TempDir())
	after, err := readCheckout()
	if err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("solgate --version: %v\n%s", err, out)
	}
	// "solgate VERSION (commit REV, GO)"; VERSION is a pseudo-version,
	// v0.0.0-TIME-REV12, "+dirty" when modified.
	got, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "solgate ")
	got, _, _ = strings.Cut(got, " ")
	pseudo, dirty := strings.CutSuffix(got, "+dirty")
	rev := pseudo[strings.LastIndex(pseudo, "-")+1:]
	if !ok || !revision12.MatchString(rev) || !passedThrough(before.head, rev, after.head) ||
		before.dirty == after.dirty && dirty != before.dirty {
		t.Fatalf("solgate --version = %q, want a version naming revision %s (dirty: %v) as the build began, %s (dirty: %v) after it, or a commit between",
			out, before.head[:12], before.dirty, after.head[:12], after.dirty)
	}

	// The MCP client sees the same version in serverInfo.
	_, res := testkit.StartMCPClient(t, "version-test", nil, bin, "mcp", "--socket", t.TempDir()+"/none.sock")
	if res.ServerInfo.Name != "solgate" || res.ServerInfo.Version != got {
		t.Fatalf("serverInfo = %+v, want solgate %s", res.ServerInfo, got)
	}
}

// revision12 is how a pseudo-version names a commit: its first 12 hex digits.
var revision12 = regexp.MustCompile(`^[0-9a-f]{12}$`)

// checkout is what the go command stamps from this checkout: HEAD, and
// whether anything is modified.
type checkout struct {
	head  string
	dirty bool
}

func readCheckout() (checkout, error) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return checkout{}, err
	}
	// What the go command counts as modified: untracked files too. Without
	// the index's lock, which a commit landing meanwhile needs.
	status, err := exec.Command("git", "--no-optional-locks", "status", "--porcelain").Output()
	if err != nil {
		return checkout{}, err
	}
	return checkout{head: strings.TrimSpace(string(head)), dirty: len(bytes.TrimSpace(status)) > 0}, nil
}

// passedThrough reports whether rev is from..to on HEAD's way: from is its
// ancestor (or itself) and it is to's. When from is to, that is rev = from.
func passedThrough(from, rev, to string) bool {
	return exec.Command("git", "merge-base", "--is-ancestor", from, rev).Run() == nil &&
		exec.Command("git", "merge-base", "--is-ancestor", rev, to).Run() == nil
}

func repoRoot(t *testing.T) string {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
