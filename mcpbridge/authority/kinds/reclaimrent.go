package kinds

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// reclaim_rent closes the wallet's empty token accounts (SPL Token and
// Token-2022) and returns their rent to the wallet. The closes go behind
// the compute budget and priority fee a transfer carries
// (executor.PrepareBudgeted), bound by the approval as a transfer's is. The
// whole kind is this file and its declaration (mcpbridge/wire/reclaimrent.go).

func init() { writekind.Register(reclaimRentKind{}) }

type reclaimRentKind struct{}

func (reclaimRentKind) Tool() string { return wire.ToolReclaimRent }

// Parse: confirm is the only argument.
func (reclaimRentKind) Parse(raw map[string]any) (args.WriteArgs, error) {
	const tool = wire.ToolReclaimRent
	var a ReclaimArgs
	if err := args.CheckArgNames(tool, raw); err != nil {
		return a, err
	}
	var err error
	a.Confirm, err = args.ParseConfirm(tool, raw["confirm"])
	return a, err
}

// Draft reads the wallet's token accounts and keeps the ones it may close,
// at most wire.MaxReclaimAccounts (one transaction's worth) per proposal.
func (reclaimRentKind) Draft(ctx context.Context, env writekind.Env, wa args.WriteArgs) (writekind.Kind, error) {
	all, err := closableAccounts(ctx, env)
	if err != nil {
		return nil, errors.New("could not read the wallet's token accounts (nothing was proposed): " + err.Error())
	}
	if len(all) == 0 {
		return nil, errors.New("nothing to reclaim: the wallet has no empty token account it can close")
	}
	n := min(len(all), wire.MaxReclaimAccounts)
	return &ReclaimProposal{A: wa.(ReclaimArgs), Accounts: all[:n], Remaining: len(all) - n, Spend: signatureFee}, nil
}

// ReclaimArgs are reclaim_rent's arguments: none but confirm. Every call
// means the same thing, so the token binds to the tool alone; the accounts
// it closes are the approved proposal's, held to at execution.
type ReclaimArgs struct{ Confirm string }

func (a ReclaimArgs) ToolName() string              { return wire.ToolReclaimRent }
func (a ReclaimArgs) ConfirmToken() string          { return a.Confirm }
func (a ReclaimArgs) Recipient() string             { return "" }
func (a ReclaimArgs) Described() string             { return "close the wallet's empty token accounts" }
func (a ReclaimArgs) Normalized() map[string]string { return map[string]string{} }
func (a ReclaimArgs) Fingerprint() string {
	return args.Fingerprint(wire.ToolReclaimRent, a.Normalized())
}

// ReclaimAccount is one token account to close.
type ReclaimAccount struct {
	Address, Mint, Program solana.PublicKey
	Lamports               uint64 // what closing it returns to the wallet
}

// ReclaimProposal is a reclaim_rent proposal.
type ReclaimProposal struct {
	A        ReclaimArgs
	Accounts []ReclaimAccount
	// Remaining are closable accounts left for another call.
	Remaining int
	// Spend is the SOL leaving the wallet as simulated: the fee, its
	// priority fee included.
	Spend uint64
	// Budget is the approved compute budget: execution keeps its limit and
	// pays no higher a priority fee.
	Budget executor.Budget
	// Effects are the simulation's measure of the exact bytes; Landed the
	// landed transaction's, once verified.
	Effects executor.Effects
	Landed  *executor.Effects
}

var _ writekind.Kind = (*ReclaimProposal)(nil)

func (k *ReclaimProposal) Args() args.WriteArgs                     { return k.A }
func (k *ReclaimProposal) TokenTTL(def time.Duration) time.Duration { return def }
func (k *ReclaimProposal) Clone() writekind.Kind {
	c := *k
	c.Accounts = slices.Clone(k.Accounts)
	return &c
}

// Rent is what the accounts return together.
func (k *ReclaimProposal) Rent() uint64 {
	var sum uint64
	for _, a := range k.Accounts {
		sum = writekind.SumOrMax(sum, a.Lamports)
	}
	return sum
}

// Facts: the value comes back to the wallet (no counterparty), and the
// fee is what leaves. No mint is listed: nothing of any mint moves, and a
// denied mint's empty account is exactly what an operator wants closed.
func (k *ReclaimProposal) Facts(network executor.Network, client string) policy.Proposal {
	return policy.Proposal{Tool: wire.ToolReclaimRent, Fingerprint: k.A.Fingerprint(), ClientID: client, Network: string(network),
		PaysSelf: true, Lamports: k.Spend}
}

