package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/policy"
)

// The grant form (A) and the grants list (l). A grant is the human's one
// careful approval of a bounded run of calls like the selected one; the hub
// checks every term again, so the form only has to offer sane defaults.

const (
	grantCount = iota
	grantCeiling
	grantMinutes
	grantFields
)

var grantLabels = [grantFields]string{"further calls like it", "total ceiling, SOL, fees included", "for minutes"}

// grantForm is the A dialog's state: three short typed fields.
type grantForm struct {
	fields  [grantFields]string
	focus   int
	confirm bool // mainnet or unknown network: Enter was pressed, y grants
}

// maxGrantFieldLen keeps a field to what any valid value needs.
const maxGrantFieldLen = 14

// grantDefaults prefills the form from what the model knows (no call into
// the hub): DefaultGrantCount more, count × this proposal's measured spend
// but never above what the session cap leaves after it, DefaultGrantFor.
func (m *model) grantDefaults(p *approval.Proposal) grantForm {
	ceiling, err := executor.MulAmount(p.Spend, approval.DefaultGrantCount)
	left := uint64(0)
	if m.spend.Remaining > p.Spend {
		left = m.spend.Remaining - p.Spend
	}
	if err != nil || ceiling > left {
		ceiling = left
	}
	var f grantForm
	f.fields[grantCount] = strconv.Itoa(approval.DefaultGrantCount)
	f.fields[grantCeiling] = policy.FormatSOL(ceiling)
	f.fields[grantMinutes] = strconv.Itoa(int(approval.DefaultGrantFor / time.Minute))
	return f
}

// terms parses the form; the error names the field and what it accepts.
func (f grantForm) terms() (approval.GrantTerms, error) {
	var t approval.GrantTerms
	n, err := strconv.Atoi(f.fields[grantCount])
	if err != nil || n < 1 || n > approval.MaxGrantCount {
		return t, fmt.Errorf("%s: give a whole number from 1 to %d", grantLabels[grantCount], approval.MaxGrantCount)
	}
	// 0 is a ceiling only for a proposal that spends no SOL (an x402
	// payment, whose fee the facilitator pays): the hub refuses it for any
	// other.
	c, err := policy.ParseSOL(f.fields[grantCeiling])
	if err != nil {
		return t, fmt.Errorf("%s: give an amount of SOL, e.g. 0.45 (0 only when the proposal spends no SOL)", grantLabels[grantCeiling])
	}
	mins, err := strconv.Atoi(f.fields[grantMinutes])
	if err != nil || mins < 1 || time.Duration(mins)*time.Minute > approval.MaxGrantFor {
		return t, fmt.Errorf("%s: give a whole number from 1 to %d", grantLabels[grantMinutes], int(approval.MaxGrantFor/time.Minute))
	}
	return approval.GrantTerms{Count: n, Ceiling: c, For: time.Duration(mins) * time.Minute}, nil
}

// openGrant handles A on the selected proposal: the same guards as a,
// then the form.
func (m *model) openGrant() (action, tea.Cmd) {
	e := m.selectedPending()
	switch {
	case e == nil:
		m.notice = "nothing pending is selected"
		return nil, nil
	case m.cfg.noGrants:
		m.notice = "standing grants are off (--no-grants); a approves this one"
		return nil, nil
	case !e.p.Grantable:
		m.notice = e.p.Tool + " is never covered by a grant; a approves this one"
		return nil, nil
	}
	if m.help.ShowAll {
		m.help.ShowAll = false
		m.armGrace()
		m.notice = "help closed — this is what A approves; press A again"
		return nil, m.graceEnd()
	}
	if m.approvalLocked() {
		return nil, nil
	}
	m.dialog = dialog{kind: dialogGrant, id: e.p.ID, grant: m.grantDefaults(e.p)}
	return nil, nil
}

// grantKey edits the form. Enter grants (on mainnet after y), Esc cancels;
// nothing is approved until then.
func (m *model) grantKey(k tea.KeyMsg) action {
	f := &m.dialog.grant
	id := m.dialog.id
	if f.confirm {
		form := *f // copied before the dialog is cleared
		m.dialog = dialog{}
		if !key.Matches(k, m.keys.Confirm) {
			m.notice = "grant for " + id + " cancelled — nothing was approved"
			return nil
		}
		return m.submitGrant(id, form)
	}
	switch {
	case key.Matches(k, m.keys.Cancel):
		m.dialog = dialog{}
		m.notice = "grant cancelled — " + id + " is still pending"
	case key.Matches(k, m.keys.Submit):
		if _, err := f.terms(); err != nil {
			m.notice = err.Error()
			return nil
		}
		if m.mainnet() {
			f.confirm = true
			return nil
		}
		form := *f
		m.dialog = dialog{}
		return m.submitGrant(id, form)
	case k.Type == tea.KeyTab || k.Type == tea.KeyDown:
		f.focus = (f.focus + 1) % grantFields
	case k.Type == tea.KeyShiftTab || k.Type == tea.KeyUp:
		f.focus = (f.focus + grantFields - 1) % grantFields
	case key.Matches(k, m.keys.Erase):
		if s := f.fields[f.focus]; s != "" {
			f.fields[f.focus] = s[:len(s)-1]
		}
	case k.Type == tea.KeyRunes:
		for _, r := range k.Runes {
			ok := r >= '0' && r <= '9' || r == '.' && f.focus == grantCeiling
			if ok && len(f.fields[f.focus]) < maxGrantFieldLen {
				f.fields[f.focus] += string(r)
			}
		}
	}
	return nil
}

