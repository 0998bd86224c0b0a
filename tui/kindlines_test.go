package tui

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy"
)

// stakeKind is a write kind the console has never heard of, declared here
// and nowhere in the authority: the console must draw it entirely from its
// own lines.
type stakeKind struct{ a stakeArgs }

type stakeArgs struct{ validator string }

func (a stakeArgs) ToolName() string              { return "stake_sol" }
func (a stakeArgs) Normalized() map[string]string { return map[string]string{"validator": a.validator} }
func (a stakeArgs) Fingerprint() string           { return args.Fingerprint("stake_sol", a.Normalized()) }
func (a stakeArgs) ConfirmToken() string          { return "" }
func (a stakeArgs) Described() string             { return "stake to " + a.validator }
func (a stakeArgs) Recipient() string             { return a.validator }

func (k *stakeKind) Args() args.WriteArgs { return k.a }
func (k *stakeKind) Facts(executor.Network, string) policy.Proposal {
	return policy.Proposal{}
}
func (k *stakeKind) Prepare(context.Context, writekind.Env) (executor.Preview, error) {
	return executor.Preview{}, nil
}
func (k *stakeKind) Admit(policy.Decision) []approval.Flag { return nil }
func (k *stakeKind) PrepareApproved(context.Context, writekind.Env, string) (*writekind.Execution, error) {
	return nil, nil
}
func (k *stakeKind) CheckLanded(context.Context, writekind.Env, *executor.Result) {}
func (k *stakeKind) Grant() writekind.GrantRule                                   { return writekind.NeverGranted("a test kind") }
func (k *stakeKind) Action() string                                               { return "stake 2 SOL with validator " + k.a.validator }
func (k *stakeKind) Amount() string                                               { return "2 SOL staked" }
func (k *stakeKind) PreviewLines(*authority.Proposal) []string                    { return nil }
func (k *stakeKind) Structured(*authority.Proposal, map[string]any)               {}
func (k *stakeKind) Detail(*authority.Proposal) []approval.DetailLine {
	return []approval.DetailLine{
		{Role: approval.LineBanner, Value: "LOCKED — the stake cannot be withdrawn for 2 epochs"},
		{Label: "Action", Value: k.Action()},
		{Label: "Validator", Value: k.a.validator + "\x1b]0;pwned\x07"},
		{Value: "the validator's commission is 100%", Warn: true},
		{Label: "Stake program", Value: "delegate stake account to the validator", Role: approval.LineInstruction},
	}
}
func (k *stakeKind) Executed(*authority.Proposal, map[string]any) string { return "" }
func (k *stakeKind) TokenTTL(def time.Duration) time.Duration            { return def }
func (k *stakeKind) Clone() writekind.Kind                               { c := *k; return &c }

func TestConsoleDrawsAnyKindThroughItsOwnLines(t *testing.T) {
	validator := pubkey("validator").String()
	p := &authority.Proposal{
		ID: "p_stake00001", Seq: 1, Tool: "stake_sol", Client: "agent", Fingerprint: hash("stake")[:32],
		Kind:  &stakeKind{a: stakeArgs{validator: validator}},
		Flags: []approval.Flag{{Kind: "stake_lock", Text: "stake locks the SOL for two epochs", Short: "LOCKED"}, {Kind: "commission", Text: "the validator's commission is 100%"}},
		Spend: 2_000_005_000, CreatedAt: t0.Add(-time.Second), ExpiresAt: t0.Add(10 * time.Minute), Status: approval.StatusPending,
	}
	m := testModel(viewOpts{noColor: true}, []*authority.Proposal{p}, spendState(0, 0, false))
	got := flatDetail(m, 140)
	for _, want := range []string{
		"[!! LOCKED !!] — the stake cannot be withdrawn for 2 epochs",
		"⚠ stake locks the SOL for two epochs",
		"Action stake 2 SOL with validator " + validator,
		"Validator " + validator,
		"⚠ the validator's commission is 100%",
		"Program Stake program: delegate stake account to the validator",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%q not in the detail of a new kind:\n%s", want, got)
		}
	}
	if strings.Contains(got, "pwned") {
		t.Errorf("a kind's line reached the screen unsanitised:\n%s", got)
	}
	// A warning the kind shows under its line is not repeated at the top.
	if n := strings.Count(got, "commission is 100%"); n != 1 {
		t.Errorf("the commission warning appears %d times:\n%s", n, got)
	}
	out := screen(t, m, 140, 40)
	for _, want := range []string{"2 SOL staked", "LOCKED"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q not in the queue row:\n%s", want, out)
		}
	}
}

// The console names no concrete kind: no type switch, no assertion, no
// field of one. A new kind then needs no console change.
func TestConsoleNamesNoConcreteKind(t *testing.T) {
	kinds := []string{"TransferProposal", "TokenTransferProposal", "SwapProposal"}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			for _, k := range kinds {
				if sel.Sel.Name == k {
					t.Errorf("%s names authority.%s: the console must draw every kind through its lines", fset.Position(sel.Pos()), k)
				}
			}
			if sel.Sel.Name == "Facts" {
				t.Errorf("%s reads a kind's Facts: policy facts are not display getters", fset.Position(sel.Pos()))
			}
			return true
		})
	}
}
