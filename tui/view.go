package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/policy"
)

// wideFrom is the width from which the detail pane sits beside the log
// instead of between the queue and the log.
const (
	wideFrom = 120
	// wideLogW is the least the log column gets beside the detail: log
	// entries carry whole addresses and reasons, and at 43 columns a cap
	// denial needed eight lines.
	wideLogW = 54
	barWidth = 20
)

// layout is every size derived from the window, computed in one place
// (computeLayout) on resize and when the number of queue rows changes.
type layout struct {
	wide       bool
	rows       int  // queue entries it was computed for
	empty      bool // nothing to show in detail: the log gets its rows
	width      int
	height     int
	queueW     int
	queueRows  int
	colHeader  bool // the queue's column header line
	detailW    int
	detailRows int
	logW       int
	logRows    int
	leftW      int // wide: the column of spend and log
	spendRows  int
}

// computeLayout sizes the panes for a w×h window and a queue of rows
// entries. The queue takes the rows it needs (at least 3, so it does not
// jump about), and what it does not use goes to the log.
func computeLayout(w, h, rows int) layout {
	empty := rows == 0
	l := layout{width: w, height: h, rows: rows, empty: empty, queueW: w, colHeader: true}
	if w >= wideFrom {
		// Queue across the top; below it spend and log on the left, the
		// detail on the right.
		l.wide = true
		l.leftW = max(w*9/20, wideLogW)
		l.detailW = w - l.leftW - 1
		l.logW = l.leftW
		l.queueRows = min(max(rows, 3), max((h-5)/3, 3), 12)
		bottom := h - 2 - 2 - l.queueRows - 1 // header, queue titles, help
		l.detailRows = max(bottom-1, 1)
		l.spendRows = 3 // the numbers may need two lines beside the detail
		l.logRows = max(bottom-l.spendRows-1, 1)
		return l
	}
	l.detailW, l.logW, l.spendRows = w, w, 2
	avail := h - 5 - 4 // header 2, spend 2, help 1; three section titles and the column header
	l.queueRows = min(max(rows, 3), max(avail/4, 3), 10)
	l.logRows = min(max(avail/5, 3), 8)
	if empty {
		l.detailRows = 2
		l.logRows = max(avail-l.queueRows-l.detailRows, 1)
	}
	l.detailRows = max(avail-l.queueRows-l.logRows, 1)
	return l
}

// View draws the whole screen: exactly height lines, none wider than width,
// so a resize never leaves wrapped debris behind.
func (m *model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return "solgate console starting…"
	}
	s := m.cfg.styles
	now := m.cfg.now()
	lay := m.lay

	var lines []string
	lines = append(lines, m.headerLines()...)
	if len(m.exposed) > 0 {
		lines = append(lines, m.exposedLines()...)
		return m.frame(append(lines, m.helpLine()))
	}

	queue := []string{rule(s.title.Render(m.queue.title()), lay.queueW)}
	if lay.colHeader {
		queue = append(queue, s.dim.Render(m.queue.header()))
	}
	queue = append(queue, m.queue.Render(s, now)...)

	detail := []string{rule(s.title.Render(m.detailTitle()), lay.detailW)}
	if m.help.ShowAll {
		detail = append(detail, m.fullHelp(lay.detailRows)...)
	} else {
		detail = append(detail, m.detail.Render(s, m.queue.Selected(), m.detailContext())...)
	}

	bottom := m.dialogLines(lay.logW, lay.logRows+1)
	if bottom == nil {
		bottom = append([]string{rule(s.title.Render(m.log.title()), lay.logW)}, m.log.Render(s)...)
	}
	spend := m.spendLines(lay.logW, lay.spendRows)
	// Per-mint lines beyond the panel's rows come out of the log's rows,
	// so the screen keeps its height.
	if extra := len(spend) - lay.spendRows; extra > 0 && len(bottom) > extra+1 {
		bottom = bottom[:len(bottom)-extra]
	}

	if lay.wide {
		lines = append(lines, queue...)
		left := append(append([]string{}, spend...), bottom...)
		sep := s.dim.Render("│")
		for i := 0; i < max(len(left), len(detail)); i++ {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(detail) {
				r = detail[i]
			}
			lines = append(lines, pad(l, lay.leftW)+sep+fit(r, lay.detailW))
		}
	} else {
		lines = append(lines, queue...)
		lines = append(lines, detail...)
		lines = append(lines, spend...)
		lines = append(lines, bottom...)
	}
	lines = append(lines, m.helpLine())
	return m.frame(lines)
}

// frame fits lines to exactly the window: overflow cut (the last line, the
// help, kept), short screens padded.
func (m *model) frame(lines []string) string {
	if len(lines) > m.height {
		lines = append(lines[:m.height-1], lines[len(lines)-1])
	}
	var b strings.Builder
	b.Grow(m.width * m.height)
	for i := 0; i < m.height; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(fit(lines[i], m.width))
		}
	}
	return b.String()
}

