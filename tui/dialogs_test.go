package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// expiredEvent is what the hub publishes when p expires undecided.
func expiredEvent(t *testing.T, w *authorityWorld, id string) eventsMsg {
	t.Helper()
	p, ok := w.authority.Proposal(id)
	if !ok {
		t.Fatalf("proposal %s not in the hub", id)
	}
	p.Status, p.Reason = approval.StatusExpired, "no decision within 10m0s (denied by timeout)"
	return events(authority.Event{Kind: approval.EventProposalExpired, At: time.Now(), Proposal: p})
}

// typeSlowly presses each rune of text as its own key, the clock moving
// between keys as a person types (200 ms a key), and returns the actions
// performed against the real hub.
func typeSlowly(t *testing.T, m *model, c *testkit.Clock, text string) []action {
	t.Helper()
	var acts []action
	for _, r := range text {
		c.Advance(200 * time.Millisecond)
		acts = append(acts, press(t, m, runes(string(r)))...)
	}
	return acts
}

// twoPending clears the shared authority, has agent propose twice, and
// returns a model on a fake clock with the first proposal selected and its
// grace period over.
func twoPending(t *testing.T, agent string) (w *authorityWorld, m *model, c *testkit.Clock, first, second *authority.Proposal) {
	t.Helper()
	w = sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	w.authority.DenyAllPending("test", "clean slate")
	first, second = w.propose(t, agent), w.propose(t, agent)
	c = newClock()
	m = authorityModel(w, c)
	m.queue.Select(m.queue.index(first.ID))
	c.Advance(time.Second)
	return w, m, c, first, second
}

// Issue 19: the operator opens the deny box on a proposal about to expire
// and types a reason; the proposal expires, the box closes and the
// selection moves to the next proposal. The rest of the reason, "maybe a",
// must not become keys: without the swallowing its a, typed past the grace
// period, approves the other proposal (shown by the control at the end).
func TestExpiryClosingTheDenyBoxDiscardsTyping(t *testing.T) {
	w, m, c, first, second := twoPending(t, "expiry-agent")

	typeSlowly(t, m, c, "d")
	if m.dialog.kind != dialogDeny {
		t.Fatalf("d did not open the deny box: %+v", m.dialog)
	}
	typeSlowly(t, m, c, "not this one. too much sol, but ")
	m.Update(expiredEvent(t, w, first.ID))
	if m.dialog.kind != dialogNone || m.queue.selected != second.ID {
		t.Fatalf("after the expiry: dialog %+v, selected %s; want closed, %s", m.dialog, m.queue.selected, second.ID)
	}
	if acts := typeSlowly(t, m, c, "maybe a"); len(acts) != 0 {
		t.Fatalf("typing after the expiry performed %#v", acts)
	}
	if st := w.status(t, second.ID); st != approval.StatusPending {
		t.Fatalf("the other proposal is %s after \"maybe a\", want pending", st)
	}
	if !strings.Contains(m.notice, "the proposal expired; your typing was discarded") {
		t.Fatalf("status line %q", m.notice)
	}
	if !strings.Contains(m.View(), "the proposal expired; your typing was discarded") {
		t.Fatalf("the screen does not say the typing was discarded:\n%s", m.View())
	}
	// Esc ends it, and is swallowed too; then a is a key again.
	press(t, m, tea.KeyMsg{Type: tea.KeyEsc})
	if acts := press(t, m, runes("a")); len(acts) != 1 || w.status(t, second.ID) != approval.StatusApproved {
		t.Fatalf("a after Esc: %#v, second is %s", acts, w.status(t, second.ID))
	}
}

// The same without a dialog: the selected proposal expires and the
// selection moves; an a typed past the grace period but within the quiet
// time is swallowed, and one after two quiet seconds acts.
func TestExpiryMovingTheSelectionDiscardsTyping(t *testing.T) {
	w, m, c, first, second := twoPending(t, "expiry-agent")

	m.Update(expiredEvent(t, w, first.ID))
	c.Advance(defaultGrace + 500*time.Millisecond)
	if acts := press(t, m, runes("a")); len(acts) != 0 || w.status(t, second.ID) != approval.StatusPending {
		t.Fatalf("a 1.5 s after the selection moved: %#v, second is %s", acts, w.status(t, second.ID))
	}
	c.Advance(swallowQuiet)
	if acts := press(t, m, runes("a")); len(acts) != 1 || w.status(t, second.ID) != approval.StatusApproved {
		t.Fatalf("a after 2 quiet seconds: %#v, second is %s", acts, w.status(t, second.ID))
	}
}

// The operator's own decision moves the selection too, but that is not an
// event to guard against: nothing is swallowed.
func TestOwnDecisionDoesNotSwallow(t *testing.T) {
	_, m, _, _, _ := twoPending(t, "own-agent")
	press(t, m, runes("d"), keyEnter)
	if m.swallowing {
		t.Fatalf("the operator's own deny started swallowing: %q", m.notice)
	}
	if press(t, m, runes("d")); m.dialog.kind != dialogDeny {
		t.Fatal("d right after the operator's own decision did not open the deny box")
	}
}

// D, then y, denies every pending proposal of the selected proposal's user
// (in-process callers are keyed by their name, as a uid would be), and no
// other user's; D then another key denies nothing.
func TestShiftDDeniesEveryPendingProposalOfOneUser(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	w.authority.DenyAllPending("test", "clean slate")
	flood := []*authority.Proposal{w.propose(t, "flood-user"), w.propose(t, "flood-user"), w.propose(t, "flood-user")}
	calm := w.propose(t, "calm-user")
	c := newClock()
	m := authorityModel(w, c)
	m.queue.Select(m.queue.index(flood[1].ID))
	c.Advance(time.Second)

	if acts := press(t, m, runes("D"), runes("n")); len(acts) != 0 || w.status(t, flood[0].ID) != approval.StatusPending {
		t.Fatalf("D then n: %#v", acts)
	}
	press(t, m, runes("D"))
	if m.dialog.kind != dialogDenyUser || !strings.Contains(m.View(), "Deny all 3 pending proposal(s) from in-process flood-user") {
		t.Fatalf("D did not ask about the user's 3 proposals:\n%s", m.View())
	}
	acts := press(t, m, runes("y"))
	if len(acts) != 1 {
		t.Fatalf("y: %#v", acts)
	}
	for _, p := range flood {
		if st := w.status(t, p.ID); st != approval.StatusDenied {
			t.Errorf("flood proposal %s is %s, want denied", p.ID, st)
		}
	}
	if st := w.status(t, calm.ID); st != approval.StatusPending {
		t.Errorf("another user's proposal is %s, want pending", st)
	}
	if m.queue.selected != calm.ID || m.swallowing {
		t.Errorf("after D y: selected %s (want %s), swallowing %v", m.queue.selected, calm.ID, m.swallowing)
	}
}
