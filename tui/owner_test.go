package tui

import (
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// Two users' bridges may call themselves alike; the console names each by
// the kernel's word (Proposal.User, which the hub fills from the peer's
// credentials: TestAProposalBelongsToTheUserThatMadeIt) in the queue row,
// the detail and the log.
func TestQueueShowsTheKernelsUserBesideTheName(t *testing.T) {
	a := transfer(1, "claude-code 1.0", recipientKey, 1_000_000, t0)
	a.User = "agent-a (uid 64201)"
	b := transfer(2, "claude-code 1.0", recipientKey, 1_000_000, t0)
	b.User = "agent-b (uid 64202)"
	m := testModel(viewOpts{}, nil, spendState(0, 0, false))
	m.Update(events(
		authority.Event{Kind: approval.EventProposalAdded, At: t0, Proposal: a},
		authority.Event{Kind: approval.EventProposalAdded, At: t0, Proposal: b},
	))
	out := screen(t, m, 140, 40)
	rows, logged := 0, 0
	for _, l := range strings.Split(out, "\n") {
		for _, p := range []*authority.Proposal{a, b} {
			// The row may cut the self-described name; never the user,
			// which comes first.
			switch {
			case strings.Contains(l, "NEW "+p.ID+" from "+p.User+" · claude-"):
				logged++
			case strings.Contains(l, p.ID+" "+p.User+" ·"):
				rows++
			}
		}
	}
	if rows != 2 || logged != 2 {
		t.Errorf("%d queue rows and %d log lines name the user beside the client, want 2 and 2:\n%s", rows, logged, out)
	}
	if !strings.Contains(out, "User      agent-a (uid 64201) (from the kernel)") {
		t.Errorf("the detail of the selected proposal does not name its user:\n%s", out)
	}
}
