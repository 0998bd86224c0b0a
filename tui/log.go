package tui

import (
	"strings"
	"time"

	"github.com/solgate/solgate/mcpbridge/untrusted"
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
// refusals. A ring buffer; Render shows the newest lines that fit.
type eventLog struct {
	lines    []logLine
	start    int // index of the oldest line once the ring is full
	width    int
	height   int
	perEntry int  // screen lines one entry may wrap onto (alerts: no limit)
	fullSigs bool // show signatures in full (wide screens)
	loc      *time.Location
}

// SetSize sets the visible window, how many lines an entry may wrap onto,
// and whether signatures are shown in full. Addresses always are.
func (l *eventLog) SetSize(width, height, perEntry int, fullSigs bool) {
	l.width, l.height, l.perEntry, l.fullSigs = width, height, max(perEntry, 1), fullSigs
}

// Add appends a line. text may contain untrusted parts; it is sanitised here
// as a whole, so no caller can forget to.
func (l *eventLog) Add(at time.Time, kind logKind, text string) {
	line := logLine{at: at, kind: kind, text: untrusted.Sanitize(text, 600)}
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

// Render draws the newest entries, oldest of them first, exactly height
// lines. Entries wrap onto at most perEntry lines, except alerts, which are
// never cut short. On narrow screens signatures are abbreviated so the
// reason stays in view; addresses never are, since an abbreviated address
// cannot be told from its look-alike.
func (l *eventLog) Render(s styles) []string {
	var rows [][]string // newest first
	used := 0
	for i := len(l.lines) - 1; i >= 0 && used < l.height; i-- {
		ln := l.at(i)
		text := ln.text
		if !l.fullSigs {
			text = shortenSignatures(text)
		}
		wrapped := wrap(ln.at.In(l.loc).Format("15:04:05")+"  "+text, l.width-2)
		if ln.kind != logAlert && len(wrapped) > l.perEntry {
			wrapped = wrapped[:l.perEntry]
			wrapped[l.perEntry-1] += "…"
		}
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
		if used+len(wrapped) > l.height {
			wrapped = wrapped[:l.height-used]
		}
		rows = append(rows, wrapped)
		used += len(wrapped)
	}
	out := make([]string, 0, l.height)
	for i := len(rows) - 1; i >= 0; i-- {
		out = append(out, rows[i]...)
	}
	for len(out) < l.height {
		out = append(out, "")
	}
	return out
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
