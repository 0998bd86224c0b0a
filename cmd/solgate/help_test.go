package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/solgate/solgate/localnet/testkit"
)

// solgate --help names every subcommand a user can run exactly once: one
// added later (demo and keygen once were) must not be missing, and a
// hand-written overview beside cobra's list once named each twice.
func TestRootHelpNamesEachSubcommandOnce(t *testing.T) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	n := 0
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		n++
		// Cobra lists a command as "  NAME   Short".
		if got := strings.Count(help, "\n  "+c.Name()+" "); got != 1 {
			t.Errorf("solgate --help lists %q %d times, want once:\n%s", c.Name(), got, help)
		}
	}
	if n < 6 {
		t.Fatalf("only %d subcommands registered", n)
	}
}

// `solgate version` and `solgate --version` print the same line, from the
// real binary.
func TestVersionAndVersionFlagAgree(t *testing.T) {
	bin := testkit.Binary(t)
	a, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("solgate version: %v\n%s", err, a)
	}
	b, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("solgate --version: %v\n%s", err, b)
	}
	if string(a) != string(b) || strings.Count(string(a), "\n") != 1 || !strings.HasPrefix(string(a), "solgate ") {
		t.Fatalf("solgate version = %q, solgate --version = %q: want the same single line", a, b)
	}
}

// Every console flag sits under one heading of --help, every heading names
// only real flags, and no default is printed in quotes ((default "0.1") read
// as if a number of SOL were a word).
func TestConsoleHelpGroupsEveryFlag(t *testing.T) {
	cmd := newConsoleCmd()
	grouped := map[string]string{}
	for _, g := range consoleFlagGroups {
		for _, n := range g.flags {
			if prev, dup := grouped[n]; dup {
				t.Errorf("--%s is under both %q and %q", n, prev, g.title)
			}
			grouped[n] = g.title
			if cmd.Flags().Lookup(n) == nil {
				t.Errorf("group %q names --%s, which console does not have", g.title, n)
			}
		}
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := grouped[f.Name]; !ok && f.Name != "help" {
			t.Errorf("--%s is under no heading of console --help", f.Name)
		}
	})
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	if err := groupedUsage(cmd); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	for _, g := range consoleFlagGroups {
		if !strings.Contains(help, "\n"+g.title+":\n") {
			t.Errorf("console --help has no heading %q", g.title)
		}
	}
	if strings.Contains(help, `(default "`) {
		t.Errorf("console --help quotes a default:\n%s", help)
	}
}
