package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// The hub's persistent warnings take a header line of their own, in red,
// and the screen stays exactly the window's height.
func TestHeaderShowsWarningsFirstInRed(t *testing.T) {
	st := spendState(0, 0, false)
	st.Warnings = []string{host.WarnSameUser}
	m := testModel(viewOpts{color: true}, nil, st)
	m.setSize(80, 30)
	line := m.headerLines()[1]
	if plain := ansi.Strip(line); !strings.HasPrefix(plain, "⚠ agent runs as your user: it can use the key without you") {
		t.Fatalf("header line 2 does not open with the warning: %q", plain)
	}
	if agents := ansi.Strip(m.headerLines()[2]); !strings.Contains(agents, "agents (2") {
		t.Fatalf("the agents line is gone: %q", agents)
	}
	if n := len(strings.Split(m.View(), "\n")); n != 30 {
		t.Fatalf("View has %d lines in a 30-line window", n)
	}
	// Red is SGR 31 (ANSI colour 1), set before the warning's text.
	if i, j := strings.Index(line, "31"), strings.Index(line, "⚠"); i < 0 || i > j {
		t.Fatalf("the warning is not red: %q", line)
	}
}
