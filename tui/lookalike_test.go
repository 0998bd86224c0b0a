package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/policy"
)

// A look-alike shares exactly the characters an abbreviation keeps, so
// wherever a look-alike warning or a recipient is shown the address is
// whole — at every size, in the log and in the detail pane.
func TestLookAlikeWarningsShowFullAddresses(t *testing.T) {
	fake, real := lookalikeKey.String(), recipientKey.String()
	warning := fmt.Sprintf("recipient %s looks like known address %s (possible address poisoning)", fake, real)
	scenarios := map[string]func() *model{
		// The hub auto-denies a look-alike that is not on the allowlist and
		// sends the warning with the event, as the demo shows.
		"auto-denied": func() *model {
			m := testModel(viewOpts{}, nil, spendState(0, 0, false))
			m.Update(events(authority.Event{Kind: approval.EventAutoDenied, At: t0, Client: "demo-agent 1.0",
				Message:  fmt.Sprintf("demo-agent 1.0 → 0.01 SOL to %s denied by %s: %s is not on the recipient allowlist.", fake, policy.RuleRecipient, fake),
				Warnings: []string{warning}}))
			return m
		},
		// Behind a pending proposal the log is three rows at 80x24.
		"auto-denied behind a proposal": func() *model {
			m := testModel(viewOpts{}, []*authority.Proposal{transfer(1, "e2e-agent 1.0", otherKey, 10_000_000, t0.Add(-time.Second))}, spendState(0, 0, false))
			m.Update(events(authority.Event{Kind: approval.EventAutoDenied, At: t0, Client: "demo-agent 1.0",
				Message:  fmt.Sprintf("demo-agent 1.0 → 0.01 SOL to %s denied by %s: not on the allowlist.", fake, policy.RuleRecipient),
				Warnings: []string{warning}}))
			return m
		},
		// A look-alike that reached the queue (here: the operator allowed it).
		"proposed": func() *model {
			p := transfer(1, "e2e-agent 1.0", lookalikeKey, 10_000_000, t0.Add(-time.Second))
			p.Flags = []approval.Flag{{Kind: approval.FlagLookAlike, Text: warning}}
			m := testModel(viewOpts{}, nil, spendState(0, 0, false))
			m.Update(events(authority.Event{Kind: approval.EventProposalAdded, At: t0, Proposal: p}))
			return m
		},
	}
	for name, build := range scenarios {
		for _, size := range [][2]int{{80, 24}, {140, 40}} {
			out := screen(t, build(), size[0], size[1])
			if !strings.Contains(out, fake) || !strings.Contains(out, real) {
				t.Errorf("%s %v: both addresses must be on screen in full:\n%s", name, size, out)
			}
			for _, abbreviated := range []string{short(fake), short(real)} {
				if strings.Contains(out, abbreviated) {
					t.Errorf("%s %v: %q abbreviates an address:\n%s", name, size, abbreviated, out)
				}
			}
			if !strings.Contains(strings.Join(strings.Fields(out), " "), "(possible address poisoning)") {
				t.Errorf("%s %v: the warning is cut short:\n%s", name, size, out)
			}
		}
	}
}

// The detail pane's own look-alike check names both addresses in full.
func TestDetailLookAlikeCheckNamesBothAddresses(t *testing.T) {
	p := transfer(1, "e2e-agent 1.0", lookalikeKey, 10_000_000, t0.Add(-time.Second)) // no hub flag
	m := testModel(viewOpts{}, []*authority.Proposal{p}, spendState(0, 0, false))
	m.Update(sizeMsg(80, 24))
	want := fmt.Sprintf("⚠ recipient %s looks like known address %s (possible address poisoning)", lookalikeKey, recipientKey)
	if got := flatDetail(m, 80); !strings.Contains(got, want) {
		t.Errorf("%q not in the detail:\n%s", want, got)
	}
}
