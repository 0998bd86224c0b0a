package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/hub"
	"github.com/solgate/solgate/mcpbridge/untrusted"
	"github.com/solgate/solgate/policy"
)

// config is what the model is built with; nothing in it changes.
type config struct {
	ops     operator // nil in view-only tests: no action is performed
	network executor.Network
	genesis string
	wallet  string
	policy  policy.Config
	grace   time.Duration
	now     func() time.Time
	loc     *time.Location
	styles  styles
}

// hubState is read from the hub by the forwarding goroutine next to the
// events, so Update never has to call into the hub.
type hubState struct {
	Spend         hub.SpendSummary
	Paused        bool
	Agents        []string // connected: a bridge is running for each
	PausedClients []string
	Warnings      []string // persistent: who else can reach the key or the console
}

// eventsMsg carries hub events in publish order, batched when they arrive
// faster than the screen redraws, with the hub state read after them.
type eventsMsg struct {
	events []hub.Event
	state  *hubState
}

type (
	tickMsg     time.Time // once a second while a countdown is visible
	graceEndMsg struct{}  // redraw when the grace period ends
)

type dialogKind int

const (
	dialogNone    dialogKind = iota
	dialogApprove            // mainnet or unknown network: y confirms, anything else cancels
	dialogDeny               // typing a reason: Enter denies, Esc cancels
	dialogQuit               // pending proposals: y quits and denies them
)

// dialog is the one modal prompt that may be open. It is bound to the
// proposal it was opened for, never to "whatever is selected now".
type dialog struct {
	kind   dialogKind
	id     string
	reason []rune
}

const maxReasonRunes = 200

// model is the console's one root model. Components (queue, detail, log)
// are plain structs; this Update is the only place that reacts to messages,
// and it never does I/O: operator actions leave as commands (perform).
type model struct {
	cfg  config
	keys keyMap
	help help.Model

	width, height int
	lay           layout

	queue    queue
	detail   detail
	log      eventLog
	progress map[string]executor.Progress

	spend         hub.SpendSummary
	paused        bool
	clients       []string // sanitised names, sorted
	pausedClients []string // raw names, as the hub knows them (for ResumeClient)
	warnings      []string // the hub's persistent warnings, shown first in the header

	dialog     dialog
	graceUntil time.Time
	showWallet bool
	ticking    bool
	notice     string // one-line feedback for the last key, cleared by the next
}

func newModel(cfg config, proposals []*hub.Proposal, st hubState) *model {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.loc == nil {
		cfg.loc = time.Local
	}
	m := &model{
		cfg:      cfg,
		keys:     newKeyMap(),
		help:     help.New(),
		queue:    newQueue(),
		log:      eventLog{loc: cfg.loc},
		progress: map[string]executor.Progress{},
	}
	m.help.Styles = cfg.styles.help
	for _, p := range proposals {
		m.queue.Upsert(p)
	}
	m.queue.SelectOldestPending()
	m.applyState(st)
	if len(m.queue.pending) > 0 {
		// Proposals already waiting when the console opens get the same
		// protection as new ones.
		m.graceUntil = cfg.now().Add(cfg.grace)
	}
	m.log.Add(cfg.now(), logInfo, fmt.Sprintf("console open on %s; %d proposal(s) pending", cfg.network.Label(), len(m.queue.pending)))
	return m
}

// Init starts the countdown tick when something is counting down.
func (m *model) Init() tea.Cmd { return m.maybeTick() }

