package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// The demo agent's narration reaches the log as the agent's words, in a
// style of its own.
func TestNarrationInTheLog(t *testing.T) {
	m := testModel(viewOpts{color: true}, nil, spendState(0, 0, false))
	m.Update(events(
		authority.Event{Kind: approval.EventNote, At: t0, Client: "demo-agent", Message: "Hi! I'm a scripted assistant.\nFirst, a look at the wallet."},
		authority.Event{Kind: approval.EventNote, At: t0, Message: "no name"},
	))
	m.Update(sizeMsg(80, 24))
	raw := m.View()
	out := ansi.Strip(raw)
	for _, want := range []string{"agent demo-agent: Hi! I'm a scripted assistant. First, a look at the wallet.", "agent (unnamed): no name"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("%q not in the log:\n%s", want, out)
		}
	}
	open, _, _ := strings.Cut(m.cfg.styles.agent.Render("X"), "X")
	if open == "" || !strings.Contains(raw, open+"15:09:26  agent demo-agent: ") {
		t.Errorf("the narration is not in the agent style (%q):\n%q", open, raw)
	}
}

// Addresses in the log are never abbreviated; signatures are, on narrow
// screens only.
func TestLogAbbreviatesOnlySignatures(t *testing.T) {
	sig := "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	text := "to " + recipientKey.String() + ", sig " + sig + "."
	if got, want := shortenSignatures(text), "to "+recipientKey.String()+", sig 5VER…kQUW."; got != want {
		t.Errorf("shortenSignatures = %q, want %q", got, want)
	}
	w := walletKey.String()
	if got, want := shortenWord("create "+w+"'s account for "+w+".", w), "create "+short(w)+"'s account for "+short(w)+"."; got != want {
		t.Errorf("shortenWord = %q, want %q", got, want)
	}
}
