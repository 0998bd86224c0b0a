package tui_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two agents with budgets of their own: the console's spend panel shows a
// line for each, with its label, uid and own session cap, beside the total.
func TestTmuxSpendLinePerAgent(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "agents.toml")
	body := "max_sol_per_session = 1.0\n\n[[agent]]\nuid = 64401\nlabel = \"research\"\nmax_sol_per_session = 0.2\n\n[[agent]]\nuid = 64402\nlabel = \"trading\"\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startConsoleWith(t, consoleSetup{flags: []string{"--config", cfg}})
	w.term.waitFor(30*time.Second,
		"agent research (uid 64401): session 0 of 0.2 SOL",
		"agent trading (uid 64402): session 0 of 1 SOL",
		"session 0 of 1 SOL")
}
