package tui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
)

// endGrants ends every grant a test made on a shared hub.
func endGrants(w *authorityWorld) {
	for _, g := range w.authority.Grants() {
		w.authority.EndGrant(g.N, "test cleanup")
	}
}

// The A form against the real authority: what each key sequence performs, what
// the hub then says, and which grant exists.
func TestGrantKeysAgainstTheHub(t *testing.T) {
	for i, tc := range []struct {
		name    string
		network string
		keys    []tea.KeyMsg
		count   int // the grant made (0: none, and the proposal stays pending)
		open    dialogKind
	}{
		{name: "A then enter approves and grants the defaults", keys: []tea.KeyMsg{runes("A"), keyEnter}, count: 9},
		{name: "A then esc approves nothing", keys: []tea.KeyMsg{runes("A"), keyEsc, keyEnter}},
		{name: "letters in the form approve nothing", keys: []tea.KeyMsg{runes("A"), runes("a"), runes("y"), runes("ay")}, open: dialogGrant},
		{name: "the count is edited: backspace, 3, enter", keys: []tea.KeyMsg{runes("A"), {Type: tea.KeyBackspace}, runes("3"), keyEnter}, count: 3},
		{name: "an empty count is refused, the form stays", keys: []tea.KeyMsg{runes("A"), {Type: tea.KeyBackspace}, keyEnter}, open: dialogGrant},
		{name: "mainnet: A then enter asks for y", network: "mainnet-beta", keys: []tea.KeyMsg{runes("A"), keyEnter}, open: dialogGrant},
		{name: "mainnet: A, enter, another key cancels", network: "mainnet-beta", keys: []tea.KeyMsg{runes("A"), keyEnter, runes("n"), runes("y")}},
		{name: "mainnet: A, enter, y approves and grants", network: "mainnet-beta", keys: []tea.KeyMsg{runes("A"), keyEnter, runes("y")}, count: 9},
		{name: "unknown network: A, enter, y approves and grants", network: unknownRemote, keys: []tea.KeyMsg{runes("A"), keyEnter, runes("y")}, count: 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := sharedWorld(t, tc.network)
			t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup"); endGrants(w) })
			// Each case its own agent: in-process callers are told apart by name.
			p := w.propose(t, "grant-form-"+string(rune('a'+i)))
			c := newClock()
			m := authorityModel(w, c)
			m.queue.Select(m.queue.index(p.ID))
			c.Advance(time.Second) // past the grace period

			acts := press(t, m, tc.keys...)
			got, _ := w.authority.Proposal(p.ID)
			var mine []authority.Grant
			for _, g := range w.authority.Grants() {
				if g.From == p.ID {
					mine = append(mine, g)
				}
			}
			if tc.count == 0 {
				if len(acts) != 0 || got.Status != approval.StatusPending || len(mine) != 0 {
					t.Fatalf("performed %#v; hub says %s; grants %+v — want nothing", acts, got.Status, mine)
				}
			} else {
				if len(mine) != 1 || mine[0].Count != tc.count || mine[0].Peer != p.Peer || mine[0].Left() != tc.count {
					t.Fatalf("grants %+v, want one of %d for %s (acts %#v, notice %q, dialog %+v)", mine, tc.count, p.Peer, acts, m.notice, m.dialog.grant)
				}
				if got.Status != approval.StatusApproved || got.DecidedBy != decidedBy || got.Token == "" {
					t.Fatalf("hub says %s by %s", got.Status, got.DecidedBy)
				}
				want := []action{actionGrant{ID: p.ID, Terms: approval.GrantTerms{Count: tc.count, Ceiling: mine[0].Ceiling, For: 10 * time.Minute}}}
				if !reflect.DeepEqual(acts, want) {
					t.Errorf("actions %#v, want %#v", acts, want)
				}
			}
			if m.dialog.kind != tc.open {
				t.Errorf("dialog kind %d, want %d (notice %q)", m.dialog.kind, tc.open, m.notice)
			}
		})
	}
}

// The form's default ceiling is count × the proposal's measured spend,
// but never more than the session cap leaves after this proposal.
func TestGrantDefaultCeiling(t *testing.T) {
	m := testModel(viewOpts{}, nil, authorityState{Spend: approval.SpendSummary{Remaining: 1_000_000_000}})
	p := &approval.Proposal{Spend: 50_005_000}
	if got := m.grantDefaults(p).fields; got != [grantFields]string{"9", "0.450045", "10"} {
		t.Errorf("defaults %q", got)
	}
	m.spend.Remaining = 300_000_000
	if got := m.grantDefaults(p).fields[grantCeiling]; got != "0.249995" {
		t.Errorf("ceiling under a small remainder %q, want 0.249995 (0.3 - 0.050005)", got)
	}
}

