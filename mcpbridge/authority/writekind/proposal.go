package writekind

import (
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// Proposal is one write the agent asked for, as the kinds' lines and the
// console read it. The core keeps its own bookkeeping beside it (its
// record, waiters, the grant's claim); Hub methods hand out copies.
type Proposal struct {
	ID     string
	Seq    int64
	Tool   string
	Client string // the name the agent gave (sanitised display text, never a key)
	Peer   string // who proposed, as the kernel knows it: what limits key on
	// User is the user that proposed, by the kernel's word ("alice (uid
	// 1001)"), shown beside the self-described Client; "" for a call made
	// inside the console's own process.
	User string
	// Agent is the label of the proposing user's [[agent]] section (the
	// operator's word, from the config file); "" without one.
	Agent       string
	Fingerprint string
	// Kind is what the proposal spends and how, as its registered write
	// kind drafted and prepared it.
	Kind Kind
	// Preview is computed from the transaction bytes and its simulation.
	Preview executor.Preview
	// Spend is the simulated outflow the caps are measured against.
	Spend uint64
	Flags []approval.Flag

	CreatedAt time.Time
	ExpiresAt time.Time // undecided proposals expire at this time

	Status    approval.Status
	DecidedAt time.Time
	DecidedBy string
	Reason    string // denial, expiry or failure reason

	// Token is set once approved. It is handed to the agent only with
	// token delivery "agent"; with "operator" only the console shows it.
	Token        string
	TokenExpires time.Time

	// Grant is the standing grant that approved it (0: none). GrantMiss
	// says why the agent's grants did not cover it, when it has some.
	Grant     int
	GrantMiss string

	Signature string
	Result    *executor.Result
}

// Clone copies p for a snapshot: its flags and kind are its own.
func (p *Proposal) Clone() *Proposal {
	c := *p
	c.Flags = append([]approval.Flag(nil), p.Flags...)
	if p.Kind != nil {
		c.Kind = p.Kind.Clone()
	}
	return &c
}
