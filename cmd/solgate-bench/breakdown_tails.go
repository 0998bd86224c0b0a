package main

import (
	"context"
	"fmt"
	"os"
	"runtime/trace"
	"sort"
	"strings"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// The tails rows split propose → visible and approve → token into phases,
// per proposal, from stamps the hub already takes (its clock is this
// process's): the hub's last-seen stamp at Call entry, the proposal's
// CreatedAt (after policy judged the measured facts), the event's At (at
// publish) and the subscriber's receipt. They run proposals of their own
// on the proposals section's console and agent, after its figures (the
// section's own subscriber is still there: two subscribers, where the
// console has one).

// proposePhases is one proposal's propose → visible, in parts.
type proposePhases struct {
	in      time.Duration // agent's call → hub Call entry: MCP client, bridge, socket, HTTP
	hub     time.Duration // Call entry → CreatedAt, less the RPC wait: admission, draft, building, effects, policy
	rpc     time.Duration // the preview's wait for the ledger
	enqueue time.Duration // CreatedAt → publish: preview text, record queued, snapshot
	deliver time.Duration // publish → the subscriber holds the event
}

func (p proposePhases) share() time.Duration { return p.in + p.hub + p.enqueue + p.deliver }

// approvePhases is one approve → token, in parts.
type approvePhases struct {
	decide time.Duration // h.Approve: the decision's fsynced record, the token
	answer time.Duration // Approve returned → the agent holds the token: long-poll wake-up, socket, bridge, MCP client
}

// tailsRows runs n proposals, each approved to a waiting proposal_status,
// and reports each phase's p50/p99 and what the slowest 1% of solgate's
// share and of approve → token consisted of.
func tailsRows(ctx context.Context, c *console, a *agent, w *world, n int) []row {
	const name = "info: tails"
	ch, cancel := c.authority.Subscribe(1 << 14)
	// The subscriber stamps on its own goroutine, as the console's does:
	// the agent's call is still waiting for the record when the event comes.
	type seen struct {
		ev authority.Event
		at time.Time
	}
	stamped := make(chan seen, 1<<14)
	done := make(chan struct{})
	defer func() { cancel(); close(done) }()
	go func() {
		for {
			select {
			case <-done:
				return
			case ev := <-ch:
				if ev.Kind == approval.EventProposalAdded && ev.Proposal != nil {
					trace.Log(ctx, "tails", "seen")
					stamped <- seen{ev, time.Now()}
				}
			}
		}
	}()
	// SGBENCH_TRACE=FILE writes an execution trace of this run, each
	// proposal's steps marked (category "tails"): a debugging aid.
	if path := os.Getenv("SGBENCH_TRACE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if trace.Start(f) == nil {
				defer func() { trace.Stop(); f.Close() }()
			}
		}
	}
	mark := func(i int, what string) { trace.Log(ctx, "tails", fmt.Sprintf("%d %s", i, what)) }
	to := w.recipient.String()
	var props []proposePhases
	var apps []approvePhases
	for i := 0; i < n; i++ {
		lamports := w.nextAmount()
		mark(i, "propose")
		start := time.Now()
		id, err := a.propose(ctx, to, lamports)
		if err != nil {
			return []row{errorRow(name, err)}
		}
		var ev authority.Event
		var at time.Time
		timeout := time.After(10 * time.Second)
	wait:
		for {
			select {
			case s := <-stamped:
				if s.ev.Proposal.ID == id {
					ev, at = s.ev, s.at
					break wait
				}
			case <-timeout:
				return []row{errorRow(name, fmt.Errorf("proposal %s never reached the subscriber", id))}
			}
		}
		entered := c.authority.Clients()[a.client]
		p := ev.Proposal
		rpc := p.Preview.RPC.Waiting
		props = append(props, proposePhases{
			in: entered.Sub(start), hub: p.CreatedAt.Sub(entered) - rpc, rpc: rpc,
			enqueue: ev.At.Sub(p.CreatedAt), deliver: at.Sub(ev.At),
		})
		mark(i, "proposed")
		ap, err := approvePhased(ctx, c.authority, a, id, func(what string) { mark(i, what) })
		if err != nil {
			return []row{errorRow(name, err)}
		}
		apps = append(apps, ap)
	}
	col := func(f func(proposePhases) time.Duration) []time.Duration {
		out := make([]time.Duration, len(props))
		for i, p := range props {
			out[i] = f(p)
		}
		return out
	}
	acol := func(f func(approvePhases) time.Duration) []time.Duration {
		out := make([]time.Duration, len(apps))
		for i, p := range apps {
			out[i] = f(p)
		}
		return out
	}
	return []row{
		latencyRow("info: tails, share: agent → hub Call", col(func(p proposePhases) time.Duration { return p.in }), nil,
			"the agent's MCP client, the bridge, the socket, the HTTP server's read and decode"),
		latencyRow("info: tails, share: hub's own preparing", col(func(p proposePhases) time.Duration { return p.hub }), nil,
			"Call entry → proposal built and judged, less the preview's RPC wait"),
		latencyRow("info: tails, share: enqueue", col(func(p proposePhases) time.Duration { return p.enqueue }), nil,
			"judged → published: preview text, record queued, snapshot"),
		latencyRow("info: tails, share: delivery", col(func(p proposePhases) time.Duration { return p.deliver }), nil,
			"published → the subscriber holds the event"),
		latencyRow("info: tails, share", col(proposePhases.share), nil, slowestPropose(props)),
		latencyRow("info: tails, approve: decision recorded", acol(func(p approvePhases) time.Duration { return p.decide }), nil,
			"h.Approve: the decision's fsynced commit and the token; it yields to the woken proposal_status first, so that call's answer written to the socket is inside too"),
		latencyRow("info: tails, approve: answer", acol(func(p approvePhases) time.Duration { return p.answer }), nil,
			slowestApprove(apps)),
	}
}

// slowestPropose lists the slowest 1% (at least 3) shares by phase.
func slowestPropose(props []proposePhases) string {
	order := make([]int, len(props))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return props[order[a]].share() > props[order[b]].share() })
	var b strings.Builder
	b.WriteString("slowest (in+hub+enqueue+deliver, ms; rpc beside):")
	for _, i := range order[:min(len(order), max(3, len(order)/100))] {
		p := props[i]
		fmt.Fprintf(&b, " #%d %.2f=%.2f+%.2f+%.2f+%.2f (rpc %.2f);", i, ms(p.share()), ms(p.in), ms(p.hub), ms(p.enqueue), ms(p.deliver), ms(p.rpc))
	}
	return b.String()
}

func slowestApprove(apps []approvePhases) string {
	order := make([]int, len(apps))
	for i := range order {
		order[i] = i
	}
	total := func(p approvePhases) time.Duration { return p.decide + p.answer }
	sort.Slice(order, func(a, b int) bool { return total(apps[order[a]]) > total(apps[order[b]]) })
	var b strings.Builder
	b.WriteString("Approve returned → token at the agent; slowest approve → token (decide+answer, ms):")
	for _, i := range order[:min(len(order), max(3, len(order)/100))] {
		p := apps[i]
		fmt.Fprintf(&b, " #%d %.2f=%.2f+%.2f;", i, ms(total(p)), ms(p.decide), ms(p.answer))
	}
	return b.String()
}
