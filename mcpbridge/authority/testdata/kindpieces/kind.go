// Package kindpieces is a write kind as small as a kind can be, for
// TestAKindMustStateItsPieces: built as it is, it compiles; with its
// landed-effects check or its grant rule taken out, it must not.
package kindpieces

import (
	"context"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy"
)

type stakeArgs struct{}

func (stakeArgs) ToolName() string              { return "stake_sol" }
func (stakeArgs) Normalized() map[string]string { return nil }
func (stakeArgs) Fingerprint() string           { return "" }
func (stakeArgs) ConfirmToken() string          { return "" }
func (stakeArgs) Described() string             { return "stake" }
func (stakeArgs) Recipient() string             { return "" }

type stakeKind struct{}

func (stakeKind) Tool() string { return "stake_sol" }
func (stakeKind) Parse(map[string]any) (args.WriteArgs, error) {
	return stakeArgs{}, nil
}
func (stakeKind) Draft(context.Context, writekind.Env, args.WriteArgs) (writekind.Kind, error) {
	return &stakeProposal{}, nil
}

type stakeProposal struct{}

func (k *stakeProposal) Args() args.WriteArgs                           { return stakeArgs{} }
func (k *stakeProposal) Facts(executor.Network, string) policy.Proposal { return policy.Proposal{} }
func (k *stakeProposal) Prepare(context.Context, writekind.Env) (executor.Preview, error) {
	return executor.Preview{}, nil
}
func (k *stakeProposal) Admit(policy.Decision) []approval.Flag { return nil }
func (k *stakeProposal) PrepareApproved(context.Context, writekind.Env, string) (*writekind.Execution, error) {
	return nil, nil
}
func (k *stakeProposal) CheckLanded(context.Context, writekind.Env, *executor.Result) {}                                        // piece: landed
func (k *stakeProposal) Grant() writekind.GrantRule                                   { return writekind.NeverGranted("test") } // piece: grant
func (k *stakeProposal) Action() string                                               { return "stake" }
func (k *stakeProposal) Amount() string                                               { return "" }
func (k *stakeProposal) PreviewLines(*writekind.Proposal) []string                    { return nil }
func (k *stakeProposal) Structured(*writekind.Proposal, map[string]any)               {}
func (k *stakeProposal) Detail(*writekind.Proposal) []approval.DetailLine             { return nil }
func (k *stakeProposal) Executed(*writekind.Proposal, map[string]any) string          { return "" }
func (k *stakeProposal) TokenTTL(def time.Duration) time.Duration                     { return def }
func (k *stakeProposal) Clone() writekind.Kind                                        { return &stakeProposal{} }

func init() { writekind.Register(stakeKind{}) }
