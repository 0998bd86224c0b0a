package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/solgate/solgate/mcpbridge/hub"
)

// The hub's persistent warnings open the header's second line, in red, so
// no width cuts them off.
func TestHeaderShowsWarningsFirstInRed(t *testing.T) {
	st := spendState(0, 0, false)
	st.Warnings = []string{hub.WarnSameUser}
	m := testModel(viewOpts{color: true}, nil, st)
	m.setSize(80, 30)
	line := m.headerLines()[1]
	if plain := ansi.Strip(line); !strings.HasPrefix(plain, "⚠ agent runs as your user: it can use the key without you") {
		t.Fatalf("header line 2 does not open with the warning: %q", plain)
	}
	// Red is SGR 31 (ANSI colour 1), set before the warning's text.
	if i, j := strings.Index(line, "31"), strings.Index(line, "⚠"); i < 0 || i > j {
		t.Fatalf("the warning is not red: %q", line)
	}
}
