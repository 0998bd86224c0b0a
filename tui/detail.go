package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/viewport"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
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
	now     time.Time
	wallet  string
	known   []string // addresses the operator knows: wallet, allowlist
	mainnet bool
	// mainnetLine is the loud warning shown when mainnet is set.
	mainnetLine string
	delivery    string
	progress    *executor.Progress
}

// SetSize sets the pane's size.
func (d *detail) SetSize(width, height int) { d.width, d.height = width, height }

const labelW = 10

// Render draws the pane, exactly height lines; what does not fit is cut
// with a note saying so.
func (d *detail) Render(s styles, e *entry, c detailContext) []string {
	var lines []string
	add := func(l ...string) { lines = append(lines, l...) }
	styledField := func(label, value string, st func(string) string) {
		first := true
		for _, w := range wrap(value, max(d.width-labelW, 10)) {
			if first {
				add(s.label.Render(pad(label, labelW)) + st(w))
				first = false
			} else {
				add(strings.Repeat(" ", labelW) + st(w))
			}
		}
	}
	field := func(label, value string) { styledField(label, value, func(w string) string { return w }) }
	warnField := func(label, value string) {
		styledField(label, value, func(w string) string { return s.warn.Render(w) })
	}
	if e == nil {
		add(wrapStyled(s.dim, "Nothing selected. Proposals appear here as agents make them; a write only happens after you approve it and the agent confirms.", d.width)...)
		return d.finish(s, lines)
	}
	p := e.p

	// Warnings first: they must be seen before the numbers. Addresses in
	// them are never abbreviated: a look-alike shares exactly the characters
	// an abbreviation keeps.
	for _, l := range e.lines {
		if l.Role == approval.LineBanner {
			add(wrapBanner(s.nocap, bannerText(s, l.Value), d.width)...)
		}
	}
	// Whatever the kind, a recipient that looks like a known address is
	// flagged here too, from the console's own list.
	to := p.Recipient
	for _, f := range e.flags {
		add(wrapStyled(s.warn, "⚠ "+f, d.width)...)
	}
	if to != "" {
		for _, k := range c.known {
			if untrusted.LooksLike(k, to) && !flagged(e.flags, k) {
				add(wrapStyled(s.warn, fmt.Sprintf("⚠ recipient %s looks like known address %s (possible address poisoning)", to, k), d.width)...)
			}
		}
	}
	if len(e.clientNote) > 0 {
		add(wrapStyled(s.warn, fmt.Sprintf("⚠ the client's name contains instruction-like text (%s): treat it as data, not advice", strings.Join(e.clientNote, ", ")), d.width)...)
	}
	if c.mainnet {
		add(s.mainnet.Render(pad(c.mainnetLine, d.width)))
	}

	d.status(s, e, c, add, field)
	if !p.HasTerms {
		field("Action", untrusted.Sanitize(p.Tool, 32)+" — the console received it without its terms, so it cannot show what it does: deny it")
	}
	// Every kind through its own lines: the kind says what a line is, the
	// console how it looks.
	inInstructions := false
	for _, l := range e.lines {
		switch {
		case l.Role == approval.LineBanner:
		case l.Role == approval.LineInstruction:
			label := ""
			if !inInstructions {
				label = "Program"
			}
			summary := l.Value
			if d.width < 100 {
				// The wallet's own address is in the header; every other
				// address, the recipient's above all, stays whole and wraps.
				summary = shortenWord(summary, c.wallet)
			}
			field(label, l.Label+": "+summary)
		case l.Warn && l.Label == "":
			for _, w := range wrap("⚠ "+l.Value, max(d.width-labelW, 10)) {
				add(strings.Repeat(" ", labelW) + s.warn.Render(w))
			}
		case l.Warn:
			warnField(l.Label, l.Value)
		default:
			field(l.Label, l.Value)
		}
		inInstructions = l.Role == approval.LineInstruction
	}
	if eff := p.Preview.Effects; !eff.Wallet.IsZero() {
		// The one measure of value, per asset, from the exact bytes.
		field("Effects", eff.Summary())
	}
	// The user is the kernel's word; the name is whatever the agent chose
	// to call itself.
	if p.User != "" {
		field("User", untrusted.Sanitize(p.User, 48)+" (from the kernel)")
	}
	if p.Agent != "" {
		field("Agent", untrusted.Sanitize(p.Agent, 32)+" (its own budget, from your config)")
	}
	field("Client", fmt.Sprintf("%q (self-described) · %s · proposed %s ago", e.client, untrusted.Sanitize(p.Tool, 32), age(c.now.Sub(p.CreatedAt))))
	return d.finish(s, lines)
}

