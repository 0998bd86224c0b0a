package approval

import (
	"time"

	"github.com/solgate/solgate/executor"
)

// EventKind says what changed in the authority.
type EventKind string

const (
	EventProposalAdded     EventKind = "proposal_added"
	EventProposalDecided   EventKind = "proposal_decided" // approved or denied by the operator
	EventProposalExpired   EventKind = "proposal_expired"
	EventExecuting         EventKind = "executing" // progress; may be dropped
	EventExecuted          EventKind = "executed"  // final outcome of an execution, whatever it was
	EventAutoDenied        EventKind = "auto_denied"
	EventRefused           EventKind = "refused" // a bad or reused token
	EventSpendChanged      EventKind = "spend_changed"
	EventPaused            EventKind = "paused"
	EventTokensRevoked     EventKind = "tokens_revoked"
	EventNote              EventKind = "note"               // a line for the console log, e.g. the demo agent's narration
	EventAgentConnected    EventKind = "agent_connected"    // a bridge announced itself (Event.Client)
	EventAgentDisconnected EventKind = "agent_disconnected" // its last bridge went away
	EventWarning           EventKind = "warning"            // a persistent warning was raised (Service.Warnings); Message has its detail
	EventGrantsChanged     EventKind = "grants_changed"     // a grant was made, used or ended, or did not apply (Message says which)
)

// Droppable events are progress reports: a slow subscriber loses them
// rather than stalling an execution.
func (k EventKind) Droppable() bool { return k == EventExecuting }

// Event is one published change. Proposal is a snapshot, safe to keep.
type Event struct {
	Kind     EventKind
	At       time.Time
	Proposal *Proposal
	Progress *executor.Progress
	Client   string
	Message  string // for auto-denials and refusals: the reason shown in the log
	// Warnings accompany an auto-denial, e.g. a recipient that looks like a
	// known address; each deserves a line of its own, never cut short.
	Warnings []string
}
