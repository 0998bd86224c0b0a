package tui

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/policy"
)

// config is what the model is built with; nothing in it changes.
type config struct {
	ops     approval.Service // nil in view-only tests: no action is performed
	network executor.Network
	genesis string
	wallet  string
	policy  policy.Config
	grace   time.Duration
	now     func() time.Time
	loc     *time.Location
	styles  styles
	// after schedules a message (tea.Tick). Key-press tests replace it so
	// that a redraw timer does not look like an operator action.
	after func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// bell is where the bell rings when a proposal starts waiting (the
	// terminal); nil: --no-bell.
	bell io.Writer
	// notify runs --notify-command per waiting proposal; nil: none.
	notify *notifier
	// noGrants: --no-grants, A only says so.
	noGrants bool
}

// authorityState is read from the hub by the forwarding goroutine next to the
// events, so Update never has to call into the hub.
type authorityState struct {
	Spend         approval.SpendSummary
	Paused        bool
	Agents        []string // connected: a bridge is running for each
	PausedClients []string
	Warnings      []string // persistent: who else can reach the key or the console
	Grants        []approval.Grant
}

// eventsMsg carries hub events in publish order, batched when they arrive
// faster than the screen redraws, with the hub state read after them.
type eventsMsg struct {
	events []approval.Event
	state  *authorityState
}

type (
	tickMsg     time.Time // once a second while a countdown is visible
	graceEndMsg struct{}  // redraw when the grace period ends
)

type dialogKind int

const (
	dialogNone     dialogKind = iota
	dialogApprove             // mainnet or unknown network: y confirms, anything else cancels
	dialogDeny                // typing a reason: Enter denies, Esc cancels
	dialogQuit                // pending or approved-unexecuted proposals: y quits, denies them and voids the approvals
	dialogDenyUser            // D: y denies every pending proposal of the selected one's user
	dialogGrant               // A: the grant form; Enter approves and grants (mainnet: then y), Esc cancels
	dialogGrants              // l: the grants list; Enter ends the chosen grant
)

// dialog is the one modal prompt that may be open. It is bound to the
// proposal it was opened for, never to "whatever is selected now".
type dialog struct {
	kind   dialogKind
	id     string
	reason textinput.Model // the deny box's editor; zero unless kind is dialogDeny
	grant  grantForm       // the grant form; zero unless kind is dialogGrant
	pick   int             // the grants list's chosen row
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

	spend         approval.SpendSummary
	paused        bool
	clients       []string // sanitised names, sorted
	pausedClients []string // raw names, as the hub knows them (for ResumeClient)
	warnings      []string // the hub's persistent warnings, shown first in the header
	// exposed says how an admitted agent can reach a terminal showing the
	// console now (exposure.go); while set, amounts are hidden and the
	// approval keys ignored.
	exposed []string
	grants  []approval.Grant

	dialog dialog
	// The grace period protects the approval keys only: it is armed for
	// graceFor (the selection it was started for) and restarts whenever the
	// selection changes, whatever moved it.
	graceUntil time.Time
	graceFor   string
	// After a dialog or the selection was taken away by an event (an
	// expiry, a decision made elsewhere), what the operator goes on typing
	// was meant for the dialog or the proposal that left: it is swallowed
	// until Enter or Esc, or until swallowQuiet passes without a key.
	swallowing   bool
	swallowUntil time.Time
	swallowWhy   string
	// mine are the proposals the operator's own keys are deciding: their
	// leaving is the operator's doing, not an event to guard against.
	mine       map[string]bool
	showWallet bool
	ticking    bool
	notice     string // one-line feedback for the last key, cleared by the next
}

