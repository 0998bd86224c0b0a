package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	solana "github.com/gagliardetto/solana-go"
	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/policy"
)

// Valid base58 public keys, spelled out. Which accounts they are does not
// matter here, only that the parsers accept them.
const (
	addrA = "9MuwVpMuYQCEGcCt7KfciNQZyfPmchHYrbTXrNDaYYpQ"
	addrB = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	addrC = "Es9vMFrzaCERmJfrF8H3VNwTKiSBxbH6NbEzYpjztNYD"
	addrD = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
)

// isolateEnv gives the test a known environment: no setting variable set,
// and the homes the defaults derive from pointed at fixed places.
func isolateEnv(t *testing.T) (home, runtime, state string) {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "SOLGATE_") && !slices.Contains(otherVariables, name) {
			t.Setenv(name, "")
			os.Unsetenv(name) // t.Setenv restores it afterwards
		}
	}
	home, runtime, state = "/home/op", "/run/user/1000", "/var/state"
	t.Setenv("HOME", home)
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("XDG_STATE_HOME", state)
	return home, runtime, state
}

// consoleSettings reads the settings exactly as `solgate console` does: the
// whole table registered on a fresh command, the process environment, and
// whatever --config names.
func consoleSettings(t *testing.T, args ...string) (Settings, error) {
	t.Helper()
	cmd := &cobra.Command{Use: "console"}
	sf := registerSettings(cmd.Flags())
	if err := cmd.Flags().Parse(args); err != nil {
		return Settings{}, err
	}
	return sf.build()
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// spelled is one value of a setting as each source writes it.
type spelled struct {
	texts []string // the flag's values (repeated for a list); comma-joined, the variable
	toml  string   // the TOML literal
	want  any      // what the setting holds afterwards
}

func sv(text, toml string, want any) spelled { return spelled{[]string{text}, toml, want} }

func lv(items []string, toml string, want any) spelled { return spelled{items, toml, want} }

// sourceCase is a setting's names and three values, all spelled here by hand
// rather than derived from the table, so a wrong name, parser or field in
// the table makes the test fail.
type sourceCase struct {
	env, toml string // the variable and TOML key; the flag is the map key
	noTOML    bool
	noFlag    bool // a secret: its flag is refused (TestSecretFlagRefused)
	def       any
	get       func(Settings) any
	// a is given alone by each source, and by the highest source when
	// several are; b and c by the lower ones. a differs from def, b and c.
	a, b, c spelled
}

func boolCase(env, toml string, get func(Settings) any) sourceCase {
	return sourceCase{env: env, toml: toml, def: false, get: get,
		a: sv("true", "true", true), b: sv("false", "false", false), c: sv("false", "false", false)}
}

func sourceCases(t *testing.T) map[string]sourceCase {
	home, runtime, state := isolateEnv(t)
	cfgB, cfgC := writeFile(t, "# empty\n"), writeFile(t, "")
	cfgA := writeFile(t, "")
	keyA, keyB, keyC := writeFile(t, "key-a\n"), writeFile(t, "key-b"), writeFile(t, "key-c\n")
	return map[string]sourceCase{
		"config": {env: "SOLGATE_CONFIG", noTOML: true, def: "", get: func(s Settings) any { return s.Config },
			a: sv(cfgA, "", cfgA), b: sv(cfgB, "", cfgB), c: sv(cfgC, "", cfgC)},
		"rpc": {env: "SOLGATE_RPC", toml: "rpc", def: "http://127.0.0.1:8899", get: func(s Settings) any { return s.RPC },
			a: sv("https://rpc.invalid/a", `"https://rpc.invalid/a"`, "https://rpc.invalid/a"),
			b: sv("http://127.0.0.1:1002", `"http://127.0.0.1:1002"`, "http://127.0.0.1:1002"),
			c: sv("http://localhost:1003", `"http://localhost:1003"`, "http://localhost:1003")},
		"keypair": {env: "SOLGATE_KEYPAIR", toml: "keypair", def: home + "/.config/solana/id.json", get: func(s Settings) any { return s.Keypair },
			a: sv("/k/a.json", `"/k/a.json"`, "/k/a.json"), b: sv("/k/b.json", `"/k/b.json"`, "/k/b.json"), c: sv("/k/c.json", `"/k/c.json"`, "/k/c.json")},
		"socket": {env: "SOLGATE_SOCKET", toml: "socket", def: runtime + "/solgate/console.sock", get: func(s Settings) any { return s.Socket },
			a: sv("/s/a.sock", `"/s/a.sock"`, "/s/a.sock"), b: sv("/s/b.sock", `"/s/b.sock"`, "/s/b.sock"), c: sv("/s/c.sock", `"/s/c.sock"`, "/s/c.sock")},
		"state": {env: "SOLGATE_STATE", toml: "state", def: state + "/solgate", get: func(s Settings) any { return s.State },
			a: sv("/st/a", `"/st/a"`, "/st/a"), b: sv("/st/b", `"/st/b"`, "/st/b"), c: sv("/st/c", `"/st/c"`, "/st/c")},
		"swap-api": {env: "SOLGATE_SWAP_API", toml: "swap_api", def: "", get: func(s Settings) any { return s.SwapAPI },
			a: sv("http://127.0.0.1:2001/swap/v1", `"http://127.0.0.1:2001/swap/v1"`, "http://127.0.0.1:2001/swap/v1"),
			b: sv("https://swap.invalid", `"https://swap.invalid"`, "https://swap.invalid"),
			c: sv("http://127.0.0.1:2003", `"http://127.0.0.1:2003"`, "http://127.0.0.1:2003")},
		"swap-api-version": {env: "SOLGATE_SWAP_API_VERSION", toml: "swap_api_version", def: 2, get: func(s Settings) any { return s.SwapAPIVersion },
			a: sv("1", "1", 1), b: sv("2", "2", 2), c: sv("1", "1", 1)},
		"swap-api-key": {env: "SOLGATE_SWAP_API_KEY", toml: "swap_api_key", def: "", noFlag: true, get: func(s Settings) any { return s.SwapAPIKey },
			a: sv("key-a", `"key-a"`, "key-a"), b: sv("key-b", `"key-b"`, "key-b"), c: sv("key-c", `"key-c"`, "key-c")},
		"swap-api-key-file": {env: "SOLGATE_SWAP_API_KEY_FILE", toml: "swap_api_key_file", def: "", get: func(s Settings) any { return s.SwapAPIKeyFile },
			a: sv(keyA, `"`+keyA+`"`, keyA), b: sv(keyB, `"`+keyB+`"`, keyB), c: sv(keyC, `"`+keyC+`"`, keyC)},
		"swap-program": {env: "SOLGATE_SWAP_PROGRAM", toml: "swap_program", def: []string(nil), get: func(s Settings) any { return s.SwapPrograms },
			a: lv([]string{addrA, addrB}, `["`+addrA+`", "`+addrB+`"]`, []string{addrA, addrB}),
			b: lv([]string{addrC}, `["`+addrC+`"]`, []string{addrC}),
			c: lv([]string{addrD}, `["`+addrD+`"]`, []string{addrD})},
		"allow-program": {env: "SOLGATE_ALLOW_PROGRAM", toml: "allow_program", def: []executor.AllowedProgram(nil), get: func(s Settings) any { return s.AllowPrograms },
			a: lv([]string{addrA + "=Lookup tables", addrB}, `["`+addrA+`=Lookup tables", "`+addrB+`"]`, []executor.AllowedProgram{{ID: solana.MustPublicKeyFromBase58(addrA), Label: "Lookup tables"}, {ID: solana.MustPublicKeyFromBase58(addrB)}}),
			b: lv([]string{addrC}, `["`+addrC+`"]`, []executor.AllowedProgram{{ID: solana.MustPublicKeyFromBase58(addrC)}}),
			c: lv([]string{addrD + "=stake"}, `["`+addrD+`=stake"]`, []executor.AllowedProgram{{ID: solana.MustPublicKeyFromBase58(addrD), Label: "stake"}})},
		"allow-uid": {env: "SOLGATE_ALLOW_UID", toml: "allow_uid", def: []uint32(nil), get: func(s Settings) any { return s.AllowUIDs },
			a: lv([]string{"1001", "0"}, `[1001, 0]`, []uint32{1001, 0}),
			b: lv([]string{"1002"}, `[1002]`, []uint32{1002}),
			c: lv([]string{"4294967294"}, `[4294967294]`, []uint32{4294967294})},
		"allow-gid": {env: "SOLGATE_ALLOW_GID", toml: "allow_gid", def: []uint32(nil), get: func(s Settings) any { return s.AllowGIDs },
			a: lv([]string{"2001", "2002"}, `[2001, 2002]`, []uint32{2001, 2002}),
			b: lv([]string{"0"}, `[0]`, []uint32{0}),
			c: lv([]string{"65534"}, `[65534]`, []uint32{65534})},
		"no-color":              boolCase("SOLGATE_NO_COLOR", "no_color", func(s Settings) any { return s.NoColor }),
		"allow-shared-terminal": boolCase("SOLGATE_ALLOW_SHARED_TERMINAL", "allow_shared_terminal", func(s Settings) any { return s.AllowSharedTerminal }),
		"log-file": {env: "SOLGATE_LOG_FILE", toml: "log_file", def: "", get: func(s Settings) any { return s.LogFile },
			a: sv("/l/a.log", `"/l/a.log"`, "/l/a.log"), b: sv("/l/b.log", `"/l/b.log"`, "/l/b.log"), c: sv("/l/c.log", `"/l/c.log"`, "/l/c.log")},
		"no-bell":   boolCase("SOLGATE_NO_BELL", "no_bell", func(s Settings) any { return s.NoBell }),
		"no-grants": boolCase("SOLGATE_NO_GRANTS", "no_grants", func(s Settings) any { return s.NoGrants }),
		"notify-command": {env: "SOLGATE_NOTIFY_COMMAND", toml: "notify_command", def: "", get: func(s Settings) any { return s.NotifyCommand },
			a: sv("notify-send solgate", `"notify-send solgate"`, "notify-send solgate"),
			b: sv("/usr/local/bin/page-me", `"/usr/local/bin/page-me"`, "/usr/local/bin/page-me"),
			c: sv("true", `"true"`, "true")},
		"max-pending-per-uid": {env: "SOLGATE_MAX_PENDING_PER_UID", toml: "max_pending_per_uid", def: 20, get: func(s Settings) any { return s.MaxPendingPerUID },
			a: sv("3", "3", 3), b: sv("50", "50", 50), c: sv("1", "1", 1)},
		"max-pending": {env: "SOLGATE_MAX_PENDING", toml: "max_pending", def: 200, get: func(s Settings) any { return s.MaxPending },
			a: sv("30", "30", 30), b: sv("500", "500", 500), c: sv("1", "1", 1)},
		"proposals-per-minute-per-uid": {env: "SOLGATE_PROPOSALS_PER_MINUTE_PER_UID", toml: "proposals_per_minute_per_uid", def: 60, get: func(s Settings) any { return s.ProposalsPerMinute },
			a: sv("4", "4", 4), b: sv("120", "120", 120), c: sv("1", "1", 1)},
		"max-connections-per-uid": {env: "SOLGATE_MAX_CONNECTIONS_PER_UID", toml: "max_connections_per_uid", def: 64, get: func(s Settings) any { return s.MaxConnsPerUID },
			a: sv("8", "8", 8), b: sv("128", "128", 128), c: sv("2", "2", 2)},
		"reserved-fds": {env: "SOLGATE_RESERVED_FDS", toml: "reserved_fds", def: 256, get: func(s Settings) any { return s.ReservedFDs },
			a: sv("512", "512", 512), b: sv("64", "64", 64), c: sv("1", "1", 1)},
		"approval-grace": {env: "SOLGATE_APPROVAL_GRACE", toml: "approval_grace", def: 800 * time.Millisecond, get: func(s Settings) any { return s.ApprovalGrace },
			a: sv("200ms", `"200ms"`, 200*time.Millisecond), b: sv("1s", `"1s"`, time.Second), c: sv("500ms", `"500ms"`, 500*time.Millisecond)},

		"allow-recipient": {env: "SOLGATE_ALLOW_RECIPIENT", toml: "allow_recipient", def: []string(nil), get: func(s Settings) any { return s.Policy.AllowRecipients },
			a: lv([]string{addrA, addrB}, `["`+addrA+`", "`+addrB+`"]`, []string{addrA, addrB}),
			b: lv([]string{addrC}, `["`+addrC+`"]`, []string{addrC}),
			c: lv([]string{addrD}, `["`+addrD+`"]`, []string{addrD})},
		// Any spelling of an origin is kept as solgate spells it (lower case,
		// no default port, no trailing slash).
		"allow-action-origin": {env: "SOLGATE_ALLOW_ACTION_ORIGIN", toml: "allow_action_origin", def: []string(nil), get: func(s Settings) any { return s.Policy.AllowedActionOrigins },
			a: lv([]string{"https://Actions.Example.com:443/", "http://127.0.0.1:8899"}, `["https://Actions.Example.com:443/", "http://127.0.0.1:8899"]`, []string{"https://actions.example.com", "http://127.0.0.1:8899"}),
			b: lv([]string{"https://tip.example.org:8443"}, `["https://tip.example.org:8443"]`, []string{"https://tip.example.org:8443"}),
			c: lv([]string{"http://localhost:3000"}, `["http://localhost:3000"]`, []string{"http://localhost:3000"})},
		"max-sol-per-tx": {env: "SOLGATE_MAX_SOL_PER_TX", toml: "max_sol_per_tx", def: uint64(100_000_000), get: func(s Settings) any { return s.Policy.MaxLamportsPerTx },
			// 0.29 is the float trap: 0.29 * 1e9 in float64 is 289999999.99999994.
			a: sv("0.29", "0.29", uint64(290_000_000)),
			b: sv("0.05", `"0.05"`, uint64(50_000_000)),
			c: sv("0.000000001", "0.000000001", uint64(1))},
		"max-sol-per-session": {env: "SOLGATE_MAX_SOL_PER_SESSION", toml: "max_sol_per_session", def: uint64(1_000_000_000), get: func(s Settings) any { return s.Policy.MaxLamportsPerSession },
			a: sv("2", "2", uint64(2_000_000_000)), b: sv("0.7", "0.7", uint64(700_000_000)), c: sv("1.5", `"1.5"`, uint64(1_500_000_000))},
		"max-sol-per-day": {env: "SOLGATE_MAX_SOL_PER_DAY", toml: "max_sol_per_day", def: uint64(0), get: func(s Settings) any { return s.Policy.MaxLamportsPerDay },
			a: sv("4.35", "4.35", uint64(4_350_000_000)), b: sv("3", "3", uint64(3_000_000_000)), c: sv("0.5", "0.5", uint64(500_000_000))},
		"allow-mainnet":                  boolCase("SOLGATE_ALLOW_MAINNET", "allow_mainnet", func(s Settings) any { return s.Policy.AllowMainnet }),
		"allow-unknown-network":          boolCase("SOLGATE_ALLOW_UNKNOWN_NETWORK", "allow_unknown_network", func(s Settings) any { return s.Policy.AllowUnknownNetwork }),
		"allow-uncapped-token-swaps":     boolCase("SOLGATE_ALLOW_UNCAPPED_TOKEN_SWAPS", "allow_uncapped_token_swaps", func(s Settings) any { return s.Policy.AllowUncappedTokenSwaps }),
		"allow-uncapped-token-transfers": boolCase("SOLGATE_ALLOW_UNCAPPED_TOKEN_TRANSFERS", "allow_uncapped_token_transfers", func(s Settings) any { return s.Policy.AllowUncappedTokenTransfers }),
		"max-token-per-tx":               tokenCapCase(t, "max_token_per_tx", func(s Settings) any { return s.Policy.MaxTokenPerTx }),
		"max-token-per-session":          tokenCapCase(t, "max_token_per_session", func(s Settings) any { return s.Policy.MaxTokenPerSession }),
		"max-token-per-day":              tokenCapCase(t, "max_token_per_day", func(s Settings) any { return s.Policy.MaxTokenPerDay }),
		"max-slippage-bps": {env: "SOLGATE_MAX_SLIPPAGE_BPS", toml: "max_slippage_bps", def: uint32(300), get: func(s Settings) any { return s.Policy.MaxSlippageBps },
			a: sv("50", "50", uint32(50)), b: sv("120", "120", uint32(120)), c: sv("0", "0", uint32(0))},
		"max-price-impact-pct": {env: "SOLGATE_MAX_PRICE_IMPACT_PCT", toml: "max_price_impact_pct", def: uint32(0), get: func(s Settings) any { return s.Policy.MaxPriceImpactBps },
			a: sv("1.5", "1.5", uint32(150)), b: sv("2", "2", uint32(200)), c: sv("0.25", `"0.25"`, uint32(25))},
		"allow-mint": {env: "SOLGATE_ALLOW_MINT", toml: "allow_mint", def: []string(nil), get: func(s Settings) any { return s.Policy.AllowMints },
			a: lv([]string{addrB, addrC}, `["`+addrB+`", "`+addrC+`"]`, []string{addrB, addrC}),
			b: lv([]string{addrA}, `["`+addrA+`"]`, []string{addrA}),
			c: lv([]string{addrD}, `["`+addrD+`"]`, []string{addrD})},
		"deny-mint": {env: "SOLGATE_DENY_MINT", toml: "deny_mint", def: []string(nil), get: func(s Settings) any { return s.Policy.DenyMints },
			a: lv([]string{addrC, addrD}, `["`+addrC+`", "`+addrD+`"]`, []string{addrC, addrD}),
			b: lv([]string{addrB}, `["`+addrB+`"]`, []string{addrB}),
			c: lv([]string{addrA}, `["`+addrA+`"]`, []string{addrA})},
		"allow-x402-origin": {env: "SOLGATE_ALLOW_X402_ORIGIN", toml: "allow_x402_origin", def: []string(nil), get: func(s Settings) any { return s.Policy.AllowedX402Origins },
			a: lv([]string{"https://API.example.com:443", "http://127.0.0.1:8080/"}, `["https://API.example.com:443", "http://127.0.0.1:8080/"]`, []string{"https://api.example.com", "http://127.0.0.1:8080"}),
			b: lv([]string{"https://pay.example.org"}, `["https://pay.example.org"]`, []string{"https://pay.example.org"}),
			c: lv([]string{"http://localhost:9402"}, `["http://localhost:9402"]`, []string{"http://localhost:9402"})},
		"require-agent-sections": boolCase("SOLGATE_REQUIRE_AGENT_SECTIONS", "require_agent_sections", func(s Settings) any { return s.Policy.RequireAgentSections }),
		"x402-pin-pay-to":        boolCase("SOLGATE_X402_PIN_PAY_TO", "x402_pin_pay_to", func(s Settings) any { return s.Policy.X402PinPayTo }),
		"priority-fee-percentile": {env: "SOLGATE_PRIORITY_FEE_PERCENTILE", toml: "priority_fee_percentile", def: 75, get: func(s Settings) any { return s.Fees.Percentile },
			a: sv("50", "50", 50), b: sv("90", "90", 90), c: sv("1", "1", 1)},
		"priority-fee-source": {env: "SOLGATE_PRIORITY_FEE_SOURCE", toml: "priority_fee_source", def: "auto", get: func(s Settings) any { return s.Fees.Source },
			a: sv("helius", `"helius"`, "helius"), b: sv("triton", `"triton"`, "triton"), c: sv("standard", `"standard"`, "standard")},
		"verify-timeout": {env: "SOLGATE_VERIFY_TIMEOUT", toml: "verify_timeout", def: 30 * time.Second, get: func(s Settings) any { return s.VerifyWindow },
			a: sv("45s", `"45s"`, 45*time.Second), b: sv("2m", `"2m"`, 2*time.Minute), c: sv("500ms", `"500ms"`, 500*time.Millisecond)},
		"max-priority-fee-lamports": {env: "SOLGATE_MAX_PRIORITY_FEE_LAMPORTS", toml: "max_priority_fee_lamports", def: uint64(100_000), get: func(s Settings) any { return s.Fees.MaxLamports },
			a: sv("250000", "250000", uint64(250_000)), b: sv("5000", "5000", uint64(5000)), c: sv("0", "0", uint64(0))},
		// Any source that gives a fixed fee turns the fee market off; 0 means
		// no priority fee at all, which differs from not giving one.
		"priority-fee-lamports": {env: "SOLGATE_PRIORITY_FEE_LAMPORTS", toml: "priority_fee_lamports", def: fixedFee{}, get: func(s Settings) any { return fixedFee{s.Fees.Fixed, s.Fees.FixedLamports} },
			a: sv("0", "0", fixedFee{true, 0}), b: sv("5000", "5000", fixedFee{true, 5000}), c: sv("100", "100", fixedFee{true, 100})},
		"token-delivery": {env: "SOLGATE_TOKEN_DELIVERY", toml: "token_delivery", def: "agent", get: func(s Settings) any { return s.Policy.TokenDelivery },
			a: sv("operator", `"operator"`, "operator"), b: sv("agent", `"agent"`, "agent"), c: sv("agent", `"agent"`, "agent")},
	}
}

type fixedFee struct {
	on       bool
	lamports uint64
}

func flagArgs(name string, v spelled) []string {
	var args []string
	for _, text := range v.texts {
		args = append(args, "--"+name+"="+text)
	}
	return args
}

// TestEverySettingFromEverySource gives every row of the table through each
// source alone and through every combination, and reads the value back from
// the effective settings. A row added to the table without a case here
// fails, so new keys are covered by construction.
//
// Before the table existed this failed for SOLGATE_ALLOW_RECIPIENT,
// SOLGATE_ALLOW_MINT and SOLGATE_DENY_MINT (list variables were never
// applied) and for SOLGATE_STATE and the TOML key allow_recipient.
func TestEverySettingFromEverySource(t *testing.T) {
	cases := sourceCases(t)
	var names []string
	for i := range settings {
		names = append(names, settings[i].name)
	}
	for name := range cases {
		if !slices.Contains(names, name) {
			t.Errorf("case %q has no row in the settings table", name)
		}
	}
	type source int
	const (
		fromTOML source = iota
		fromEnv
		fromFlag
	)
	combos := [][]source{ // highest precedence first
		{}, {fromTOML}, {fromEnv}, {fromFlag},
		{fromEnv, fromTOML}, {fromFlag, fromTOML}, {fromFlag, fromEnv}, {fromFlag, fromEnv, fromTOML},
	}
	label := map[source]string{fromTOML: "toml", fromEnv: "env", fromFlag: "flag"}
	for _, name := range names {
		tc, ok := cases[name]
		if !ok {
			t.Errorf("setting %q has no case in sourceCases: add its names and three values", name)
			continue
		}
		for _, combo := range combos {
			if tc.noTOML && slices.Contains(combo, fromTOML) || tc.noFlag && slices.Contains(combo, fromFlag) {
				continue
			}
			var parts []string
			for _, s := range combo {
				parts = append(parts, label[s])
			}
			if len(parts) == 0 {
				parts = []string{"none"}
			}
			t.Run(name+"/"+strings.Join(parts, "+"), func(t *testing.T) {
				var args []string
				want := tc.def
				for i, src := range combo {
					v := []spelled{tc.a, tc.b, tc.c}[i]
					if i == 0 {
						want = v.want
					}
					switch src {
					case fromTOML:
						args = append(args, "--config", writeFile(t, tc.toml+" = "+v.toml+"\n"))
					case fromEnv:
						t.Setenv(tc.env, strings.Join(v.texts, ","))
					case fromFlag:
						args = append(args, flagArgs(name, v)...)
					}
				}
				s, err := consoleSettings(t, args...)
				if err != nil {
					t.Fatalf("args %q: %v", args, err)
				}
				if got := tc.get(s); !reflect.DeepEqual(got, want) {
					t.Fatalf("args %q, %s: got %#v, want %#v", args, tc.env, got, want)
				}
			})
		}
	}
}

// TestSettingsDefaults: with no source at all, every setting is its
// documented default.
func TestSettingsDefaults(t *testing.T) {
	isolateEnv(t)
	s, err := consoleSettings(t)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Policy
	if s.RPC != "http://127.0.0.1:8899" || s.Keypair != "/home/op/.config/solana/id.json" ||
		s.Socket != "/run/user/1000/solgate/console.sock" || s.State != "/var/state/solgate" ||
		s.SwapAPI != "" || s.SwapAPIKey != "" || s.SwapPrograms != nil || s.AllowUIDs != nil || s.AllowGIDs != nil || s.NoColor {
		t.Errorf("console defaults: %v", s)
	}
	if p.MaxLamportsPerTx != 100_000_000 || p.MaxLamportsPerSession != 1_000_000_000 || p.MaxLamportsPerDay != 0 ||
		p.AllowMainnet || p.AllowUnknownNetwork || p.AllowUncappedTokenSwaps || p.MaxSlippageBps != 300 ||
		p.MaxPriceImpactBps != 0 || p.TokenDelivery != "agent" || p.AllowRecipients != nil || p.AllowMints != nil || p.DenyMints != nil {
		t.Errorf("policy defaults: %+v", p)
	}
	if f := s.Fees; f.Percentile != 75 || f.MaxLamports != 100_000 || f.Fixed || f.FixedLamports != 0 {
		t.Errorf("fee defaults: %+v", f)
	}
}

// TestOldSpellingsStillRead: the names documented before the table keep
// working, and giving both spellings at once is refused rather than guessed.
func TestOldSpellingsStillRead(t *testing.T) {
	isolateEnv(t)
	s, err := consoleSettings(t, "--config", writeFile(t, `allow_recipients = ["`+addrA+`"]
allow_mints = ["`+addrB+`"]
deny_mints = ["`+addrC+`"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Policy.AllowRecipients, []string{addrA}) || !reflect.DeepEqual(s.Policy.AllowMints, []string{addrB}) ||
		!reflect.DeepEqual(s.Policy.DenyMints, []string{addrC}) {
		t.Errorf("plural TOML keys: %+v", s.Policy)
	}
	t.Setenv("SOLGATE_STATE_DIR", "/old/name")
	if s, err := consoleSettings(t); err != nil || s.State != "/old/name" {
		t.Errorf("SOLGATE_STATE_DIR: %q, %v", s.State, err)
	}
	t.Setenv("SOLGATE_STATE", "/old/name")
	if s, err := consoleSettings(t); err != nil || s.State != "/old/name" {
		t.Errorf("both state variables, same value: %q, %v", s.State, err)
	}
}

// TestBadSettingsNameTheirSource: every refusal says which source and key
// the value came from and what would be accepted, and nothing is applied.
func TestBadSettingsNameTheirSource(t *testing.T) {
	isolateEnv(t)
	file := func(body string) string { return writeFile(t, body) }
	dir := t.TempDir()
	badCap := file(`max_sol_per_tx = "abc"`)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		// want: the error starts with this (the source), then says these.
		prefix string
		says   []string
	}{
		{"env deny mint", map[string]string{"SOLGATE_DENY_MINT": addrA + ",xyz"}, nil,
			"SOLGATE_DENY_MINT: ", []string{`"xyz" is not a mint address`, "accepted: a base58 public key"}},
		{"swap API version 3, flag", nil, []string{"--swap-api-version", "3"},
			"--swap-api-version: ", []string{`"3" is not accepted`, "want 1 (/swap/v1/quote and /swap/v1/swap) or 2 (/swap/v2/build)"}},
		{"flag recipient", nil, []string{"--allow-recipient", "0xdeadbeef"},
			"--allow-recipient: ", []string{`"0xdeadbeef" is not a Solana address`, "accepted"}},
		{"action origin over plain http, flag", nil, []string{"--allow-action-origin", "http://actions.example.com"},
			"--allow-action-origin: ", []string{"plain http is accepted on loopback only", "use https"}},
		{"action origin with a path, env", map[string]string{"SOLGATE_ALLOW_ACTION_ORIGIN": "https://example.com/api/actions/tip"}, nil,
			"SOLGATE_ALLOW_ACTION_ORIGIN: ", []string{"is a URL, not an origin", "give https://example.com"}},
		{"action origin not a URL, TOML", nil, []string{"--config", file(`allow_action_origin = ["example.com"]`)}, "allow_action_origin in ", []string{"an origin is https://host[:port]"}},
		{"toml cap text", nil, []string{"--config", badCap}, "max_sol_per_tx in " + badCap + ": ", []string{`"abc"`, "accepted: a SOL amount"}},
		{"negative cap flag", nil, []string{"--max-sol-per-tx", "-1"}, "--max-sol-per-tx: ", []string{"no sign", "accepted: a SOL amount"}},
		{"garbage cap env", map[string]string{"SOLGATE_MAX_SOL_PER_SESSION": "lots"}, nil, "SOLGATE_MAX_SOL_PER_SESSION: ", []string{`"lots"`}},
		{"insane cap flag", nil, []string{"--max-sol-per-session", "5000000"}, "--max-sol-per-session: ", []string{"sanity bound"}},
		{"per-tx above session, flags", nil, []string{"--max-sol-per-tx", "2", "--max-sol-per-session", "1"},
			"--max-sol-per-tx: ", []string{"above max_sol_per_session"}},
		{"per-tx above default session, env", map[string]string{"SOLGATE_MAX_SOL_PER_TX": "2"}, nil,
			"SOLGATE_MAX_SOL_PER_TX: ", []string{"above max_sol_per_session (1 SOL"}},
		{"mint in both lists across sources", map[string]string{"SOLGATE_ALLOW_MINT": addrB}, []string{"--deny-mint", addrB},
			"--deny-mint: ", []string{"also in allow_mint"}},
		{"token cap without amount, env", map[string]string{"SOLGATE_MAX_TOKEN_PER_TX": addrB}, nil,
			"SOLGATE_MAX_TOKEN_PER_TX: ", []string{"is not MINT=AMOUNT", "accepted: MINT=AMOUNT"}},
		{"token cap of zero, flag", nil, []string{"--max-token-per-day", addrB + "=0"}, "--max-token-per-day: ", []string{"zero", "deny_mint"}},
		{"token cap negative, TOML", nil, []string{"--config", file(`max_token_per_session = ["` + addrB + `=-5"]`)}, "max_token_per_session in ", []string{"no sign"}},
		{"token cap on a denied mint across sources", map[string]string{"SOLGATE_DENY_MINT": addrB}, []string{"--max-token-per-tx", addrB + "=5"},
			"--max-token-per-tx: ", []string{"also in deny_mint"}},
		{"bad delivery", nil, []string{"--token-delivery", "email"}, "--token-delivery: ", []string{`"agent" or "operator"`}},
		{"grace too long", nil, []string{"--approval-grace", "5s"}, "--approval-grace: ", []string{"100ms to 1s"}},
		{"grace too short, env", map[string]string{"SOLGATE_APPROVAL_GRACE": "10ms"}, nil, "SOLGATE_APPROVAL_GRACE: ", []string{"100ms to 1s"}},
		{"bad fee source", nil, []string{"--priority-fee-source", "fast"}, "--priority-fee-source: ", []string{"want auto, standard, helius or triton"}},
		{"fixed fee above the cap across sources", map[string]string{"SOLGATE_PRIORITY_FEE_LAMPORTS": "5000"}, []string{"--max-priority-fee-lamports", "1000"},
			"SOLGATE_PRIORITY_FEE_LAMPORTS: ", []string{"5000 lamports is above the 1000-lamport cap (--max-priority-fee-lamports)"}},
		{"percentile in TOML", nil, []string{"--config", file("priority_fee_percentile = 0")}, "priority_fee_percentile in ", []string{"1 to 100"}},
		{"negative uid env", map[string]string{"SOLGATE_ALLOW_UID": "1000,-1"}, nil, "SOLGATE_ALLOW_UID: ", []string{`"-1" is not a user id`, "0 to 4294967294"}},
		{"uid -1 as uint", nil, []string{"--allow-uid", "4294967295"}, "--allow-uid: ", []string{"not a user id"}},
		{"gid word", nil, []string{"--allow-gid", "wheel"}, "--allow-gid: ", []string{`"wheel" is not a group id`}},
		{"swap program", nil, []string{"--swap-program", "jupiter"}, "--swap-program: ", []string{"not a program id"}},
		{"allow program word", nil, []string{"--allow-program", "jupiter=Jup"}, "--allow-program: ", []string{`"jupiter" is not a program id`, "ID=LABEL"}},
		{"allow program label with an escape, env", map[string]string{"SOLGATE_ALLOW_PROGRAM": addrA + "=ok\x1b[2J"}, nil, "SOLGATE_ALLOW_PROGRAM: ", []string{"printable text"}},
		{"rpc scheme", map[string]string{"SOLGATE_RPC": "ftp://x"}, nil, "SOLGATE_RPC: ", []string{"http:// or https://"}},
		{"empty keypair flag", nil, []string{"--keypair", ""}, "--keypair: ", []string{"empty"}},
		{"bool env", map[string]string{"SOLGATE_ALLOW_MAINNET": "yes"}, nil, "SOLGATE_ALLOW_MAINNET: ", []string{"true or false"}},
		{"state variables disagree", map[string]string{"SOLGATE_STATE": "/a", "SOLGATE_STATE_DIR": "/b"}, nil,
			"SOLGATE_STATE and SOLGATE_STATE_DIR", []string{"set only SOLGATE_STATE"}},
		{"unknown variable", map[string]string{"SOLGATE_MAX_SOL_PER_TXN": "0.01"}, nil,
			"SOLGATE_MAX_SOL_PER_TXN: not a solgate setting", []string{"SOLGATE_MAX_SOL_PER_TX,"}},
		{"missing config file", nil, []string{"--config", filepath.Join(dir, "nope.toml")}, "--config: read", []string{"nope.toml"}},
		{"config from env, missing", map[string]string{"SOLGATE_CONFIG": filepath.Join(dir, "gone.toml")}, nil, "SOLGATE_CONFIG: read", []string{"gone.toml"}},
		{"toml syntax", nil, []string{"--config", file("max_sol_per_tx = = 1")}, "--config: parse", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := consoleSettings(t, tc.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.prefix) {
				t.Fatalf("err = %v; want it to start with %q", err, tc.prefix)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Fatalf("err = %v; want it to say %q", err, s)
				}
			}
		})
	}
}

// TestBadTOMLNamesKeyAndFile: a refused file names the key and the file,
// whatever the kind of mistake.
func TestBadTOMLNamesKeyAndFile(t *testing.T) {
	isolateEnv(t)
	for _, tc := range []struct{ name, body, key, says string }{
		{"unknown key", `max_sol_per_transfer = 0.1`, "max_sol_per_transfer", "unknown key; accepted keys: allow_action_origin, allow_gid, allow_mainnet, allow_mint, allow_program, allow_recipient,"},
		{"unknown table", "[limits]\nmax = 1", "limits", "unknown key"},
		{"config names a config", `config = "other.toml"`, "config", "unknown key"},
		{"both spellings", `allow_recipient = ["` + addrA + `"]` + "\n" + `allow_recipients = ["` + addrB + `"]`, "allow_recipients", "same setting; keep only allow_recipient"},
		{"negative cap int", `max_sol_per_tx = -1`, "max_sol_per_tx", "negative"},
		{"negative cap float", `max_sol_per_session = -0.5`, "max_sol_per_session", "negative"},
		{"negative cap string", `max_sol_per_day = "-0.5"`, "max_sol_per_day", "negative"},
		{"zero per-tx cap", `max_sol_per_tx = 0`, "max_sol_per_tx", "refuse every spend"},
		{"invalid recipient", `allow_recipient = ["not-an-address"]`, "allow_recipient", "not a Solana address"},
		{"short recipient, old key", `allow_recipients = ["111"]`, "allow_recipients", "not a Solana address"},
		{"recipients not a list", `allow_recipient = "` + addrA + `"`, "allow_recipient", "want a list"},
		{"cap above sanity bound", `max_sol_per_session = 2000000`, "max_sol_per_session", "sanity bound"},
		{"per-tx above per-session", "max_sol_per_tx = 2\nmax_sol_per_session = 1", "max_sol_per_tx", "above max_sol_per_session"},
		{"per-tx above per-day", "max_sol_per_tx = 0.5\nmax_sol_per_day = 0.2", "max_sol_per_tx", "above max_sol_per_day"},
		{"too many decimals", `max_sol_per_tx = "0.0000000001"`, "max_sol_per_tx", "decimals"},
		{"float needing more than 15 digits", `max_sol_per_day = 0.1234567891234567`, "max_sol_per_day", "write it as a string"},
		{"cap is a bool", `max_sol_per_tx = true`, "max_sol_per_tx", "want a number"},
		{"bad delivery", `token_delivery = "email"`, "token_delivery", `"agent" or "operator"`},
		{"slippage negative", `max_slippage_bps = -5`, "max_slippage_bps", "0 to 10000"},
		{"slippage float", `max_slippage_bps = 1.5`, "max_slippage_bps", "whole number"},
		{"price impact over 100", `max_price_impact_pct = 150`, "max_price_impact_pct", "more than 100%"},
		{"price impact 3 decimals", `max_price_impact_pct = "1.125"`, "max_price_impact_pct", "at most 2"},
		{"bad mint", `allow_mint = ["x"]`, "allow_mint", "not a mint address"},
		{"mint in both lists", `allow_mint = ["` + addrB + `"]` + "\n" + `deny_mint = ["` + addrB + `"]`, "deny_mint", "one list only"},
		{"mainnet not a bool", `allow_mainnet = "yes"`, "allow_mainnet", "true or false"},
		{"uid as string", `allow_uid = ["1000"]`, "allow_uid", "whole number"},
		{"rpc as number", `rpc = 8899`, "rpc", "quoted string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.body)
			_, err := consoleSettings(t, "--config", path)
			prefix := tc.key + " in " + path + ": "
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v; want %q then %q", err, prefix, tc.says)
			}
		})
	}
}

// Floats whose nearest binary value sits below the decimal are the classic
// trap: 0.29 SOL * 1e9 in float64 is 289999999.99999994. A TOML float must
// still give the exact lamports.
func TestTOMLFloatsConvertExactly(t *testing.T) {
	isolateEnv(t)
	for text, want := range map[string]uint64{
		"0.29": 290_000_000, "0.57": 570_000_000, "1.005": 1_005_000_000,
		"0.000000001": 1, "999999.999999999": 999_999_999_999_999, "4.35": 4_350_000_000,
	} {
		p := writeFile(t, "max_sol_per_session = 1000000\nmax_sol_per_day = "+text+"\nmax_sol_per_tx = 0.000000001\n")
		s, err := consoleSettings(t, "--config", p)
		if err != nil {
			t.Fatalf("max_sol_per_day = %s: %v", text, err)
		}
		if s.Policy.MaxLamportsPerDay != want {
			t.Errorf("max_sol_per_day = %s → %d lamports, want %d", text, s.Policy.MaxLamportsPerDay, want)
		}
	}
}

// TestHarnessVariablesAreNotSettings: a console started by a test or the
// benchmark inherits their SOLGATE_* variables and must still start.
func TestHarnessVariablesAreNotSettings(t *testing.T) {
	isolateEnv(t)
	t.Setenv("SOLGATE_FAULT_N", "3")
	t.Setenv("SOLGATE_LOCALNET_DIR", "/tmp/localnet")
	t.Setenv("SOLGATE_TUI_FIGURES", "1")
	if _, err := consoleSettings(t); err != nil {
		t.Fatal(err)
	}
}

// TestEverySOLGATEVariableIsKnown reads the repository for SOLGATE_* names.
// Each must be a setting or listed in otherVariables, or a console started
// under the code that sets it would refuse to start.
func TestEverySOLGATEVariableIsKnown(t *testing.T) {
	known := map[string]bool{}
	for i := range settings {
		known[settings[i].envVar()] = true
		for _, n := range settings[i].oldEnv {
			known[n] = true
		}
	}
	for _, n := range otherVariables {
		known[n] = true
	}
	re := regexp.MustCompile(`SOLGATE_[A-Z0-9_]*[A-Z0-9]`)
	root, _ := filepath.Abs("../..")
	found := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		ext := filepath.Ext(path)
		if d.IsDir() || d.Name() == "settings_test.go" || !(ext == ".go" || ext == ".mjs" || ext == ".md" || d.Name() == "Makefile") {
			return nil
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, name := range re.FindAllString(string(body), -1) {
			found++
			if !known[name] {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s uses %s, which is neither a setting nor in otherVariables", rel, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Fatalf("found only %d SOLGATE_ names under %s; is the walk reading the repository?", found, root)
	}
}

// TestSwapAPIKeyNeverShown: the key stays out of errors, --help and %v, on
// every path it can take.
func TestSwapAPIKeyNeverShown(t *testing.T) {
	isolateEnv(t)
	const secret = "qzxv-live-4f9a"
	t.Setenv("SOLGATE_SWAP_API_KEY", secret+" \x01")
	_, err := consoleSettings(t)
	if err == nil || !strings.HasPrefix(err.Error(), "SOLGATE_SWAP_API_KEY: ") || strings.Contains(err.Error(), secret) {
		t.Fatalf("bad key from env: %v", err)
	}
	_, err = consoleSettings(t, "--config", writeFile(t, "swap_api_key = 4242424242\n"))
	if err == nil || strings.Contains(err.Error(), "4242424242") {
		t.Fatalf("bad key in TOML shown: %v", err)
	}
	for _, body := range []string{"swap_api_key = " + secret + "\n", "swap_api_key = \"" + secret + "\n", "swap_api_key = '" + secret + "\\q\n"} {
		_, err = consoleSettings(t, "--config", writeFile(t, body))
		if err == nil || !strings.Contains(err.Error(), "line 1") || strings.Contains(err.Error(), "qzx") {
			t.Fatalf("TOML syntax error near the key shows part of it: %v", err)
		}
	}
	t.Setenv("SOLGATE_SWAP_API_KEY", secret)
	s, err := consoleSettings(t)
	if err != nil || s.SwapAPIKey != secret {
		t.Fatalf("good key: %v", err)
	}
	for _, text := range []string{fmt.Sprint(s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s)} {
		if strings.Contains(text, secret) {
			t.Fatalf("Settings printed the key: %s", text)
		}
	}
	// An unknown variable may be a misspelt key: its value is not echoed.
	t.Setenv("SOLGATE_SWAP_APIKEY", secret)
	if _, err := consoleSettings(t); err == nil || !strings.Contains(err.Error(), "SOLGATE_SWAP_APIKEY") || strings.Contains(err.Error(), secret) {
		t.Fatalf("unknown variable: %v", err)
	}
	os.Unsetenv("SOLGATE_SWAP_APIKEY")
	help := runRoot(t, "console", "--help")
	if strings.Contains(help, secret) || !strings.Contains(help, "--swap-api-key KEY") {
		t.Fatalf("--help:\n%s", help)
	}
}

// A secret given as a flag is refused, whatever its value, with the reason
// (/proc/PID/cmdline is world-readable) and the ways that are accepted; the
// value is never repeated. The file form reads the key from a private file
// and refuses one others can read.
func TestSecretFlagRefused(t *testing.T) {
	isolateEnv(t)
	const secret = "qzxv-live-4f9a"
	_, err := consoleSettings(t, "--swap-api-key", secret)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "/proc/PID/cmdline") ||
		!strings.Contains(err.Error(), "SOLGATE_SWAP_API_KEY") || !strings.Contains(err.Error(), "--swap-api-key-file") {
		t.Fatalf("--swap-api-key as a flag: %v", err)
	}
	file := writeFile(t, secret+"\n")
	s, err := consoleSettings(t, "--swap-api-key-file", file)
	if err != nil || s.SwapAPIKey != secret {
		t.Fatalf("--swap-api-key-file: %q %v", s.SwapAPIKey, err)
	}
	must(t, os.Chmod(file, 0o640))
	_, err = consoleSettings(t, "--swap-api-key-file", file)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "readable by other users (mode 0640)") {
		t.Fatalf("a key file others can read: %v", err)
	}
	must(t, os.Chmod(file, 0o600))
	t.Setenv("SOLGATE_SWAP_API_KEY", secret)
	if _, err := consoleSettings(t, "--swap-api-key-file", file); err == nil || !strings.Contains(err.Error(), "keep only one") {
		t.Fatalf("key from both the variable and a file: %v", err)
	}
}

// The config file can run a command as the console (notify_command), so a
// file, or a directory around it, that others can write is refused, naming
// the file and why.
func TestConfigFileMustBeTheConsoleUsers(t *testing.T) {
	isolateEnv(t)
	cfg := writeFile(t, "max_sol_per_tx = 0.05\n")
	if _, err := consoleSettings(t, "--config", cfg); err != nil {
		t.Fatalf("a private config file: %v", err)
	}
	must(t, os.Chmod(cfg, 0o664))
	_, err := consoleSettings(t, "--config", cfg)
	if err == nil || !strings.Contains(err.Error(), "--config "+cfg+" is writable by group or others (mode 0664)") {
		t.Fatalf("a group-writable config file: %v", err)
	}
	must(t, os.Chmod(cfg, 0o600))
	must(t, os.Chmod(filepath.Dir(cfg), 0o777))
	_, err = consoleSettings(t, "--config", cfg)
	if err == nil || !strings.Contains(err.Error(), "the directory "+filepath.Dir(cfg)+" is writable by group or others") {
		t.Fatalf("a config file in a world-writable directory: %v", err)
	}
	must(t, os.Chmod(filepath.Dir(cfg), 0o700))
	if os.Geteuid() == 0 {
		must(t, os.Chown(cfg, uidAgent, uidAgent))
		_, err = consoleSettings(t, "--config", cfg)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("--config %s belongs to uid %d, not to the console's user", cfg, uidAgent)) {
			t.Fatalf("a config file the agent's user owns: %v", err)
		}
	}
}

// A FIFO planted where the config file or the swap API key file is expected
// is refused by name at start; reading it would wait for a writer, and the
// console would hang before a word.
func TestConfigAndSecretFIFOsAreRefused(t *testing.T) {
	isolateEnv(t)
	dir := t.TempDir()
	for _, flag := range []string{"--config", "--swap-api-key-file"} {
		fifo := filepath.Join(dir, strings.TrimPrefix(flag, "--"))
		must(t, syscall.Mkfifo(fifo, 0o600))
		err := testkit.Within(t, 10*time.Second, "the settings with "+flag+" a FIFO", func() error {
			_, err := consoleSettings(t, flag, fifo)
			return err
		})
		if want := flag + " " + fifo + " is not a regular file (p---------)"; err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s a FIFO: %v, want %q", flag, err, want)
		}
	}
}

// ~ in a path setting is the console user's home from the user database,
// not $HOME (which sudo can carry over from the operator).
func TestTildeIsTheConsoleUsersHome(t *testing.T) {
	isolateEnv(t) // HOME=/home/op
	u, err := user.Current()
	if err != nil || u.HomeDir == "" || u.HomeDir == "/home/op" {
		t.Skipf("requires a user database entry with a home other than the test's $HOME: %v", err)
	}
	s, err := consoleSettings(t, "--state", "~/st", "--log-file", "~/l.log")
	if err != nil {
		t.Fatal(err)
	}
	if s.State != filepath.Join(u.HomeDir, "st") || s.LogFile != filepath.Join(u.HomeDir, "l.log") {
		t.Fatalf("~ expanded to %q, %q; want under %s", s.State, s.LogFile, u.HomeDir)
	}
}

// runRoot runs the real root command, as the binary does, and returns what
// it printed plus its error.
func runRoot(t *testing.T, args ...string) string {
	t.Helper()
	out, _ := runRootErr(t, args...)
	return out
}

func runRootErr(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var buf bytes.Buffer
	root.SetOut(&buf)
	root.SetErr(&buf)
	root.SetArgs(args)
	err := root.Execute()
	return buf.String(), err
}

// TestConsoleCommandReadsTheTable drives `solgate console` itself: a bad
// deny list from the environment stops it before anything starts, and good
// settings get as far as the terminal check.
func TestConsoleCommandReadsTheTable(t *testing.T) {
	isolateEnv(t)
	t.Setenv("SOLGATE_DENY_MINT", "xyz")
	if _, err := runRootErr(t, "console"); err == nil || !strings.HasPrefix(err.Error(), `SOLGATE_DENY_MINT: "xyz" is not a mint address`) {
		t.Fatalf("console with a bad SOLGATE_DENY_MINT: %v", err)
	}
	t.Setenv("SOLGATE_DENY_MINT", addrB)
	// The console checks its key before the terminal, so good settings
	// include a key it may use.
	keyFile := testkit.NewWallet(t).File
	if _, err := runRootErr(t, "console", "--allow-recipient", addrA, "--keypair", keyFile); err == nil || !strings.Contains(err.Error(), "interactive terminal") {
		t.Fatalf("console with good settings should stop only at the terminal check: %v", err)
	}
	help := runRoot(t, "console", "--help")
	for _, want := range []string{"--allow-recipient ADDR", "--allow-unknown-network", "--max-sol-per-tx SOL", "(default 0.1)",
		"--allow-uid UID", "--swap-program ID", "SOLGATE_MAX_SOL_PER_TX=0.05", "max_sol_per_tx = 0.05", "A flag beats a variable"} {
		if !strings.Contains(help, want) {
			t.Errorf("console --help lacks %q:\n%s", want, help)
		}
	}
}

// TestSubcommandsShareRows: mcp, prove and audit read their connection
// settings from the same rows, so the same variables work there; a variable
// meant for the console does not stop them, and a misspelt one does.
func TestSubcommandsShareRows(t *testing.T) {
	isolateEnv(t)
	t.Setenv("SOLGATE_RPC", "gopher://x")
	if _, err := runRootErr(t, "prove"); err == nil || !strings.HasPrefix(err.Error(), "SOLGATE_RPC: ") {
		t.Fatalf("prove with a bad SOLGATE_RPC: %v", err)
	}
	os.Unsetenv("SOLGATE_RPC")
	t.Setenv("SOLGATE_SOCKET", "")
	if _, err := runRootErr(t, "mcp", "--socket", ""); err == nil || !strings.HasPrefix(err.Error(), "--socket: empty") {
		t.Fatalf("mcp with an empty --socket: %v", err)
	}
	t.Setenv("SOLGATE_STATE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("SOLGATE_MAX_SOL_PER_TX", "1") // the console's business, not audit's
	if _, err := runRootErr(t, "audit"); err == nil || !strings.Contains(err.Error(), "no solgate database") {
		t.Fatalf("audit with SOLGATE_STATE: %v", err)
	}
	// A misspelt one is nobody's: every subcommand refuses it.
	t.Setenv("SOLGATE_MAX_SOL_PER_TXN", "1")
	if _, err := runRootErr(t, "audit"); err == nil || !strings.Contains(err.Error(), "did you mean SOLGATE_MAX_SOL_PER_TX") {
		t.Fatalf("audit with a misspelt variable: %v", err)
	}
}

// tokenCapCase: MINT=AMOUNT lists, base units and display units alike.
func tokenCapCase(t *testing.T, key string, get func(Settings) any) sourceCase {
	caps := func(texts ...string) []policy.TokenCap {
		var out []policy.TokenCap
		for _, x := range texts {
			c, err := policy.ParseTokenCap(x)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	a1, a2, b, c := addrA+"=250000", addrB+"=0.25", addrC+"=1", addrD+"=18446744073709551615"
	return sourceCase{env: "SOLGATE_" + strings.ToUpper(key), toml: key, def: []policy.TokenCap(nil), get: get,
		a: lv([]string{a1, a2}, `["`+a1+`", "`+a2+`"]`, caps(a1, a2)),
		b: lv([]string{b}, `["`+b+`"]`, caps(b)),
		c: lv([]string{c}, `["`+c+`"]`, caps(c))}
}

// runWithin runs the solgate binary with env added, and gives up after d
// (a subcommand that wrongly starts would otherwise run on).
func runWithin(t *testing.T, d time.Duration, env []string, args ...string) (stderr string, exit int) {
	t.Helper()
	bin := solgateBinary(t) // built before the clock starts
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Env = append(os.Environ(), env...)
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("solgate %v still ran after %s; stderr:\n%s", args, d, errb.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return errb.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return errb.String(), 0
}

// A SOLGATE_* variable that is not a setting stops every subcommand before it
// does anything, with the name it was probably meant to be: a typo in
// SOLGATE_SOCKET in an MCP client's config used to end at "no approval
// console is running".
func TestEverySubcommandRefusesUnknownVariables(t *testing.T) {
	isolateEnv(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "new.json")
	for _, args := range [][]string{
		{"mcp"}, {"console", "--check"}, {"prove"}, {"audit", "--state", dir}, {"demo"}, {"keygen", "-o", keyFile},
	} {
		stderr, exit := runWithin(t, 30*time.Second, []string{"SOLGATE_SOCKT=" + filepath.Join(dir, "c.sock")}, args...)
		if exit == 0 || !strings.Contains(stderr, "SOLGATE_SOCKT: not a solgate setting") || !strings.Contains(stderr, "did you mean SOLGATE_SOCKET") {
			t.Errorf("solgate %v with SOLGATE_SOCKT set: exit %d, stderr:\n%s", args, exit, stderr)
		}
	}
	if _, err := os.Stat(keyFile); err == nil {
		t.Error("keygen wrote a key although it refused to run")
	}
}

// An unknown flag names the flag it was probably meant to be.
func TestUnknownFlagSaysDidYouMean(t *testing.T) {
	isolateEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--sockt", "/x"}, "unknown flag: --sockt: did you mean --socket?"},
		{[]string{"console", "--max-sol-per-txn", "1"}, "unknown flag: --max-sol-per-txn: did you mean --max-sol-per-tx?"},
		{[]string{"audit", "--stat", "/x"}, "did you mean --state?"},
	} {
		stderr, exit := runWithin(t, 30*time.Second, nil, tc.args...)
		if exit == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("solgate %v: exit %d, stderr %q; want %q", tc.args, exit, stderr, tc.want)
		}
	}
	// Nothing near: no guess, still the way to the list.
	if stderr, _ := runWithin(t, 30*time.Second, nil, "keygen", "--zzzzzz"); strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, "solgate keygen --help") {
		t.Errorf("a far-off flag: %q", stderr)
	}
}

// An x402 origin is an origin: https, or plain http only to loopback, and
// no path; anything else names the argument and what is accepted.
func TestX402OriginRefusals(t *testing.T) {
	for _, bad := range []string{"http://api.example.com", "https://api.example.com/paid", "https://api.example.com/?x=1", "api.example.com", "ftp://api.example.com"} {
		_, err := consoleSettings(t, "--allow-x402-origin", bad)
		if err == nil || !strings.Contains(err.Error(), "allow-x402-origin") || !strings.Contains(err.Error(), "accepted") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
