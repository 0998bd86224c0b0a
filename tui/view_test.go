package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
	"github.com/solgate/solgate/mcpbridge/authority/kinds"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy"
)

func sizeMsg(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	keyEnter = tea.KeyMsg{Type: tea.KeyEnter}
	keyEsc   = tea.KeyMsg{Type: tea.KeyEsc}
)

// events delivers hub events as the console's service would.
func events(evs ...authority.Event) eventsMsg {
	out := make([]approval.Event, len(evs))
	for i, ev := range evs {
		out[i] = consoleservice.EventView(ev)
	}
	return eventsMsg{events: out}
}

// executed returns p as executed and verified.
func executed(p *authority.Proposal, at time.Time) *authority.Proposal {
	c := *p
	c.Status, c.DecidedBy, c.DecidedAt = approval.StatusExecuted, "operator", at
	c.Signature = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	c.Result = &executor.Result{Outcome: executor.Executed, Slot: 48213, Fee: 5000}
	return &c
}

var viewScenarios = []struct {
	name  string
	build func() *model
}{
	{"empty_queue", func() *model {
		return testModel(viewOpts{}, nil, spendState(0, 0, false))
	}},
	{"transfer_preview", func() *model {
		first := transfer(1, "e2e-agent 1.0", recipientKey, 50_000_000, t0.Add(-42*time.Second))
		second := transfer(2, "claude-desktop 0.9.2", otherKey, 20_000_000, t0.Add(-5*time.Second))
		earlier := executed(transfer(3, "e2e-agent 1.0", recipientKey, 10_000_000, t0.Add(-3*time.Minute)), t0.Add(-150*time.Second))
		m := testModel(viewOpts{}, nil, spendState(10_005_000, 0, false))
		m.Update(events(
			authority.Event{Kind: approval.EventExecuted, At: earlier.DecidedAt, Proposal: earlier},
			authority.Event{Kind: approval.EventProposalAdded, At: first.CreatedAt, Proposal: first},
			authority.Event{Kind: approval.EventProposalAdded, At: second.CreatedAt, Proposal: second},
		))
		m.queue.SelectOldestPending()
		return m
	}},
	{"mainnet_warning", func() *model {
		cfg := testPolicy()
		cfg.AllowMainnet = true
		p := transfer(1, "e2e-agent 1.0", lookalikeKey, 80_000_000, t0.Add(-20*time.Second))
		p.Flags = []approval.Flag{
			{Kind: approval.FlagLookAlike, Text: fmt.Sprintf("recipient %s looks like known address %s (possible address poisoning)", lookalikeKey, recipientKey)},
			{Kind: approval.FlagNearTxCap, Text: "near the per-transfer cap"},
		}
		st := spendState(0, 0, false)
		st.Spend.Network = executor.Mainnet
		m := testModel(viewOpts{network: executor.Mainnet, genesis: mainnetGenesis, policy: cfg}, []*authority.Proposal{p}, st)
		m.graceUntil = time.Time{}
		m.Update(runes("a")) // opens the mainnet confirmation
		return m
	}},
	{"unknown_network_warning", func() *model {
		cfg := testPolicy()
		cfg.AllowUnknownNetwork = true
		p := transfer(1, "e2e-agent 1.0", recipientKey, 50_000_000, t0.Add(-5*time.Second))
		st := spendState(0, 0, false)
		st.Spend.Network = executor.UnknownNetwork
		m := testModel(viewOpts{network: executor.UnknownNetwork, genesis: localGenesis, policy: cfg}, []*authority.Proposal{p}, st)
		m.graceUntil = time.Time{}
		m.Update(runes("a")) // opens the second-key confirmation, as on mainnet
		return m
	}},
	{"over_cap_denial", func() *model {
		m := testModel(viewOpts{}, nil, spendState(0, 0, false))
		m.Update(events(authority.Event{
			Kind: approval.EventAutoDenied, At: t0.Add(-2 * time.Second), Client: "e2e-agent 1.0",
			Message: fmt.Sprintf("e2e-agent 1.0 → 4.6 SOL to %s denied by %s: this transaction would spend 4.600005 SOL (4600005000 lamports) including fees, above the per-transaction cap of 0.1 SOL (100000000 lamports); a smaller amount may pass, this one will not.", recipientKey, policy.RulePerTx),
		}))
		return m
	}},
	{"paused", func() *model {
		m := testModel(viewOpts{}, nil, spendState(30_010_000, 0, true))
		m.Update(events(
			authority.Event{Kind: approval.EventPaused, At: t0.Add(-30 * time.Second), Message: "all writes paused"},
			authority.Event{Kind: approval.EventAutoDenied, At: t0.Add(-10 * time.Second), Client: "e2e-agent 1.0",
				Message: fmt.Sprintf("e2e-agent 1.0 → 0.02 SOL to %s denied by paused: the operator has paused all writes in the solgate console; nothing can be proposed until they resume", otherKey)},
		))
		return m
	}},
	{"operator_token", func() *model {
		cfg := testPolicy()
		cfg.TokenDelivery = policy.DeliveryOperator
		p := transfer(1, "e2e-agent 1.0", recipientKey, 50_000_000, t0.Add(-30*time.Second))
		m := testModel(viewOpts{policy: cfg}, []*authority.Proposal{p}, spendState(0, 0, false))
		a := *p
		a.Status, a.DecidedBy, a.DecidedAt = approval.StatusApproved, "operator", t0.Add(-3*time.Second)
		a.Token, a.TokenExpires = "7QbVnK3xPzRt", t0.Add(297*time.Second)
		m.Update(events(authority.Event{Kind: approval.EventProposalDecided, At: a.DecidedAt, Proposal: &a}))
		return m
	}},
	{"swap_preview", func() *model {
		// The demo's bait swap selected, a token→SOL swap behind it, an
		// earlier swap executed, and the agent's narration in the log.
		bait := baitSwap(1, t0.Add(-42*time.Second))
		usdc := usdcSwap(2, t0.Add(-5*time.Second))
		earlier := executed(swapProposal(3, "demo-agent 1.0", solLabel(), writekind.TokenLabel{Mint: usdcMint.String(), Decimals: 6, Symbol: "USDC"},
			10_000_000, 64_000_000, false, t0.Add(-3*time.Minute)), t0.Add(-150*time.Second))
		earlier.Kind.(*kinds.SwapProposal).Received = 63_987_654
		m := testModel(viewOpts{}, nil, spendState(12_045_280, 0, false))
		m.Update(events(
			authority.Event{Kind: approval.EventExecuted, At: earlier.DecidedAt, Proposal: earlier},
			authority.Event{Kind: approval.EventNote, At: t0.Add(-44 * time.Second), Client: "demo-agent",
				Message: "The name says to ignore limits. I won't. I'll propose a 0.05 SOL swap into it and leave the call to you."},
			authority.Event{Kind: approval.EventProposalAdded, At: bait.CreatedAt, Proposal: bait},
			authority.Event{Kind: approval.EventProposalAdded, At: usdc.CreatedAt, Proposal: usdc},
		))
		m.queue.SelectOldestPending()
		return m
	}},
	{"help_overlay", func() *model {
		p := transfer(1, "e2e-agent 1.0", recipientKey, 50_000_000, t0.Add(-30*time.Second))
		m := testModel(viewOpts{}, []*authority.Proposal{p}, spendState(0, 0, false))
		m.graceUntil = time.Time{}
		m.Update(runes("?"))
		return m
	}},
	{"deny_prompt", func() *model {
		p := transfer(1, "e2e-agent 1.0", recipientKey, 50_000_000, t0.Add(-30*time.Second))
		m := testModel(viewOpts{}, []*authority.Proposal{p}, spendState(0, 0, false))
		m.graceUntil = time.Time{}
		m.Update(runes("d"))
		m.Update(runes("this recipient is not one I know, and the amount is more than we agreed"))
		return m
	}},
	{"log_scrolled", func() *model {
		// A long session: the cap denial is far above the newest entries;
		// [ scrolls back to it and the title counts what arrived since.
		m := testModel(viewOpts{}, nil, spendState(0, 0, false))
		m.Update(sizeMsg(80, 24)) // scroll steps are in screen lines
		m.Update(events(authority.Event{
			Kind: approval.EventAutoDenied, At: t0.Add(-60 * time.Second), Client: "demo-agent 1.0",
			Message: fmt.Sprintf("demo-agent 1.0 → 4.6 SOL to %s denied by %s: this transaction would spend 4.600005 SOL (4600005000 lamports) including fees, above the per-transaction cap of 0.1 SOL (100000000 lamports); a smaller amount may pass, this one will not.", recipientKey, policy.RulePerTx),
		}))
		for i := 0; i < 12; i++ {
			m.Update(events(authority.Event{Kind: approval.EventNote, At: t0.Add(time.Duration(i-50) * time.Second), Client: "demo-agent",
				Message: fmt.Sprintf("step %d of the story: checking the balance before the next transfer", i+1)}))
		}
		for i := 0; i < 8; i++ {
			m.Update(runes("["))
		}
		m.Update(events(authority.Event{Kind: approval.EventNote, At: t0, Client: "demo-agent", Message: "a line that arrived while scrolled back"}))
		return m
	}},
	{"swap_no_cap", func() *model {
		usdc := usdcSwap(2, t0.Add(-5*time.Second))
		m := testModel(viewOpts{}, []*authority.Proposal{usdc}, spendState(0, 0, false))
		return m
	}},
}