func (m *model) detailContext() detailContext {
	known := append([]string{m.cfg.wallet}, m.cfg.policy.AllowRecipients...)
	c := detailContext{
		now: m.cfg.now(), wallet: m.cfg.wallet, known: known,
		mainnet: m.mainnet(), mainnetLine: m.mainnetLine(), delivery: m.cfg.policy.TokenDelivery,
	}
	if e := m.queue.Selected(); e != nil {
		if pr, ok := m.progress[e.p.ID]; ok {
			c.progress = &pr
		}
	}
	return c
}

func (m *model) detailTitle() string {
	if m.help.ShowAll {
		return "KEYS  (? closes)"
	}
	e := m.queue.Selected()
	if e == nil {
		return "DETAIL"
	}
	return fmt.Sprintf("DETAIL  %s · %s", e.p.ID, strings.ToUpper(string(e.p.Status)))
}

// badge is the network badge, in words as well as colour.
func (m *model) badge() string {
	s := m.cfg.styles
	if m.mainnet() {
		return s.mainnet.Render(m.mainnetWords())
	}
	n := m.cfg.network
	if n == "" {
		n = executor.NetworkFromGenesis(m.cfg.genesis)
	}
	word := "test funds"
	if n == executor.Localnet {
		word = "test ledger"
	}
	if s.noColor {
		return "[" + n.Label() + " — " + word + "]"
	}
	return s.calm.Render("● " + n.Label() + " — " + word)
}

// mainnetWords is the loud badge: MAINNET, or UNKNOWN NETWORK, which is
// treated the same because nothing says its funds are not real.
// mainnetLine is the detail pane's warning under the loud badge.
func (m *model) mainnetLine() string {
	if m.guardedNetwork() == executor.UnknownNetwork {
		return m.mainnetWords() + ": this may spend real money"
	}
	return m.mainnetWords() + ": this spends real money"
}

func (m *model) mainnetWords() string {
	words := "MAINNET — real funds"
	if m.guardedNetwork() == executor.UnknownNetwork {
		words = "UNKNOWN NETWORK — treat as real funds"
	}
	if m.cfg.styles.noColor {
		return "[!! " + words + " !!]"
	}
	return "🔴 " + words
}

func (m *model) headerLines() []string {
	s := m.cfg.styles
	wallet := short(m.cfg.wallet)
	line1 := s.title.Render("SOLGATE") + "  " + m.badge() + "  genesis " + short(m.cfg.genesis) + "  wallet " + wallet
	if m.mainnet() && !s.noColor {
		line1 = s.mainnet.Render(pad(ansi.Strip(line1), m.width))
	}
	var parts []string
	if m.paused {
		parts = append(parts, s.paused.Render("⏸ WRITES PAUSED — p resumes"))
	}
	if m.inGrace() {
		parts = append(parts, s.warn.Render("a waits: just selected"))
	}
	if len(m.pausedClients) > 0 {
		parts = append(parts, s.warn.Render(fmt.Sprintf("breaker paused %d agent(s) — r resumes", len(m.pausedClients))))
	}
	if m.showWallet {
		parts = append(parts, "wallet "+m.cfg.wallet)
	} else {
		parts = append(parts, m.clientsText())
	}
	lines := []string{fit(line1, m.width)}
	// Who else can reach the key or the keyboard gets a line of its own
	// (warningRows), so neither the agents nor a narrow width pushes it
	// off; it stays for the whole session.
	if len(m.warnings) > 0 {
		lines = append(lines, fit(s.danger.Render("⚠ "+strings.Join(m.warnings, "  ⚠ ")), m.width))
	}
	lines = append(lines, fit(strings.Join(parts, "  "), m.width))
	if g := m.grantsHeader(); g != "" {
		lines = append(lines, fit(s.warn.Render(g), m.width))
	}
	return lines
}

// warningRows is how many header lines the warnings take from the panes.
func (m *model) warningRows() int {
	n := 0
	if len(m.warnings) > 0 {
		n++
	}
	if len(m.grants) > 0 {
		n++ // the grants line
	}
	return n
}

