package authority

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy"
)

// FakeScript is what a FakeKind measures and does, and the record of the
// hooks the skeletons called, in order. It stands in for "any kind" in the
// tests of the skeletons: the chain is not its business.
type FakeScript struct {
	Estimate, Measured, AtExecution uint64 // lamports out at draft, prepare, execution
	SkipPersist                     bool   // a broken kind that sends without persisting
	Repersist                       bool   // the chain learns the transaction by a second signature (x402)
	Outcome                         executor.Outcome
	Downgrade                       string                // Verify turns Executed into unexpected effects with this reason
	Counterparties                  []policy.Counterparty // named besides paying the wallet itself
	// GrantTo, when set, makes the Kind (not its arguments) grantable with
	// this counterparty and the argument n as the amount: terms only the
	// console learns, as an x402 payment's payee.
	GrantTo string

	mu    sync.Mutex
	steps []string
}

func (s *FakeScript) step(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, name)
}

// Steps are the hooks called so far.
func (s *FakeScript) Steps() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.steps...)
}

// NewFakeKind registers tool as a kind that follows script.
func NewFakeKind(tool string, script *FakeScript) writekind.Registration {
	return fakeKind{tool: tool, s: script}
}

type fakeKind struct {
	tool string
	s    *FakeScript
}

func (f fakeKind) Tool() string { return f.tool }

// Parse takes {"n": "digits", "confirm"?}.
func (f fakeKind) Parse(raw map[string]any) (args.WriteArgs, error) {
	n, _ := raw["n"].(string)
	if _, err := strconv.ParseUint(n, 10, 64); err != nil {
		return nil, args.ArgErrorf(f.tool, "n", "n must be a string of digits")
	}
	c, _ := raw["confirm"].(string)
	return fakeArgs{tool: f.tool, n: n, confirm: c}, nil
}

func (f fakeKind) Draft(_ context.Context, _ writekind.Env, a args.WriteArgs) (writekind.Kind, error) {
	f.s.step("draft")
	k := &fakeProposal{a: a.(fakeArgs), s: f.s, out: f.s.Estimate}
	if f.s.GrantTo != "" {
		return &grantableFake{k}, nil
	}
	return k, nil
}

// grantableFake is a fake whose Kind states grant terms.
type grantableFake struct{ *fakeProposal }

func (g *grantableFake) Grant() writekind.GrantRule {
	n, _ := strconv.ParseUint(g.a.n, 10, 64)
	return writekind.GrantOn(g.s.GrantTo, n)
}
func (g *grantableFake) Clone() writekind.Kind { c := *g.fakeProposal; return &grantableFake{&c} }

type fakeArgs struct{ tool, n, confirm string }

func (a fakeArgs) ToolName() string              { return a.tool }
func (a fakeArgs) Normalized() map[string]string { return map[string]string{"n": a.n} }
func (a fakeArgs) Fingerprint() string           { return args.Fingerprint(a.tool, a.Normalized()) }
func (a fakeArgs) ConfirmToken() string          { return a.confirm }
func (a fakeArgs) Described() string             { return "fake " + a.n }
func (a fakeArgs) Recipient() string             { return "" }

type fakeProposal struct {
	a   fakeArgs
	s   *FakeScript
	out uint64
}

func (k *fakeProposal) Args() args.WriteArgs { return k.a }
func (k *fakeProposal) Facts(network executor.Network, client string) policy.Proposal {
	k.s.step(fmt.Sprintf("facts %d", k.out))
	return policy.Proposal{Tool: k.a.tool, Fingerprint: k.a.Fingerprint(), ClientID: client, Network: string(network), PaysSelf: true, Lamports: k.out, Counterparties: k.s.Counterparties}
}
func (k *fakeProposal) Prepare(context.Context, writekind.Env) (executor.Preview, error) {
	k.s.step("prepare")
	k.out = k.s.Measured
	return executor.Preview{SpendLamports: k.out}, nil
}
func (k *fakeProposal) Admit(policy.Decision) []approval.Flag { k.s.step("admit"); return nil }
func (k *fakeProposal) PrepareApproved(context.Context, writekind.Env, string) (*writekind.Execution, error) {
	k.s.step("prepare approved")
	fresh := *k
	fresh.out = k.s.AtExecution
	return &writekind.Execution{Kind: &fresh, LastValid: 1, Send: fresh.send}, nil
}

// Grant: never, unless the script says (grantableFake).
func (k *fakeProposal) Grant() writekind.GrantRule             { return writekind.NeverGranted("a fake kind") }
func (k *fakeProposal) Action() string                         { return "fake " + k.a.n }
func (k *fakeProposal) Amount() string                         { return k.a.n }
func (k *fakeProposal) PreviewLines(*Proposal) []string        { return []string{"Action: fake " + k.a.n} }
func (k *fakeProposal) Structured(*Proposal, map[string]any)   {}
func (k *fakeProposal) Detail(*Proposal) []approval.DetailLine { return nil }
func (k *fakeProposal) Executed(*Proposal, map[string]any) string {
	return "EXECUTED fake"
}
func (k *fakeProposal) TokenTTL(def time.Duration) time.Duration { return def }
func (k *fakeProposal) Clone() writekind.Kind                    { c := *k; return &c }

func (k *fakeProposal) send(_ context.Context, persist func(solana.Signature) error, _ func(executor.Progress)) (*executor.Result, error) {
	var sig solana.Signature
	_, _ = rand.Read(sig[:])
	if !k.s.SkipPersist {
		if err := persist(sig); err != nil {
			return nil, err
		}
		k.s.step("persist")
	}
	k.s.step("send")
	if k.s.Repersist {
		_, _ = rand.Read(sig[:])
		if err := persist(sig); err != nil {
			return nil, err
		}
	}
	return &executor.Result{Outcome: k.s.Outcome, Signature: sig, Slot: 7, Fee: 5000}, nil
}
func (k *fakeProposal) CheckLanded(_ context.Context, _ writekind.Env, res *executor.Result) {
	k.s.step("verify")
	if k.s.Downgrade != "" && res.Outcome == executor.Executed {
		res.Outcome, res.Reason = executor.ExecutedWithUnexpectedEffects, k.s.Downgrade
	}
}

// FakeRegistry is the default kinds plus the fake ones.
func FakeRegistry(fakes ...writekind.Registration) *writekind.Registry {
	kinds := []writekind.Registration{}
	for _, t := range writekind.Default().Tools() {
		k, _ := writekind.Default().Lookup(t)
		kinds = append(kinds, k)
	}
	r, err := writekind.NewRegistry(append(kinds, fakes...)...)
	if err != nil {
		panic(err)
	}
	return r
}
