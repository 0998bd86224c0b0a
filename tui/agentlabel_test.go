package tui

import (
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// A user with an [[agent]] section is shown by the operator's label first,
// then the kernel's uid, in the queue row and the detail.
func TestQueueShowsTheAgentsLabelAndUID(t *testing.T) {
	p := transfer(1, "claude-code 1.0", recipientKey, 1_000_000, t0)
	p.User, p.Agent = "uid 64401", "research"
	m := testModel(viewOpts{}, nil, spendState(0, 0, false))
	m.Update(events(authority.Event{Kind: approval.EventProposalAdded, At: t0, Proposal: p}))
	out := screen(t, m, 140, 40)
	if !strings.Contains(out, p.ID+" research · uid 64401") {
		t.Errorf("the queue row does not name the agent's label and uid:\n%s", out)
	}
	if !strings.Contains(out, "Agent     research (its own budget, from your config)") || !strings.Contains(out, "User      uid 64401 (from the kernel)") {
		t.Errorf("the detail does not name the agent's label and uid:\n%s", out)
	}
}
