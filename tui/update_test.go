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

	"github.com/solgate/solgate/mcpbridge/hub"
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
		want    hub.Status
		reason  string
		open    dialogKind // the dialog left open
	}{
		{name: "a approves", keys: []tea.KeyMsg{runes("a")},
			acts: func(id string) []action { return []action{actionApprove{ID: id}} }, want: hub.StatusApproved},
		{name: "enter does not approve", keys: []tea.KeyMsg{keyEnter},
			want: hub.StatusPending},
		{name: "other letters do not approve", keys: []tea.KeyMsg{runes("y"), runes("A"), runes(" "), runes("ay")},
			want: hub.StatusPending},
		{name: "esc in the deny box does not approve", keys: []tea.KeyMsg{runes("d"), runes("a"), keyEsc, keyEnter},
			want: hub.StatusPending},
		{name: "enter in the deny box denies with the typed reason", keys: []tea.KeyMsg{runes("d"), runes("n"), runes("o"), runes(" "), runes("way"), keyEnter},
			acts: func(id string) []action { return []action{actionDeny{ID: id, Reason: "no way"}} }, want: hub.StatusDenied, reason: "no way"},
		{name: "enter in an empty deny box denies", keys: []tea.KeyMsg{runes("d"), keyEnter},
			acts: func(id string) []action { return []action{actionDeny{ID: id}} }, want: hub.StatusDenied, reason: "denied by the operator"},
		{name: "mainnet: a alone does not approve", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a")},
			want: hub.StatusPending, open: dialogApprove},
		{name: "mainnet: a then another key cancels", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a"), runes("n"), runes("y")},
			want: hub.StatusPending},
		{name: "mainnet: a then enter cancels", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a"), keyEnter, runes("y")},
			want: hub.StatusPending},
		{name: "mainnet: a then y approves", network: "mainnet-beta", keys: []tea.KeyMsg{runes("a"), runes("y")},
			acts: func(id string) []action { return []action{actionApprove{ID: id}} }, want: hub.StatusApproved},
		{name: "unknown network: a alone does not approve", network: unknownRemote, keys: []tea.KeyMsg{runes("a")},
			want: hub.StatusPending, open: dialogApprove},
		{name: "unknown network: a then another key cancels", network: unknownRemote, keys: []tea.KeyMsg{runes("a"), runes("n"), runes("y")},
			want: hub.StatusPending},
		{name: "unknown network: a then y approves", network: unknownRemote, keys: []tea.KeyMsg{runes("a"), runes("y")},
			acts: func(id string) []action { return []action{actionApprove{ID: id}} }, want: hub.StatusApproved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := sharedWorld(t, tc.network)
			t.Cleanup(func() { w.hub.DenyAllPending("test", "cleanup") })
			p := w.propose(t, "table-agent")
			c := newClock()
			m := hubModel(w, c)
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
			got, _ := w.hub.Proposal(p.ID)
			if got.Status != tc.want {
				t.Errorf("hub says %s, want %s", got.Status, tc.want)
			}
			if tc.reason != "" && got.Reason != tc.reason {
				t.Errorf("reason %q, want %q", got.Reason, tc.reason)
			}
			if tc.want == hub.StatusApproved && got.Token == "" {
				t.Error("approved without a token")
			}
			if m.dialog.kind != tc.open {
				t.Errorf("dialog %+v, want kind %d", m.dialog, tc.open)
			}
		})
	}
}

// A proposal arriving through the subscription locks the keys for the
// grace period: nothing typed in that window acts, even on other proposals.
func TestGracePeriodIgnoresKeys(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.hub.DenyAllPending("test", "cleanup") })
	c := newClock()
	first := w.propose(t, "grace-agent")
	m := hubModel(w, c)
	m.queue.Select(m.queue.index(first.ID))
	c.Advance(time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, unsubscribe := w.hub.Subscribe(16)
	defer unsubscribe()
	msgs := make(chan tea.Msg, 16)
	go forward(ctx, events, w.hub, func(msg tea.Msg) { msgs <- msg })

	second := w.propose(t, "grace-agent")
	deadline := time.After(10 * time.Second)
	for m.queue.byID[second.ID] == nil {
		select {
		case msg := <-msgs:
			m.Update(msg)
		case <-deadline:
			t.Fatal("the new proposal never reached the model")
		}
	}
	if !m.inGrace() {
		t.Fatal("no grace period after a new proposal")
	}
	// The selection stayed on the first proposal; a, d+enter, and y all
	// arrive during the grace period.
	if acts := press(t, m, runes("a"), runes("d"), keyEnter, runes("y"), runes("x"), runes("p")); len(acts) != 0 {
		t.Fatalf("keys acted during the grace period: %#v", acts)
	}
	for _, id := range []string{first.ID, second.ID} {
		if st := w.status(t, id); st != hub.StatusPending {
			t.Errorf("%s is %s after keys in the grace period", id, st)
		}
	}
	if w.hub.Paused() {
		t.Error("p paused writes during the grace period")
	}
	if m.dialog.kind != dialogNone {
		t.Errorf("a dialog opened during the grace period: %+v", m.dialog)
	}

	// After the grace period the same key works, on the selected proposal.
	c.Advance(defaultGrace + time.Millisecond)
	if acts := press(t, m, runes("a")); !reflect.DeepEqual(acts, []action{actionApprove{ID: first.ID}}) {
		t.Fatalf("after grace: %#v", acts)
	}
	if st := w.status(t, first.ID); st != hub.StatusApproved {
		t.Errorf("first is %s, want approved", st)
	}
	// The selection moved to the oldest proposal still pending.
	if m.queue.selected != second.ID {
		t.Errorf("selected %s, want %s (oldest pending)", m.queue.selected, second.ID)
	}
}

