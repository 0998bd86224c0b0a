package tui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// tickRecorder stands in for tea.Tick and counts what the model schedules.
type tickRecorder struct{ scheduled int }

func (r *tickRecorder) after(time.Duration, func(time.Time) tea.Msg) tea.Cmd {
	r.scheduled++
	return nil
}

// An idle console schedules nothing: the one-second tick runs only while
// something on screen counts down (a pending proposal's expiry, an
// approval's token, a grant), and stops when the last countdown ends.
func TestTickOnlyWhileSomethingCountsDown(t *testing.T) {
	var r tickRecorder
	idle := testModel(viewOpts{}, nil, spendState(0, 0, false))
	idle.cfg.after = r.after
	idle.Init()
	idle.Update(sizeMsg(120, 34))
	idle.Update(eventsMsg{state: ptr(spendState(0, 0, false))})
	if r.scheduled != 0 {
		t.Fatalf("an idle console scheduled %d ticks, want none", r.scheduled)
	}

	p := transfer(1, "agent", pubkey("to"), 1_000_000, t0)
	m := testModel(viewOpts{}, []*authority.Proposal{p}, spendState(0, 0, false))
	m.cfg.after = r.after
	m.Init()
	if r.scheduled != 1 {
		t.Fatalf("with a pending proposal counting down, Init scheduled %d ticks, want 1", r.scheduled)
	}
	m.Update(tickMsg(t0.Add(time.Second)))
	if r.scheduled != 2 {
		t.Fatalf("a tick while the proposal still counts down scheduled %d in all, want the next one (2)", r.scheduled)
	}
	// The proposal expires: nothing counts down any more.
	done := *p
	done.Status, done.Reason = approval.StatusExpired, "no decision in time"
	m.Update(events(authority.Event{Kind: approval.EventProposalExpired, At: t0, Proposal: &done}))
	m.Update(tickMsg(t0.Add(2 * time.Second)))
	if r.scheduled != 2 {
		t.Errorf("after the last countdown ended, %d ticks scheduled in all, want no more than the 2 before", r.scheduled)
	}
}