// spendLines is the spend panel: caps and the live session spend as a bar.
func (m *model) spendLines(width, rows int) []string {
	s := m.cfg.styles
	v := m.spend
	first := s.title.Render("SPEND") + "  per-tx cap " + sol(v.PerTx)
	if v.PerDay > 0 {
		first += fmt.Sprintf(" · 24 h %s of %s used", executor.FormatSOL(v.DaySpent+v.DayReserved), sol(v.PerDay))
	} else {
		first += " · no daily cap"
	}
	if m.paused {
		first += " · " + s.paused.Render("PAUSED")
	}
	// The numbers first, the bar last: a narrow pane cuts the bar, never
	// the numbers.
	second := fmt.Sprintf("session %s of %s · spent %s · reserved %s · left %s ",
		executor.FormatSOL(v.Spent+v.Reserved), sol(v.PerSession), executor.FormatSOL(v.Spent), executor.FormatSOL(v.Reserved), executor.FormatSOL(v.Remaining)) +
		m.bar(v.Spent, v.Reserved, v.PerSession)
	lines := []string{fit(first, width)}
	for _, l := range wrap(second, width) {
		if len(lines) < rows {
			lines = append(lines, l)
		}
	}
	for len(lines) < rows {
		lines = append(lines, "")
	}
	// One line per agent with a budget of its own, beside the total,
	// beyond the panel's rows like the mints below.
	for _, a := range v.Agents {
		lines = append(lines, fit(agentSpendLine(a), width))
	}
	// Each mint with a cap or a spend, next to SOL, beyond the panel's rows
	// (View takes them from the log); at most maxTokenLines.
	for i, t := range v.Tokens {
		if i == maxTokenLines-1 && len(v.Tokens) > maxTokenLines {
			lines = append(lines, fit(s.dim.Render(fmt.Sprintf("… and %d more mints (get_spend_status lists them)", len(v.Tokens)-i)), width))
			break
		}
		lines = append(lines, fit(tokenSpendLine(t), width))
	}
	return lines
}

// agentSpendLine is one agent's own budget: its label and uid, its session
// spend against its own cap, and what it holds reserved; numbers first, so
// a narrow pane cuts the bar.
func agentSpendLine(a approval.AgentSpend) string {
	who := policy.Agent{UID: a.UID, Label: untrusted.Sanitize(a.Label, 32)}.Name()
	return fmt.Sprintf("agent %s: session %s of %s · reserved %s · left %s", who,
		executor.FormatSOL(a.Spent+a.Reserved), sol(a.PerSession), executor.FormatSOL(a.Reserved), executor.FormatSOL(a.Remaining))
}

// maxTokenLines bounds the spend panel's per-mint lines.
const maxTokenLines = 3

// tokenSpendLine is one mint in the spend panel: spent and reserved in base
// units, its caps as the operator wrote them, and the mint, never
// abbreviated (an abbreviation of a look-alike would read as the real one).
func tokenSpendLine(t approval.TokenSpend) string {
	caps := []string{}
	for _, c := range []struct{ label, v string }{{"tx", t.PerTx}, {"session", t.PerSession}, {"24 h", t.PerDay}} {
		if c.v != "" {
			caps = append(caps, c.label+" "+c.v)
		}
	}
	capText := "NO CAP"
	if len(caps) > 0 {
		capText = "caps " + strings.Join(caps, " · ")
	}
	// The numbers first, the mint last: a narrow pane cuts the mint (in
	// full in get_spend_status and the detail), never the numbers.
	// Spent and reserved are base units; a cap reads as the operator wrote
	// it (with a decimal point: display units), so the line says which is which.
	return fmt.Sprintf("token spent %d · reserved %d base units · %s · mint %s", t.Spent, t.Reserved, capText, t.Mint)
}

// bar draws spent (█), reserved (▒) and free (░) against the cap.
func (m *model) bar(spent, reserved, limit uint64) string {
	s := m.cfg.styles
	if limit == 0 {
		return "[" + strings.Repeat("░", barWidth) + "]"
	}
	cells := func(v uint64) int {
		if v >= limit {
			return barWidth
		}
		return int(v * barWidth / limit)
	}
	a := cells(spent)
	b := min(cells(spent+reserved)-a, barWidth-a)
	// Anything at all shows as at least one cell.
	if spent > 0 && a == 0 {
		a = 1
	}
	if reserved > 0 && b == 0 && a < barWidth {
		b = 1
	}
	return "[" + s.barSpent.Render(strings.Repeat("█", a)) + s.barReserve.Render(strings.Repeat("▒", b)) +
		s.barFree.Render(strings.Repeat("░", barWidth-a-b)) + "]"
}

