package tui

import (
	"os/exec"
	"strings"
	"testing"
)

// The console reaches the authority through approval.Service and its plain
// values only, never the core's concrete types.
func TestConsoleImportsTheApprovalInterfaceNotTheCore(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/solgate/solgate/tui").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	list := strings.Fields(string(out))
	const approval = "github.com/solgate/solgate/mcpbridge/authority/approval"
	allowed := map[string]bool{approval: true, "github.com/solgate/solgate/mcpbridge/authority/untrusted": true}
	sawApproval := false
	for _, dep := range list {
		sawApproval = sawApproval || dep == approval
		if strings.HasPrefix(dep, "github.com/solgate/solgate/mcpbridge") && !allowed[dep] {
			t.Errorf("the console depends on %s", dep)
		}
	}
	if !sawApproval {
		t.Errorf("the console does not import %s: the check above proves nothing (%d deps)", approval, len(list))
	}
}
