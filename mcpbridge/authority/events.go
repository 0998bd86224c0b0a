package authority

import (
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// Event is one published change. Proposal is a snapshot, safe to keep.
type Event struct {
	Kind     approval.EventKind
	At       time.Time
	Proposal *Proposal
	Progress *executor.Progress
	Client   string
	Message  string // for auto-denials and refusals: the reason shown in the log
	// Warnings accompany an auto-denial, e.g. a recipient that looks like a
	// known address; each deserves a line of its own, never cut short.
	Warnings []string
}

// Droppable reports whether the event may be skipped for a subscriber
// whose buffer is full (progress), as package fanout asks.
func (e Event) Droppable() bool { return e.Kind.Droppable() }
