package mcpbridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// The bridge runs as whatever user the agent's MCP client runs as, with no
// key. It must not even link the console's code: an auditor reading this
// package should find no way in it to sign, spend, decide or mint a token.
// go list reads the real import graph, so a new import anywhere in the
// bridge's dependencies fails here.
func TestBridgeDoesNotImportTheAuthority(t *testing.T) {
	deps := bridgeDeps(t)
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

// bridgeDeps is the bridge package's build list as the go command computes it.
func bridgeDeps(t *testing.T) []string {
	t.Helper()
	deps := testkit.Deps(t, "github.com/solgate/solgate/mcpbridge")
	if !slices.Contains(deps, "github.com/mark3labs/mcp-go/mcp") {
		t.Fatalf("go list returned too little to judge: %q", deps)
	}
	return deps
}

// The bridge builds no transaction, so no Solana library belongs in it, nor
// what solana-go drags in (zap, bson, zstd): less code in the process the
// model drives. It once imported solana-go only to spell the SOL mint.
func TestBridgeLinksNoSolanaLibrary(t *testing.T) {
	for _, dep := range bridgeDeps(t) {
		for _, f := range []string{"github.com/gagliardetto/solana-go", "go.uber.org/zap", "go.mongodb.org/mongo-driver", "github.com/klauspost/compress"} {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("the bridge package depends on %s", dep)
			}
		}
	}
}

// The swap arguments' description names the wrapped SOL mint by its
// published address (SPL Token's native mint), spelled out here.
func TestSwapDescriptionNamesTheNativeMint(t *testing.T) {
	for _, tool := range ToolDefinitions() {
		if tool.Name != wire.ToolSwap {
			continue
		}
		raw, _ := json.Marshal(tool)
		if !strings.Contains(string(raw), "wrapped SOL is So11111111111111111111111111111111111111112") {
			t.Errorf("swap's schema does not name the native mint:\n%s", raw)
		}
		return
	}
	t.Fatal("no swap tool in the inventory")
}