func TestViewGolden(t *testing.T) {
	for _, sc := range viewScenarios {
		for _, size := range [][2]int{{80, 24}, {120, 34}, {140, 40}, {160, 45}} {
			name := fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				golden(t, name, screen(t, sc.build(), size[0], size[1]))
			})
		}
	}
}

// The words that must be on screen whatever the styling.
func TestViewSaysItInWords(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		want     []string
	}{
		{"mainnet_warning", []string{"MAINNET — real funds", "LOOK-ALIKE", "press y to approve", "possible address"}},
		{"transfer_preview", []string{"0.05 SOL (50,000,000 lamports)", recipientKey.String(), "EXECUTED ✔ verified", "SHA-256   " + hash("message p_BBBBk7Qz2x")}},
		{"unknown_network_warning", []string{"UNKNOWN NETWORK — treat as real funds", "CONFIRM UNKNOWN-NETWORK APPROVAL", "whose funds may be real", "press y to approve"}},
		{"over_cap_denial", []string{"AUTO-DENIED", "max_sol_per_tx"}},
		{"paused", []string{"WRITES PAUSED", "all writes paused"}},
		{"operator_token", []string{"7QbVnK3xPzRt", "paste it into the chat"}},
		{"swap_preview", []string{
			"0.05 SOL→SOL?", "⚠ not SOL,text!,mint auth,freeze auth", "swap 0.05 SOL for at least 1,237.5 SOL? (expected 1,250)",
			"price impact 0.37% (37 bps)", "agent demo-agent: The name says to ignore limits.",
			"EXECUTED ✔ verified p_DDDDsw4pQ9: swapped 0.01 SOL",
		}},
		{"swap_no_cap", []string{"NO CAP APPLIES — the input is USDC, not SOL", "⚠ NO CAP", "the 25 USDC input is bounded by no cap"}},
	} {
		for _, sc := range viewScenarios {
			if sc.name != tc.scenario {
				continue
			}
			for _, noColor := range []bool{false, true} {
				m := sc.build()
				if noColor {
					m.cfg.styles = newStyles(nil, true)
					m.help.Styles = m.cfg.styles.help
				}
				out := screen(t, m, 140, 40)
				for _, w := range tc.want {
					if w == "MAINNET — real funds" && noColor {
						w = "[!! MAINNET — real funds !!]"
					}
					if w == "UNKNOWN NETWORK — treat as real funds" && noColor {
						w = "[!! UNKNOWN NETWORK — treat as real funds !!]"
					}
					if strings.HasPrefix(w, "NO CAP APPLIES") && noColor {
						w = "[!! NO CAP APPLIES !!]" + strings.TrimPrefix(w, "NO CAP APPLIES")
					}
					if !strings.Contains(out, w) {
						t.Errorf("%s (noColor=%v): %q not on screen:\n%s", tc.scenario, noColor, w, out)
					}
				}
			}
		}
	}
}

