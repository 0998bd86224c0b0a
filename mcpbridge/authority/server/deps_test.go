package server_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The socket's routes reach the hub through Core alone: neither they nor
// anything they import imports the core, so admission knows nothing of the
// Hub.
func TestTheServerDoesNotImportTheCore(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	const core = "github.com/solgate/solgate/mcpbridge/authority"
	out, err := exec.Command(goBin, "list", "-deps", core+"/server").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, core+"/host") {
		t.Fatalf("the routes do not import %s/host: the list proves nothing (%d deps)", core, len(deps))
	}
	if slices.Contains(deps, core) {
		t.Errorf("the socket's routes depend on the core %s", core)
	}
}