// Prepare builds the closes behind their compute budget and measures the
// exact bytes; the spend the caps see is the fee, priority fee included.
func (k *ReclaimProposal) Prepare(ctx context.Context, env writekind.Env) (executor.Preview, error) {
	b, err := k.prepare(ctx, env, nil)
	if err != nil {
		return executor.Preview{}, err
	}
	k.Effects, k.Spend, k.Budget = b.Preview.Effects, spendOf(b.Preview.Effects), b.Preview.Budget
	pv := b.Preview
	pv.SpendLamports = k.Spend
	return pv, nil
}

func (k *ReclaimProposal) Admit(policy.Decision) []approval.Flag { return nil }

// PrepareApproved reads the approved accounts again and closes exactly
// those: one that no longer qualifies (tokens arrived, frozen, a withheld
// fee) stops everything before signing, and so do more compute units or a
// higher priority fee than the approved budget.
func (k *ReclaimProposal) PrepareApproved(ctx context.Context, env writekind.Env, _ string) (*writekind.Execution, error) {
	now, err := closableAccounts(ctx, env)
	if err != nil {
		return nil, errors.New("could not read the wallet's token accounts at execution, nothing was signed or sent: " + err.Error())
	}
	for _, a := range k.Accounts {
		i := slices.IndexFunc(now, func(b ReclaimAccount) bool { return b.Address.Equals(a.Address) })
		if i < 0 || !now[i].Program.Equals(a.Program) {
			return nil, fmt.Errorf("token account %s can no longer be closed as approved (it holds tokens, was closed or changed); nothing was signed or sent", a.Address)
		}
	}
	fresh := k.Clone().(*ReclaimProposal)
	b, err := fresh.prepare(ctx, env, &k.Budget)
	if err != nil {
		return nil, err
	}
	eff := b.Preview.Effects
	if out := spendOf(eff); out > k.Spend {
		return nil, fmt.Errorf("the closes would now cost %d lamports, more than the %d approved; nothing was signed or sent", out, k.Spend)
	}
	fresh.Effects = eff
	ex, tx, lastValid := env.Executor(), b.Tx, b.LastValidBlockHeight
	return &writekind.Execution{Kind: fresh, LastValid: lastValid,
		Send: func(ctx context.Context, persist func(solana.Signature) error, progress func(executor.Progress)) (*executor.Result, error) {
			return ex.SubmitMeasured(ctx, tx, eff, lastValid, executor.Limits{SOLOut: k.Spend}, persist, progress)
		}}, nil
}

// CheckLanded: the landed transaction closed exactly the approved
// accounts, each paying its lamports to the wallet, and moved no token.
func (k *ReclaimProposal) CheckLanded(_ context.Context, _ writekind.Env, res *executor.Result) {
	if res.Effects == nil {
		return
	}
	eff := *res.Effects
	k.Landed = &eff
	closed := make(map[solana.PublicKey]executor.Closure, len(eff.Closed))
	for _, c := range eff.Closed {
		closed[c.Account] = c
	}
	var diffs []string
	for _, a := range k.Accounts {
		c, ok := closed[a.Address]
		switch {
		case !ok:
			diffs = append(diffs, a.Address.String()+" was not closed")
		case !c.To.Equals(eff.Wallet):
			diffs = append(diffs, fmt.Sprintf("%s paid its %d lamports to %s", a.Address, c.Lamports, c.To))
		}
		delete(closed, a.Address)
	}
	for acc := range closed {
		diffs = append(diffs, acc.String()+" was closed without approval")
	}
	if len(eff.TokensOut) > 0 {
		diffs = append(diffs, "tokens left the wallet")
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		res.Outcome, res.Reason = executor.ExecutedWithUnexpectedEffects, "the landed closes differ from the approved ones: "+strings.Join(diffs, "; ")
	}
}

// Grant: a grant covers reclaiming into this wallet, up to the number of
// accounts approved per call.
func (k *ReclaimProposal) Grant() writekind.GrantRule {
	return writekind.GrantOn("the wallet itself", uint64(len(k.Accounts)))
}

func (k *ReclaimProposal) Action() string {
	return fmt.Sprintf("close %d empty token account(s), returning %s to the wallet", len(k.Accounts), writekind.SOL(k.Rent()))
}

func (k *ReclaimProposal) Amount() string { return "+" + writekind.SOL(k.Rent()) }

