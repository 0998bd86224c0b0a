package wire_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/solgate/solgate/localnet/testkit"
)

// Both sides import the contract, and the contract imports neither: the
// privileged side is not part of the bridge.
func TestTheWireIsALeafAndTheAuthorityImportsNoBridge(t *testing.T) {
	const mod = "github.com/solgate/solgate/"
	for _, dep := range testkit.Deps(t, mod+"mcpbridge/wire") {
		if strings.HasPrefix(dep, mod) && dep != mod+"mcpbridge/wire" {
			t.Errorf("the wire contract depends on %s: it must import nothing of either side", dep)
		}
	}
	sawWire := false
	for _, dep := range testkit.Deps(t, mod+"mcpbridge/authority/...") {
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

// The kinds are written against package writekind alone, never the approval
// core, which names no kind; and the socket's routes reach the hub through
// their own Core interface, so admission knows nothing of the Hub.
func TestTheKindsAndTheRoutesDoNotImportTheCore(t *testing.T) {
	const core = "github.com/solgate/solgate/mcpbridge/authority"
	for pattern, sure := range map[string]string{
		core + "/kinds/...": core + "/writekind",
		core + "/server":    core + "/host",
	} {
		list := testkit.Deps(t, pattern)
		if !slices.Contains(list, sure) {
			t.Fatalf("%s does not import %s: the check below proves nothing (%d deps)", pattern, sure, len(list))
		}
		if slices.Contains(list, core) {
			t.Errorf("%s depends on the core %s", pattern, core)
		}
	}
}