// A only waits out the grace period like a; --no-grants says so.
func TestGrantKeyGuards(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup"); endGrants(w) })
	p := w.propose(t, "grant-guard")
	c := newClock()
	m := authorityModel(w, c)
	m.queue.Select(m.queue.index(p.ID))
	m.armGrace()
	if acts := press(t, m, runes("A"), keyEnter); len(acts) != 0 || m.dialog.kind != dialogNone {
		t.Fatalf("A in the grace period: %#v, dialog %d", acts, m.dialog.kind)
	}
	c.Advance(time.Second)
	m.cfg.noGrants = true
	if acts := press(t, m, runes("A")); len(acts) != 0 || !strings.Contains(m.notice, "--no-grants") || m.dialog.kind != dialogNone {
		t.Fatalf("A with --no-grants: %#v, notice %q", acts, m.notice)
	}
	if st := w.status(t, p.ID); st != approval.StatusPending {
		t.Fatalf("proposal is %s", st)
	}
}

// A form closed by an event (the proposal decided elsewhere) swallows what
// the operator goes on typing, as the deny box does: the "1" meant for the
// count must not become keys, and an a must not approve the next proposal.
func TestDecisionClosingTheGrantFormDiscardsTyping(t *testing.T) {
	w, m, c, first, second := twoPending(t, "grant-swallow")
	t.Cleanup(func() { endGrants(w) })
	typeSlowly(t, m, c, "A")
	if m.dialog.kind != dialogGrant {
		t.Fatalf("A did not open the form: %+v", m.dialog)
	}
	m.Update(expiredEvent(t, w, first.ID))
	if m.dialog.kind != dialogNone || m.queue.selected != second.ID {
		t.Fatalf("after the expiry: dialog %d, selected %s", m.dialog.kind, m.queue.selected)
	}
	if acts := typeSlowly(t, m, c, "12 a"); len(acts) != 0 {
		t.Fatalf("typing after the form closed performed %#v", acts)
	}
	if st := w.status(t, second.ID); st != approval.StatusPending {
		t.Fatalf("the other proposal is %s, want pending", st)
	}
}

// The grants line under the header, and the list that ends one grant.
func TestGrantsLineAndList(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup"); endGrants(w) })
	p := w.propose(t, "grant-line")
	c := newClock()
	m := authorityModel(w, c)
	m.queue.Select(m.queue.index(p.ID))
	c.Advance(time.Second)
	press(t, m, runes("A"), keyEnter)
	m.Update(eventsMsg{state: ptr(readState(consoleservice.Of(w.authority)))})
	view := m.View()
	line := "GRANTS (l lists, x ends all): #"
	if !strings.Contains(view, line) || !strings.Contains(view, "grant-line → ") || !strings.Contains(view, " 0/9 · 0/") || !strings.Contains(view, "left") {
		t.Fatalf("no grants line:\n%s", view)
	}
	// A larger proposal from the same agent is not covered; its detail says why.
	bigger := w.propose(t, "grant-line")
	if bigger.Status != approval.StatusPending || !strings.Contains(bigger.GrantMiss, "more than") {
		t.Fatalf("a larger proposal: %s %q", bigger.Status, bigger.GrantMiss)
	}
	m.Update(events(authority.Event{Kind: approval.EventProposalAdded, At: time.Now(), Proposal: bigger}))
	m.queue.Select(m.queue.index(bigger.ID))
	m.Update(tickMsg(time.Now()))
	if v := m.View(); !strings.Contains(v, "Waits for you: grant #") || !strings.Contains(v, "more than") {
		t.Fatalf("the detail does not say why the grant did not apply:\n%s", v)
	}
	press(t, m, runes("l"))
	if m.dialog.kind != dialogGrants || !strings.Contains(m.View(), "Enter ends the chosen grant") {
		t.Fatalf("l did not list the grants:\n%s", m.View())
	}
	acts := press(t, m, keyEnter)
	if len(acts) != 1 {
		t.Fatalf("enter in the list performed %#v", acts)
	}
	for _, g := range w.authority.Grants() {
		if g.From == p.ID {
			t.Fatalf("the grant lives on after the list ended it: %+v", g)
		}
	}
	m.Update(eventsMsg{state: ptr(readState(consoleservice.Of(w.authority)))})
	if strings.Contains(m.View(), line) {
		t.Fatalf("the grants line stayed:\n%s", m.View())
	}
}

func ptr[T any](v T) *T { return &v }