func (k *ReclaimProposal) PreviewLines(p *writekind.Proposal) []string {
	out := []string{fmt.Sprintf("Action: %s", k.Action())}
	for _, a := range k.Accounts {
		out = append(out, "Close: "+k.accountLine(a))
	}
	out = append(out,
		fmt.Sprintf("Returns: %s of rent; the wallet pays %s: %s, so it ends up %s (simulated)", writekind.SOL(k.Rent()), writekind.SOL(k.Spend), p.Preview.FeeText(), k.net()),
		fmt.Sprintf("Compute budget: %s; approval allows at most this limit and a %d-lamport priority fee", p.Preview.BudgetText(), p.Preview.Budget.PriorityFee),
	)
	if k.Remaining > 0 {
		out = append(out, fmt.Sprintf("Left for another call: %d more empty account(s)", k.Remaining))
	}
	return out
}

func (k *ReclaimProposal) Structured(p *writekind.Proposal, st map[string]any) {
	accounts := make([]string, len(k.Accounts))
	for i, a := range k.Accounts {
		accounts[i] = a.Address.String()
	}
	st["accounts"], st["rent_lamports"], st["remaining_accounts"] = accounts, strconv.FormatUint(k.Rent(), 10), k.Remaining
}

func (k *ReclaimProposal) Detail(p *writekind.Proposal) []approval.DetailLine {
	out := []approval.DetailLine{{Label: "Action", Value: k.Action()}}
	for i, a := range k.Accounts {
		label := ""
		if i == 0 {
			label = "Closes"
		}
		out = append(out, approval.DetailLine{Label: label, Value: k.accountLine(a)})
	}
	out = append(out,
		approval.DetailLine{Label: "Returns", Value: fmt.Sprintf("%s (%s) of rent to the wallet", approval.SOLText(k.Rent()), approval.LamportsText(k.Rent()))},
		approval.DetailLine{Label: "Fee", Value: fmt.Sprintf("%s (%s): %s; the wallet ends up %s", approval.SOLText(k.Spend), approval.LamportsText(k.Spend), p.Preview.FeeText(), k.net())},
		approval.DetailLine{Label: "Budget", Value: p.Preview.BudgetText()},
	)
	if k.Remaining > 0 {
		out = append(out, approval.DetailLine{Label: "Left", Value: fmt.Sprintf("%d more empty account(s), for another call", k.Remaining)})
	}
	out = append(out, writekind.InstructionLines(p.Preview.Instructions)...)
	return out
}

func (k *ReclaimProposal) Executed(p *writekind.Proposal, st map[string]any) string {
	k.Structured(p, st)
	return fmt.Sprintf("EXECUTED and verified on chain: %d token account(s) closed, %s of rent returned to the wallet. Signature %s, slot %d, fee %d lamports.",
		len(k.Accounts), writekind.SOL(k.Rent()), p.Signature, p.Result.Slot, p.Result.Fee)
}

// net is the wallet's change in words: rent back less the fee.
func (k *ReclaimProposal) net() string {
	if r := k.Rent(); r >= k.Spend {
		return "+" + writekind.SOL(r-k.Spend)
	}
	return "−" + writekind.SOL(k.Spend-k.Rent())
}

func (k *ReclaimProposal) accountLine(a ReclaimAccount) string {
	return fmt.Sprintf("%s (%s, mint %s): +%s", a.Address, executor.ProgramName(a.Program), a.Mint, writekind.SOL(a.Lamports))
}

// prepare builds the closes, each paying the wallet, and the proposal's
// memo behind their compute budget (held to approved when set), and judges
// the simulation of the exact bytes: what the engine refuses is a denial,
// and so is any token leaving or any close the proposal did not name.
func (k *ReclaimProposal) prepare(ctx context.Context, env writekind.Env, approved *executor.Budget) (*executor.Budgeted, error) {
	wallet := env.Wallet()
	ixs := make([]solana.Instruction, 0, len(k.Accounts)+1)
	for _, a := range k.Accounts {
		ix := token.NewCloseAccountInstruction(a.Address, wallet, wallet, nil).Build()
		data, err := ix.Data()
		if err != nil {
			return nil, errors.New("could not build the closes, nothing was signed or sent: " + err.Error())
		}
		// Token-2022 closes an account with the same instruction as SPL
		// Token; only the program differs.
		ixs = append(ixs, solana.NewInstruction(a.Program, ix.Accounts(), data))
	}
	if m := env.ProposalMemo(); m != "" {
		ixs = append(ixs, solana.NewInstruction(solana.MemoProgramID, nil, []byte(m)))
	}
	b, err := env.Executor().PrepareBudgeted(ctx, "the closes", ixs, approved)
	var simErr *executor.SimulationError
	var refusal *executor.EffectsRefusal
	switch {
	case errors.As(err, &simErr):
		return nil, writekind.Refuse("simulation", "the closes would fail: "+simErr.Error())
	case errors.As(err, &refusal):
		return nil, writekind.Refuse("effects", refusal.Error())
	case err != nil:
		return nil, errors.New("could not prepare the closes, nothing was signed or sent: " + err.Error())
	}
	if eff := b.Preview.Effects; len(eff.TokensOut) > 0 || len(eff.Closed) != len(k.Accounts) {
		return nil, writekind.Refuse("effects", fmt.Sprintf("the closes would move tokens or close %d accounts rather than the %d named: %s", len(eff.Closed), len(k.Accounts), eff.Summary()))
	}
	return b, nil
}

