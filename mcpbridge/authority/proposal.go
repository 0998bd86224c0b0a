package authority

import (
	"crypto/rand"

	"github.com/mr-tron/base58"

	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
)

// Proposal is one write the agent asked for, as the kinds and the
// console read it (package writekind holds it).
type Proposal = writekind.Proposal

// queued is a proposal as the hub holds it: the proposal, and the hub's
// bookkeeping of it that no kind and no console reads. The hub's copy is
// guarded by the hub's mutex.
type queued struct {
	Proposal

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

func (p *queued) snapshot() *Proposal { return p.Proposal.Clone() }

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