// Update applies one message. Key presses become actions; actions become
// commands; their results come back as actionDoneMsg.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if m.queue.selected != m.detail.shownID {
		m.detail.shownID, m.detail.offset = m.queue.selected, 0
	}
	if m.width > 0 && m.lay.empty != (m.queue.Len() == 0) {
		m.relayout()
	}
	return m, cmd
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.setSize(msg.Width, msg.Height)
		return nil
	case tea.KeyMsg:
		act, cmd := m.handleKey(msg)
		if act != nil {
			return perform(m.cfg.ops, act)
		}
		return cmd
	case eventsMsg:
		added := m.applyEvents(msg)
		cmds := []tea.Cmd{m.maybeTick()}
		if added {
			cmds = append(cmds, tea.Tick(m.cfg.grace, func(time.Time) tea.Msg { return graceEndMsg{} }))
		}
		return tea.Batch(cmds...)
	case actionDoneMsg:
		return m.actionDone(msg)
	case tickMsg:
		m.ticking = false
		return m.maybeTick()
	case graceEndMsg:
		return nil
	}
	return nil
}

func (m *model) maybeTick() tea.Cmd {
	if m.ticking || !m.queue.hasCountdown() {
		return nil
	}
	m.ticking = true
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *model) inGrace() bool { return m.cfg.now().Before(m.graceUntil) }