func newModel(cfg config, proposals []*approval.Proposal, st authorityState) *model {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.loc == nil {
		cfg.loc = time.Local
	}
	if cfg.after == nil {
		cfg.after = tea.Tick
	}
	m := &model{
		cfg:      cfg,
		keys:     newKeyMap(),
		help:     help.New(),
		queue:    newQueue(),
		log:      eventLog{loc: cfg.loc},
		progress: map[string]executor.Progress{},
		mine:     map[string]bool{},
	}
	m.help.Styles = cfg.styles.help
	for _, p := range proposals {
		m.queue.Upsert(p)
	}
	m.queue.SelectOldestPending()
	m.applyState(st)
	// Proposals already waiting when the console opens get the same
	// protection as new ones.
	m.armGrace()
	m.log.Add(cfg.now(), logInfo, fmt.Sprintf("console open on %s; %d proposal(s) pending", cfg.network.Label(), len(m.queue.pending)))
	return m
}

// Init starts the countdown tick when something is counting down, and the
// redraw at the end of the opening grace period.
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.maybeTick()}
	if m.inGrace() {
		cmds = append(cmds, m.graceEnd())
	}
	return tea.Batch(cmds...)
}

// title is the window title: it announces how many proposals wait. The
// renderer sets it with the frame whenever it changes.
func (m *model) title() string { return windowTitle(len(m.queue.pending)) }

// Update applies one message. Key presses become actions; actions become
// commands; their results come back as actionDoneMsg.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if m.queue.selected != m.graceFor {
		// Whatever moved the selection (an arrival, a decision, an
		// expiry, a key), `a` now means something else: the human gets a
		// moment to see it first.
		if m.armGrace() {
			cmd = tea.Batch(cmd, m.graceEnd())
		}
	}
	if m.queue.selected != m.detail.shownID {
		m.detail.shownID, m.detail.offset = m.queue.selected, 0
	}
	if m.width > 0 && m.lay.rows != m.queue.Len() && (m.lay.rows < m.lay.queueRows || m.queue.Len() < m.lay.queueRows) {
		m.relayout() // the queue grew into or shrank out of its rows
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
		if id := actionID(act); id != "" {
			m.mine[id] = true
		}
		if act != nil {
			return perform(m.cfg.ops, act)
		}
		return cmd
	case eventsMsg:
		waiting := m.applyEvents(msg)
		// A proposal a grant approved in the same batch is not waiting:
		// no bell, no notify command.
		still := waiting[:0]
		for _, e := range waiting {
			if e.p.Status == approval.StatusPending {
				still = append(still, e)
			}
		}
		waiting = still
		return tea.Batch(append(m.announce(waiting), m.maybeTick())...)
	case notifyDoneMsg:
		if msg.err != nil {
			m.log.Add(m.cfg.now(), logBad, "notify for "+msg.id+" failed: "+msg.err.Error())
		}
		return nil
	case actionDoneMsg:
		return m.actionDone(msg)
	case tickMsg:
		m.ticking = false
		return m.maybeTick()
	case graceEndMsg:
		return nil
	case exposureMsg:
		m.setExposed(msg.problems)
		return nil
	}
	return nil
}

// setExposed records whether a terminal showing the console is reachable by
// an admitted agent; an approval dialog open at that moment is cancelled.
func (m *model) setExposed(problems []string) {
	was := len(m.exposed) > 0
	m.exposed = problems
	switch {
	case len(problems) > 0 && !was:
		m.log.Add(m.cfg.now(), logBad, "terminal reachable by an agent: amounts hidden, approval keys ignored: "+strings.Join(problems, "; "))
		if k := m.dialog.kind; k == dialogApprove || k == dialogGrant {
			m.dialog = dialog{}
		}
	case len(problems) == 0 && was:
		m.log.Add(m.cfg.now(), logInfo, "terminal no longer reachable by an agent: amounts and approval keys are back")
		m.armGrace() // what is on screen now was not on screen a moment ago
	}
}

