package authority

import (
	"errors"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/chainreads"
	"github.com/solgate/solgate/mcpbridge/authority/fanout"
	"github.com/solgate/solgate/mcpbridge/authority/flood"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/tokens"
	"github.com/solgate/solgate/mcpbridge/authority/warnings"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// Flood control defaults, per user (uid) and overall.
const (
	DefaultMaxPendingPerUID   = 20  // proposals one user may have waiting for the human
	DefaultMaxPending         = 200 // proposals waiting overall
	DefaultProposalsPerMinute = 60  // proposals one user may make per minute (also the burst)
)

// Options wire a hub. Executor, Network, Policy and Spend are required.
type Options struct {
	Executor *executor.Executor
	Swapper  *executor.Swapper // nil: swaps are refused with a clear message
	Network  executor.Network
	Genesis  string
	Policy   policy.Config
	Spend    *policy.Spend
	Breaker  *policy.Breaker // nil: built from Policy
	Store    *store.Store    // nil: nothing persisted (tests only)
	Logger   *slog.Logger
	Now      func() time.Time
	Exposure *host.Exposure // who can reach the key, state and terminal; nil: not checked

	ProposalTTL      time.Duration // undecided proposals expire (default 10 min)
	TokenTTL         time.Duration // approval tokens for transfers (default 5 min)
	ExecuteWait      time.Duration // an execute call answers "submitted" after this (default 40 s, under MCP clients' timeouts)
	ExecutionTimeout time.Duration // how long one execution may follow the chain (default 3 min)
	FollowInterval   time.Duration // how often an unknown outcome is re-checked (default 2 s)
	KeepFinished     int           // finished proposals kept in memory; older ones are answered from the store (default 1000)

	// Flood control, per user (uid, whatever its processes) and overall
	// (see caller).
	MaxPendingPerUID   int // proposals one user may have waiting (default DefaultMaxPendingPerUID)
	MaxPending         int // proposals waiting overall (default DefaultMaxPending)
	ProposalsPerMinute int // proposals one user may make a minute, also its burst (default DefaultProposalsPerMinute)

	// NoGrants turns standing grants off (--no-grants): every write waits
	// for the human.
	NoGrants bool

	// Kinds are the write kinds served; nil: DefaultKinds (every kind
	// registered with RegisterKind).
	Kinds *writekind.Registry
}

func (o *Options) defaults() error {
	if o.Executor == nil || o.Spend == nil || o.Network == "" {
		return errors.New("hub: Executor, Spend and Network are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Kinds == nil {
		o.Kinds = writekind.Default()
	}
	if o.Breaker == nil {
		o.Breaker = policy.NewBreaker(o.Policy, o.Now)
	}
	if o.ProposalTTL <= 0 {
		o.ProposalTTL = 10 * time.Minute
	}
	if o.TokenTTL <= 0 {
		o.TokenTTL = 5 * time.Minute
	}
	if o.ExecuteWait <= 0 {
		o.ExecuteWait = 40 * time.Second
	}
	if o.ExecutionTimeout <= 0 {
		o.ExecutionTimeout = 3 * time.Minute
	}
	if o.FollowInterval <= 0 {
		o.FollowInterval = 2 * time.Second
	}
	if o.KeepFinished <= 0 {
		o.KeepFinished = 1000
	}
	if o.MaxPendingPerUID <= 0 {
		o.MaxPendingPerUID = DefaultMaxPendingPerUID
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.ProposalsPerMinute <= 0 {
		o.ProposalsPerMinute = DefaultProposalsPerMinute
	}
	return nil
}

// Hub holds the proposal queue and everything a write needs.
type Hub struct {
	opts   Options
	kinds  *writekind.Registry
	tokens *tokens.Store
	events *fanout.Broker[Event]
	log    *slog.Logger
	flood  *flood.Control
	chain  chainreads.Reader // the chain read tools, and mint labels for the kinds
	// warnings are the session-long warnings about who can reach the
	// console; their board announces each through announce.
	warnings *warnings.Board

	mu             sync.Mutex
	proposals      map[string]*queued
	pendingByFP    map[string]string // pendingKey (user, fingerprint) → pending proposal id
	pendingOf      map[string]int    // user (caller.owner) → its pending proposals (flood control)
	preparing      map[string]int    // user → its admitted proposals being prepared
	preparingTotal int
	pruneAt        int // len(proposals) past which pruneLocked scans again
	seq            int64
	paused         bool
	clients        map[string]time.Time // client → last seen
	present        map[string]int       // client → bridges holding PresencePath open
	// departed are the peers (process identities) whose presence request
	// ended and that have not announced themselves again: no grant may be
	// made to one (granting.go). Pruned to peers with a proposal held.
	departed     map[string]struct{}
	recipients   map[string]struct{} // addresses seen in proposals, for look-alike checks
	userNames    sync.Map            // uid → "alice (uid 1001)" (userOf)
	grants       map[int]*Grant      // live standing grants by number (grant.go); memory only
	grantSeq     int
	x402         map[string]executor.X402Record // proposal → its signed x402 payment, as recorded before sending
	executions   sync.WaitGroup
	followRounds atomic.Uint64 // rounds the followers of unknown outcomes made; tests wait on it
	closed       bool
	done         chan struct{} // closed by Close: background followers stop

	// beforeDecisionWrite, when set (tests only), runs just before a
	// decision is written to the store, without h.mu held.
	beforeDecisionWrite func(proposalID string)
	// afterConsume, when set (tests only), runs between a confirmed call's
	// Consume of its token and its marking the proposal executing. Atomic:
	// a test sets it while the socket server's goroutines read it, and the
	// race detector does not see the socket as synchronisation.
	afterConsume atomic.Pointer[func(proposalID string)]
	// beforeGrantMade, when set (tests only), runs in ApproveWithGrant
	// after the approval and before the grant is registered.
	beforeGrantMade atomic.Pointer[func(proposalID string)]
}

// New builds a hub. It does not listen; package server serves it.
func New(opts Options) (*Hub, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	h := &Hub{
		opts:   opts,
		kinds:  opts.Kinds,
		tokens: tokens.NewStore(opts.Now),
		events: fanout.New[Event](),
		chain: chainreads.Reader{
			Executor: opts.Executor, Swapper: opts.Swapper, Network: opts.Network,
			MaxPriceImpactBps: opts.Policy.MaxPriceImpactBps,
		},

		log:         opts.Logger,
		proposals:   map[string]*queued{},
		pendingByFP: map[string]string{},
		pendingOf:   map[string]int{},
		preparing:   map[string]int{},
		clients:     map[string]time.Time{},
		present:     map[string]int{},
		departed:    map[string]struct{}{},
		recipients:  map[string]struct{}{},
		grants:      map[int]*Grant{},
		x402:        map[string]executor.X402Record{},
		done:        make(chan struct{}),
	}
	h.flood = flood.New(opts.ProposalsPerMinute, opts.Now, h.auditFloodTally)
	h.warnings = warnings.New(opts.Exposure, uint32(os.Geteuid()), h.announce)
	return h, nil
}

// announce logs a warning just raised and tells the console.
func (h *Hub) announce(w warnings.Warning) {
	h.log.Warn(w.Text, "detail", w.Detail)
	h.events.Publish(Event{Kind: approval.EventWarning, At: h.opts.Now(), Message: w.Text + ": " + w.Detail})
}

// Warnings are the persistent warnings raised so far, oldest first.
func (h *Hub) Warnings() []string { return h.warnings.List() }

// Subscribe delivers hub events; see fanout.Broker.
func (h *Hub) Subscribe(buffer int) (<-chan Event, func()) { return h.events.Subscribe(buffer) }

// Network is the cluster the hub executes on.
func (h *Hub) Network() executor.Network { return h.opts.Network }

// Wallet is the signing address.
func (h *Hub) Wallet() string { return executor.KeyString(h.opts.Executor.Wallet()) }

// Policy is the configuration in force.
func (h *Hub) Policy() policy.Config { return h.opts.Policy }

// Close waits for executions in flight (they settle the spend ledger) and
// stops event delivery.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	h.mu.Unlock()
	close(h.done)
	h.executions.Wait()
	h.flood.FlushAll() // the minute in progress, before the store closes
	h.events.Close()
}

// Note shows a line in the console log. The demo's scripted agent narrates
// through it; the text is untrusted and the console sanitises it.
func (h *Hub) Note(client, msg string) {
	h.events.Publish(Event{Kind: approval.EventNote, At: h.opts.Now(), Client: client, Message: msg})
}

// Proposals returns snapshots of every proposal, oldest first.
func (h *Hub) Proposals() []*Proposal {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Proposal, 0, len(h.proposals))
	for _, p := range h.proposals {
		out = append(out, p.snapshot())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// Proposal returns a snapshot of one proposal.
func (h *Hub) Proposal(id string) (*Proposal, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.proposals[id]
	if !ok {
		return nil, false
	}
	return p.snapshot(), true
}

// Clients lists the MCP clients seen, with when each was last heard from.
func (h *Hub) Clients() map[string]time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]time.Time, len(h.clients))
	for k, v := range h.clients {
		out[k] = v
	}
	return out
}

func (h *Hub) publish(kind approval.EventKind, p *Proposal, msg string) {
	ev := Event{Kind: kind, At: h.opts.Now(), Message: msg}
	if p != nil {
		ev.Proposal = p.Clone()
		ev.Client = p.Client
	}
	h.events.Publish(ev)
}

// audit appends to the audit trail; a failure is logged loudly. Callers that
// must not proceed without a record use the store directly.
func (h *Hub) audit(kind, proposalID string, body any) {
	if h.opts.Store == nil {
		return
	}
	if _, err := h.opts.Store.AppendAudit(kind, proposalID, body); err != nil {
		h.log.Error("audit append failed", "kind", kind, "proposal", proposalID, "err", err)
	}
}

// auditFloodTally writes one user's flood denials of one minute as one row.
func (h *Hub) auditFloodTally(t flood.Tally) {
	h.audit("flood_denied", "", map[string]any{
		"peer": t.Owner, "minute": t.Window.Format(time.RFC3339), "denied": t.Denied, "by_rule": t.ByRule, "clients": t.Clients,
	})
	h.log.Info("flood-control denials", "peer", t.Owner, "minute", t.Window, "denied", t.Denied)
}
