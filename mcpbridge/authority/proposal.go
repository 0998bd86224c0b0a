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

// recording is a proposal's insert on its way to disk: done is closed once
// it is durable, or once it failed, err then saying why.
type recording struct {
	done chan struct{}
	err  error
}

// pendingKey is what "the same arguments while pending" is looked up by:
// the user and the fingerprint. A proposal belongs to the user that made it,
// so another user's identical call is a proposal of its own, never an
// answer that names (and leads to the token of) someone else's.
func pendingKey(owner, fp string) string { return owner + "\x00" + fp }

// recorded waits until p's record is durable; the error says why it never
// will be. A hub without a store records nothing and waits for nothing.
func (p *queued) recorded() error {
	if p.record == nil {
		return nil
	}
	<-p.record.done
	return p.record.err
}