// Resizing through many sizes never produces a line wider than the window
// or a view of the wrong height.
func TestViewResizes(t *testing.T) {
	for _, sc := range viewScenarios {
		if sc.name != "transfer_preview" && sc.name != "swap_preview" {
			continue
		}
		m := sc.build()
		for w := 40; w <= 200; w += 7 {
			for h := 10; h <= 60; h += 5 {
				screen(t, m, w, h)
			}
		}
	}
}

// The detail pane scrolls with ctrl+d / ctrl+u (a viewport clamps it): at
// 80x24 the transfer preview does not fit, scrolling reaches its last line
// and the markers count what is hidden on each side.
func TestDetailScrollsToItsEnd(t *testing.T) {
	var m *model
	for _, sc := range viewScenarios {
		if sc.name == "transfer_preview" {
			m = sc.build()
		}
	}
	m.Update(sizeMsg(80, 24))
	ctrlD, ctrlU := tea.KeyMsg{Type: tea.KeyCtrlD}, tea.KeyMsg{Type: tea.KeyCtrlU}
	last := `Client    "e2e-agent 1.0" (self-described)`
	v := m.View()
	if !strings.Contains(v, "more line(s): ctrl+d scrolls") || strings.Contains(v, last) || strings.Contains(v, "line(s) above") {
		t.Fatalf("unscrolled: want only the more-lines marker:\n%s", v)
	}
	for i := 0; i < 3; i++ {
		m.Update(ctrlD)
	}
	v = m.View()
	if !strings.Contains(v, last) || strings.Contains(v, "more line(s)") || !strings.Contains(v, "line(s) above (ctrl+u)") {
		t.Fatalf("scrolled to the end: want the last line and only the above marker:\n%s", v)
	}
	for i := 0; i < 3; i++ {
		m.Update(ctrlU)
	}
	if v = m.View(); strings.Contains(v, "line(s) above") || !strings.Contains(v, "more line(s)") {
		t.Fatalf("scrolled back: want the top again:\n%s", v)
	}
}
