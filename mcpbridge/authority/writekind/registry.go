package writekind

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// A write kind is one Registration. Everything that differs between a SOL
// transfer, a token transfer, a swap (and whatever comes next) is a hook of
// its WriteKind and of the Kind it drafts; the order in which the hooks run
// is written once, in propose.go (admit → draft → pre-policy → prepare →
// policy → enqueue) and run.go (prepare the approved bytes → reserve →
// persist → submit → verify → settle). A kind supplies steps, never the
// sequence, so it cannot skip one. The core (hub, skeletons, tokens, queue,
// events) names no concrete kind; each kind registers itself from its own
// file in package kinds (Register in an init function), and
// TestInventoryWriteToolsAreRegistrations ties the registrations to the
// bridge's inventory, both ways.

// Registration is one write tool's registration: the stateless half of a kind.
type Registration interface {
	// Tool is the MCP tool name; it must be a write entry of the bridge's
	// inventory (mcpbridge/wire/inventory.go).
	Tool() string
	// Parse validates the tool's arguments, confirm included. Errors are
	// *ArgError, written for the model.
	Parse(raw map[string]any) (args.WriteArgs, error)
	// Draft turns admitted arguments into the proposal's Kind before any
	// transaction exists: the checks that need the console (not your own
	// wallet, the feature configured), the cheap reads the pre-policy needs
	// (a mint's decimals), and an estimate of the spend. The skeleton judges
	// the draft's Facts before Prepare costs a simulation. A *Refusal is a
	// policy denial; any other error is a tool error (nothing proposed).
	Draft(ctx context.Context, env Env, a args.WriteArgs) (Kind, error)
}

// Kind is one proposal's kind: its state and the hooks both skeletons call.
// Hub methods hand out clones (snapshots); the hub's copy is replaced, never
// mutated by the console.
type Kind interface {
	// Args are the normalised arguments the approval is bound to.
	Args() args.WriteArgs
	// Facts are what the policy judges: counterparties, SOL and tokens out
	// measured by simulation. Every policy decision about the proposal, at
	// proposal and at execution, is taken on Facts and nothing else.
	Facts(network executor.Network, client string) policy.Proposal
	// Prepare builds the exact bytes the proposal stands for, simulates
	// them and measures their effects, filling the kind; it returns the
	// preview the human sees. A *Refusal is a denial, any other error a
	// tool error.
	Prepare(ctx context.Context, env Env) (executor.Preview, error)
	// Admit is told the policy's verdict on the measured facts (e.g. that
	// no cap applies) and returns the kind's own warnings.
	Admit(d policy.Decision) []approval.Flag
	// PrepareApproved rebuilds (or re-simulates) the bytes at execution,
	// held to what the human approved. Its error's text is the failure the
	// agent reads; nothing may have been signed.
	PrepareApproved(ctx context.Context, env Env, id string) (*Execution, error)
	// CheckLanded is the kind's landed-effects check, run on the fresh kind
	// (Execution.Kind) once its bytes landed: it compares the result with
	// what was approved, may downgrade the outcome to
	// ExecutedWithUnexpectedEffects with a reason, and records what the
	// kind shows afterwards (what was received). Every kind states its
	// own, if only to say the executor's check of its prepared bytes is
	// the whole of it: none is assumed, so a new kind is never judged as
	// a SOL transfer by omission.
	CheckLanded(ctx context.Context, env Env, res *executor.Result)
	// Grant states what a standing grant binds to (GrantOn) or that none
	// ever can (NeverGranted). There is no default: a kind says which.
	Grant() GrantRule

	// The console's and the model's lines.

	// Action is one line for logs and prompts: "send 1.5 USDC to 9Mu…",
	// recipients in full (a look-alike shares what an abbreviation keeps).
	Action() string
	// Amount is the queue row's amount column: "1.5 USDC".
	Amount() string
	// PreviewLines are the kind's lines of the preview the human and the
	// model read ("Action: …", "Spend: …").
	PreviewLines(p *Proposal) []string
	// Structured adds the kind's fields to a pending result.
	Structured(p *Proposal, st map[string]any)
	// Detail lists labelled lines for the console's detail pane.
	Detail(p *Proposal) []approval.DetailLine
	// Executed describes a verified execution for the model.
	Executed(p *Proposal, st map[string]any) string
	// TokenTTL is how long an approval's token lives, given the default.
	TokenTTL(def time.Duration) time.Duration
	// Clone copies the kind for a snapshot.
	Clone() Kind
}

