package tui

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
)

// press feeds keys to the model one by one. Whatever command a key returns
// is run (they are operator actions against the real hub, or tea.Quit) and
// its result fed back, as the program would. It returns the actions that
// were performed, in order.
func press(t *testing.T, m *model, keys ...tea.KeyMsg) []action {
	t.Helper()
	var acts []action
	for _, k := range keys {
		_, cmd := m.Update(k)
		if cmd == nil {
			continue
		}
		switch msg := cmd().(type) {
		case actionDoneMsg:
			if msg.err != nil {
				t.Errorf("%T failed: %v", msg.act, msg.err)
			}
			acts = append(acts, msg.act)
			m.Update(msg)
		case tea.QuitMsg:
			acts = append(acts, nil)
		default:
			t.Fatalf("key %q returned an unexpected command producing %T", k, msg)
		}
	}
	return acts
}

func TestKeysAgainstTheHub(t *testing.T) {
	for _, tc := range []struct {
		name    string
		network string // localnet network: "", "mainnet-beta" or unknownRemote
		keys    []tea.KeyMsg
		acts    func(id string) []action
		want    approval.Status
		reason  string
		open    dialogKind // the dialog left open
	}{
		{name: "a approves", keys: []tea.KeyMsg{runes("a")},
			acts: func(id string) []action { return []action{actionApprove{ID: id}} }, want: approval.StatusApproved},
		{name: "enter does not approve", keys: []tea.KeyMsg{keyEnter},
			want: approval.StatusPending},
		{name: "other letters do not approve", keys: []tea.KeyMsg{runes("y"), runes("B"), runes(" "), runes("ay")},
			want: approval.StatusPending},
		{name: "esc in the deny box does not approve", keys: []tea.KeyMsg{runes("d"), runes("a"), keyEsc, keyEnter},
			want: approval.StatusPending},
		{name: "enter in the deny box denies with the typed reason", keys: []tea.KeyMsg{runes("d"), runes("n"), runes("o"), runes(" "), runes("way"), keyEnter},
			acts: func(id string) []action { return []action{actionDeny{ID: id, Reason: "no way"}} }, want: approval.StatusDenied, reason: "no way"},
		{name: "the deny box edits mid-line: left moves the cursor, backspace erases before it",
			keys: []tea.KeyMsg{runes("d"), runes("nxway"), {Type: tea.KeyLeft}, {Type: tea.KeyLeft}, {Type: tea.KeyLeft}, {Type: tea.KeyBackspace}, runes("o"), {Type: tea.KeySpace, Runes: []rune{' '}}, keyEnter},
			acts: func(id string) []action { return []action{actionDeny{ID: id, Reason: "no way"}} }, want: approval.StatusDenied, reason: "no way"},
		{name: "the deny reason stops at its cap", keys: []tea.KeyMsg{runes("d"), runes(strings.Repeat("x", 150)), runes(strings.Repeat("y", 100)), keyEnter},
			acts: func(id string) []action {
				return []action{actionDeny{ID: id, Reason: strings.Repeat("x", 150) + strings.Repeat("y", 50)}}
			}, want: approval.StatusDenied, reason: strings.Repeat("x", 150) + strings.Repeat("y", 50)},
		{name: "enter in an empty deny box denies", keys: []tea.KeyMsg{runes("d"), keyEnter},
			acts: func(id string) []action { return []action{actionDeny{ID: id}} }, want: approval.StatusDenied, reason: "denied by the operator"},
		{name: "mainnet: a alone does not approve", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a")},
			want: approval.StatusPending, open: dialogApprove},
		{name: "mainnet: a then another key cancels", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a"), runes("n"), runes("y")},
			want: approval.StatusPending},
		{name: "mainnet: a then enter cancels", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a"), keyEnter, runes("y")},
			want: approval.StatusPending},
		{name: "mainnet: a then y approves", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a"), runes("y")},
			acts: func(id string) []action { return []action{actionApprove{ID: id}} }, want: approval.StatusApproved},
		{name: "unknown network: a alone does not approve", network: unknownRemote, keys: []tea.KeyMsg{runes("a")},
			want: approval.StatusPending, open: dialogApprove},
		{name: "unknown network: a then another key cancels", network: unknownRemote, keys: []tea.KeyMsg{runes("a"), runes("n"), runes("y")},
			want: approval.StatusPending},
		{name: "unknown network: a then y approves", network: unknownRemote, keys: []tea.KeyMsg{runes("a"), runes("y")},
			acts: func(id string) []action { return []action{actionApprove{ID: id}} }, want: approval.StatusApproved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := sharedWorld(t, tc.network)
			t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
			p := w.propose(t, "table-agent")
			c := newClock()
			m := authorityModel(w, c)
			m.queue.Select(m.queue.index(p.ID))
			c.Advance(time.Second) // past the grace period of the console opening

			acts := press(t, m, tc.keys...)
			var want []action
			if tc.acts != nil {
				want = tc.acts(p.ID)
			}
			if !reflect.DeepEqual(acts, want) {
				t.Errorf("actions %#v, want %#v", acts, want)
			}
			got, _ := w.authority.Proposal(p.ID)
			if got.Status != tc.want {
				t.Errorf("hub says %s, want %s", got.Status, tc.want)
			}
			if tc.reason != "" && got.Reason != tc.reason {
				t.Errorf("reason %q, want %q", got.Reason, tc.reason)
			}
			if tc.want == approval.StatusApproved && got.Token == "" {
				t.Error("approved without a token")
			}
			if m.dialog.kind != tc.open {
				t.Errorf("dialog %+v, want kind %d", m.dialog, tc.open)
			}
		})
	}
}

