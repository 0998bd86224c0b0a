package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
)

// The two agents on the real stack: the console as its own user
// with a config of two [[agent]] sections (no --allow-uid: a section
// admits its uid), each agent's bridge as its own uid. The console draws
// one spend line per agent and names the agent in the queue; research is
// stopped by its own cap while trading still spends; get_spend_status
// tells each its own.
func TestOwnUserConsolePerAgentBudgets(t *testing.T) {
	const uidResearch, uidTrading = uidAgent, 64104
	w := startOwnUserWorld(t)
	prepared := filepath.Dir(w.socket("agents"))
	must(t, os.Mkdir(prepared, 0o700))
	must(t, os.Chown(prepared, uidConsole, uidConsole))
	cfg := filepath.Join(w.home, "agents.toml")
	body := fmt.Sprintf("max_sol_per_session = 1.0\n\n[[agent]]\nuid = %d\nlabel = \"research\"\nmax_sol_per_session = 0.2\n\n[[agent]]\nuid = %d\nlabel = \"trading\"\n", uidResearch, uidTrading)
	must(t, os.WriteFile(cfg, []byte(body), 0o600))
	must(t, os.Chown(cfg, uidConsole, uidConsole))
	con := w.startConsoleAs(t, uidConsole, "agents", "--config", cfg)
	con.waitFor(t, 30*time.Second, "agent research (uid 64102): session 0 of 0.2 SOL", "agent trading (uid 64104): session 0 of 1 SOL")

	research := w.bridgeAs(t, uidResearch, con.socket, "agent-r")
	trading := w.bridgeAs(t, uidTrading, con.socket, "agent-t")
	const step = 80_000_000
	spend := func(c *mcpclient.Client, label string) string {
		t.Helper()
		args := map[string]any{"to": w.recipient.String(), "lamports": step}
		res := callTool(t, c, "transfer_sol", args)
		id := res.Str("proposal_id")
		if res.Status() != "pending_approval" {
			return res.Text
		}
		con.waitFor(t, 30*time.Second, id+" "+label+" · uid")
		con.pane().WaitApprovable(t, 20*time.Second, id)
		con.keys(t, "a")
		res = callTool(t, c, "proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
		args["confirm"] = res.Str("confirm")
		if res = callTool(t, c, "transfer_sol", args); res.Status() != "executed" {
			t.Fatalf("%s's transfer: %+v", label, res)
		}
		return "executed"
	}
	spend(research, "research")
	spend(research, "research")
	if third := spend(research, "research"); !strings.Contains(third, "research's session cap (uid 64102)") {
		t.Fatalf("research's third 0.08 SOL: %s", third)
	}
	if got := spend(trading, "trading"); got != "executed" {
		t.Fatalf("trading after research's wall: %s", got)
	}
	con.waitFor(t, 30*time.Second, "agent research (uid 64102): session 0.16", "of 0.2 SOL", "agent trading (uid 64104): session 0.08")
	for c, want := range map[*mcpclient.Client]string{research: "200000000", trading: "1000000000"} {
		st := callTool(t, c, "get_spend_status", map[string]any{})
		if st.Str("max_lamports_session") != want || st.Structured["agent"] == nil {
			t.Fatalf("get_spend_status: %+v", st.Structured)
		}
	}
}
