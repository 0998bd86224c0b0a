// Package consoleservice is the approval service the console (package tui)
// talks to, backed by the hub: it turns the core's proposals, grants and
// events into the console's own values (package approval). It sits above
// the core so that the core knows nothing of the console's service, and the
// console nothing of the core.
package consoleservice

import (
	"sync"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/policy"
)

// Of is the hub as the console sees it: the approval service, in the
// console's own values. The console gets nothing else of the hub, so what
// the operator can do is exactly this surface.
func Of(h *authority.Hub) approval.Service { return console{h} }

// console forwards each method by name rather than embedding the hub, so
// no other hub method can be reached through it by a type assertion.
type console struct{ h *authority.Hub }

var _ approval.Service = console{}

// ViewOf draws a proposal snapshot for the console: its fields, and the
// kind's own words, asked once here so the console never calls into a kind.
func ViewOf(p *authority.Proposal) *approval.Proposal {
	if p == nil {
		return nil
	}
	v := &approval.Proposal{
		ID: p.ID, Seq: p.Seq, Tool: p.Tool, Client: p.Client, Owner: authority.OwnerOf(p), User: p.User, Agent: p.Agent,
		Fingerprint: p.Fingerprint, HasTerms: p.Kind != nil, Grantable: authority.Grantable(p),
		Preview: p.Preview, Spend: p.Spend, Flags: append([]approval.Flag(nil), p.Flags...),
		CreatedAt: p.CreatedAt, ExpiresAt: p.ExpiresAt,
		Status: p.Status, DecidedAt: p.DecidedAt, DecidedBy: p.DecidedBy, Reason: p.Reason,
		Token: p.Token, TokenExpires: p.TokenExpires, Grant: p.Grant, GrantMiss: p.GrantMiss,
		Signature: p.Signature, Result: p.Result,
	}
	if p.Kind != nil {
		v.Action, v.Amount, v.Recipient = p.Kind.Action(), p.Kind.Amount(), p.Kind.Args().Recipient()
		v.Lines = p.DetailLines()
	}
	return v
}

func viewsOf(ps []*authority.Proposal) []*approval.Proposal {
	out := make([]*approval.Proposal, len(ps))
	for i, p := range ps {
		out[i] = ViewOf(p)
	}
	return out
}

// GrantView is a grant as the console lists it.
func GrantView(g authority.Grant) approval.Grant { return g.Grant }

// EventView is an event as the console receives it.
func EventView(ev authority.Event) approval.Event {
	return approval.Event{Kind: ev.Kind, At: ev.At, Proposal: ViewOf(ev.Proposal), Progress: ev.Progress,
		Client: ev.Client, Message: ev.Message, Warnings: ev.Warnings}
}

func (c console) Proposals() []*approval.Proposal { return viewsOf(c.h.Proposals()) }

func (c console) Proposal(id string) (*approval.Proposal, bool) {
	p, ok := c.h.Proposal(id)
	return ViewOf(p), ok
}

// Subscribe hands the hub's events on as the console's values, from one
// goroutine, in order. The hub's own rule holds through it: a full buffer
// here stalls this goroutine, so the hub waits for approval events and
// drops progress reports, as it does for any slow subscriber.
func (c console) Subscribe(buffer int) (<-chan approval.Event, func()) {
	in, unsubscribe := c.h.Subscribe(buffer)
	out := make(chan approval.Event, buffer)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case ev := <-in:
				select {
				case out <- EventView(ev):
				case <-stop:
					return
				}
			}
		}
	}()
	var once sync.Once
	return out, func() { once.Do(func() { unsubscribe(); close(stop) }) }
}

func (c console) Approve(id, by string) (*approval.Proposal, error) {
	p, err := c.h.Approve(id, by)
	return ViewOf(p), err
}

func (c console) Deny(id, by, reason string) (*approval.Proposal, error) {
	p, err := c.h.Deny(id, by, reason)
	return ViewOf(p), err
}

func (c console) DenyPendingOf(id, by, reason string) ([]*approval.Proposal, error) {
	ps, err := c.h.DenyPendingOf(id, by, reason)
	return viewsOf(ps), err
}

func (c console) ApproveWithGrant(id, by string, t approval.GrantTerms) (*approval.Proposal, approval.Grant, error) {
	p, g, err := c.h.ApproveWithGrant(id, by, t)
	return ViewOf(p), GrantView(g), err
}

func (c console) Grants() []approval.Grant {
	gs := c.h.Grants()
	out := make([]approval.Grant, len(gs))
	for i, g := range gs {
		out[i] = GrantView(g)
	}
	return out
}

func (c console) Network() executor.Network            { return c.h.Network() }
func (c console) Wallet() string                       { return c.h.Wallet() }
func (c console) Policy() policy.Config                { return c.h.Policy() }
func (c console) DenyAllPending(by, reason string) int { return c.h.DenyAllPending(by, reason) }
func (c console) EndGrant(n int, by string) bool       { return c.h.EndGrant(n, by) }
func (c console) SetPaused(paused bool)                { c.h.SetPaused(paused) }
func (c console) Paused() bool                         { return c.h.Paused() }
func (c console) ResumeClient(client string)           { c.h.ResumeClient(client) }
func (c console) PausedClients() []string              { return c.h.PausedClients() }
func (c console) RevokeAll(by string) int              { return c.h.RevokeAll(by) }
func (c console) SpendSummary() approval.SpendSummary  { return c.h.SpendSummary() }
func (c console) Connected() []string                  { return c.h.Connected() }
func (c console) Warnings() []string                   { return c.h.Warnings() }