// The grace period guards the approval keys only. Each case opens a model
// whose selection has just been set (so the grace period runs) and presses
// keys without advancing the clock; what the hub says afterwards is the
// external effect.
func TestGraceGuardsOnlyApproval(t *testing.T) {
	for _, tc := range []struct {
		name    string
		network string
		keys    []tea.KeyMsg
		after   time.Duration // clock advance before the keys
		want    approval.Status
		paused  bool
		open    dialogKind
		help    bool
		moved   bool // the selection left the proposal
		revoked bool
	}{
		{name: "a is swallowed", keys: []tea.KeyMsg{runes("a")}, want: approval.StatusPending},
		{name: "a twice is swallowed", keys: []tea.KeyMsg{runes("a"), runes("a")}, want: approval.StatusPending},
		{name: "a after the grace period approves", keys: []tea.KeyMsg{runes("a")}, after: defaultGrace, want: approval.StatusApproved, moved: true},
		{name: "mainnet: a y is swallowed", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a"), runes("y")}, want: approval.StatusPending},
		{name: "d enter denies at once", keys: []tea.KeyMsg{runes("d"), keyEnter}, want: approval.StatusDenied, moved: true},
		{name: "p pauses at once", keys: []tea.KeyMsg{runes("p")}, want: approval.StatusPending, paused: true},
		{name: "x revokes at once", keys: []tea.KeyMsg{runes("x")}, want: approval.StatusPending, revoked: true},
		{name: "? opens help at once", keys: []tea.KeyMsg{runes("?")}, want: approval.StatusPending, help: true},
		{name: "q asks at once", keys: []tea.KeyMsg{runes("q")}, want: approval.StatusPending, open: dialogQuit},
		{name: "j moves at once", keys: []tea.KeyMsg{runes("j")}, want: approval.StatusPending, moved: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := sharedWorld(t, tc.network)
			t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup"); w.authority.SetPaused(false) })
			w.authority.DenyAllPending("test", "clean slate")
			p := w.propose(t, "grace-agent")
			w.propose(t, "grace-agent") // somewhere for j to go
			c := newClock()
			m := authorityModel(w, c)
			if m.queue.selected != p.ID || !m.inGrace() {
				t.Fatalf("selected %s (want %s), in grace %v", m.queue.selected, p.ID, m.inGrace())
			}
			c.Advance(tc.after)
			acts := press(t, m, tc.keys...)
			if st := w.status(t, p.ID); st != tc.want {
				t.Errorf("hub says %s, want %s (actions %#v)", st, tc.want, acts)
			}
			if w.authority.Paused() != tc.paused {
				t.Errorf("hub paused %v, want %v", w.authority.Paused(), tc.paused)
			}
			if m.dialog.kind != tc.open {
				t.Errorf("dialog %+v, want kind %d", m.dialog, tc.open)
			}
			if m.help.ShowAll != tc.help {
				t.Errorf("help shown %v, want %v", m.help.ShowAll, tc.help)
			}
			if moved := m.queue.selected != p.ID; moved != tc.moved {
				t.Errorf("selection moved %v, want %v", moved, tc.moved)
			}
			var revoked bool
			for _, a := range acts {
				_, ok := a.(actionRevoke)
				revoked = revoked || ok
			}
			if revoked != tc.revoked {
				t.Errorf("revoke performed %v, want %v", revoked, tc.revoked)
			}
		})
	}
}

