package tui

import (
	"fmt"
	"sync"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/policy"
)

// fakeService is an approval service with no authority behind it: it
// keeps proposals in memory and records every call the console makes, so
// the console can be driven and checked through its one interface.
type fakeService struct {
	mu        sync.Mutex
	proposals map[string]*approval.Proposal
	order     []string
	calls     []string
	paused    bool
	spend     approval.SpendSummary
	reads     int // state reads (SpendSummary), for forward's test
	events    chan approval.Event
}

var _ approval.Service = (*fakeService)(nil)

func newFakeService(ps ...*approval.Proposal) *fakeService {
	f := &fakeService{proposals: map[string]*approval.Proposal{}, events: make(chan approval.Event, 16),
		spend: approval.SpendSummary{Network: executor.Localnet, PerSession: 1_000_000_000, Remaining: 1_000_000_000}}
	for _, p := range ps {
		f.add(p)
	}
	return f
}

func (f *fakeService) add(p *approval.Proposal) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := *p
	f.proposals[p.ID] = &c
	f.order = append(f.order, p.ID)
}

// publish announces p as the authority would: a snapshot in an event.
func (f *fakeService) publish(kind approval.EventKind, p *approval.Proposal) {
	f.add(p)
	c := *p
	f.events <- approval.Event{Kind: kind, At: time.Now(), Proposal: &c}
}

func (f *fakeService) record(format string, a ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, a...))
}

func (f *fakeService) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeService) decide(id string, to approval.Status, by, reason string) (*approval.Proposal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.proposals[id]
	if !ok || p.Status != approval.StatusPending {
		return nil, fmt.Errorf("proposal %s is not pending", id)
	}
	p.Status, p.DecidedBy, p.Reason = to, by, reason
	c := *p
	return &c, nil
}

func (f *fakeService) Network() executor.Network { return executor.Localnet }
func (f *fakeService) Wallet() string            { return walletKey.String() }
func (f *fakeService) Policy() policy.Config     { return testPolicy() }

func (f *fakeService) Proposals() []*approval.Proposal {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*approval.Proposal, 0, len(f.order))
	for _, id := range f.order {
		c := *f.proposals[id]
		out = append(out, &c)
	}
	return out
}

func (f *fakeService) Proposal(id string) (*approval.Proposal, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.proposals[id]
	if !ok {
		return nil, false
	}
	c := *p
	return &c, true
}

func (f *fakeService) Subscribe(int) (<-chan approval.Event, func()) { return f.events, func() {} }

func (f *fakeService) Approve(id, by string) (*approval.Proposal, error) {
	f.record("approve %s by %s", id, by)
	return f.decide(id, approval.StatusApproved, by, "")
}

func (f *fakeService) Deny(id, by, reason string) (*approval.Proposal, error) {
	f.record("deny %s by %s: %s", id, by, reason)
	return f.decide(id, approval.StatusDenied, by, reason)
}

func (f *fakeService) DenyAllPending(by, reason string) int {
	f.record("deny all by %s: %s", by, reason)
	return 0
}

func (f *fakeService) DenyPendingOf(id, by, reason string) ([]*approval.Proposal, error) {
	f.record("deny pending of %s by %s", id, by)
	return nil, nil
}

func (f *fakeService) ApproveWithGrant(id, by string, t approval.GrantTerms) (*approval.Proposal, approval.Grant, error) {
	f.record("grant %s by %s: %d calls, %d lamports, %s", id, by, t.Count, t.Ceiling, t.For)
	p, err := f.decide(id, approval.StatusApproved, by, "")
	return p, approval.Grant{N: 1, Count: t.Count, Ceiling: t.Ceiling, From: id}, err
}

func (f *fakeService) EndGrant(n int, by string) bool {
	f.record("end grant %d by %s", n, by)
	return true
}

func (f *fakeService) Grants() []approval.Grant { return nil }

func (f *fakeService) SetPaused(paused bool) {
	f.record("paused %v", paused)
	f.mu.Lock()
	f.paused = paused
	f.mu.Unlock()
}

func (f *fakeService) Paused() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paused
}

func (f *fakeService) ResumeClient(client string) { f.record("resume %s", client) }
func (f *fakeService) PausedClients() []string    { return nil }

func (f *fakeService) RevokeAll(by string) int {
	f.record("revoke all by %s", by)
	return 0
}

func (f *fakeService) SpendSummary() approval.SpendSummary {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	s := f.spend
	s.Paused = f.paused
	return s
}

func (f *fakeService) Connected() []string { return []string{"fake-agent 1.0"} }
func (f *fakeService) Warnings() []string  { return nil }
