package authority

import "github.com/solgate/solgate/mcpbridge/authority/approval"

// The plain values the console shares with the core are defined once, in
// package approval (the console's side); the core names them here.
type (
	Status       = approval.Status
	EventKind    = approval.EventKind
	Flag         = approval.Flag
	FlagKind     = approval.FlagKind
	LineRole     = approval.LineRole
	DetailLine   = approval.DetailLine
	GrantTerms   = approval.GrantTerms
	SpendSummary = approval.SpendSummary
	AgentSpend   = approval.AgentSpend
	TokenSpend   = approval.TokenSpend
)

const (
	StatusPending   = approval.StatusPending
	StatusApproved  = approval.StatusApproved
	StatusDenied    = approval.StatusDenied
	StatusExpired   = approval.StatusExpired
	StatusExecuting = approval.StatusExecuting
	StatusSubmitted = approval.StatusSubmitted
	StatusExecuted  = approval.StatusExecuted
	StatusFailed    = approval.StatusFailed
	StatusLosses    = approval.StatusLosses

	EventProposalAdded     = approval.EventProposalAdded
	EventProposalDecided   = approval.EventProposalDecided
	EventProposalExpired   = approval.EventProposalExpired
	EventExecuting         = approval.EventExecuting
	EventExecuted          = approval.EventExecuted
	EventAutoDenied        = approval.EventAutoDenied
	EventRefused           = approval.EventRefused
	EventSpendChanged      = approval.EventSpendChanged
	EventPaused            = approval.EventPaused
	EventTokensRevoked     = approval.EventTokensRevoked
	EventNote              = approval.EventNote
	EventAgentConnected    = approval.EventAgentConnected
	EventAgentDisconnected = approval.EventAgentDisconnected
	EventWarning           = approval.EventWarning
	EventGrantsChanged     = approval.EventGrantsChanged

	FlagLookAlike       = approval.FlagLookAlike
	FlagNearTxCap       = approval.FlagNearTxCap
	FlagNearSessionCap  = approval.FlagNearSessionCap
	FlagInstructionLike = approval.FlagInstructionLike
	FlagNoCap           = approval.FlagNoCap

	LineField       = approval.LineField
	LineBanner      = approval.LineBanner
	LineInstruction = approval.LineInstruction

	DefaultGrantCount = approval.DefaultGrantCount
	DefaultGrantFor   = approval.DefaultGrantFor
	MaxGrantCount     = approval.MaxGrantCount
	MaxGrantFor       = approval.MaxGrantFor
)
