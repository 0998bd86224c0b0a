package authority

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/answer"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// propose is the one propose skeleton, for every write kind: admit (the
// same arguments while pending, pause, breaker, flood), draft, the cheap
// pre-policy on the draft's facts (a denial never bothers the human), then
// the exact bytes are built and simulated, policy judges the measured facts,
// and the proposal is queued. The kind supplies the steps; the order is here.
func (h *Hub) propose(ctx context.Context, who caller, wk writekind.Registration, a args.WriteArgs) wire.CallResult {
	client := who.name
	fp := a.Fingerprint()
	deny := func(d policy.Decision) wire.CallResult { return h.denyWrite(who, fp, d, a) }
	if res, done := h.admit(who, fp, deny); done {
		return res
	}
	// The id exists before the bytes do: the transactions solgate builds
	// carry it in a memo (writekind.Env.ProposalMemo).
	id := newProposalID()
	env := hubEnv{h: h, proposal: id}
	k, err := wk.Draft(ctx, env, a)
	if err != nil {
		return h.refused(who, fp, a, err)
	}
	if d := h.opts.Spend.Judge(h.opts.Policy, factsOf(k, h.opts.Network, who)); !d.Allowed {
		return deny(d)
	}
	preview, err := k.Prepare(ctx, env)
	if err != nil {
		return h.refused(who, fp, a, err)
	}
	facts := writekind.WithPayees(factsOf(k, h.opts.Network, who), preview.Effects, writekind.DeclaredPayees(k))
	decision := h.opts.Spend.Judge(h.opts.Policy, facts)
	if !decision.Allowed {
		return deny(decision)
	}
	own := k.Admit(decision)

	now := h.opts.Now()
	spend := facts.Lamports
	p := &queued{Proposal: Proposal{
		ID: id, Tool: wk.Tool(), Client: client, Peer: who.id, User: h.userOf(who), Agent: h.agentLabel(who), Fingerprint: fp, Kind: k,
		Preview: preview, Spend: spend, CreatedAt: now, ExpiresAt: now.Add(h.opts.ProposalTTL),
		Status: approval.StatusPending,
	}, proc: who.proc, changed: make(chan struct{})}
	to := a.Recipient()
	h.mu.Lock()
	p.Flags = append(h.flagsLocked(to, spend), own...)
	if to != "" {
		h.recipients[to] = struct{}{}
	}
	h.mu.Unlock()
	return h.enqueue(p, client, a.Normalized())
}

// factsOf is what policy judges of k, for the user who proposed it: its
// spend counts against that user's own budget as well as the total.
func factsOf(k writekind.Kind, network executor.Network, who caller) policy.Proposal {
	p := k.Facts(network, who.name)
	p.Agent = who.owner()
	return p
}

// agentLabel is the label of who's [[agent]] section, "" without one.
func (h *Hub) agentLabel(who caller) string {
	a, _ := h.opts.Policy.AgentFor(who.owner())
	return a.Label
}

// refused answers a kind's error: a *writekind.Refusal is a policy denial, anything
// else a tool error (nothing was proposed).
func (h *Hub) refused(who caller, fp string, a args.WriteArgs, err error) wire.CallResult {
	var r *writekind.Refusal
	if errors.As(err, &r) {
		return h.denyWrite(who, fp, r.Decision, a)
	}
	var ans *writekind.Answered
	if errors.As(err, &ans) {
		return ans.Result // no proposal was needed (x402_fetch: no payment asked)
	}
	return wire.ToolError(err.Error())
}

// admit runs the checks every write proposal starts with. The same
// arguments while pending return the same proposal, so an agent cannot flood
// the queue by repeating itself; a pause or the retry breaker answers with a
// denial. done reports that res is the answer.
func (h *Hub) admit(who caller, fp string, deny func(policy.Decision) wire.CallResult) (res wire.CallResult, done bool) {
	h.mu.Lock()
	if id, ok := h.pendingByFP[pendingKey(who.owner(), fp)]; ok {
		p := h.proposals[id]
		snap := p.snapshot()
		h.mu.Unlock()
		return h.repeatedResult(p, snap), true
	}
	paused := h.paused
	full := h.floodFullLocked(who.owner())
	h.mu.Unlock()
	if paused {
		return deny(policy.Decision{Rule: "paused", Reason: "the operator has paused all writes in the solgate console; nothing can be proposed until they resume", Retryable: true}), true
	}
	if full != "" {
		return h.floodDenied(who, full, h.pendingLimitDecision(full)), true
	}
	if d, ok := h.opts.Breaker.Check(who.owner()); !ok {
		return deny(d), true
	}
	if d, ok := h.flood.Admit(who.owner()); !ok {
		// Back-pressure, not a policy wall: the answer says retry later,
		// and it does not feed the retry breaker.
		return h.floodDenied(who, "rate", d), true
	}
	// Admitted: it counts as pending while it is prepared (the check above
	// and this hold are not one step, so a race may let a few more into
	// preparation; enqueue's count is the exact one).
	h.mu.Lock()
	h.holdPrepLocked(who)
	h.mu.Unlock()
	return wire.CallResult{}, false
}

