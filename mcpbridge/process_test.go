package mcpbridge

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// The bridge sends its process secret with every call, the same for the
// life of the process (a grant binds to it), 128 bits, and another process
// image (a new bridge, or this one after an execve) has another.
func TestBridgeSendsItsProcessSecret(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	sock := fakeConsole(t, func(req wire.CallRequest) []byte {
		mu.Lock()
		seen = append(seen, req.Process)
		mu.Unlock()
		return answerWith(t, false, "pending", `{"status":"pending","proposal_id":"p_1"}`)
	}, 0)
	p := startBridge(t, sock)
	for range 2 {
		p.call(t, wire.ToolProposalStatus, `{"proposal_id":"p_1"}`)
	}
	mu.Lock()
	defer mu.Unlock()
	if raw, err := hex.DecodeString(seen[0]); len(seen) != 2 || err != nil || len(raw) != 16 || seen[1] != seen[0] {
		t.Fatalf("process secrets sent: %q, want one 32-hex-digit value twice", seen)
	}
	others := map[string]bool{}
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperPrintProcessSecret$", "-test.v")
		cmd.Env = append(os.Environ(), "SOLGATE_TEST_HELPER_MODE=print-secret")
		out, err := cmd.CombinedOutput()
		_, after, found := strings.Cut(string(out), "SECRET: ")
		if err != nil || !found {
			t.Fatalf("helper: %v\n%s", err, out)
		}
		others[strings.Fields(after)[0]] = true
	}
	if len(others) != 2 || others[seen[0]] {
		t.Fatalf("secrets of two other processes %v, this one's %s: want three different", others, seen[0])
	}
}

func TestHelperPrintProcessSecret(t *testing.T) {
	if os.Getenv("SOLGATE_TEST_HELPER_MODE") != "print-secret" {
		t.Skip("requires the helper-process environment: started by TestBridgeSendsItsProcessSecret")
	}
	fmt.Printf("SECRET: %s\n", processSecret)
}
