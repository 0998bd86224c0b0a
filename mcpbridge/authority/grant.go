package authority

import (
	"fmt"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
)

// A standing grant lets the human approve one proposal and, with it, a
// bounded run of calls like it from the same agent process: ten identical
// approvals train an operator to press a without reading, one careful
// approval of an envelope does not. A grant only ever stands in for the
// human's key press: a covered proposal is approved through the same path
// (decide), and every cap and policy rule has already judged it by then.
// Grants live in memory only, so a restart ends them all. A grant binds to
// the process that proposed: on the socket, the kernel's word for each
// covered call's sender and the bridge's per-process secret (host/sender.go),
// and it ends when that process exits (host/procwatch_linux.go); for a call
// made inside the console's own process (tests), that in-process id, which
// nothing on the socket can claim.

// grantTerms is a proposal's rule, and whether a grant could cover it.
func grantTerms(k writekind.Kind) (writekind.GrantRule, bool) {
	if k == nil {
		return writekind.GrantRule{}, false
	}
	r := k.Grant()
	return r, r.Grantable()
}

// Grantable reports whether a grant could ever cover p's tool.
func Grantable(p *Proposal) bool {
	if p == nil {
		return false
	}
	_, ok := grantTerms(p.Kind)
	return ok
}

// Grant is one standing grant (a snapshot when handed out): what the console
// lists, and what only the hub keeps.
type Grant struct {
	approval.Grant
	// inFlight counts the calls approved by the grant whose outcome is
	// still open: they hold a call and a part of the ceiling until they
	// land (kept) or end without landing (given back).
	inFlight int

	// proc is the agent process the grant binds to, and watch follows it
	// to its exit; zero and nil for a grant on a call made inside the
	// console (bound to Peer, which nothing on the socket can claim).
	proc  host.ProcessID
	watch *host.ProcessWatch
}

// binds reports whether p was proposed by the grant's process, judged on
// the kernel's word for the call that proposed it, and the process is
// still running.
func (g *Grant) binds(p *queued) bool {
	if g.proc.Valid() {
		return p.proc == g.proc && g.watch.Alive()
	}
	return g.watch == nil && g.Peer == p.Peer
}

// boundTo reports whether the grant is the caller's (get_spend_status).
func (g *Grant) boundTo(who caller) bool {
	if g.proc.Valid() {
		return who.proc == g.proc
	}
	return g.Peer == who.id
}

// Left is how many more calls the grant covers.
func (g Grant) Left() int { return g.Count - g.Used }

// Describe is one line for logs and the console: "#1 e2e-agent → 9Mu…: 3/9 calls, 0.15/0.45 SOL".
func (g Grant) Describe() string {
	return fmt.Sprintf("grant #%d %s %s to %s: %d/%d calls, %s/%s SOL", g.N, g.Tool, g.Amount, g.Counterparty,
		g.Used, g.Count, executor.FormatSOL(g.Spent), executor.FormatSOL(g.Ceiling))
}
