package testkit

import (
	"os/exec"
	"strings"
	"testing"
)

// Deps is a package pattern's build list as the go command computes it,
// for the tests that hold solgate's packages to their import rules: a new
// import anywhere below the pattern shows up here.
func Deps(t testing.TB, pattern string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", pattern).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	list := strings.Fields(string(out))
	if len(list) < 10 {
		t.Fatalf("go list returned too little to judge: %q", list)
	}
	return list
}
