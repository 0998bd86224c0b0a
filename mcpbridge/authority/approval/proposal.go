package approval

import (
	"time"

	"github.com/solgate/solgate/executor"
)

// Status is where a proposal is in its life.
type Status string

const (
	StatusPending   Status = "pending"   // waiting for the human
	StatusApproved  Status = "approved"  // token issued, waiting for the agent's confirmed call
	StatusDenied    Status = "denied"    // by the human (or the console closing)
	StatusExpired   Status = "expired"   // undecided too long, or the token lapsed unused
	StatusExecuting Status = "executing" // confirmed call in progress
	StatusSubmitted Status = "submitted" // sent; outcome not yet known (unknown until reconciled)
	StatusExecuted  Status = "executed"  // confirmed and verified on chain
	StatusFailed    Status = "failed"    // landed with an error, expired, rejected or refused at execution
	// StatusLosses: landed, but its landed effects differ from the approved
	// ones ("executed with unexpected effects"). Never reported as plain
	// "executed". The stored name predates the effects engine.
	StatusLosses Status = "executed_with_unexpected_losses"
)

// Final reports whether nothing more can happen to a proposal.
func (s Status) Final() bool {
	switch s {
	case StatusDenied, StatusExpired, StatusExecuted, StatusFailed, StatusLosses:
		return true
	}
	return false
}

// Proposal is one write the agent asked for, as the console sees it: a
// snapshot, with the kind's own words already drawn (the console never
// calls into a kind).
type Proposal struct {
	ID     string
	Seq    int64
	Tool   string
	Client string // the name the agent gave (sanitised display text, never a key)
	// Owner is the user the proposal's limits count against ("uid 1001").
	Owner string
	// User is the proposing user by the kernel's word ("alice (uid
	// 1001)"); "" for a call made inside the console's own process.
	User string
	// Agent is the label of the proposing user's [[agent]] section; "" without one.
	Agent       string
	Fingerprint string

	// HasTerms is false when the proposal arrived without its kind (a
	// stored row of a tool this console does not know): nothing below
	// describes it, and the console says to deny it.
	HasTerms bool
	// Action is one line for logs and prompts, recipients in full.
	Action string
	// Amount is the queue row's amount column ("1.5 USDC").
	Amount string
	// Recipient is the counterparty address the console checks against
	// look-alikes of the addresses it knows; "" when the kind has none.
	Recipient string
	// Lines are the kind's lines for the detail pane, payees included.
	Lines []DetailLine
	// Grantable: a standing grant could cover this tool.
	Grantable bool

	Preview executor.Preview
	Spend   uint64 // the simulated outflow the caps are measured against
	Flags   []Flag

	CreatedAt time.Time
	ExpiresAt time.Time

	Status    Status
	DecidedAt time.Time
	DecidedBy string
	Reason    string

	Token        string
	TokenExpires time.Time

	Grant     int    // the grant that approved it (0: none)
	GrantMiss string // why the agent's grants did not cover it

	Signature string
	Result    *executor.Result
}

// Flag is a warning on a proposal: Kind is stable, so the console can label
// it without reading the sentence; Text is what people and the model read.
type Flag struct {
	Kind FlagKind
	Text string
	// Short, when set, is the flag's tag in the console's queue row ("not
	// USDC"); otherwise the console tags it by Kind.
	Short string
}

// FlagKind names what a flag warns about. A token's own risky properties
// use the executor's warning kinds (executor.WarnMintAuthority, ...).
type FlagKind string

const (
	FlagLookAlike       FlagKind = "look_alike"       // possible address poisoning
	FlagNearTxCap       FlagKind = "near_tx_cap"      // at least 80 % of the per-transfer cap
	FlagNearSessionCap  FlagKind = "near_session_cap" // the session would be at least 80 % used
	FlagInstructionLike FlagKind = "instruction_like" // a token's metadata tries to instruct
	FlagNoCap           FlagKind = "no_cap"           // the SOL caps do not bound this swap
)

// LineRole is what a detail line is, for the console to place and style it.
type LineRole int

const (
	// LineField is a labelled line of the terms ("Action", "Recipient").
	// With Warn and no Label it is a warning about the field above it.
	LineField LineRole = iota
	// LineBanner is drawn first, across the pane: approving it means
	// something the numbers alone do not say (no cap applies).
	LineBanner
	// LineInstruction is one decoded instruction: Label is the program's
	// name, Value the summary. The console may abbreviate its own wallet in
	// it on narrow panes.
	LineInstruction
)

// DetailLine is one line of the console's detail pane. Warn marks a line to
// draw as a warning. Values may hold untrusted text; the console sanitises
// every one.
type DetailLine struct {
	Label, Value string
	Warn         bool
	Role         LineRole
}