// handleKey decides what a key press means. It returns an action for the
// root to perform, or a plain command (quit), or neither.
func (m *model) handleKey(k tea.KeyMsg) (action, tea.Cmd) {
	m.notice = ""
	// Ctrl+C is never swallowed, but it can only lead to quitting, and
	// quitting with proposals pending still asks.
	if key.Matches(k, m.keys.Interrupt) {
		if m.dialog.kind == dialogQuit {
			m.dialog = dialog{}
			return actionQuit{}, nil
		}
		return m.requestQuit()
	}
	if m.inGrace() {
		// Typing already in flight when a proposal appears must not act
		// on it: every key is ignored until the grace period is over.
		m.notice = "a new proposal just arrived — keys are ignored for a moment"
		return nil, nil
	}
	switch m.dialog.kind {
	case dialogApprove:
		id := m.dialog.id
		m.dialog = dialog{}
		if key.Matches(k, m.keys.Confirm) {
			return actionApprove{ID: id}, nil
		}
		m.notice = "approval of " + id + " cancelled — nothing was approved"
		return nil, nil
	case dialogDeny:
		return m.denyKey(k), nil
	case dialogQuit:
		m.dialog = dialog{}
		if key.Matches(k, m.keys.Confirm) {
			return actionQuit{}, nil
		}
		m.notice = "quit cancelled"
		return nil, nil
	}

	switch {
	case key.Matches(k, m.keys.Approve):
		e := m.selectedPending()
		if e == nil {
			m.notice = "nothing pending is selected"
			return nil, nil
		}
		if m.mainnet() {
			m.dialog = dialog{kind: dialogApprove, id: e.p.ID}
			return nil, nil
		}
		return actionApprove{ID: e.p.ID}, nil
	case key.Matches(k, m.keys.Deny):
		e := m.selectedPending()
		if e == nil {
			m.notice = "nothing pending is selected"
			return nil, nil
		}
		m.dialog = dialog{kind: dialogDeny, id: e.p.ID}
	case key.Matches(k, m.keys.Up):
		m.queue.Move(-1)
	case key.Matches(k, m.keys.Down):
		m.queue.Move(1)
	case key.Matches(k, m.keys.Top):
		m.queue.Select(0)
	case key.Matches(k, m.keys.Bottom):
		m.queue.Select(m.queue.Len() - 1)
	case key.Matches(k, m.keys.PageUp):
		m.queue.Move(-m.queue.height)
	case key.Matches(k, m.keys.PageDown):
		m.queue.Move(m.queue.height)
	case key.Matches(k, m.keys.ScrollDown):
		m.detail.Scroll(max(m.lay.detailRows/2, 1))
	case key.Matches(k, m.keys.ScrollUp):
		m.detail.Scroll(-max(m.lay.detailRows/2, 1))
	case key.Matches(k, m.keys.Pause):
		return actionPause{Paused: !m.paused}, nil
	case key.Matches(k, m.keys.Revoke):
		var approved []string
		for _, e := range m.queue.decided {
			if e.p.Status == hub.StatusApproved {
				approved = append(approved, e.p.ID)
			}
		}
		return actionRevoke{Approved: approved}, nil
	case key.Matches(k, m.keys.Resume):
		if len(m.pausedClients) == 0 {
			m.notice = "no agent is paused by the retry breaker"
			return nil, nil
		}
		return actionResume{Clients: append([]string(nil), m.pausedClients...)}, nil
	case key.Matches(k, m.keys.Wallet):
		m.showWallet = !m.showWallet
	case key.Matches(k, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(k, m.keys.Quit):
		return m.requestQuit()
	}
	return nil, nil
}

// denyKey edits the reason box. Only Enter denies; Esc closes the box and
// leaves the proposal pending. Nothing in here can approve.
func (m *model) denyKey(k tea.KeyMsg) action {
	switch {
	case key.Matches(k, m.keys.Submit):
		id, reason := m.dialog.id, untrusted.Sanitize(string(m.dialog.reason), maxReasonRunes)
		m.dialog = dialog{}
		return actionDeny{ID: id, Reason: reason}
	case key.Matches(k, m.keys.Cancel):
		m.notice = "deny cancelled — " + m.dialog.id + " is still pending"
		m.dialog = dialog{}
	case key.Matches(k, m.keys.Erase):
		if n := len(m.dialog.reason); n > 0 {
			m.dialog.reason = m.dialog.reason[:n-1]
		}
	case k.Type == tea.KeyRunes || k.Type == tea.KeySpace:
		typed := k.Runes
		if len(typed) > 1 {
			// A paste: it may carry whole escape sequences, not just
			// control characters.
			typed = []rune(untrusted.Sanitize(string(typed), maxReasonRunes))
		}
		for _, r := range typed {
			if len(m.dialog.reason) >= maxReasonRunes {
				break
			}
			if !untrusted.Hidden(r) {
				m.dialog.reason = append(m.dialog.reason, r)
			}
		}
	}
	return nil
}

func (m *model) requestQuit() (action, tea.Cmd) {
	if len(m.queue.pending) > 0 {
		m.dialog = dialog{kind: dialogQuit}
		return nil, nil
	}
	return nil, tea.Quit
}

// mainnet: real funds may be at stake, so the header is loud and approval
// takes a second key. That is mainnet (by the hub's network or, belt and
// braces, by the genesis hash alone) and a cluster nobody can vouch for.
func (m *model) mainnet() bool {
	return m.guardedNetwork() != ""
}

// guardedNetwork is the network that makes the console loud, or "".
func (m *model) guardedNetwork() executor.Network {
	switch {
	case m.cfg.network.IsMainnet() || executor.NetworkFromGenesis(m.cfg.genesis).IsMainnet():
		return executor.Mainnet
	case m.cfg.network.Guarded():
		return m.cfg.network
	}
	return ""
}

func (m *model) selectedPending() *entry {
	e := m.queue.Selected()
	if e == nil || e.p.Status != hub.StatusPending {
		return nil
	}
	return e
}

// left is called when proposal id stopped being pending, whoever decided.
func (m *model) left(id string) {
	if (m.dialog.kind == dialogApprove || m.dialog.kind == dialogDeny) && m.dialog.id == id {
		m.dialog = dialog{}
		m.notice = id + " is no longer pending; the prompt was closed"
	}
	if sel := m.queue.Selected(); sel == nil || sel.p.ID == id || sel.p.Status != hub.StatusPending {
		m.queue.SelectOldestPending()
	}
}

// applyEvents folds hub events into the model. It reports whether a new
// proposal appeared (the grace period then restarts).
func (m *model) applyEvents(msg eventsMsg) (added bool) {
	for _, ev := range msg.events {
		switch ev.Kind {
		case hub.EventProposalAdded:
			if ev.Proposal == nil {
				continue
			}
			if isNew, _ := m.queue.Upsert(ev.Proposal); isNew && ev.Proposal.Status == hub.StatusPending {
				added = true
				e := m.queue.byID[ev.Proposal.ID]
				text := fmt.Sprintf("NEW %s from %s: %s", e.p.ID, e.client, e.action())
				kind := logInfo
				if e.short != "" {
					text += " ⚠ " + e.short
					kind = logWarn
				}
				m.log.Add(ev.At, kind, text)
				for _, f := range e.flags {
					if strings.Contains(f, "looks like") {
						m.log.Add(ev.At, logAlert, "⚠ "+f)
					}
				}
			}
		case hub.EventProposalDecided, hub.EventProposalExpired, hub.EventExecuted:
			if ev.Proposal == nil {
				continue
			}
			if _, left := m.queue.Upsert(ev.Proposal); left {
				m.left(ev.Proposal.ID)
			}
			if ev.Kind == hub.EventExecuted {
				delete(m.progress, ev.Proposal.ID)
			}
			m.logDecision(ev)
		case hub.EventExecuting:
			if ev.Proposal == nil {
				continue
			}
			if ev.Progress != nil {
				m.progress[ev.Proposal.ID] = *ev.Progress
			}
			if ev.Proposal.Tool != "" { // the full snapshot, not a progress stub
				m.queue.Upsert(ev.Proposal)
				m.log.Add(ev.At, logInfo, fmt.Sprintf("EXECUTING %s: the agent confirmed; simulating, signing, sending", ev.Proposal.ID))
			}
		case hub.EventAutoDenied:
			// Warnings (a look-alike recipient) each get a line of their
			// own, shown whole, so neither the cut at the end of a long
			// entry nor a narrow screen can hide them.
			m.log.Add(ev.At, logWarn, "AUTO-DENIED by policy: "+ev.Message)
			for _, w := range ev.Warnings {
				m.log.Add(ev.At, logAlert, "⚠ "+w)
			}
		case hub.EventNote:
			client := untrusted.Sanitize(ev.Client, 48)
			if client == "" {
				client = "(unnamed)"
			}
			m.log.Add(ev.At, logAgent, "agent "+client+": "+untrusted.Sanitize(ev.Message, 400))
		case hub.EventRefused:
			m.log.Add(ev.At, logBad, "REFUSED "+ev.Message)
		case hub.EventPaused:
			m.log.Add(ev.At, logWarn, ev.Message)
		case hub.EventTokensRevoked:
			m.log.Add(ev.At, logWarn, ev.Message)
		case hub.EventAgentConnected, hub.EventAgentDisconnected:
			what := "connected"
			if ev.Kind == hub.EventAgentDisconnected {
				what = "disconnected"
			}
			m.log.Add(ev.At, logInfo, "agent "+untrusted.Sanitize(ev.Client, 48)+" "+what)
		case hub.EventWarning:
			m.log.Add(ev.At, logAlert, "⚠ "+ev.Message)
		case hub.EventSpendChanged:
			// The state read with this batch carries the new numbers.
		}
	}
	if msg.state != nil {
		m.applyState(*msg.state)
	}
	if added {
		m.graceUntil = m.cfg.now().Add(m.cfg.grace)
	}
	return added
}

func (m *model) logDecision(ev hub.Event) {
	p := ev.Proposal
	reason := p.Reason
	switch p.Status {
	case hub.StatusApproved:
		text := fmt.Sprintf("APPROVED %s by %s — ", p.ID, p.DecidedBy)
		if m.cfg.policy.TokenDelivery == policy.DeliveryOperator && p.Token != "" {
			text += "token " + p.Token + " (give it to the agent)"
		} else {
			text += "the agent collects the token with proposal_status"
		}
		m.log.Add(ev.At, logGood, text)
	case hub.StatusDenied:
		m.log.Add(ev.At, logBad, fmt.Sprintf("DENIED %s by %s: %s", p.ID, p.DecidedBy, reason))
	case hub.StatusExpired:
		m.log.Add(ev.At, logBad, fmt.Sprintf("EXPIRED %s: %s", p.ID, reason))
	case hub.StatusExecuted:
		text := fmt.Sprintf("EXECUTED ✔ verified %s: %s to %s", p.ID, sol(p.Transfer.Lamports), p.Transfer.To)
		if e := m.queue.byID[p.ID]; e != nil && e.swap != nil {
			v := e.swap
			text = fmt.Sprintf("EXECUTED ✔ verified %s: swapped %s for %s (approved minimum %s)", p.ID,
				v.in.amount(v.sp.Terms.InAmount), v.out.amount(v.sp.Received), tokenAmount(v.sp.Terms.MinimumOut, v.out.decimals))
		}
		if r := p.Result; r != nil {
			text += fmt.Sprintf(" · slot %d · fee %s", r.Slot, lamports(r.Fee))
		}
		m.log.Add(ev.At, logGood, text+" · sig "+p.Signature)
	case hub.StatusLosses:
		m.log.Add(ev.At, logBad, fmt.Sprintf("EXECUTED WITH UNEXPECTED LOSSES %s: %s · sig %s", p.ID, reason, p.Signature))
	case hub.StatusSubmitted:
		m.log.Add(ev.At, logWarn, fmt.Sprintf("SUBMITTED %s, outcome unknown (kept reserved, reconciling): %s · sig %s", p.ID, reason, p.Signature))
	case hub.StatusFailed:
		text := fmt.Sprintf("FAILED %s: %s", p.ID, reason)
		if p.Signature != "" {
			text += " · sig " + p.Signature
		}
		m.log.Add(ev.At, logBad, text)
	}
}

func (m *model) applyState(st hubState) {
	m.spend = st.Spend
	m.paused = st.Paused || st.Spend.Paused
	m.clients = m.clients[:0]
	for _, c := range st.Agents {
		m.clients = append(m.clients, untrusted.Sanitize(c, 32))
	}
	sort.Strings(m.clients)
	m.pausedClients = append(m.pausedClients[:0], st.PausedClients...)
	m.warnings = append(m.warnings[:0], st.Warnings...)
}

// actionDone applies what an operator action returned.
func (m *model) actionDone(msg actionDoneMsg) tea.Cmd {
	now := m.cfg.now()
	if msg.err != nil {
		m.log.Add(now, logBad, msg.err.Error())
	}
	switch a := msg.act.(type) {
	case actionApprove, actionDeny:
		if msg.proposal != nil {
			if _, left := m.queue.Upsert(msg.proposal); left {
				m.left(msg.proposal.ID)
			}
		} else if id := actionID(a); id != "" {
			m.left(id) // lost the race (expired, decided elsewhere): move on
		}
	case actionRevoke:
		for _, p := range msg.updated {
			m.queue.Upsert(p)
		}
	case actionQuit:
		return tea.Quit
	}
	return m.maybeTick()
}

func actionID(a action) string {
	switch a := a.(type) {
	case actionApprove:
		return a.ID
	case actionDeny:
		return a.ID
	}
	return ""
}

// setSize stores the window size and recomputes the layout, once, here.
func (m *model) setSize(w, h int) {
	m.width, m.height = w, h
	m.relayout()
}

// relayout recomputes every size from the window and sets the components.
func (m *model) relayout() {
	w, h := m.width, m.height
	m.lay = computeLayout(w, h, m.queue.Len() == 0)
	m.queue.SetSize(m.lay.queueW, m.lay.queueRows)
	m.detail.SetSize(m.lay.detailW, m.lay.detailRows)
	m.log.SetSize(m.lay.logW, m.lay.logRows, m.lay.logWrap, m.lay.wide)
	m.help.Width = w
}

// clientsText lists connected agents for the header.
func (m *model) clientsText() string {
	if len(m.clients) == 0 {
		return "agents: none connected"
	}
	return fmt.Sprintf("agents (%d): %s", len(m.clients), strings.Join(m.clients, ", "))
}
