package authority

import (
	"crypto/rand"
	"time"

	"github.com/mr-tron/base58"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// Proposal is one write the agent asked for. Hub methods hand out copies;
// the hub's own copy is guarded by the hub's mutex.
type Proposal struct {
	ID     string
	Seq    int64
	Tool   string
	Client string // the name the agent gave (sanitised display text, never a key)
	Peer   string // who proposed, as the kernel knows it (see caller): what limits key on
	// User is the user that proposed, by the kernel's word ("alice (uid
	// 1001)"), shown beside the self-described Client; "" for a call made
	// inside the console's own process.
	User string
	// Agent is the label of the proposing user's [[agent]] section (the
	// operator's word, from the config file); "" without one.
	Agent       string
	Fingerprint string
	// Kind is what the proposal spends and how, as its registered write
	// kind drafted and prepared it (registry.go).
	Kind Kind
	// Preview is computed from the transaction bytes and its simulation.
	Preview executor.Preview
	// Spend is the simulated outflow the caps are measured against.
	Spend uint64
	Flags []Flag

	CreatedAt time.Time
	ExpiresAt time.Time // undecided proposals expire at this time

	Status    Status
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

	// text is previewText as the proposal was recorded with: what it
	// previews never changes once queued, and the answer reuses it.
	text string

	// proc is the process that proposed it, where the kernel vouched for
	// one (host/sender.go): what a grant made on it binds to.
	proc host.ProcessID

	changed  chan struct{} // closed and replaced on every change, for waiters
	deciding bool          // a decision is being recorded (see Hub.decide); still pending
	record   *recording    // its insert in the store (see Hub.enqueue); nil without a store
	// grantClaim is what a grant's ceiling holds for it while its outcome
	// is open (grant.go); grantSettled: the grant has been told the
	// outcome (the claim was kept as landed, or given back).
	grantClaim   uint64
	grantSettled bool
}

func (p *Proposal) snapshot() *Proposal {
	c := *p
	c.Flags = append([]Flag(nil), p.Flags...)
	if p.Kind != nil {
		c.Kind = p.Kind.Clone()
	}
	c.changed = nil
	return &c
}

// newProposalID returns "p_" and 10 base58 characters from crypto/rand: short
// enough to read aloud, unguessable enough that ids carry no authority anyway.
func newProposalID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	id := base58.Encode(b)
	if len(id) > 10 {
		id = id[:10]
	}
	// Always 10: the memo naming the proposal is then always as long, and
	// so are the compute units the approval measured for it.
	for len(id) < 10 {
		id = "1" + id
	}
	return "p_" + id
}
