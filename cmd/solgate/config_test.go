package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/solgate/solgate/policy"
)

const addrA = "9MuwVpMuYQCEGcCt7KfciNQZyfPmchHYrbTXrNDaYYpQ"

// parsePolicy runs flags (and SOLGATE_* env via applyEnv) through the same
// path the console uses.
func parsePolicy(t *testing.T, args ...string) (policy.Config, error) {
	t.Helper()
	var p policyFlags
	cmd := &cobra.Command{Use: "console"}
	p.register(cmd.Flags())
	if err := cmd.Flags().Parse(args); err != nil {
		return policy.Config{}, err
	}
	if err := applyEnv(cmd); err != nil {
		return policy.Config{}, err
	}
	return p.build(cmd.Flags())
}

func TestPolicyFlagsDefaultsAndExactAmounts(t *testing.T) {
	cfg, err := parsePolicy(t, "--allow-recipient", addrA, "--max-sol-per-tx", "0.05", "--max-sol-per-day", "2.5")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxLamportsPerTx != 50_000_000 || cfg.MaxLamportsPerSession != 1_000_000_000 || cfg.MaxLamportsPerDay != 2_500_000_000 {
		t.Errorf("caps: %+v", cfg)
	}
	if len(cfg.AllowRecipients) != 1 || cfg.AllowRecipients[0] != addrA || cfg.AllowMainnet || cfg.TokenDelivery != "agent" {
		t.Errorf("config: %+v", cfg)
	}
}

func TestPolicyPrecedenceFileThenEnvThenFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(file, []byte("max_sol_per_tx = 0.02\nmax_sol_per_session = \"0.5\"\ntoken_delivery = \"operator\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOLGATE_MAX_SOL_PER_SESSION", "0.4")
	cfg, err := parsePolicy(t, "--config", file, "--token-delivery", "agent")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxLamportsPerTx != 20_000_000 || cfg.MaxLamportsPerSession != 400_000_000 || cfg.TokenDelivery != "agent" {
		t.Errorf("precedence: %+v", cfg)
	}
}

func TestBadPolicyRefusedNamingTheKey(t *testing.T) {
	dir := t.TempDir()
	unknown := filepath.Join(dir, "unknown.toml")
	_ = os.WriteFile(unknown, []byte("max_sol_per_txn = 0.1\n"), 0o600)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"negative cap flag", nil, []string{"--max-sol-per-tx", "-1"}, "--max-sol-per-tx"},
		{"garbage cap env", map[string]string{"SOLGATE_MAX_SOL_PER_SESSION": "lots"}, nil, "SOLGATE_MAX_SOL_PER_SESSION"},
		{"bad recipient", nil, []string{"--allow-recipient", "0xdeadbeef"}, "allow_recipients"},
		{"insane cap", nil, []string{"--max-sol-per-session", "5000000"}, "max_sol_per_session"},
		{"per-tx above session", nil, []string{"--max-sol-per-tx", "2", "--max-sol-per-session", "1"}, "max_sol_per_tx"},
		{"unknown TOML key", nil, []string{"--config", unknown}, "max_sol_per_txn"},
		{"missing file", nil, []string{"--config", filepath.Join(dir, "nope.toml")}, "nope.toml"},
		{"bad delivery", nil, []string{"--token-delivery", "email"}, "token_delivery"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := parsePolicy(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}
