package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
)

// maxDecided bounds the greyed "recently decided" part of the queue.
const maxDecided = 100

// entry is one proposal as the console shows it. Everything derived from
// untrusted input is sanitised once, here, when the snapshot arrives, so
// View never touches raw client text and stays cheap with thousands of rows.
type entry struct {
	p          *approval.Proposal
	client     string   // sanitised client name
	who        string   // the kernel's user, then the client name: "alice (uid 1001) · claude"
	clientNote []string // instruction-like phrases found in the client name
	amount     string
	flags      []string              // sanitised warnings for the detail pane, in full
	short      string                // compact flags for the queue row
	lines      []approval.DetailLine // the kind's own lines, sanitised
}

func newEntry(p *approval.Proposal) *entry {
	e := &entry{
		p:          p,
		client:     untrusted.Sanitize(p.Client, 48),
		clientNote: untrusted.Flags(p.Client),
	}
	// The kernel's word comes first: two users' bridges may call
	// themselves alike, and a cut row keeps its start.
	e.who = e.client
	if p.User != "" {
		e.who = untrusted.Sanitize(p.User, 48) + " · " + e.client
	}
	if p.Agent != "" {
		// The operator's own label for the uid, from the config file.
		e.who = untrusted.Sanitize(p.Agent, 32) + " · " + e.who
	}
	var short []string
	banner, under := false, map[string]bool{}
	if !p.HasTerms {
		e.amount = untrusted.Sanitize(p.Tool, 16) + ", no terms"
		e.flags = append(e.flags, "the console received this proposal without its terms: deny it")
		short = appendNew(short, "no terms")
	} else {
		// Every kind draws itself through its own lines (approval.Kind).
		e.amount = untrusted.Sanitize(p.Amount, 40)
		for _, l := range p.Lines {
			l.Label, l.Value = untrusted.Sanitize(l.Label, 60), untrusted.Sanitize(l.Value, 400)
			banner = banner || l.Role == approval.LineBanner
			if l.Warn && l.Label == "" {
				under[l.Value] = true
			}
			e.lines = append(e.lines, l)
		}
	}
	for _, f := range p.Flags {
		f.Text = untrusted.Sanitize(f.Text, 300)
		short = appendNew(short, shortFlag(f))
		switch {
		case f.Kind == approval.FlagNoCap && banner: // the banner says it first
		case under[f.Text]: // shown under the line it is about
		default:
			e.flags = appendNew(e.flags, f.Text)
		}
	}
	if len(e.clientNote) > 0 {
		short = appendNew(short, "text!")
	}
	// The flags that change what approving means go first: the row is cut
	// at the window's edge.
	slices.SortStableFunc(short, func(a, b string) int { return flagRank(a) - flagRank(b) })
	e.short = strings.Join(short, ",")
	return e
}

// action is the proposal in words, for the log and the mainnet prompt.
// Recipients are written in full: a look-alike shares exactly the
// characters an abbreviation keeps.
func (e *entry) action() string {
	if !e.p.HasTerms {
		return untrusted.Sanitize(e.p.Tool, 32) + " (terms missing)"
	}
	return untrusted.Sanitize(e.p.Action, 300)
}

// shortLabels name a hub flag in a few characters for the queue row, by
// kind; the detail pane shows the whole sentence.
var shortLabels = map[approval.FlagKind]string{
	approval.FlagLookAlike:                            "LOOK-ALIKE",
	approval.FlagNoCap:                                "NO CAP",
	approval.FlagInstructionLike:                      "text!",
	approval.FlagNearTxCap:                            "near tx cap",
	approval.FlagNearSessionCap:                       "near session cap",
	approval.FlagKind(executor.WarnCloseAuthority):    "close auth",
	approval.FlagKind(executor.WarnMintAuthority):     "mint auth",
	approval.FlagKind(executor.WarnFreezeAuthority):   "freeze auth",
	approval.FlagKind(executor.WarnPermanentDelegate): "perm delegate",
	approval.FlagKind(executor.WarnTransferHook):      "xfer hook",
	approval.FlagKind(executor.WarnTransferFee):       "xfer fee",
	approval.FlagKind(executor.WarnDefaultFrozen):     "frozen accts",
	approval.FlagKind(executor.WarnNonTransferable):   "non-transferable",
	approval.FlagKind(executor.WarnConfidential):      "confidential",
	approval.FlagKind(executor.WarnPausable):          "pausable",
	approval.FlagKind(executor.WarnImpostor):          "IMPOSTOR",
}

// shortFlag is a flag's queue-row label; a kind this console does not know
// shows the start of its sentence rather than nothing.
func shortFlag(f approval.Flag) string {
	if f.Short != "" {
		return untrusted.Sanitize(f.Short, 16)
	}
	if l, ok := shortLabels[f.Kind]; ok {
		return l
	}
	return untrusted.Sanitize(f.Text, 14)
}