// enqueue records and queues a new proposal; shared by every write tool.
//
// The commit rule (store.write) allows the proposal to be shown while its
// record is being committed, and no more: its insert is queued in the store
// before the proposal can be seen, so an operator's decision on it (or a
// grant's, or the expiry's) is queued after the insert and is durable only
// with it or after it; a decision on a proposal whose insert failed finds
// no row and fails. The agent's answer, the grant and the expiry timer wait
// for the insert to be durable. A failed insert withdraws the proposal
// (withdraw): fail closed, audited.
func (h *Hub) enqueue(p *queued, client string, normalized map[string]string) wire.CallResult {
	p.text = answer.Preview(&p.Proposal, h.opts.Network)
	var row store.Proposal
	if h.opts.Store != nil {
		args, _ := json.Marshal(normalized)
		row = store.Proposal{
			ID: p.ID, Client: client, Owner: ownerOf(p.Peer), Tool: p.Tool, Fingerprint: p.Fingerprint, Args: args,
			Preview: p.text, CreatedAt: p.CreatedAt, Status: string(approval.StatusPending),
		}
	}
	owner := ownerOf(p.Peer)
	key := pendingKey(owner, p.Fingerprint)
	h.mu.Lock()
	if id, ok := h.pendingByFP[key]; ok {
		// An identical call of the same user won the race while this one
		// was being prepared.
		existing := h.proposals[id]
		snap := existing.snapshot()
		h.mu.Unlock()
		return h.repeatedResult(existing, snap)
	}
	full := ""
	switch {
	case h.pendingOf[owner] >= h.opts.MaxPendingPerUID:
		full = "pending"
	case len(h.pendingByFP) >= h.opts.MaxPending:
		full = "pending-overall"
	}
	if full != "" {
		// Concurrent proposals all passed admit; only this count, taken
		// under the lock with the queueing, is exact.
		h.mu.Unlock()
		return h.floodDenied(caller{name: client, id: p.Peer}, full, h.pendingLimitDecision(full))
	}
	var insert *store.Queued
	if h.opts.Store != nil {
		// Queued under h.mu, before anyone can see the proposal: see above.
		insert = h.opts.Store.QueueProposal(row)
		p.record = &recording{done: make(chan struct{})}
	}
	h.seq++
	p.Seq = h.seq
	h.proposals[p.ID] = p
	h.pendingByFP[key] = p.ID
	h.pendingOf[owner]++
	h.pruneLocked()
	snap := p.snapshot()
	h.mu.Unlock()

	h.publish(approval.EventProposalAdded, snap, "")
	// Let the event's delivery run before this goroutine commits the
	// record (the store's SQL and fsync, which it does itself when no other
	// writer holds the lock). The goroutines publish just woke wait on this
	// P behind whatever it runs next; without the yield they waited for the
	// commit's SQL, or for another P to steal them: a median 0.4 ms and a
	// p99 of 2.5-3 ms between publish and the console's subscriber, on a
	// busy 2-core machine, against 0.002 and 0.4-0.5 ms with it (the
	// bench's share row fell from 1.22-1.36 to 0.89-0.90 ms at p50). The
	// commit starts that much later; the rule is unchanged: the agent's
	// answer, the grant and the expiry still wait for it to be durable.
	runtime.Gosched()
	if insert != nil {
		if err := insert.Wait(); err != nil {
			// Fail closed: an unrecorded proposal could be approved without a trace.
			h.withdraw(p, err)
			return wire.ToolError("the console could not record the proposal, so it was not queued: " + err.Error())
		}
		close(p.record.done)
	}
	time.AfterFunc(h.opts.ProposalTTL, func() { h.expireUndecided(p.ID) })
	h.log.Info("proposal queued", "id", p.ID, "client", client, "user", p.User, "tool", p.Tool)
	own, _, _ := h.spendSummaryOf(caller{id: p.Peer})
	res := answer.Pending(snap, p.text, own, h.opts.Network, false)
	// The protocol is the same under a grant: the agent gets this proposal
	// and collects the token from proposal_status.
	h.applyGrant(p.ID)
	return res
}