// After a decision the selection moves to the oldest proposal still pending.
func TestSelectionMovesToOldestPending(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.hub.DenyAllPending("test", "cleanup") })
	w.hub.DenyAllPending("test", "clean slate")
	a, b, c3 := w.propose(t, "sel"), w.propose(t, "sel"), w.propose(t, "sel")
	clk := newClock()
	m := hubModel(w, clk)
	clk.Advance(time.Second)
	m.queue.Select(m.queue.index(c3.ID)) // the newest
	press(t, m, runes("d"), keyEnter)
	if m.queue.selected != a.ID {
		t.Fatalf("after denying the newest, selected %s, want the oldest %s", m.queue.selected, a.ID)
	}
	press(t, m, runes("j"), runes("a"))
	if w.status(t, b.ID) != hub.StatusApproved || m.queue.selected != a.ID {
		t.Fatalf("j then a: b is %s, selected %s", w.status(t, b.ID), m.queue.selected)
	}
}

// q with proposals pending asks; y then denies them all as "console closed".
func TestQuitAsksAndDeniesPending(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.hub.DenyAllPending("test", "cleanup") })
	p := w.propose(t, "quit-agent")
	c := newClock()
	m := hubModel(w, c)
	c.Advance(time.Second)
	if acts := press(t, m, runes("q")); len(acts) != 0 || m.dialog.kind != dialogQuit {
		t.Fatalf("q with pending: actions %#v, dialog %+v", acts, m.dialog)
	}
	if acts := press(t, m, runes("n")); len(acts) != 0 || m.dialog.kind != dialogNone {
		t.Fatalf("n should cancel the quit: %#v", acts)
	}
	if w.status(t, p.ID) != hub.StatusPending {
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
	got, _ := w.hub.Proposal(p.ID)
	if got.Status != hub.StatusDenied || got.Reason != closedReason {
		t.Errorf("after quit: %s %q", got.Status, got.Reason)
	}
}

// x revokes every outstanding token; the approved proposal becomes expired
// in the hub and on screen.
func TestRevokeVoidsApprovedTokens(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.hub.DenyAllPending("test", "cleanup") })
	p := w.propose(t, "revoke-agent")
	c := newClock()
	m := hubModel(w, c)
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
	if st := w.status(t, p.ID); st != hub.StatusExpired {
		t.Errorf("hub says %s after revoke, want expired", st)
	}
	if e := m.queue.byID[p.ID]; e == nil || e.p.Status != hub.StatusExpired {
		t.Errorf("the console still shows %+v", e)
	}
}

// p pauses all writes in the hub, and p again resumes them.
func TestPauseToggles(t *testing.T) {
	w := sharedWorld(t, "")
	t.Cleanup(func() { w.hub.SetPaused(false) })
	c := newClock()
	m := hubModel(w, c)
	c.Advance(time.Second)
	refresh := func() {
		st := readState(w.hub)
		m.Update(eventsMsg{state: &st})
	}
	if acts := press(t, m, runes("p")); !reflect.DeepEqual(acts, []action{actionPause{Paused: true}}) || !w.hub.Paused() {
		t.Fatalf("p: %#v, hub paused %v", acts, w.hub.Paused())
	}
	refresh()
	if !m.paused || !strings.Contains(ansi.Strip(m.View()), "WRITES PAUSED") {
		t.Error("the console does not show the pause")
	}
	if acts := press(t, m, runes("p")); !reflect.DeepEqual(acts, []action{actionPause{Paused: false}}) || w.hub.Paused() {
		t.Fatalf("p again: %#v, hub paused %v", acts, w.hub.Paused())
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
