package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/solgate/solgate/policy"
)

// agentsTOML is the two-agent world: a console whose session cap is
// 1 SOL, a research agent held to 0.2 and a recipient of its own, a trading
// agent at the console's 1.0.
const agentsTOML = `max_sol_per_tx = 0.1
max_sol_per_session = 1.0
max_sol_per_day = 2
allow_recipient = ["` + addrA + `", "` + addrB + `"]

[[agent]]
uid = 1500
label = "research"
no_grants = true
max_sol_per_tx = 0.08
max_sol_per_session = 0.2
allow_recipient = ["` + addrB + `"]

[[agent]]
uid = 1501
label = "trading"
max_sol_per_session = 1.0
`

func TestAgentSectionsRead(t *testing.T) {
	isolateEnv(t)
	s, err := consoleSettings(t, "--config", writeFile(t, agentsTOML), "--allow-uid", "1400")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Policy.Agents) != 2 {
		t.Fatalf("agents = %+v, want 2", s.Policy.Agents)
	}
	r, ok := s.Policy.AgentFor("uid 1500")
	if !ok || r.Label != "research" {
		t.Fatalf("uid 1500: %+v %v", r, ok)
	}
	// Spelled out: 0.2 SOL, 0.08 SOL; the day cap and the mint lists are
	// the console's, since the section does not narrow them.
	if r.Config.MaxLamportsPerSession != 200_000_000 || r.Config.MaxLamportsPerTx != 80_000_000 || r.Config.MaxLamportsPerDay != 2_000_000_000 {
		t.Fatalf("research caps = %d/%d/%d", r.Config.MaxLamportsPerTx, r.Config.MaxLamportsPerSession, r.Config.MaxLamportsPerDay)
	}
	if !r.NoGrants {
		t.Fatal("research's no_grants was not read")
	}
	if !slices.Equal(r.Config.AllowRecipients, []string{addrB}) {
		t.Fatalf("research recipients = %v", r.Config.AllowRecipients)
	}
	tr, _ := s.Policy.AgentFor("uid 1501")
	if tr.Config.MaxLamportsPerTx != 100_000_000 || !slices.Equal(tr.Config.AllowRecipients, []string{addrA, addrB}) {
		t.Fatalf("trading inherits the console's: %+v", tr.Config)
	}
	// A uid with a section is admitted without --allow-uid.
	for _, uid := range []uint32{1400, 1500, 1501} {
		if !slices.Contains(s.AllowUIDs, uid) {
			t.Fatalf("uid %d not admitted: %v", uid, s.AllowUIDs)
		}
	}
	if s.Policy.Agents[0].Config.Agents != nil {
		t.Fatal("an agent's own policy must not hold sections")
	}
}