func (m *model) maybeTick() tea.Cmd {
	if m.ticking || !m.queue.hasCountdown() && len(m.grants) == 0 {
		return nil
	}
	m.ticking = true
	return m.cfg.after(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *model) inGrace() bool { return m.cfg.now().Before(m.graceUntil) }

// armGrace starts the grace period for the current selection. It reports
// whether there is something to protect (a pending proposal under the key).
func (m *model) armGrace() bool {
	m.graceFor = m.queue.selected
	if m.selectedPending() == nil {
		m.graceUntil = time.Time{}
		return false
	}
	m.graceUntil = m.cfg.now().Add(m.cfg.grace)
	return true
}

// graceEnd redraws when the grace period is over (the header says so).
func (m *model) graceEnd() tea.Cmd {
	return m.cfg.after(m.cfg.grace, func(time.Time) tea.Msg { return graceEndMsg{} })
}

// approvalLocked reports whether an approval key must be swallowed now, and
// says why in the footer.
func (m *model) approvalLocked() bool {
	if !m.inGrace() {
		return false
	}
	m.notice = "just selected " + m.queue.selected + " — look at it, then press a again"
	return true
}

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
	if m.swallowKey(k) {
		return nil, nil
	}
	// While an agent can reach a terminal showing the console, what the
	// operator sees may be the agent's and a key may be the agent's too.
	if len(m.exposed) > 0 && (key.Matches(k, m.keys.Approve) || key.Matches(k, m.keys.Grant) || key.Matches(k, m.keys.Confirm) && (m.dialog.kind == dialogApprove || m.dialog.kind == dialogGrant)) {
		m.notice = "approval keys are ignored: an admitted agent can reach a terminal showing this console"
		return nil, nil
	}
	// Only the approval keys wait out the grace period: typing already in
	// flight, or a double tap, must not approve a proposal that was not on
	// screen. Every other key (deny, pause, revoke, help, quit, moving)
	// acts at once, so a flood of proposals cannot lock the operator out.
	switch m.dialog.kind {
	case dialogApprove:
		id := m.dialog.id
		m.dialog = dialog{}
		if key.Matches(k, m.keys.Confirm) {
			if id != m.queue.selected || m.approvalLocked() {
				m.notice = "approval of " + id + " cancelled — the selection changed; nothing was approved"
				return nil, nil
			}
			return actionApprove{ID: id}, nil
		}
		m.notice = "approval of " + id + " cancelled — nothing was approved"
		return nil, nil
	case dialogDeny:
		return m.denyKey(k), nil
	case dialogGrant:
		return m.grantKey(k), nil
	case dialogGrants:
		return m.grantsKey(k), nil
	case dialogQuit:
		m.dialog = dialog{}
		if key.Matches(k, m.keys.Confirm) {
			return actionQuit{}, nil
		}
		m.notice = "quit cancelled"
		return nil, nil
	case dialogDenyUser:
		id := m.dialog.id
		m.dialog = dialog{}
		if key.Matches(k, m.keys.Confirm) {
			for _, e := range m.userPending(id) {
				m.mine[e.p.ID] = true // the operator's doing: nothing to swallow
			}
			return actionDenyUser{ID: id}, nil
		}
		m.notice = "nothing was denied"
		return nil, nil
	}

	switch {
	case key.Matches(k, m.keys.Approve):
		e := m.selectedPending()
		if e == nil {
			m.notice = "nothing pending is selected"
			return nil, nil
		}
		if m.help.ShowAll {
			// The key list covers the detail pane: show what a would
			// approve before it can.
			m.help.ShowAll = false
			m.armGrace()
			m.notice = "help closed — this is what a approves; press a again"
			return nil, m.graceEnd()
		}
		if m.approvalLocked() {
			return nil, nil
		}
		if m.mainnet() {
			m.dialog = dialog{kind: dialogApprove, id: e.p.ID}
			return nil, nil
		}
		return actionApprove{ID: e.p.ID}, nil
	case key.Matches(k, m.keys.Grant):
		return m.openGrant()
	case key.Matches(k, m.keys.Grants):
		m.dialog = dialog{kind: dialogGrants}
	case key.Matches(k, m.keys.Deny):
		e := m.selectedPending()
		if e == nil {
			m.notice = "nothing pending is selected"
			return nil, nil
		}
		m.dialog = dialog{kind: dialogDeny, id: e.p.ID, reason: m.newReasonInput()}
	case key.Matches(k, m.keys.DenyUser):
		e := m.selectedPending()
		if e == nil {
			m.notice = "nothing pending is selected"
			return nil, nil
		}
		m.dialog = dialog{kind: dialogDenyUser, id: e.p.ID}
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
	case key.Matches(k, m.keys.LogBack):
		m.log.Scroll(max(m.lay.logRows/2, 1))
	case key.Matches(k, m.keys.LogForward):
		m.log.Scroll(-max(m.lay.logRows/2, 1))
	case key.Matches(k, m.keys.Pause):
		return actionPause{Paused: !m.paused}, nil
	case key.Matches(k, m.keys.Revoke):
		var approved []string
		for _, e := range m.queue.decided {
			if e.p.Status == approval.StatusApproved {
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

// userPending lists the pending proposals of the user (uid, all its
// processes) that proposed id.
func (m *model) userPending(id string) []*entry {
	e := m.queue.byID[id]
	if e == nil {
		return nil
	}
	owner := e.p.Owner
	var out []*entry
	for _, q := range m.queue.pending {
		if q.p.Owner == owner {
			out = append(out, q)
		}
	}
	return out
}

// newReasonInput is the deny box's editor: bubbles' textinput gives the
// operator cursor movement and word deletes, CharLimit keeps the reason cap.
// Its cursor is hidden (no blink timer) because the view draws its own
// marker, and its clipboard paste key is off: reading the clipboard runs a
// program, and a terminal paste already arrives as runes.
func (m *model) newReasonInput() textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.CharLimit = maxReasonRunes
	ti.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	ti.KeyMap.DeleteCharacterBackward = m.keys.Erase
	ti.Cursor.SetMode(cursor.CursorHide)
	ti.Focus()
	return ti
}

// denyKey edits the reason box. Only Enter denies; Esc closes the box and
// leaves the proposal pending. Nothing in here can approve.
func (m *model) denyKey(k tea.KeyMsg) action {
	switch {
	case key.Matches(k, m.keys.Submit):
		id, reason := m.dialog.id, untrusted.Sanitize(m.dialog.reason.Value(), maxReasonRunes)
		m.dialog = dialog{}
		return actionDeny{ID: id, Reason: reason}
	case key.Matches(k, m.keys.Cancel):
		m.notice = "deny cancelled — " + m.dialog.id + " is still pending"
		m.dialog = dialog{}
		return nil
	case k.Type == tea.KeyRunes:
		// Typed text keeps the console's own filter before the widget sees
		// it: a paste may carry whole escape sequences, and no hidden rune
		// (bidi override, zero-width) may reach the box.
		typed := k.Runes
		if len(typed) > 1 {
			typed = []rune(untrusted.Sanitize(string(typed), maxReasonRunes))
		}
		kept := make([]rune, 0, len(typed))
		for _, r := range typed {
			if !untrusted.Hidden(r) {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			return nil
		}
		k.Runes = kept
	}
	// The widget's cursor is hidden, so it asks for no blink ticks; nothing
	// it returns is needed.
	m.dialog.reason, _ = m.dialog.reason.Update(k)
	return nil
}

func (m *model) requestQuit() (action, tea.Cmd) {
	// An approval not yet used dies with the console (its token is void),
	// so quitting then asks too, as it does with proposals pending.
	if len(m.queue.pending) > 0 || m.approvedWaiting() > 0 {
		m.dialog = dialog{kind: dialogQuit}
		return nil, nil
	}
	return nil, tea.Quit
}

// approvedWaiting counts approvals whose token the agent has not used yet.
func (m *model) approvedWaiting() int {
	n := 0
	for _, e := range m.queue.decided {
		if e.p.Status == approval.StatusApproved {
			n++
		}
	}
	return n
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
	if e == nil || e.p.Status != approval.StatusPending {
		return nil
	}
	return e
}

// swallowQuiet is how long typing is swallowed after an event took away
// what it was meant for; every swallowed key restarts it.
const swallowQuiet = 2 * time.Second

// left is called when proposal id stopped being pending, whoever decided.
// byEvent: not by the operator's own key (an expiry, a decision elsewhere).
// Then a dialog open for it, or the selection on it, was taken away while
// the operator may be typing into it, and the keys that follow are
// swallowed: a reason typed into a deny box must not become keys ("maybe a"
// approving the next proposal).
func (m *model) left(id string, byEvent bool) { m.leftBy(id, byEvent, false) }

// leftBy is left; byGrant: a standing grant the operator made decided it.
// Then only a dialog open for it swallows what follows: a grant approves
// proposals as they arrive, and each one passing under the selection must
// not eat the operator's keys (q, x, p among them).
func (m *model) leftBy(id string, byEvent, byGrant bool) {
	delete(m.mine, id)
	dialogOpen := (m.dialog.kind == dialogApprove || m.dialog.kind == dialogDeny || m.dialog.kind == dialogGrant) && m.dialog.id == id
	if dialogOpen {
		m.dialog = dialog{}
		m.notice = id + " is no longer pending; the prompt was closed"
	}
	sel := m.queue.Selected()
	selectedLeft := sel != nil && sel.p.ID == id
	if sel == nil || selectedLeft || sel.p.Status != approval.StatusPending {
		m.queue.SelectOldestPending()
	}
	if byEvent && (dialogOpen || selectedLeft && !byGrant) {
		what := "the proposal was decided elsewhere"
		if e := m.queue.byID[id]; e != nil && e.p.Status == approval.StatusExpired {
			what = "the proposal expired"
		}
		m.swallowing = true
		m.swallowUntil = m.cfg.now().Add(swallowQuiet)
		m.swallowWhy = what + "; your typing was discarded (Enter or Esc to go on)"
		m.notice = m.swallowWhy
	}
}

// swallowKey reports whether k is swallowed (see left). Enter or Esc ends
// the swallowing and is swallowed too; so is any key until swallowQuiet
// passes without one.
func (m *model) swallowKey(k tea.KeyMsg) bool {
	if !m.swallowing {
		return false
	}
	now := m.cfg.now()
	if key.Matches(k, m.keys.Submit) || key.Matches(k, m.keys.Cancel) {
		m.swallowing = false
		m.notice = "keys act again; nothing was decided by what you typed"
		return true
	}
	if now.Before(m.swallowUntil) {
		m.swallowUntil = now.Add(swallowQuiet)
		m.notice = m.swallowWhy
		return true
	}
	m.swallowing = false
	return false
}

// announce rings the bell once for proposals that started waiting, and runs
// the notify command for each.
func (m *model) announce(waiting []*entry) []tea.Cmd {
	if len(waiting) == 0 {
		return nil
	}
	var cmds []tea.Cmd
	if m.cfg.bell != nil {
		cmds = append(cmds, bellCmd(m.cfg.bell))
	}
	if m.cfg.notify != nil {
		for _, e := range waiting {
			cmds = append(cmds, m.cfg.notify.cmd(m.notifyFields(e)))
		}
	}
	return cmds
}

func (m *model) notifyFields(e *entry) notifyFields {
	f := notifyFields{ID: e.p.ID, Tool: e.p.Tool, Amount: e.amount, Network: m.cfg.network.Label(),
		Flags: e.short, Waiting: len(m.queue.pending)}
	if e.p.HasTerms {
		f.Recipient = e.p.Recipient
	}
	return f
}

// applyEvents folds hub events into the model. It returns the proposals
// that started waiting.
func (m *model) applyEvents(msg eventsMsg) (waiting []*entry) {
	for _, ev := range msg.events {
		switch ev.Kind {
		case approval.EventProposalAdded:
			if ev.Proposal == nil {
				continue
			}
			if isNew, _ := m.queue.Upsert(ev.Proposal); isNew && ev.Proposal.Status == approval.StatusPending {
				waiting = append(waiting, m.queue.byID[ev.Proposal.ID])
				if m.selectedPending() == nil {
					// The key should sit on something a can act on; an
					// executed row under the cursor would make it a no-op.
					m.queue.Select(m.queue.index(ev.Proposal.ID))
				}
				e := m.queue.byID[ev.Proposal.ID]
				text := fmt.Sprintf("NEW %s from %s: %s", e.p.ID, e.who, e.action())
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
		case approval.EventProposalDecided, approval.EventProposalExpired, approval.EventExecuted:
			if ev.Proposal == nil {
				continue
			}
			if _, left := m.queue.Upsert(ev.Proposal); left {
				// The operator's decision comes back as an event too,
				// possibly before the action's own answer.
				byOperator := m.mine[ev.Proposal.ID] || ev.Proposal.DecidedBy == decidedBy
				m.leftBy(ev.Proposal.ID, !byOperator, ev.Proposal.Grant != 0)
			}
			if ev.Kind == approval.EventExecuted {
				delete(m.progress, ev.Proposal.ID)
			}
			m.logDecision(ev)
		case approval.EventExecuting:
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
		case approval.EventAutoDenied:
			// Warnings (a look-alike recipient) each get a line of their
			// own, shown whole, so neither the cut at the end of a long
			// entry nor a narrow screen can hide them.
			m.log.Add(ev.At, logWarn, "AUTO-DENIED by policy: "+ev.Message)
			for _, w := range ev.Warnings {
				m.log.Add(ev.At, logAlert, "⚠ "+w)
			}
		case approval.EventNote:
			client := untrusted.Sanitize(ev.Client, 48)
			if client == "" {
				client = "(unnamed)"
			}
			m.log.Add(ev.At, logAgent, "agent "+client+": "+untrusted.Sanitize(ev.Message, 400))
		case approval.EventRefused:
			m.log.Add(ev.At, logBad, "REFUSED "+ev.Message)
		case approval.EventPaused:
			m.log.Add(ev.At, logWarn, ev.Message)
		case approval.EventTokensRevoked:
			m.log.Add(ev.At, logWarn, ev.Message)
		case approval.EventAgentConnected, approval.EventAgentDisconnected:
			what := "connected"
			if ev.Kind == approval.EventAgentDisconnected {
				what = "disconnected"
			}
			m.log.Add(ev.At, logInfo, "agent "+untrusted.Sanitize(ev.Client, 48)+" "+what)
		case approval.EventWarning:
			m.log.Add(ev.At, logAlert, "⚠ "+ev.Message)
		case approval.EventGrantsChanged:
			if ev.Proposal != nil {
				m.queue.Upsert(ev.Proposal) // GrantMiss: why it waits
			}
			m.log.Add(ev.At, logWarn, ev.Message)
		case approval.EventSpendChanged:
			// The state read with this batch carries the new numbers.
		}
	}
	if msg.state != nil {
		m.applyState(*msg.state)
	}
	return waiting
}

func (m *model) logDecision(ev approval.Event) {
	p := ev.Proposal
	reason := p.Reason
	switch p.Status {
	case approval.StatusApproved:
		text := fmt.Sprintf("APPROVED %s by %s — ", p.ID, p.DecidedBy)
		if m.cfg.policy.TokenDelivery == policy.DeliveryOperator && p.Token != "" {
			text += "token " + p.Token + " (give it to the agent)"
		} else {
			text += "the agent collects the token with proposal_status"
		}
		m.log.Add(ev.At, logGood, text)
	case approval.StatusDenied:
		m.log.Add(ev.At, logBad, fmt.Sprintf("DENIED %s by %s: %s", p.ID, p.DecidedBy, reason))
	case approval.StatusExpired:
		m.log.Add(ev.At, logBad, fmt.Sprintf("EXPIRED %s: %s", p.ID, reason))
	case approval.StatusExecuted:
		e := m.queue.byID[p.ID]
		text := fmt.Sprintf("EXECUTED ✔ verified %s", p.ID)
		if e != nil {
			text += ": " + e.action()
		}
		if r := p.Result; r != nil {
			text += fmt.Sprintf(" · slot %d · fee %s", r.Slot, lamports(r.Fee))
		}
		m.log.Add(ev.At, logGood, text+" · sig "+p.Signature)
	case approval.StatusLosses:
		m.log.Add(ev.At, logBad, fmt.Sprintf("EXECUTED WITH UNEXPECTED EFFECTS %s: %s · sig %s", p.ID, reason, p.Signature))
	case approval.StatusSubmitted:
		m.log.Add(ev.At, logWarn, fmt.Sprintf("SUBMITTED %s, outcome unknown (kept reserved, reconciling): %s · sig %s", p.ID, reason, p.Signature))
	case approval.StatusFailed:
		text := fmt.Sprintf("FAILED %s: %s", p.ID, reason)
		if p.Signature != "" {
			text += " · sig " + p.Signature
		}
		m.log.Add(ev.At, logBad, text)
	}
}

func (m *model) applyState(st authorityState) {
	m.spend = st.Spend
	m.paused = st.Paused || st.Spend.Paused
	m.clients = m.clients[:0]
	for _, c := range st.Agents {
		m.clients = append(m.clients, untrusted.Sanitize(c, 32))
	}
	sort.Strings(m.clients)
	m.pausedClients = append(m.pausedClients[:0], st.PausedClients...)
	rows := m.warningRows()
	m.warnings = append(m.warnings[:0], st.Warnings...)
	m.grants = append(m.grants[:0], st.Grants...)
	if m.warningRows() != rows && m.width > 0 {
		m.relayout()
	}
}

// actionDone applies what an operator action returned.
func (m *model) actionDone(msg actionDoneMsg) tea.Cmd {
	now := m.cfg.now()
	if msg.err != nil {
		m.log.Add(now, logBad, msg.err.Error())
	}
	switch a := msg.act.(type) {
	case actionApprove, actionDeny, actionGrant:
		if msg.proposal != nil {
			if _, left := m.queue.Upsert(msg.proposal); left {
				m.left(msg.proposal.ID, false)
			}
		} else if id := actionID(a); id != "" {
			m.left(id, false) // lost the race (expired, decided elsewhere): move on
		}
	case actionRevoke:
		for _, p := range msg.updated {
			m.queue.Upsert(p)
		}
	case actionDenyUser:
		for _, p := range msg.updated {
			if _, left := m.queue.Upsert(p); left {
				m.left(p.ID, false)
			}
		}
		if msg.err == nil {
			m.notice = fmt.Sprintf("denied %d pending proposal(s) of that agent's user", msg.n)
		}
	case actionEndGrant:
		if msg.n == 0 {
			m.notice = fmt.Sprintf("grant #%d had already ended", a.N)
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
	case actionGrant:
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
	m.lay = computeLayout(w, h-m.warningRows(), m.queue.Len())
	m.queue.SetSize(m.lay.queueW, m.lay.queueRows)
	m.detail.SetSize(m.lay.detailW, m.lay.detailRows)
	m.log.SetSize(m.lay.logW, m.lay.logRows, m.lay.wide)
	m.help.Width = w
}

// clientsText lists connected agents for the header.
func (m *model) clientsText() string {
	if len(m.clients) == 0 {
		return "agents: none connected"
	}
	// Names are the agents' own words: an agent may call itself anything,
	// "solgate-console OPERATOR" included.
	return fmt.Sprintf("agents (%d, self-described): %s", len(m.clients), strings.Join(m.clients, ", "))
}