// A proposal arriving through the real subscription while the selection is
// on a pending proposal leaves the selection (and so the meaning of a)
// alone; when the selection is not on a pending proposal, the newcomer is
// selected and a waits out the grace period before it can approve it.
func TestArrivalSelectionAndGrace(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	w.authority.DenyAllPending("test", "clean slate")
	c := newClock()
	first := w.propose(t, "arrival-agent")
	m := authorityModel(w, c)
	c.Advance(time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := consoleservice.Of(w.authority)
	events, unsubscribe := svc.Subscribe(16)
	defer unsubscribe()
	msgs := make(chan tea.Msg, 16)
	go forward(ctx, events, svc, func(msg tea.Msg) { msgs <- msg })
	await := func(id string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for m.queue.byID[id] == nil {
			select {
			case msg := <-msgs:
				m.Update(msg)
			case <-deadline:
				t.Fatalf("%s never reached the model", id)
			}
		}
	}

	second := w.propose(t, "arrival-agent")
	await(second.ID)
	if m.queue.selected != first.ID || m.inGrace() {
		t.Fatalf("an arrival moved a pending selection: selected %s, grace %v", m.queue.selected, m.inGrace())
	}
	// a approves first; the selection moves to second and the grace period
	// restarts, so a second a 150 ms later approves nothing.
	press(t, m, runes("a"))
	c.Advance(150 * time.Millisecond)
	press(t, m, runes("a"))
	if w.status(t, first.ID) != approval.StatusApproved || w.status(t, second.ID) != approval.StatusPending {
		t.Fatalf("double tap: first %s, second %s; want approved, pending", w.status(t, first.ID), w.status(t, second.ID))
	}
	if m.queue.selected != second.ID {
		t.Fatalf("selected %s after the decision, want %s", m.queue.selected, second.ID)
	}
	// Decide second too: nothing pending, the cursor stays on a decided row.
	c.Advance(time.Second)
	press(t, m, runes("d"), keyEnter)
	if m.selectedPending() != nil {
		t.Fatal("something pending is still selected")
	}
	// A new proposal now takes the selection, with a fresh grace period.
	third := w.propose(t, "arrival-agent")
	await(third.ID)
	if m.queue.selected != third.ID || !m.inGrace() {
		t.Fatalf("the new proposal is not under the key: selected %s, grace %v", m.queue.selected, m.inGrace())
	}
	if !strings.Contains(ansi.Strip(m.View()), "DETAIL  "+third.ID) {
		t.Errorf("the detail pane does not show what a would approve:\n%s", ansi.Strip(m.View()))
	}
	c.Advance(defaultGrace)
	if acts := press(t, m, runes("a")); !reflect.DeepEqual(acts, []action{actionApprove{ID: third.ID}}) {
		t.Fatalf("a after the grace period: %#v", acts)
	}
	if st := w.status(t, third.ID); st != approval.StatusApproved {
		t.Errorf("third is %s, want approved", st)
	}
}

// With the help overlay covering the detail pane, a first closes it (so
// the proposal is on screen) and approves nothing.
func TestApproveUnderHelpShowsFirst(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	w.authority.DenyAllPending("test", "clean slate")
	p := w.propose(t, "help-agent")
	c := newClock()
	m := authorityModel(w, c)
	c.Advance(time.Second)
	press(t, m, runes("?"), runes("a"))
	if m.help.ShowAll || w.status(t, p.ID) != approval.StatusPending {
		t.Fatalf("a under help: help %v, status %s", m.help.ShowAll, w.status(t, p.ID))
	}
	c.Advance(time.Second)
	press(t, m, runes("a"))
	if w.status(t, p.ID) != approval.StatusApproved {
		t.Fatalf("a with the detail on screen: %s", w.status(t, p.ID))
	}
}

// After a decision the selection moves to the oldest proposal still pending.
func TestSelectionMovesToOldestPending(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	w.authority.DenyAllPending("test", "clean slate")
	a, b, c3 := w.propose(t, "sel"), w.propose(t, "sel"), w.propose(t, "sel")
	clk := newClock()
	m := authorityModel(w, clk)
	clk.Advance(time.Second)
	m.queue.Select(m.queue.index(c3.ID)) // the newest
	press(t, m, runes("d"), keyEnter)
	if m.queue.selected != a.ID {
		t.Fatalf("after denying the newest, selected %s, want the oldest %s", m.queue.selected, a.ID)
	}
	press(t, m, runes("j"))
	clk.Advance(time.Second) // moving restarted the grace period
	press(t, m, runes("a"))
	if w.status(t, b.ID) != approval.StatusApproved || m.queue.selected != a.ID {
		t.Fatalf("j then a: b is %s, selected %s", w.status(t, b.ID), m.queue.selected)
	}
}

// q with proposals pending asks; y then denies them all as "console closed".
func TestQuitAsksAndDeniesPending(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	p := w.propose(t, "quit-agent")
	c := newClock()
	m := authorityModel(w, c)
	c.Advance(time.Second)
	if acts := press(t, m, runes("q")); len(acts) != 0 || m.dialog.kind != dialogQuit {
		t.Fatalf("q with pending: actions %#v, dialog %+v", acts, m.dialog)
	}
	if acts := press(t, m, runes("n")); len(acts) != 0 || m.dialog.kind != dialogNone {
		t.Fatalf("n should cancel the quit: %#v", acts)
	}
	if w.status(t, p.ID) != approval.StatusPending {
		t.Fatal("cancelled quit denied something")
	}
	_, cmd := m.Update(runes("q"))
	if cmd != nil {
		t.Fatal("q returned a command before confirmation")
	}
	_, cmd = m.Update(runes("y"))
	done, ok := cmd().(actionDoneMsg)
	if !ok || done.act != (actionQuit{}) || done.n < 1 {
		t.Fatalf("y: %#v", done)
	}
	if _, quit := m.Update(done); quit == nil || quit() != tea.Quit() {
		t.Fatal("no quit after the pending proposals were denied")
	}
	got, _ := w.authority.Proposal(p.ID)
	if got.Status != approval.StatusDenied || got.Reason != closedReason {
		t.Errorf("after quit: %s %q", got.Status, got.Reason)
	}
}

// x revokes every outstanding token; the approved proposal becomes expired
// in the hub and on screen.
func TestRevokeVoidsApprovedTokens(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.DenyAllPending("test", "cleanup") })
	p := w.propose(t, "revoke-agent")
	c := newClock()
	m := authorityModel(w, c)
	m.queue.Select(m.queue.index(p.ID))
	c.Advance(time.Second)
	acts := press(t, m, runes("a"), runes("x"))
	// Other tests on the shared hub may have left approvals too.
	if len(acts) != 2 || acts[0] != (actionApprove{ID: p.ID}) {
		t.Fatalf("actions %#v", acts)
	}
	if rv, ok := acts[1].(actionRevoke); !ok || !slices.Contains(rv.Approved, p.ID) {
		t.Fatalf("x: %#v, want a revoke naming %s", acts[1], p.ID)
	}
	if st := w.status(t, p.ID); st != approval.StatusExpired {
		t.Errorf("hub says %s after revoke, want expired", st)
	}
	if e := m.queue.byID[p.ID]; e == nil || e.p.Status != approval.StatusExpired {
		t.Errorf("the console still shows %+v", e)
	}
}