// Every refusal names the file's line where the offending key is.
func TestAgentSectionsRefused(t *testing.T) {
	isolateEnv(t)
	for _, c := range []struct {
		name, file string
		args       []string
		want       []string
	}{
		{"session cap above the console's", agentsTOML + "\n[[agent]]\nuid = 1502\nmax_sol_per_session = 1.5\n", nil,
			[]string{"line 21", "max_sol_per_session", "above the console's 1 SOL"}},
		{"tx cap above a flag that lowered the console's", agentsTOML, []string{"--max-sol-per-tx", "0.05"},
			[]string{"line 10", "max_sol_per_tx", "0.08 SOL", "above the console's 0.05 SOL"}},
		{"day cap off under a console day cap", agentsTOML + "\n[[agent]]\nuid = 1502\nmax_sol_per_day = 0\n", nil,
			[]string{"line 21", "max_sol_per_day", "0 (off)"}},
		{"recipient the console does not admit", agentsTOML + "\n[[agent]]\nuid = 1502\nallow_recipient = [\"" + addrC + "\"]\n", nil,
			[]string{"line 21", "allow_recipient", addrC, "not on the console's"}},
		{"program the console does not admit", agentsTOML + "\n[[agent]]\nuid = 1502\nallow_program = [\"" + lookupTableProgram + "\"]\n", nil,
			[]string{"line 21", "allow_program", lookupTableProgram, "not on the console's program allowlist"}},
		{"grants on under a console without them", agentsTOML + "\n[[agent]]\nuid = 1502\nno_grants = false\n", []string{"--no-grants"},
			[]string{"line 21", "no_grants", "only narrow"}},
		{"unknown key", agentsTOML + "\n[[agent]]\nuid = 1502\nmax_sol_per_txn = 0.01\n", nil,
			[]string{"line 21", "max_sol_per_txn is not a key of an [[agent]] section", "max_sol_per_tx"}},
		{"uid twice", agentsTOML + "\n[[agent]]\nlabel = \"again\"\nuid = 1500\n", nil,
			[]string{"line 21", "uid 1500 already has a section", "line 7"}},
		{"no uid", agentsTOML + "\n[[agent]]\nlabel = \"nobody\"\n", nil,
			[]string{"line 19", "needs uid"}},
		{"bad label", agentsTOML + "\n[[agent]]\nuid = 1502\nlabel = \"\\u001b[2Jx\"\n", nil,
			[]string{"line 21", "label"}},
		{"admitted uid without a section", "require_agent_sections = true\n" + agentsTOML, []string{"--allow-uid", "1400"},
			[]string{"uid 1400 is admitted", "no [[agent]] section"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := consoleSettings(t, append([]string{"--config", writeFile(t, c.file)}, c.args...)...)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// With require_agent_sections every admitted uid having a section is fine.
func TestRequireAgentSectionsAccepts(t *testing.T) {
	isolateEnv(t)
	s, err := consoleSettings(t, "--config", writeFile(t, "require_agent_sections = true\n"+agentsTOML), "--allow-uid", "1500")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Policy.RequireAgentSections {
		t.Fatal("not required")
	}
	var _ policy.Agent = s.Policy.Agents[0]
}

// A section's per-mint cap replaces the console's for its mint and keeps
// the console's for the others; one above the console's, or in other units,
// is refused with its line.
func TestAgentSectionTokenCaps(t *testing.T) {
	isolateEnv(t)
	top := "max_token_per_tx = [\"" + addrB + "=1000\", \"" + addrC + "=7\"]\n\n[[agent]]\nuid = 1500\n"
	s, err := consoleSettings(t, "--config", writeFile(t, top+"max_token_per_tx = [\""+addrB+"=500\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Policy.Agents[0].Config.MaxTokenPerTx
	if len(got) != 2 || got[0].String() != addrB+"=500" || got[1].String() != addrC+"=7" {
		t.Fatalf("research's token caps: %v", got)
	}
	for _, bad := range []string{"=1001", "=0.5"} {
		_, err := consoleSettings(t, "--config", writeFile(t, top+"max_token_per_tx = [\""+addrB+bad+"\"]\n"))
		if err == nil || !strings.Contains(err.Error(), "line 5") || !strings.Contains(err.Error(), "max_token_per_tx") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// An [[agent]] section's allow_program narrows the console's program
// allowlist: the agent keeps the default programs and the ones it names,
// each of which the console admits; another agent keeps the console's.
func TestAgentSectionNarrowsPrograms(t *testing.T) {
	isolateEnv(t)
	const jupiter = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4" // Jupiter v6, as published
	file := agentsTOML + "\n[[agent]]\nuid = 1502\nlabel = \"narrow\"\nallow_program = [\"" + jupiter + "=Jupiter\"]\n"
	s, err := consoleSettings(t, "--config", writeFile(t, file), "--allow-program", jupiter+"=Jupiter", "--allow-program", lookupTableProgram+"=lookup tables")
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range []struct {
		owner      string
		jup, table bool
	}{{"uid 1502", true, false}, {"uid 1501", true, true}} {
		a, _ := s.Policy.AgentFor(uid.owner)
		_, jup := a.Config.AllowedPrograms[jupiter]
		_, table := a.Config.AllowedPrograms[lookupTableProgram]
		_, system := a.Config.AllowedPrograms["11111111111111111111111111111111"]
		if jup != uid.jup || table != uid.table || !system {
			t.Errorf("%s: programs %v", uid.owner, a.Config.AllowedPrograms)
		}
	}
}
