package mcpbridge

import (
	"os/exec"
	"strings"
	"testing"
)

// The bridge runs as whatever user the agent's MCP client runs as, with no
// key. It must not even link the console's code: an auditor reading this
// package should find no way in it to sign, spend, decide or mint a token.
// go list reads the real import graph, so a new import anywhere in the
// bridge's dependencies fails here.
func TestBridgeDoesNotImportTheAuthority(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/solgate/solgate/mcpbridge").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list returned too little to judge: %q", deps)
	}
	forbidden := []string{
		"github.com/solgate/solgate/mcpbridge/authority",
		"github.com/solgate/solgate/executor",
		"github.com/solgate/solgate/policy",
		"github.com/solgate/solgate/policy/store",
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("the bridge package depends on %s: the privileged side must stay out of it", dep)
			}
		}
	}
}
