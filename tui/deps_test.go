package tui

import (
	"strings"
	"testing"

	"github.com/solgate/solgate/localnet/testkit"
)

// The console reaches the authority through approval.Service and its plain
// values only, never the core's concrete types.
func TestConsoleImportsTheApprovalInterfaceNotTheCore(t *testing.T) {
	list := testkit.Deps(t, "github.com/solgate/solgate/tui")
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
