package authority_test

import (
	"bufio"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// waitForEvent reads events until one of kind names client, or fails.
func waitForEvent(t *testing.T, events <-chan authority.Event, kind approval.EventKind, client string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == kind && ev.Client == client {
				return
			}
		case <-deadline:
			t.Fatalf("no %s event for %q within 30 s", kind, client)
		}
	}
}

// The console lists an agent as connected exactly while a bridge for it
// runs: one that exits, and one killed with SIGKILL mid-session, leave the
// list without making any call, because the kernel closes their socket.
func TestConnectedAgentsFollowBridges(t *testing.T) {
	w := newWorld(t, nil)
	events, cancel := w.authority.Subscribe(64)
	defer cancel()

	a := testkit.StartAgent(t, w.socket, "presence-agent")
	waitForEvent(t, events, approval.EventAgentConnected, "presence-agent 1.0")
	if got := w.authority.Connected(); !slices.Equal(got, []string{"presence-agent 1.0"}) {
		t.Fatalf("connected after initialize: %q", got)
	}
	a.C.Close() // stdin closes: the bridge exits normally
	waitForEvent(t, events, approval.EventAgentDisconnected, "presence-agent 1.0")
	if got := w.authority.Connected(); len(got) != 0 {
		t.Fatalf("connected after the bridge exited: %q", got)
	}
	if _, seen := w.authority.Clients()["presence-agent 1.0"]; seen {
		t.Error("a disconnected agent is still remembered")
	}

	// A bridge driven by hand, then killed without warning.
	cmd := exec.Command(testkit.Binary(t), "mcp", "--socket", w.socket)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"doomed","version":"2"}}}`)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"result"`) {
		t.Fatalf("initialize answer: %q, %v", line, err)
	}
	waitForEvent(t, events, approval.EventAgentConnected, "doomed 2")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitForEvent(t, events, approval.EventAgentDisconnected, "doomed 2")
	if got := w.authority.Connected(); len(got) != 0 {
		t.Fatalf("connected after SIGKILL: %q", got)
	}
}