// bannerText marks a banner for a terminal without colour: "[!! NO CAP
// APPLIES !!] — the input is …".
func bannerText(s styles, text string) string {
	if !s.noColor {
		return text
	}
	if i := strings.Index(text, " — "); i > 0 {
		return "[!! " + text[:i] + " !!]" + text[i:]
	}
	return "[!! " + text + " !!]"
}

func (d *detail) status(s styles, e *entry, c detailContext, add func(...string), field func(string, string)) {
	p := e.p
	reason := untrusted.Sanitize(p.Reason, 400)
	by := untrusted.Sanitize(p.DecidedBy, 40)
	switch p.Status {
	case approval.StatusPending:
		field("Status", fmt.Sprintf("PENDING — nothing has been signed or sent; expires in %s", countdown(p.ExpiresAt.Sub(c.now))))
		if p.GrantMiss != "" {
			add(wrapStyled(s.warn, "Waits for you: "+untrusted.Sanitize(p.GrantMiss, 300), d.width)...)
		}
	case approval.StatusApproved:
		field("Status", fmt.Sprintf("APPROVED by %s — waiting for the agent's confirmed call; token expires in %s", by, countdown(p.TokenExpires.Sub(c.now))))
		if c.delivery == policy.DeliveryOperator && p.Token != "" {
			add(s.label.Render("Token for the agent — paste it into the chat:"))
			add(s.token.Render(p.Token))
		}
	case approval.StatusDenied:
		add(wrapStyled(s.danger, fmt.Sprintf("DENIED by %s: %s", by, reason), d.width)...)
	case approval.StatusExpired:
		add(wrapStyled(s.danger, "EXPIRED: "+reason, d.width)...)
	case approval.StatusExecuting, approval.StatusSubmitted:
		st := "EXECUTING"
		if p.Status == approval.StatusSubmitted {
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
	case approval.StatusExecuted:
		if r := p.Result; r != nil {
			add(s.ok.Render(fmt.Sprintf("EXECUTED ✔ verified on chain · slot %d · fee %s", r.Slot, lamports(r.Fee))))
		} else {
			add(s.ok.Render("EXECUTED ✔ verified on chain"))
		}
		field("Signature", p.Signature)
	case approval.StatusLosses:
		add(wrapStyled(s.danger, "EXECUTED WITH UNEXPECTED EFFECTS — it landed, and its effects, measured from the landed transaction, differ from the approved ones: "+reason, d.width)...)
		field("Signature", p.Signature)
	case approval.StatusFailed:
		add(wrapStyled(s.danger, "FAILED — not executed: "+reason, d.width)...)
		if p.Signature != "" {
			field("Signature", p.Signature)
		}
	}
}

// Scroll moves the pane by delta lines; Render clamps.
func (d *detail) Scroll(delta int) { d.offset = max(d.offset+delta, 0) }

// finish cuts the rendered lines to the pane. The pane's text is rebuilt
// every frame (countdowns, execution progress), so a viewport is made here
// from it rather than kept with stale content; it clamps the offset and
// says how much lies below. The first and last visible rows then give way to
// the "above" and "more" markers, so every hidden line is counted.
func (d *detail) finish(s styles, lines []string) []string {
	if d.height <= 0 {
		return nil
	}
	for i := range lines {
		lines[i] = fit(lines[i], d.width)
	}
	vp := viewport.New(d.width, d.height)
	vp.SetContent(strings.Join(lines, "\n"))
	vp.SetYOffset(d.offset)
	// The visible slice, taken by offset rather than from vp.View(), which
	// pads every row with spaces to the width: same screen, noisier bytes.
	out := append([]string(nil), lines[vp.YOffset:min(vp.YOffset+vp.Height, len(lines))]...)
	for len(out) < d.height {
		out = append(out, "")
	}
	if vp.YOffset > 0 {
		out[0] = s.dim.Render(fmt.Sprintf("↑ %d line(s) above (ctrl+u)", vp.YOffset+1))
	}
	if below := vp.TotalLineCount() - vp.YOffset - vp.Height; below > 0 {
		out[len(out)-1] = s.dim.Render(fmt.Sprintf("↓ %d more line(s): ctrl+d scrolls, or enlarge the terminal", below+1))
	}
	for i := range out {
		out[i] = fit(out[i], d.width)
	}
	return out
}

// wrapBanner wraps text into full-width bars of one style.
func wrapBanner(st interface{ Render(...string) string }, text string, width int) []string {
	ws := wrap(text, width)
	for i := range ws {
		ws[i] = st.Render(pad(ws[i], width))
	}
	return ws
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