// flagRank orders the queue row's compact flags.
func flagRank(f string) int {
	switch {
	case f == "LOOK-ALIKE", f == "NO CAP", f == "IMPOSTOR", strings.HasPrefix(f, "not "), f == "no terms":
		return 0
	case f == "text!":
		return 1
	}
	return 2
}

// statusRank orders statuses so that an older snapshot never overwrites a
// newer one (the initial snapshot and the event stream overlap).
func statusRank(s approval.Status) int {
	switch s {
	case approval.StatusPending:
		return 0
	case approval.StatusApproved:
		return 1
	case approval.StatusExecuting:
		return 2
	case approval.StatusSubmitted:
		return 3
	}
	return 4 // final
}

// queue is the list of proposals: pending ones oldest first, then recently
// decided ones newest first. It holds the selection (by id, so it survives
// inserts) and the scroll offset; Render draws only the visible window.
type queue struct {
	byID     map[string]*entry
	pending  []*entry // ascending Seq
	decided  []*entry // most recently decided first, at most maxDecided
	selected string
	offset   int
	height   int // rows visible
	width    int
}

func newQueue() queue { return queue{byID: map[string]*entry{}} }

// SetSize sets the visible window.
func (q *queue) SetSize(width, height int) {
	q.width, q.height = width, max(height, 1)
	q.ensureVisible()
}

func (q *queue) Len() int { return len(q.pending) + len(q.decided) }

// At returns the i-th row.
func (q *queue) At(i int) *entry {
	if i < len(q.pending) {
		return q.pending[i]
	}
	return q.decided[i-len(q.pending)]
}

// Selected returns the selected entry, or nil.
func (q *queue) Selected() *entry { return q.byID[q.selected] }

// index is the row of id, or -1.
func (q *queue) index(id string) int {
	e, ok := q.byID[id]
	if !ok {
		return -1
	}
	if e.p.Status == approval.StatusPending {
		i := sort.Search(len(q.pending), func(i int) bool { return q.pending[i].p.Seq >= e.p.Seq })
		if i < len(q.pending) && q.pending[i] == e {
			return i
		}
	}
	for i, d := range q.decided {
		if d == e {
			return len(q.pending) + i
		}
	}
	for i, p := range q.pending { // not found where expected: be robust
		if p == e {
			return i
		}
	}
	return -1
}

// Select moves the selection to row i (clamped).
func (q *queue) Select(i int) {
	if q.Len() == 0 {
		q.selected, q.offset = "", 0
		return
	}
	i = min(max(i, 0), q.Len()-1)
	q.selected = q.At(i).p.ID
	q.ensureVisible()
}

// Move moves the selection by delta rows.
func (q *queue) Move(delta int) {
	i := q.index(q.selected)
	if i < 0 {
		i = 0
	} else {
		i += delta
	}
	q.Select(i)
}

// SelectOldestPending selects the oldest pending proposal, if any.
func (q *queue) SelectOldestPending() bool {
	if len(q.pending) == 0 {
		return false
	}
	q.Select(0)
	return true
}

func (q *queue) ensureVisible() {
	i := q.index(q.selected)
	if i < 0 {
		q.offset = min(q.offset, max(q.Len()-q.height, 0))
		return
	}
	if i < q.offset {
		q.offset = i
	}
	if i >= q.offset+q.height {
		q.offset = i - q.height + 1
	}
	q.offset = max(min(q.offset, q.Len()-q.height), 0)
}

// Upsert takes a proposal snapshot. It reports whether the proposal is new
// and whether this snapshot took it out of the pending state.
func (q *queue) Upsert(p *approval.Proposal) (added, decided bool) {
	old, ok := q.byID[p.ID]
	if ok && statusRank(p.Status) < statusRank(old.p.Status) {
		return false, false // stale snapshot
	}
	e := newEntry(p)
	q.byID[p.ID] = e
	wasPending := ok && old.p.Status == approval.StatusPending
	switch {
	case p.Status == approval.StatusPending && ok:
		q.replace(q.pending, old, e)
	case p.Status == approval.StatusPending:
		q.insertPending(e)
	case wasPending:
		q.removePending(old)
		q.pushDecided(e)
	case ok:
		if !q.replace(q.decided, old, e) {
			q.pushDecided(e)
		}
	default:
		q.pushDecided(e)
	}
	if q.selected == "" {
		q.selected = p.ID
	}
	q.ensureVisible()
	return !ok, wasPending && p.Status != approval.StatusPending
}

func (q *queue) replace(list []*entry, old, e *entry) bool {
	for i := range list {
		if list[i] == old {
			list[i] = e
			return true
		}
	}
	return false
}