// repeatedResult answers the same arguments while p is pending with p
// (snap), once p's record is durable.
func (h *Hub) repeatedResult(p *queued, snap *Proposal) wire.CallResult {
	if err := p.recorded(); err != nil {
		return wire.ToolError("the console could not record the proposal, so it was not queued: " + err.Error())
	}
	own, _, _ := h.spendSummaryOf(caller{id: p.Peer})
	return answer.Pending(snap, p.text, own, h.opts.Network, true)
}

// withdraw takes back a proposal whose insert failed after it was shown:
// it leaves the queue and the screen as failed, and nothing can be decided
// on it (a decision finds no row in the store, and decide refuses a
// proposal that is no longer pending).
func (h *Hub) withdraw(p *queued, err error) {
	h.mu.Lock()
	p.record.err = err
	close(p.record.done)
	p.Status, p.Reason, p.Token = approval.StatusFailed, "withdrawn: the console could not record the proposal: "+err.Error(), ""
	h.unpendLocked(p)
	h.changedLocked(p)
	snap := p.snapshot()
	h.mu.Unlock()
	h.tokens.Revoke(p.ID) // none can exist (an approval needs the row); fail closed all the same
	h.log.Error("proposal withdrawn: its record failed", "id", p.ID, "err", err)
	h.audit("proposal_withdrawn", p.ID, map[string]string{"client": p.Client, "tool": p.Tool, "fingerprint": p.Fingerprint, "reason": err.Error()})
	h.publish(approval.EventProposalExpired, snap, snap.Reason)
}

// pruneLocked forgets the oldest finished proposals beyond KeepFinished, so
// a console that runs for weeks does not grow without bound. Their record
// stays in the database, and proposal_status answers from there.
func (h *Hub) pruneLocked() {
	if h.opts.Store == nil {
		return // nothing else could answer for them
	}
	// In batches of a quarter of KeepFinished: scanning and sorting every
	// proposal on each enqueue was O(n log n) a proposal, under h.mu, once
	// the cap was reached.
	if len(h.proposals) <= h.pruneAt {
		return
	}
	defer func() { h.pruneAt = len(h.proposals) + h.opts.KeepFinished/4 }()
	var finished []*queued
	for _, p := range h.proposals {
		if p.Status.Final() {
			finished = append(finished, p)
		}
	}
	if len(finished) <= h.opts.KeepFinished {
		return
	}
	sort.Slice(finished, func(i, j int) bool { return finished[i].Seq < finished[j].Seq })
	for _, p := range finished[:len(finished)-h.opts.KeepFinished] {
		delete(h.proposals, p.ID)
	}
}

// denyWrite answers a policy objection to a write as an ordinary tool
// result, feeds the retry breaker, and shows the denial in the console log,
// with a look-alike warning when the named recipient resembles a known one.
func (h *Hub) denyWrite(who caller, fp string, d policy.Decision, a args.WriteArgs) wire.CallResult {
	var warnings []string
	if to := a.Recipient(); to != "" {
		warnings = h.lookAlike(to)
	}
	body := map[string]any{"tool": a.ToolName()}
	for k, v := range a.Normalized() {
		body[k] = v
	}
	return h.recordAutoDeny(who, fp, d, warnings, body, a.Described())
}

// recordAutoDeny feeds the retry breaker, audits the denial, and shows it in
// the console log; what describes the attempt for the log line. warnings
// (e.g. a look-alike recipient) travel separately to the console, so it can
// show each whole, and are appended to the reason the model reads.
func (h *Hub) recordAutoDeny(who caller, fp string, d policy.Decision, warnings []string, body map[string]any, what string) wire.CallResult {
	d = h.opts.Breaker.Observe(who.owner(), fp, d)
	client := who.name
	body["peer"] = who.id
	if label := h.agentLabel(who); label != "" {
		body["agent"] = label
	}
	body["client"], body["fingerprint"], body["rule"], body["reason"] = client, fp, d.Rule, d.Reason
	if len(warnings) > 0 {
		body["warnings"] = warnings
	}
	h.audit("auto_denied", "", body)
	h.events.Publish(Event{Kind: approval.EventAutoDenied, At: h.opts.Now(), Client: client, Warnings: warnings,
		Message: fmt.Sprintf("%s → %s denied by %s: %s", h.callerLabel(who), what, d.Rule, d.Reason)})
	h.log.Info("auto-denied", "client", client, "peer", who.id, "rule", d.Rule)
	for _, w := range warnings {
		if d.Imitates != "" && strings.Contains(w, d.Imitates) {
			continue // the reason already names this look-alike
		}
		d.Reason += " Warning: " + w + "."
	}
	return answer.Denial(d)
}
