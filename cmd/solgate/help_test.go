package main

import (
	"strings"
	"testing"
)

// solgate --help lists every subcommand a user can run: one added later
// (demo and keygen once were) must not be missing from the overview.
func TestRootHelpListsEverySubcommand(t *testing.T) {
	root := newRootCmd()
	n := 0
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		n++
		if !strings.Contains(root.Long, "  solgate "+c.Name()+" ") {
			t.Errorf("solgate --help does not list %q", c.Name())
		}
	}
	if n < 6 {
		t.Fatalf("only %d subcommands registered", n)
	}
}
