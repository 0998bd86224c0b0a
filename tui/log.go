package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
)

// maxLog bounds the log kept in memory; the audit trail is the record.
const maxLog = 500

type logKind int

const (
	logInfo logKind = iota
	logGood
	logBad
	logWarn
	logAlert // a warning shown whole, never cut short: it names full addresses
	logAgent // an agent's own words (narration): its text, not solgate's
)

type logLine struct {
	at   time.Time
	kind logKind
	text string // sanitised
}

// eventLog is the console's log pane: decisions, executions, auto-denials,
// refusals, the agent's narration. A ring buffer of entries, each wrapped in
// full. It follows the newest entry until the operator scrolls back ([);
// then it stays where they are and counts what arrived since (] goes
// forward, and back to following at the bottom).
type eventLog struct {
	lines    []logLine
	start    int // index of the oldest line once the ring is full
	width    int
	height   int
	fullSigs bool // show signatures in full (wide screens)
	loc      *time.Location
	back     int // screen lines scrolled back from the newest; 0: following
	unseen   int // entries added while scrolled back
}

// SetSize sets the visible window and whether signatures are shown in
// full. Addresses always are.
func (l *eventLog) SetSize(width, height int, fullSigs bool) {
	l.width, l.height, l.fullSigs = width, height, fullSigs
}

// Scroll moves the view by delta screen lines (positive: back, to older
// entries). Reaching the bottom again resumes following.
func (l *eventLog) Scroll(delta int) {
	l.back = min(max(l.back+delta, 0), max(l.total()-l.height, 0))
	if l.back == 0 {
		l.unseen = 0
	}
}

// title is the pane's title: where the view is, and what is new below it.
func (l *eventLog) title() string {
	t := "LOG"
	if l.back > 0 {
		t += "  scrolled back · ] newer"
		if l.unseen > 0 {
			t += fmt.Sprintf(" · %d NEW below", l.unseen)
		}
	} else if len(l.lines) > 0 {
		t += "  [ older"
	}
	return t
}

// Add appends a line. text may contain untrusted parts; it is sanitised here
// as a whole, so no caller can forget to.
func (l *eventLog) Add(at time.Time, kind logKind, text string) {
	line := logLine{at: at, kind: kind, text: untrusted.Sanitize(text, 600)}
	if l.back > 0 {
		l.unseen++
	}
	if len(l.lines) < maxLog {
		l.lines = append(l.lines, line)
		return
	}
	l.lines[l.start] = line
	l.start = (l.start + 1) % maxLog
}

func (l *eventLog) Len() int { return len(l.lines) }

// at returns the i-th line, oldest first.
func (l *eventLog) at(i int) logLine { return l.lines[(l.start+i)%len(l.lines)] }

// Render draws exactly height lines: the newest entries, or, scrolled
// back, the ones above them. Every entry is wrapped in full. On narrow
// screens signatures are abbreviated; addresses never are, since an
// abbreviated address cannot be told from its look-alike.
func (l *eventLog) Render(s styles) []string {
	var rows [][]string // newest first
	used := 0
	for i := len(l.lines) - 1; i >= 0 && used < l.height+l.back; i-- {
		ln := l.at(i)
		text := ln.text
		if !l.fullSigs {
			text = shortenSignatures(text)
		}
		wrapped := wrap(ln.at.In(l.loc).Format("15:04:05")+"  "+text, l.width-2)
		for j := range wrapped {
			if j > 0 {
				wrapped[j] = "  " + wrapped[j]
			}
			wrapped[j] = fit(wrapped[j], l.width)
			switch ln.kind {
			case logGood:
				wrapped[j] = s.ok.Render(wrapped[j])
			case logBad:
				wrapped[j] = s.danger.Render(wrapped[j])
			case logWarn, logAlert:
				wrapped[j] = s.warn.Render(wrapped[j])
			case logAgent:
				wrapped[j] = s.agent.Render(wrapped[j])
			}
		}
		rows = append(rows, wrapped)
		used += len(wrapped)
	}
	all := make([]string, 0, used)
	for i := len(rows) - 1; i >= 0; i-- {
		all = append(all, rows[i]...)
	}
	back := min(l.back, max(len(all)-l.height, 0))
	end := len(all) - back
	out := append([]string(nil), all[max(end-l.height, 0):end]...)
	if back > 0 && len(out) == l.height && l.height > 1 {
		out[len(out)-1] = s.warn.Render(fit(fmt.Sprintf("  ↓ %d line(s) below · ] newer", back), l.width))
	}
	for len(out) < l.height {
		out = append(out, "")
	}
	return out
}

// total is how many screen lines every entry takes, wrapped.
func (l *eventLog) total() int {
	n := 0
	for i := 0; i < len(l.lines); i++ {
		ln := l.at(i)
		text := ln.text
		if !l.fullSigs {
			text = shortenSignatures(text)
		}
		n += len(wrap(ln.at.In(l.loc).Format("15:04:05")+"  "+text, l.width-2))
	}
	return n
}

// shortenSignatures abbreviates base58 words longer than an address
// (signatures) to their first and last four characters. Addresses (32–44
// characters) are left whole.
func shortenSignatures(s string) string {
	words := strings.Split(s, " ")
	changed := false
	for i, w := range words {
		core := strings.TrimRight(w, ".,;:)")
		if len(core) > 44 && isBase58(core) {
			words[i] = short(core) + w[len(core):]
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(words, " ")
}

// shortenWord abbreviates every whole-word occurrence of word in s.
func shortenWord(s, word string) string {
	if word == "" || !strings.Contains(s, word) {
		return s
	}
	words := strings.Split(s, " ")
	for i, w := range words {
		if core := strings.TrimRight(w, ".,;:)"); core == word || core == word+"'s" {
			words[i] = short(word) + w[len(word):]
		}
	}
	return strings.Join(words, " ")
}

func isBase58(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '1' && c <= '9' || c >= 'A' && c <= 'Z' && c != 'I' && c != 'O' || c >= 'a' && c <= 'z' && c != 'l') {
			return false
		}
	}
	return true
}
