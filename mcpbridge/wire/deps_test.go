package wire_test

import (
	"os/exec"
	"strings"
	"testing"
)

// deps is a package pattern's build list as the go command computes it.
func deps(t *testing.T, pattern string) []string {
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

// Both sides import the contract, and the contract imports neither: the
// privileged side is not part of the bridge.
func TestTheWireIsALeafAndTheAuthorityImportsNoBridge(t *testing.T) {
	const mod = "github.com/solgate/solgate/"
	for _, dep := range deps(t, mod+"mcpbridge/wire") {
		if strings.HasPrefix(dep, mod) && dep != mod+"mcpbridge/wire" {
			t.Errorf("the wire contract depends on %s: it must import nothing of either side", dep)
		}
	}
	sawWire := false
	for _, dep := range deps(t, mod+"mcpbridge/authority/...") {
		switch {
		case dep == mod+"mcpbridge/wire":
			sawWire = true
		case dep == mod+"mcpbridge/authority", strings.HasPrefix(dep, mod+"mcpbridge/authority/"):
		case strings.HasPrefix(dep, mod+"mcpbridge"):
			t.Errorf("the authority depends on %s, a package of the unprivileged bridge", dep)
		}
	}
	if !sawWire {
		t.Error("the authority does not import the wire contract: the check above proves nothing")
	}
}
