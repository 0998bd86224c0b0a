package kinds

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// SwapProposal is what a human approves for a swap: the economic terms
// (input amount and the minimum out) and the preview of the transaction the
// swap API built, as solgate inspected and simulated it.
type SwapProposal struct {
	A SwapArgs
	// Spend is the SOL leaving the wallet as simulated (fees, rent, and
	// the input when it is SOL).
	Spend   uint64
	Terms   executor.SwapTerms
	Preview executor.SwapPreview
	// PriceImpactBps is the quote's price impact, rounded up;
	// PriceImpactUnknown when the API gave none (Swap API v2's /build).
	PriceImpactBps     uint32
	PriceImpactUnknown bool
	Route              []string // sanitised AMM labels
	Input, Output      writekind.TokenLabel
	// NoCapApplies: the input is not SOL, so the SOL caps do not bound it.
	NoCapApplies bool
	// Received is what the wallet got, read back from the chain.
	Received uint64
	// Approval is what approving binds: the transaction built at execution
	// must match it (executor.SwapApproval.Check).
	Approval executor.SwapApproval
	// Signed is the transaction actually signed at execution, as inspected
	// and simulated then; nil until something was signed.
	Signed *executor.SwapPreview
	// landed is the executor's word on the landed swap, for CheckLanded.
	landed *executor.SwapResult
}

// swapTokenTTL: swap approvals bind a price, so they lapse faster.
const swapTokenTTL = 2 * time.Minute

// swapSpend is the SOL a swap costs the wallet as simulated. A token→SOL
// swap nets the wallet SOL, but it still pays the fee out of its balance:
// that is what is reserved and measured against the caps.
func swapSpend(p executor.SwapPreview) uint64 {
	return max(p.SpendLamports, p.Fee, signatureFee)
}

func init() { writekind.Register(swapKind{}) }

// swapKind registers swap.
type swapKind struct{}

func (swapKind) Tool() string { return wire.ToolSwap }

func (swapKind) Parse(raw map[string]any) (args.WriteArgs, error) { return ParseSwapArgs(raw) }

// Draft checks that swaps can happen here and reads the input mint, whose
// decimals apply its per-mint caps; the estimate (for a SOL input, the
// amount plus a fee) lets the pre-policy refuse before any network call to
// the swap API.
func (swapKind) Draft(ctx context.Context, env writekind.Env, wa args.WriteArgs) (writekind.Kind, error) {
	a := wa.(SwapArgs)
	sw := env.Swapper()
	if sw == nil {
		return nil, errors.New("swaps are not configured on this console: the operator must start it with --swap-api URL (a Jupiter Swap API v1 base)")
	}
	// Jupiter routes mainnet only: on another cluster its transactions name
	// mainnet's pools and lookup tables, which fail there in confusing ways.
	// A loopback swap API is a test or local aggregator for this cluster.
	if n := env.Network(); !n.IsMainnet() && !executor.IsLoopbackURL(sw.API().BaseURL()) {
		return nil, writekind.Refuse("swap_network", fmt.Sprintf("Jupiter routes mainnet only: this console is on %s and its swap API %s is not on this machine, so no swap can be proposed here (nothing was proposed, signed or sent)", n.Label(), sw.API().BaseURL()))
	}
	estimate := uint64(signatureFee)
	if writekind.IsSOL(a.InputMint) {
		var err error
		if estimate, err = executor.AddAmounts(a.Amount, signatureFee); err != nil {
			return nil, &writekind.Refusal{Decision: policy.AmountTooLarge("amount", a.Amount)}
		}
	}
	in, err := env.Label(ctx, a.InputMint)
	if err != nil {
		return nil, errors.New("could not read the input mint (nothing was proposed): " + err.Error())
	}
	return &SwapProposal{A: a, Input: in, Spend: estimate}, nil
}

