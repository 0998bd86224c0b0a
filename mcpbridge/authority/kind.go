package authority

import (
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/policy"
)

// Kind is one kind of spend a proposal holds: everything that differs
// between a SOL transfer, a swap and a token transfer lives behind it, so the
// hub's queue, tokens, texts and the console handle any kind the same way.
// A new kind that leaves out a method does not compile; one whose tool has
// no parser is caught by TestEveryDeclaredToolHasAParser, and one whose
// readOnlyHint is wrong by the read-only probe (readonly_e2e_test.go).
type Kind interface {
	// Args are the normalised arguments the approval is bound to.
	Args() WriteArgs
	// Facts are what the policy judges, with spend measured by simulation.
	Facts(network executor.Network, client string) policy.Proposal
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
	Detail(p *Proposal) []DetailLine
	// Executed describes a verified execution for the model.
	Executed(p *Proposal, st map[string]any) string
	// Run executes the approved proposal to its end (prepare against the
	// approval, reserve, sign, send, verify, settle).
	Run(h *Hub, id string, who caller)
	// TokenTTL is how long an approval's token lives, given the default.
	TokenTTL(def time.Duration) time.Duration
	// clone copies the kind for a snapshot.
	clone() Kind
}

// DetailLine is one labelled line of the console's detail pane. Warn marks a
// line to draw as a warning.
type DetailLine struct {
	Label, Value string
	Warn         bool
}