// spendOf is what leaves the wallet by eff: the fee, priority included (the
// rent coming back never nets it).
func spendOf(eff executor.Effects) uint64 { return max(eff.SOLOut(), eff.Fee()) }

// Token-2022 account extensions that keep an account from being closed
// here: a withheld transfer fee (closing fails until it is harvested) and
// confidential balances, which this console cannot read.
const (
	extTransferFeeAmount             = 2
	extConfidentialTransferAccount   = 5
	extConfidentialTransferFeeAmount = 17
	tokenAccountLen                  = 165
	accountTypeAccount               = 2 // Token-2022's AccountType byte after the base layout
)

// closableAccounts lists the wallet's token accounts that closing would
// only return rent from: owned by the wallet, no tokens, not frozen, no
// other close authority, a wrapped-SOL account only with nothing wrapped,
// and (Token-2022) no withheld fee or confidential balance. Sorted by
// address.
func closableAccounts(ctx context.Context, env writekind.Env) ([]ReclaimAccount, error) {
	wallet := env.Wallet()
	var out []ReclaimAccount
	for _, program := range []solana.PublicKey{solana.TokenProgramID, solana.Token2022ProgramID} {
		res, err := env.Executor().Client().RPC().GetTokenAccountsByOwner(ctx, wallet, &rpc.GetTokenAccountsConfig{ProgramId: &program},
			&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			return nil, fmt.Errorf("getTokenAccountsByOwner (%s): %w", executor.ProgramName(program), err)
		}
		for _, acct := range res.Value {
			if acct == nil || acct.Account.Data == nil || !acct.Account.Owner.Equals(program) {
				continue
			}
			if a, ok := closable(acct.Account.Data.GetBinary(), acct.Account.Lamports, wallet); ok {
				out = append(out, ReclaimAccount{Address: acct.Pubkey, Mint: a.Mint, Program: program, Lamports: acct.Account.Lamports})
			}
		}
	}
	slices.SortFunc(out, func(a, b ReclaimAccount) int { return strings.Compare(a.Address.String(), b.Address.String()) })
	return out, nil
}

// closable reads one token account's data (the base layout through
// solana-go; Token-2022's extensions, which no library reads, here).
func closable(data []byte, lamports uint64, wallet solana.PublicKey) (token.Account, bool) {
	var a token.Account
	if len(data) < tokenAccountLen || bin.NewBinDecoder(data[:tokenAccountLen]).Decode(&a) != nil {
		return a, false
	}
	switch {
	case !a.Owner.Equals(wallet), a.Amount != 0, a.State != token.Initialized:
		return a, false
	case a.CloseAuthority != nil && !a.CloseAuthority.Equals(wallet):
		return a, false
	case a.IsNative != nil && lamports > *a.IsNative:
		return a, false // wrapped SOL not yet synced: lamports above the reserve are a balance
	}
	if len(data) == tokenAccountLen {
		return a, true
	}
	if data[tokenAccountLen] != accountTypeAccount {
		return a, false
	}
	for off := tokenAccountLen + 1; off+4 <= len(data); {
		typ := binary.LittleEndian.Uint16(data[off:])
		n := int(binary.LittleEndian.Uint16(data[off+2:]))
		off += 4
		if typ == 0 {
			break
		}
		if off+n > len(data) {
			return a, false
		}
		v := data[off : off+n]
		off += n
		switch typ {
		case extTransferFeeAmount:
			if len(v) < 8 || binary.LittleEndian.Uint64(v) != 0 {
				return a, false
			}
		case extConfidentialTransferAccount, extConfidentialTransferFeeAmount:
			return a, false
		}
	}
	return a, true
}