// p pauses all writes in the hub, and p again resumes them.
func TestPauseToggles(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.authority.SetPaused(false) })
	c := newClock()
	m := authorityModel(w, c)
	c.Advance(time.Second)
	refresh := func() {
		st := readState(consoleservice.Of(w.authority))
		m.Update(eventsMsg{state: &st})
	}
	if acts := press(t, m, runes("p")); !reflect.DeepEqual(acts, []action{actionPause{Paused: true}}) || !w.authority.Paused() {
		t.Fatalf("p: %#v, hub paused %v", acts, w.authority.Paused())
	}
	refresh()
	if !m.paused || !strings.Contains(ansi.Strip(m.View()), "WRITES PAUSED") {
		t.Error("the console does not show the pause")
	}
	if acts := press(t, m, runes("p")); !reflect.DeepEqual(acts, []action{actionPause{Paused: false}}) || w.authority.Paused() {
		t.Fatalf("p again: %#v, hub paused %v", acts, w.authority.Paused())
	}
}

// The queue scrolls through 10,000 proposals and keeps the selection visible.
func TestQueueScrolls(t *testing.T) {
	m := testModel(viewOpts{}, manyProposals(10_000), spendState(0, 0, false))
	m.graceUntil = time.Time{}
	m.Update(sizeMsg(80, 24))
	for _, tc := range []struct {
		keys []tea.KeyMsg
		want int
	}{
		{nil, 0},
		{[]tea.KeyMsg{runes("j"), runes("j"), {Type: tea.KeyDown}}, 3},
		{[]tea.KeyMsg{runes("k"), {Type: tea.KeyUp}}, 1},
		{[]tea.KeyMsg{runes("G")}, 9_999},
		{[]tea.KeyMsg{{Type: tea.KeyPgUp}}, 9_999 - m.lay.queueRows},
		{[]tea.KeyMsg{runes("g")}, 0},
	} {
		press(t, m, tc.keys...)
		if i := m.queue.index(m.queue.selected); i != tc.want {
			t.Fatalf("after %v: row %d, want %d", tc.keys, i, tc.want)
		}
		out := ansi.Strip(m.View())
		if !strings.Contains(out, "› "+m.queue.selected) {
			t.Fatalf("selected %s is not visible:\n%s", m.queue.selected, out)
		}
	}
}