// submitGrant checks, as y does for a, that the proposal is still the one
// on screen and not just selected.
func (m *model) submitGrant(id string, f grantForm) action {
	t, err := f.terms()
	if err != nil {
		m.notice = err.Error()
		return nil
	}
	if id != m.queue.selected || m.approvalLocked() {
		m.notice = "grant for " + id + " cancelled — the selection changed; nothing was approved"
		return nil
	}
	return actionGrant{ID: id, Terms: t}
}

// grantsKey is the grants list: ↑/↓ choose, Enter ends the chosen grant,
// Esc (or l) closes. Nothing here can approve.
func (m *model) grantsKey(k tea.KeyMsg) action {
	switch {
	case key.Matches(k, m.keys.Cancel), key.Matches(k, m.keys.Grants):
		m.dialog = dialog{}
	case key.Matches(k, m.keys.Up):
		m.dialog.pick = max(m.dialog.pick-1, 0)
	case key.Matches(k, m.keys.Down):
		m.dialog.pick = min(m.dialog.pick+1, max(len(m.grants)-1, 0))
	case key.Matches(k, m.keys.Submit):
		if m.dialog.pick < len(m.grants) {
			n := m.grants[m.dialog.pick].N
			m.dialog = dialog{}
			return actionEndGrant{N: n}
		}
	}
	return nil
}

// grantLine is one grant for the header: counterparty, used/count,
// spent/ceiling, time left.
// A grant with no SOL ceiling (an x402 payment: the facilitator pays the
// fee) is bounded by its calls × the per-call amount in the asset's units
// (and the per-mint caps), and says so instead of "0/0 SOL".
func (m *model) grantLine(g approval.Grant) string {
	left := g.ExpiresAt.Sub(m.cfg.now())
	if g.Ceiling == 0 {
		return fmt.Sprintf("#%d %s → %s %d/%d calls × at most %s · no SOL · %s left", g.N, untrusted.Sanitize(g.Client, 24), shortWords(g.Counterparty),
			g.Used, g.Count, untrusted.Sanitize(g.Amount, 40), countdown(left))
	}
	return fmt.Sprintf("#%d %s → %s %d/%d · %s/%s SOL · %s left", g.N, untrusted.Sanitize(g.Client, 24), shortWords(g.Counterparty),
		g.Used, g.Count, policy.FormatSOL(g.Spent), policy.FormatSOL(g.Ceiling), countdown(left))
}

// grantBound is the form's bound as typed, in the proposal's own units:
// "10 calls × at most 0.001 USDC each".
func grantBound(e *entry, f grantForm) string {
	calls := f.fields[grantCount] + " calls × at most " + e.amount + " each"
	if e.p.Spend == 0 {
		return "Bound: " + calls + ", within the per-mint caps; no SOL (this spends none: the SOL ceiling stays 0)"
	}
	return "Bound: " + calls + ", at most " + f.fields[grantCeiling] + " SOL in all, fees included"
}

// shortWords abbreviates every address in a counterparty ("mint → owner",
// "in → out at 100 bps slippage"); the header has room for little.
func shortWords(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if len(w) >= 32 {
			words[i] = short(w)
		}
	}
	return strings.Join(words, " ")
}

// grantsHeader is the grants line under the header, or "".
func (m *model) grantsHeader() string {
	if len(m.grants) == 0 {
		return ""
	}
	parts := make([]string, len(m.grants))
	for i, g := range m.grants {
		parts[i] = m.grantLine(g)
	}
	return "GRANTS (l lists, x ends all): " + strings.Join(parts, "  ")
}

// grantDialogLines renders the form or the list.
func (m *model) grantDialogLines(width int) (title string, body []string) {
	s := m.cfg.styles
	if m.dialog.kind == dialogGrants {
		title = "GRANTS"
		if len(m.grants) == 0 {
			return title, wrap("no grant is live", width)
		}
		for i, g := range m.grants {
			mark := "  "
			if i == m.dialog.pick {
				mark = "> "
			}
			body = append(body, fit(mark+m.grantLine(g), width))
		}
		return title, append(body, wrapStyled(s.dim, "↑/↓ choose · Enter ends the chosen grant · Esc closes", width)...)
	}
	f := m.dialog.grant
	title = "APPROVE " + m.dialog.id + " AND GRANT MORE LIKE IT"
	if e := m.queue.byID[m.dialog.id]; e != nil {
		body = wrap(fmt.Sprintf("Approve %s: %s — and let the same agent process make more calls like it (same recipient, each at most this amount; every cap still applies):", e.p.ID, e.action()), width)
	}
	for i := 0; i < grantFields; i++ {
		mark, cur := "  ", ""
		if i == f.focus {
			mark, cur = "> ", "█"
		}
		body = append(body, fit(fmt.Sprintf("%s%s: %s%s", mark, grantLabels[i], f.fields[i], cur), width))
	}
	if e := m.queue.byID[m.dialog.id]; e != nil {
		body = append(body, wrap(grantBound(e, f), width)...)
	}
	if f.confirm {
		where := "MAINNET, with real funds"
		if m.guardedNetwork() == executor.UnknownNetwork {
			where = "an UNKNOWN NETWORK, whose funds may be real"
		}
		return title, append(body, wrapStyled(s.warn, "on "+where+": press y to approve and grant · any other key cancels", width)...)
	}
	return title, append(body, wrapStyled(s.dim, "Enter approves and grants · Esc cancels · Tab next field", width)...)
}
