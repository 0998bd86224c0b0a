package localnet_test

import (
	"os/exec"
	"testing"
)

// The committed cpswap.so is what cpswap.s assembles to, so the program the
// ledger runs is the source a reader reads. Needs LLVM's llvm-mc and
// llvm-objcopy (not a dependency of the ledger itself); without them the
// test says so and skips.
func TestCpswapSoIsItsSource(t *testing.T) {
	for _, tool := range []string{"node", "llvm-mc", "llvm-objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("requires %s on PATH to reassemble programs/cpswap.s", tool)
		}
	}
	out, err := exec.Command("node", "programs/build.mjs", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