// dialogLines renders the open dialog in place of the log, or nil.
func (m *model) dialogLines(width, height int) []string {
	s := m.cfg.styles
	var title string
	var body []string
	switch m.dialog.kind {
	case dialogNone:
		return nil
	case dialogApprove:
		where := "MAINNET, with real funds"
		title = "CONFIRM MAINNET APPROVAL"
		if m.guardedNetwork() == executor.UnknownNetwork {
			where = "an UNKNOWN NETWORK, whose funds may be real"
			title = "CONFIRM UNKNOWN-NETWORK APPROVAL"
		}
		if e := m.queue.byID[m.dialog.id]; e != nil {
			body = wrap(fmt.Sprintf("Approve %s: %s — on %s?", e.p.ID, e.action(), where), width)
			for _, l := range e.lines {
				if l.Role == approval.LineBanner {
					body = append(body, wrapStyled(s.warn, l.Value, width)...)
				}
			}
		}
		body = append(body, wrapStyled(s.warn, "press y to approve · any other key cancels", width)...)
	case dialogDeny:
		title = "DENY " + m.dialog.id
		body = append(body, wrap("reason (optional, sent to the agent):", width)...)
		// Drawn here rather than by the widget's View: that scrolls one
		// line sideways (hiding the start of a long reason) and marks the
		// cursor only in reverse video, which vanishes without colour.
		typed := []rune(m.dialog.reason.Value())
		at := min(m.dialog.reason.Position(), len(typed))
		body = append(body, wrap("> "+string(typed[:at])+"█"+string(typed[at:]), width)...)
		body = append(body, wrapStyled(s.dim, "Enter denies · Esc cancels (the proposal stays pending)", width)...)
	case dialogDenyUser:
		n, who := len(m.userPending(m.dialog.id)), "?"
		if e := m.queue.byID[m.dialog.id]; e != nil {
			who = e.p.Owner
		}
		title = "DENY ALL OF " + strings.ToUpper(who)
		body = wrap(fmt.Sprintf("Deny all %d pending proposal(s) from %s, every process of that user (the names agents give do not count)?", n, who), width)
		body = append(body, wrapStyled(s.warn, "press y to deny them all · any other key cancels", width)...)
	case dialogGrant, dialogGrants:
		title, body = m.grantDialogLines(width)
	case dialogQuit:
		title = "QUIT"
		if n := len(m.queue.pending); n > 0 {
			body = wrap(fmt.Sprintf("%d proposal(s) are pending. Quit and deny them all as %q?", n, closedReason), width)
		}
		if n := m.approvedWaiting(); n > 0 {
			body = append(body, wrap(fmt.Sprintf("%d approved proposal(s) have not been executed yet: quitting makes their approvals void (the agent's tokens stop working).", n), width)...)
		}
		body = append(body, wrapStyled(s.warn, "press y to quit · any other key stays", width)...)
	}
	lines := []string{s.dialog.Render(pad(" "+title, width))}
	lines = append(lines, body...)
	if len(lines) > height {
		// Keep the title and the end (the typed reason, the key prompt),
		// whatever else is cut.
		lines = append(lines[:1], lines[len(lines)-height+1:]...)
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	for i := range lines {
		lines[i] = fit(lines[i], width)
	}
	return lines
}

func (m *model) helpLine() string {
	if m.notice != "" {
		return fit(m.cfg.styles.warn.Render(m.notice), m.width)
	}
	// With a prompt open, the footer names the keys that act there: a
	// footer still offering "a approve" while the operator types a reason
	// says something false.
	switch m.dialog.kind {
	case dialogDeny:
		return fit("typing a reason · enter deny · esc cancel (stays pending) · backspace erase", m.width)
	case dialogApprove:
		return fit("y approve on mainnet · any other key cancels", m.width)
	case dialogQuit:
		return fit("y quit (pending: denied, approved: void) · any other key stays", m.width)
	case dialogDenyUser:
		return fit("y deny all of this user's pending proposals · any other key cancels", m.width)
	case dialogGrant:
		if m.dialog.grant.confirm {
			return fit("y approve and grant · any other key cancels", m.width)
		}
		return fit("digits edit · tab next field · enter approve and grant · esc cancel", m.width)
	case dialogGrants:
		return fit("↑/↓ choose · enter end the chosen grant · esc close", m.width)
	}
	h := m.help
	h.ShowAll = false
	return fit(h.View(m.keys), m.width)
}

func (m *model) fullHelp(rows int) []string {
	// One group per paragraph, wrapped to the pane: help.FullHelpView lays
	// the groups out as columns and drops the ones that do not fit.
	var lines []string
	for _, group := range m.keys.FullHelp() {
		var parts []string
		for _, b := range group {
			parts = append(parts, b.Help().Key+" "+b.Help().Desc)
		}
		lines = append(lines, strings.Join(parts, " · "))
	}
	extra := []string{
		"",
		"Enter never approves. On mainnet or an unknown network, a is followed by y; any other key cancels.",
		"a waits a moment whenever the selection changes; every other key acts at once.",
	}
	if m.cfg.policy.TokenDelivery == policy.DeliveryOperator {
		extra = append(extra, "Token delivery is \"operator\": after approving, give the token shown here to the agent.")
	}
	lines = append(lines, extra...)
	out := make([]string, 0, rows)
	for _, l := range lines {
		for _, w := range wrap(l, m.lay.detailW) {
			if len(out) < rows {
				out = append(out, w)
			}
		}
	}
	for len(out) < rows {
		out = append(out, "")
	}
	return out
}