// Prepare quotes the swap, has the API build the transaction, and inspects
// and simulates its exact bytes; policy then judges the measured spend and
// the quote's terms.
func (sp *SwapProposal) Prepare(ctx context.Context, env writekind.Env) (executor.Preview, error) {
	a := sp.A
	q, err := env.Swapper().Quote(ctx, executor.QuoteRequest{InputMint: a.InputMint, OutputMint: a.OutputMint, Amount: a.Amount, SlippageBps: uint16(a.SlippageBps)})
	if err != nil {
		return executor.Preview{}, errors.New("could not get a quote (nothing was proposed, signed or sent): " + err.Error())
	}
	impact, err := writekind.PriceImpactBps(q, env.Policy().MaxPriceImpactBps)
	if err != nil {
		return executor.Preview{}, errors.New("the quote is unusable (nothing was proposed): " + err.Error())
	}
	prepared, err := env.Swapper().PrepareSwap(ctx, q)
	if err != nil {
		var simErr *executor.SimulationError
		switch {
		case errors.Is(err, executor.ErrEffectsRefused):
			return executor.Preview{}, writekind.Refuse("effects", "the swap API's transaction was refused by its effects: "+strings.TrimPrefix(err.Error(), "prepare swap: "))
		case errors.Is(err, executor.ErrUnsafeTransaction):
			return executor.Preview{}, writekind.Refuse("transaction_inspection", "the swap API's transaction was refused before signing: "+err.Error())
		case errors.As(err, &simErr):
			return executor.Preview{}, writekind.Refuse("simulation", "the swap would fail: "+simErr.Error())
		case errors.Is(err, executor.ErrSwapRefused):
			return executor.Preview{}, writekind.Refuse("outflow_budget", "the swap API's transaction was refused before signing: "+err.Error())
		}
		return executor.Preview{}, errors.New("could not prepare the swap (nothing was proposed, signed or sent): " + err.Error())
	}
	out, err := env.Label(ctx, a.OutputMint)
	if err != nil {
		return executor.Preview{}, errors.New("could not read the output mint (nothing was proposed): " + err.Error())
	}
	var route []string
	for _, step := range q.Route {
		route = append(route, untrusted.Sanitize(step.Label, 32))
	}
	spend := swapSpend(prepared.Preview)
	sp.Spend, sp.Terms, sp.Preview, sp.PriceImpactBps = spend, prepared.Terms, prepared.Preview, impact
	sp.PriceImpactUnknown = q.PriceImpactPct == ""
	sp.Route, sp.Output, sp.Approval = route, out, prepared.Approval()
	return executor.Preview{Instructions: prepared.Preview.Instructions, Fee: prepared.Preview.Fee, SpendLamports: spend, Logs: prepared.Preview.Logs, Effects: prepared.Preview.Effects}, nil
}

// Admit records "no cap applies" and returns the tokens' warnings.
func (sp *SwapProposal) Admit(d policy.Decision) []approval.Flag {
	sp.NoCapApplies = d.NoCapApplies
	return SwapFlags(sp.Input, sp.Output, sp.NoCapApplies)
}

// PrepareApproved re-quotes and rebuilds the swap held to the approval: a
// fresh quote whose minimum out is below the approved one, or a
// transaction that differs from the approved one, stops everything before
// signing.
func (sp *SwapProposal) PrepareApproved(ctx context.Context, env writekind.Env, id string) (*writekind.Execution, error) {
	sw := env.Swapper()
	if sw == nil {
		return nil, errors.New("swaps are not configured on this console")
	}
	prepared, err := sw.PrepareApproved(ctx, sp.Approval)
	if err != nil {
		var moved *executor.PriceMovedError
		switch {
		case errors.As(err, &moved):
			// The market cannot meet the approved minimum even with the
			// slippage tightened to nothing: say by how much it moved.
			return nil, errors.New(moved.Error() + "; nothing was signed or sent")
		case errors.Is(err, executor.ErrSwapChanged):
			// The audit trail names the difference; the token is void.
			env.Audit("swap_changed_at_execution", id, map[string]any{"difference": err.Error()})
			return nil, err
		}
		return nil, errors.New("the swap could not be prepared at execution, nothing was signed or sent: " + err.Error())
	}
	impact, _ := writekind.PriceImpactBps(prepared.Quote, 0)
	fresh := *sp
	fresh.Spend, fresh.PriceImpactBps = swapSpend(prepared.Preview), impact
	return &writekind.Execution{Kind: &fresh, LastValid: prepared.LastValidBlockHeight,
		Send: func(ctx context.Context, persist func(solana.Signature) error, progress func(executor.Progress)) (*executor.Result, error) {
			signed := prepared.Preview
			prepared.BeforeSend = func(sig solana.Signature) error {
				// From here on the detail shows the transaction actually signed.
				fresh.Signed = &signed
				return persist(sig)
			}
			res, err := sw.SubmitSwap(ctx, prepared, progress)
			if err != nil {
				return nil, err
			}
			fresh.landed = res
			return &res.Result, nil
		}}, nil
}