func (q *queue) insertPending(e *entry) {
	n := len(q.pending)
	if n == 0 || q.pending[n-1].p.Seq < e.p.Seq {
		q.pending = append(q.pending, e)
		return
	}
	i := sort.Search(n, func(i int) bool { return q.pending[i].p.Seq >= e.p.Seq })
	q.pending = append(q.pending, nil)
	copy(q.pending[i+1:], q.pending[i:])
	q.pending[i] = e
}

func (q *queue) removePending(e *entry) {
	i := sort.Search(len(q.pending), func(i int) bool { return q.pending[i].p.Seq >= e.p.Seq })
	if i < len(q.pending) && q.pending[i] == e {
		q.pending = append(q.pending[:i], q.pending[i+1:]...)
		return
	}
	for i := range q.pending {
		if q.pending[i] == e {
			q.pending = append(q.pending[:i], q.pending[i+1:]...)
			return
		}
	}
}

func (q *queue) pushDecided(e *entry) {
	q.decided = append(q.decided, nil)
	copy(q.decided[1:], q.decided)
	q.decided[0] = e
	if len(q.decided) > maxDecided {
		drop := q.decided[maxDecided]
		q.decided = q.decided[:maxDecided]
		if drop.p.ID != q.selected {
			delete(q.byID, drop.p.ID)
		}
	}
}

// hasCountdown reports whether anything visible counts down: a pending
// proposal's expiry, or an approved proposal's token lifetime.
func (q *queue) hasCountdown() bool {
	if len(q.pending) > 0 {
		return true
	}
	for _, e := range q.decided {
		if e.p.Status == approval.StatusApproved {
			return true
		}
	}
	return false
}

// Column widths of a queue row.
const (
	colMark   = 2
	colID     = 12
	colAmount = 14
	colAge    = 6
	colExp    = 9
)

// Render draws the visible rows, exactly height lines.
func (q *queue) Render(s styles, now time.Time) []string {
	lines := make([]string, 0, q.height)
	if q.Len() == 0 {
		lines = append(lines, s.dim.Render("  no proposals — waiting for an agent to propose a write"))
	}
	clientW := q.clientWidth()
	for i := q.offset; i < q.Len() && len(lines) < q.height; i++ {
		e := q.At(i)
		p := e.p
		mark := "  "
		if p.ID == q.selected {
			mark = "› "
		}
		var when, tail string
		if p.Status == approval.StatusPending {
			when = countdown(p.ExpiresAt.Sub(now))
			tail = e.short
		} else {
			when = statusWord(p.Status)
			tail = e.short
		}
		row := mark + pad(p.ID, colID) + " " + pad(e.who, clientW) + " " + padLeft(e.amount, colAmount) + " " +
			padLeft(age(now.Sub(p.CreatedAt)), colAge) + " " + pad(when, colExp)
		if tail != "" {
			row += " ⚠ " + tail
		}
		row = pad(row, q.width)
		switch {
		case p.ID == q.selected:
			row = s.selected.Render(row)
		case p.Status == approval.StatusLosses:
			row = s.danger.Render(row)
		case p.Status != approval.StatusPending:
			row = s.dim.Render(row)
		case tail != "":
			row = s.warn.Render(row)
		}
		lines = append(lines, row)
	}
	for len(lines) < q.height {
		lines = append(lines, "")
	}
	return lines
}

// clientWidth leaves room for the fixed columns and about 14 cells of flags.
func (q *queue) clientWidth() int {
	const fixed = colMark + colID + colAmount + colAge + colExp + 4
	return min(max(q.width-fixed-1-14, 8), 22)
}

// header is the column header line for the queue.
func (q *queue) header() string {
	clientW := q.clientWidth()
	return fit("  "+pad("id", colID)+" "+pad("client", clientW)+" "+padLeft("amount", colAmount)+" "+
		padLeft("age", colAge)+" "+pad("expires", colExp)+" flags", q.width)
}

func statusWord(s approval.Status) string {
	switch s {
	case approval.StatusExecuted:
		return "executed"
	case approval.StatusLosses:
		return "MISMATCH" // executed with unexpected effects; fits the column
	case approval.StatusApproved:
		return "approved"
	}
	return string(s)
}

// title is the queue's section title.
func (q *queue) title() string {
	t := fmt.Sprintf("QUEUE  %d pending", len(q.pending))
	if len(q.decided) > 0 {
		t += fmt.Sprintf(" · %d recent", len(q.decided))
	}
	if q.Len() > q.height {
		if i := q.index(q.selected); i >= 0 {
			t += fmt.Sprintf(" · %d/%d", i+1, q.Len())
		}
	}
	return t
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
