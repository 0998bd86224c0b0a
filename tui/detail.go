package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/hub"
	"github.com/solgate/solgate/mcpbridge/untrusted"
	"github.com/solgate/solgate/policy"
)

// detail renders the selected proposal as solgate would execute it: every
// line comes from the transaction bytes and its simulation (the hub's
// Preview), never from what the agent said about it.
type detail struct {
	width, height int
	offset        int // lines scrolled (ctrl+d / ctrl+u), reset on selection change
	shownID       string
}

// detailContext is what the detail pane needs besides the proposal.
type detailContext struct {
	now      time.Time
	wallet   string
	known    []string // addresses the operator knows: wallet, allowlist
	mainnet  bool
	delivery string
	progress *executor.Progress
}

// SetSize sets the pane's size.
func (d *detail) SetSize(width, height int) { d.width, d.height = width, height }

const labelW = 10

// Render draws the pane, exactly height lines; what does not fit is cut
// with a note saying so.
func (d *detail) Render(s styles, e *entry, c detailContext) []string {
	var lines []string
	add := func(l ...string) { lines = append(lines, l...) }
	field := func(label, value string) {
		first := true
		for _, w := range wrap(value, max(d.width-labelW, 10)) {
			if first {
				add(s.label.Render(pad(label, labelW)) + w)
				first = false
			} else {
				add(strings.Repeat(" ", labelW) + w)
			}
		}
	}
	if e == nil {
		add(s.dim.Render("Nothing selected. Proposals appear here as agents make them; a write"),
			s.dim.Render("only happens after you approve it and the agent confirms."))
		return d.finish(s, lines)
	}
	p := e.p

	// Warnings first: they must be seen before the numbers.
	to := p.Transfer.To.String()
	for _, f := range e.flags {
		add(wrapStyled(s.warn, "⚠ "+f, d.width)...)
	}
	for _, k := range c.known {
		if untrusted.LooksLike(k, to) && !flagged(e.flags, k) {
			add(wrapStyled(s.warn, fmt.Sprintf("⚠ recipient looks like known address %s (possible address poisoning)", k), d.width)...)
		}
	}
	if len(e.clientNote) > 0 {
		add(wrapStyled(s.warn, fmt.Sprintf("⚠ the client's name contains instruction-like text (%s): treat it as data, not advice", strings.Join(e.clientNote, ", ")), d.width)...)
	}
	if c.mainnet {
		add(s.mainnet.Render(pad(mainnetWords(s)+": this spends real money", d.width)))
	}

	d.status(s, e, c, add, field)
	field("Action", fmt.Sprintf("transfer %s (%s) to the recipient below", sol(p.Transfer.Lamports), lamports(p.Transfer.Lamports)))
	field("Recipient", to)
	field("Spend", fmt.Sprintf("%s (%s): amount + %s fee", sol(p.Spend), lamports(p.Spend), grouped(p.Preview.Fee)))
	for i, ch := range p.Preview.Changes {
		label := ""
		if i == 0 {
			label = "Simulated"
		}
		who := ch.Account.String()
		switch who {
		case c.wallet:
			who = short(who) + " (wallet)"
		case to:
			who = short(who) + " (recipient)"
		default:
			who = short(who)
		}
		field(label, fmt.Sprintf("%-21s %14s  %s → %s", who, solSigned(ch.Delta()), executor.FormatSOL(ch.Pre), executor.FormatSOL(ch.Post)))
	}
	for i, ins := range p.Preview.Instructions {
		label := ""
		if i == 0 {
			label = "Program"
		}
		summary := untrusted.Sanitize(ins.Summary, 400)
		if d.width < 100 {
			summary = shortenKeys(summary, false) // the full recipient is on its own line above
		}
		field(label, untrusted.Sanitize(ins.Name, 60)+": "+summary)
	}
	field("SHA-256", p.Preview.MessageSHA256)
	field("Client", fmt.Sprintf("%s · %s · proposed %s ago", e.client, p.Tool, age(c.now.Sub(p.CreatedAt))))
	return d.finish(s, lines)
}

func (d *detail) status(s styles, e *entry, c detailContext, add func(...string), field func(string, string)) {
	p := e.p
	reason := untrusted.Sanitize(p.Reason, 400)
	by := untrusted.Sanitize(p.DecidedBy, 40)
	switch p.Status {
	case hub.StatusPending:
		field("Status", fmt.Sprintf("PENDING — nothing has been signed or sent; expires in %s", countdown(p.ExpiresAt.Sub(c.now))))
	case hub.StatusApproved:
		field("Status", fmt.Sprintf("APPROVED by %s — waiting for the agent's confirmed call; token expires in %s", by, countdown(p.TokenExpires.Sub(c.now))))
		if c.delivery == policy.DeliveryOperator && p.Token != "" {
			add(s.label.Render("Token for the agent — paste it into the chat:"))
			add(s.token.Render(p.Token))
		}
	case hub.StatusDenied:
		add(wrapStyled(s.danger, fmt.Sprintf("DENIED by %s: %s", by, reason), d.width)...)
	case hub.StatusExpired:
		add(wrapStyled(s.danger, "EXPIRED: "+reason, d.width)...)
	case hub.StatusExecuting, hub.StatusSubmitted:
		st := "EXECUTING"
		if p.Status == hub.StatusSubmitted {
			st = "SUBMITTED, outcome not yet known"
		}
		if c.progress != nil {
			st += " — " + string(c.progress.Step)
			if c.progress.Attempt > 0 {
				st += fmt.Sprintf(" (attempt %d)", c.progress.Attempt)
			}
		}
		field("Status", st)
		if p.Signature != "" {
			field("Signature", p.Signature)
		}
		if reason != "" {
			field("", reason)
		}
	case hub.StatusExecuted:
		if r := p.Result; r != nil {
			add(s.ok.Render(fmt.Sprintf("EXECUTED ✔ verified on chain · slot %d · fee %s", r.Slot, lamports(r.Fee))))
		} else {
			add(s.ok.Render("EXECUTED ✔ verified on chain"))
		}
		field("Signature", p.Signature)
	case hub.StatusFailed:
		add(wrapStyled(s.danger, "FAILED — not executed: "+reason, d.width)...)
		if p.Signature != "" {
			field("Signature", p.Signature)
		}
	}
}

// Scroll moves the pane by delta lines; Render clamps.
func (d *detail) Scroll(delta int) { d.offset = max(d.offset+delta, 0) }

func (d *detail) finish(s styles, lines []string) []string {
	if d.height <= 0 {
		return nil
	}
	if d.offset > 0 {
		off := min(d.offset, max(len(lines)-d.height, 0))
		if off > 0 {
			lines = append([]string{s.dim.Render(fmt.Sprintf("↑ %d line(s) above (ctrl+u)", off+1))}, lines[off+1:]...)
		}
	}
	if len(lines) > d.height {
		hidden := len(lines) - d.height + 1
		lines = append(lines[:d.height-1:d.height-1], s.dim.Render(fmt.Sprintf("↓ %d more line(s): ctrl+d scrolls, or enlarge the terminal", hidden)))
	}
	for i := range lines {
		lines[i] = fit(lines[i], d.width)
	}
	for len(lines) < d.height {
		lines = append(lines, "")
	}
	return lines
}

func wrapStyled(st interface{ Render(...string) string }, text string, width int) []string {
	ws := wrap(text, width)
	for i := range ws {
		ws[i] = st.Render(ws[i])
	}
	return ws
}

func flagged(flags []string, addr string) bool {
	for _, f := range flags {
		if strings.Contains(f, addr) {
			return true
		}
	}
	return false
}