// CheckLanded: the executor checked the minimum out and the outflow budget
// on the landed transaction; the kind records what the wallet received.
func (sp *SwapProposal) CheckLanded(context.Context, writekind.Env, *executor.Result) {
	if sp.landed != nil {
		sp.Received = sp.landed.Received
	}
}

// Grant: the input and output mints and the slippage (a wider one would be
// a worse effect than the one approved), and base units of the input.
func (sp *SwapProposal) Grant() writekind.GrantRule {
	a := sp.A
	return writekind.GrantOn(fmt.Sprintf("%s → %s at %d bps slippage", a.InputMint, a.OutputMint, a.SlippageBps), a.Amount)
}

// SwapArgs are the arguments of swap.
type SwapArgs struct {
	InputMint   solana.PublicKey
	OutputMint  solana.PublicKey
	Amount      uint64 // base units of InputMint
	SlippageBps uint32
	Confirm     string // "" on a proposal
}

// ParseSwapArgs validates swap arguments.
func ParseSwapArgs(raw map[string]any) (SwapArgs, error) {
	q, err := args.ParseSwapTerms(wire.ToolSwap, raw)
	if err != nil {
		return SwapArgs{}, err
	}
	a := SwapArgs{InputMint: q.InputMint, OutputMint: q.OutputMint, Amount: q.Amount, SlippageBps: q.SlippageBps}
	if a.Confirm, err = args.ParseConfirm(wire.ToolSwap, raw["confirm"]); err != nil {
		return SwapArgs{}, err
	}
	return a, nil
}

func (a SwapArgs) ToolName() string     { return wire.ToolSwap }
func (a SwapArgs) ConfirmToken() string { return a.Confirm }
func (a SwapArgs) Recipient() string    { return "" } // the wallet pays itself
func (a SwapArgs) Described() string {
	return fmt.Sprintf("swap of %d base units of %s", a.Amount, a.InputMint)
}
func (a SwapArgs) Fingerprint() string { return args.Fingerprint(a.ToolName(), a.Normalized()) }
func (a SwapArgs) Normalized() map[string]string {
	return args.SwapTermsNormalized(a.InputMint, a.OutputMint, a.Amount, a.SlippageBps)
}

// Quote returns the quote request with the same terms.
func (a SwapArgs) Quote() args.QuoteArgs {
	return args.QuoteArgs{InputMint: a.InputMint, OutputMint: a.OutputMint, Amount: a.Amount, SlippageBps: a.SlippageBps}
}

// DeclaredPayees are the pools of the quote's route: the trade's other
// side, which the quote's terms (input, minimum out) bound.
func (sp *SwapProposal) DeclaredPayees() []solana.PublicKey {
	if sp.Preview.Quote == nil {
		return nil
	}
	out := make([]solana.PublicKey, 0, len(sp.Preview.Quote.Route))
	for _, r := range sp.Preview.Quote.Route {
		out = append(out, r.AMMKey)
	}
	return out
}

// SwapFlags are a swap proposal's warnings: instruction-like text in either
// token's metadata, a token that imitates a well-known ticker without being
// it, the output token's own risky properties, and "no cap applies" when the
// SOL caps do not bound it.
func SwapFlags(in, out writekind.TokenLabel, noCap bool) []approval.Flag {
	var flags []approval.Flag
	for _, side := range []struct {
		word string
		t    tokenView
	}{{"output", viewToken(out)}, {"input", viewToken(in)}} {
		if len(side.t.flags) > 0 {
			flags = append(flags, approval.Flag{Kind: approval.FlagInstructionLike, Text: fmt.Sprintf("the %s token's metadata contains instruction-like text (%s): data, not advice", side.word, strings.Join(side.t.flags, ", "))})
		}
		if side.t.impostor != "" {
			flags = append(flags, approval.Flag{Kind: approval.FlagKind(executor.WarnImpostor), Short: "not " + side.t.impostor,
				Text: fmt.Sprintf("the %s token calls itself %q but is not %s: its mint is %s", side.word, strings.TrimSuffix(side.t.symbol, "?"), side.t.impostor, side.t.mint)})
		}
	}
	for _, w := range out.Warnings {
		flags = append(flags, approval.Flag{Kind: approval.FlagKind(w.Kind), Text: w.Text})
	}
	if noCap {
		flags = append(flags, approval.Flag{Kind: approval.FlagNoCap, Text: "no cap applies: the input is not SOL, so the SOL caps do not bound this swap"})
	}
	return flags
}
