package approval

import (
	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/policy"
)

// Service is everything the console may ask of the authority. Every method
// may do I/O (the audit store), so the console calls them from a tea.Cmd or
// its one forwarding goroutine, never inside Update. Proposals and grants
// are snapshots: changing one changes nothing in the authority.
type Service interface {
	// Who and where: fixed for the service's life.
	Network() executor.Network
	Wallet() string
	Policy() policy.Config

	// List and subscribe. Subscribe before listing so nothing falls
	// between them; progress events are dropped for a subscriber whose
	// buffer is full, every other event waits for it.
	Proposals() []*Proposal
	Proposal(id string) (*Proposal, bool)
	Subscribe(buffer int) (<-chan Event, func())

	// Decide.
	Approve(id, by string) (*Proposal, error)
	Deny(id, by, reason string) (*Proposal, error)
	DenyAllPending(by, reason string) int
	// DenyPendingOf denies every pending proposal of id's user.
	DenyPendingOf(id, by, reason string) ([]*Proposal, error)

	// Grant: approve id and cover more calls like it; end one.
	ApproveWithGrant(id, by string, t GrantTerms) (*Proposal, Grant, error)
	EndGrant(n int, by string) bool
	Grants() []Grant

	// Pause and revoke.
	SetPaused(paused bool)
	Paused() bool
	ResumeClient(client string)
	PausedClients() []string
	RevokeAll(by string) int

	// Spend and the rest of the console's state.
	SpendSummary() SpendSummary
	Connected() []string
	Warnings() []string
}