// Execution is one approved proposal on its way to the chain, as its
// kind's PrepareApproved built it: the one execution adapter every kind
// goes through. The run skeleton uses it in a fixed order: reserve on
// Kind's facts, Send (which must call persist before the bytes leave),
// Kind.CheckLanded, then settle by the result's outcome.
type Execution struct {
	// Kind is the proposal's kind as of this execution: the fresh measure
	// the reservation is judged on, and later what was signed and received.
	Kind Kind
	// LastValid is the block height after which the signed bytes can no
	// longer land: a submission still unknown is followed until then, and
	// released once it has passed.
	LastValid uint64
	// Send signs (or has signed) the bytes, calls persist with the
	// signature before they leave the console, hands them on (an RPC send,
	// or an HTTP retry carrying them), and follows them to an outcome. The
	// error is non-nil only when nothing left the console.
	Send func(ctx context.Context, persist func(solana.Signature) error, progress func(executor.Progress)) (*executor.Result, error)
}

// Refusal is a kind's "no" that is a policy denial (an ordinary tool result
// that feeds the retry breaker), as opposed to a malformed or impossible
// request (a tool error).
type Refusal struct{ Decision policy.Decision }

func (r *Refusal) Error() string { return r.Decision.Rule + ": " + r.Decision.Reason }

// Answered is a kind's answer from Draft that is neither a proposal nor a
// refusal: the call needed no approval (x402_fetch, when the server asked
// no payment, answers with the server's response as a read).
type Answered struct{ Result wire.CallResult }

func (a *Answered) Error() string { return a.Result.Text }

// Refuse builds a *Refusal.
func Refuse(rule, reason string) error {
	return &Refusal{Decision: policy.Decision{Rule: rule, Reason: reason}}
}

// Env is what a kind's hooks may use of the console: the chain, the key's
// address, the policy in force, mint labels and the audit trail. It is an
// interface so that the kinds' contract names no Hub: the hub's queue,
// tokens and locks stay out of a kind's reach (the core's env.go
// implements it).
type Env interface {
	// ProposalMemo is the memo solgate writes into the transactions it
	// builds itself for this proposal: "solgate <proposal id>" ("" in a
	// draft that is not yet a proposal). It makes every execution's bytes
	// its own (two identical approved transfers in one blockhash would
	// otherwise be one signature, and the second refused as already
	// processed), and ties the transaction on chain to its audit row. The
	// preview carries the same memo, so the approved compute budget
	// measured it.
	ProposalMemo() string
	Executor() *executor.Executor
	// Swapper is nil when the console has no swap API.
	Swapper() *executor.Swapper
	Network() executor.Network
	Policy() policy.Config
	Wallet() solana.PublicKey
	// Genesis is the cluster's genesis hash (x402 names the cluster by it).
	Genesis() string
	// Label reads a mint's facts and sanitised metadata.
	Label(ctx context.Context, mint solana.PublicKey) (TokenLabel, error)
	// LabelOf is the label of a mint the executor has read.
	LabelOf(info *executor.TokenInfo) TokenLabel
	// Audit appends a row to the audit trail.
	Audit(kind, proposalID string, body map[string]any)
	// RecordX402 keeps what identifies this proposal's signed x402 payment
	// on chain, in the store (for the next console) and for the follower,
	// before the payment is signed: from then on only the chain settles or
	// releases its reservation. Nothing may be sent when it fails.
	RecordX402(r executor.X402Record) error
}

// Registry holds the write kinds a console serves, keyed by tool name.
type Registry struct {
	kinds map[string]Registration
}

// NewRegistry builds a registry of kinds; a duplicate tool or a nil kind is
// a programming error.
func NewRegistry(kinds ...Registration) (*Registry, error) {
	r := &Registry{kinds: map[string]Registration{}}
	for _, k := range kinds {
		if err := r.add(k); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Registry) add(k Registration) error {
	if k == nil || k.Tool() == "" {
		return errors.New("register write kind: a kind needs a tool name")
	}
	if _, dup := r.kinds[k.Tool()]; dup {
		return fmt.Errorf("register write kind: %s is registered twice", k.Tool())
	}
	r.kinds[k.Tool()] = k
	return nil
}

// Lookup finds a tool's registration.
func (r *Registry) Lookup(tool string) (Registration, bool) {
	k, ok := r.kinds[tool]
	return k, ok
}

// Tools lists the registered tools, sorted.
func (r *Registry) Tools() []string {
	out := make([]string, 0, len(r.kinds))
	for t := range r.kinds {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// defaultKinds is filled by Register from each kind's own file.
var defaultKinds = &Registry{kinds: map[string]Registration{}}

// Register adds a kind to the registry every console serves by default.
// Call it from an init function in the kind's own file; it panics on a
// duplicate, which only a programming error can cause.
func Register(k Registration) {
	if err := defaultKinds.add(k); err != nil {
		panic(err)
	}
}

// Default is the registry of every kind registered with Register.
func Default() *Registry { return defaultKinds }

// RegisteredTools lists the write tools of the default registry.
func RegisteredTools() []string { return slices.Clone(defaultKinds.Tools()) }
