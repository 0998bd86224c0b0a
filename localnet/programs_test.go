package localnet_test

import (
	"os"
	"os/exec"
	"testing"
)

// The committed cpswap.so is what cpswap.s assembles to, so the program the
// ledger runs is the source a reader reads. Needs LLVM's llvm-mc and
// llvm-objcopy (not a dependency of the ledger itself): without them the
// test skips on a developer's machine and fails in CI, which installs them.
func TestCpswapSoIsItsSource(t *testing.T) {
	for _, tool := range []string{"node", "llvm-mc", "llvm-objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("CI must install %s (.ci/run): the committed cpswap.so is unchecked without it", tool)
			}
			t.Skipf("requires %s on PATH to reassemble programs/cpswap.s", tool)
		}
	}
	out, err := exec.Command("node", "programs/build.mjs", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
