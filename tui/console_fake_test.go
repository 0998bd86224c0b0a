package tui

import (
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// fakeProposal is a pending proposal as an approval service hands it out,
// written by hand: no authority, no kind behind it.
func fakeProposal(id string, seq int64) *approval.Proposal {
	return &approval.Proposal{
		ID: id, Seq: seq, Tool: "fake_tool", Client: "fake-agent 1.0", Owner: "uid 4242",
		HasTerms: true, Action: "fake action " + id, Amount: "7 FAKE", Grantable: true,
		Lines:     []approval.DetailLine{{Label: "Fake line", Value: "drawn from the service " + id}},
		Spend:     50_000_000,
		CreatedAt: t0, ExpiresAt: t0.Add(10 * time.Minute),
		Status: approval.StatusPending,
	}
}

// The console is driven through the approval service alone: what it shows
// is what the service hands out, and each key becomes the service call it
// stands for, with the console's own words for who and why.
func TestConsoleAgainstAFakeService(t *testing.T) {
	svc := newFakeService(fakeProposal("p_fake1", 1), fakeProposal("p_fake2", 2))
	c := newClock()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := newModel(config{
		ops: svc, network: svc.Network(), wallet: svc.Wallet(), policy: svc.Policy(),
		grace: defaultGrace, now: c.Now, loc: time.UTC, styles: stylesFor(r, true), after: noTimer,
	}, svc.Proposals(), readState(svc))
	m.Update(sizeMsg(140, 40))
	c.Advance(time.Second) // past the grace period of the console opening

	// The kind's words come from the service, as it drew them.
	m.queue.Select(m.queue.index("p_fake1"))
	if out := ansi.Strip(m.View()); !strings.Contains(out, "drawn from the service p_fake1") || !strings.Contains(out, "7 FAKE") {
		t.Fatalf("the console does not show the service's lines:\n%s", out)
	}

	press(t, m, runes("a"))
	m.queue.Select(m.queue.index("p_fake2"))
	c.Advance(time.Second)
	press(t, m, runes("d"), runes("not today"), keyEnter, runes("p"), runes("x"))
	want := []string{
		"approve p_fake1 by operator",
		"deny p_fake2 by operator: not today",
		"paused true",
		"revoke all by operator",
	}
	if got := svc.Calls(); !reflect.DeepEqual(got, want) {
		t.Fatalf("service calls %q, want %q", got, want)
	}
	if e := m.queue.byID["p_fake1"]; e == nil || e.p.Status != approval.StatusApproved {
		t.Errorf("the console shows p_fake1 as %+v after the service approved it", e)
	}

	// A proposal the service announces reaches the queue through the one
	// forwarding goroutine, with the state read after it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, unsubscribe := svc.Subscribe(eventBuffer)
	defer unsubscribe()
	msgs := make(chan tea.Msg, 4)
	go forward(ctx, events, svc, func(msg tea.Msg) { msgs <- msg })
	svc.publish(approval.EventProposalAdded, fakeProposal("p_fake3", 3))
	select {
	case msg := <-msgs:
		m.Update(msg)
	case <-time.After(30 * time.Second):
		t.Fatal("the service's event never reached the console")
	}
	if m.queue.byID["p_fake3"] == nil {
		t.Fatal("p_fake3 is not in the queue")
	}
	if !m.paused {
		t.Error("the service's pause is not shown after its event")
	}
}
