package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// TokenAccountRent is the rent-exempt minimum of a 165-byte SPL token account
// (the same on every cluster): the most a created associated token account costs.
const TokenAccountRent = 2_039_280

// ErrPriceMoved is matched by *PriceMovedError.
var ErrPriceMoved = errors.New("price moved beyond the approved minimum — nothing was swapped")

// ErrSwapRefused is wrapped by refusals found after inspection, from the
// simulation: the transaction would give less than the minimum, or take more
// than the input. Nothing was signed or sent.
var ErrSwapRefused = errors.New("swap refused")

// SwapOptions configure a Swapper. Zero values mean the defaults.
type SwapOptions struct {
	// SwapPrograms are aggregator programs allowed in swap transactions
	// besides the builtins (system, compute budget, token, token-2022,
	// associated token account) and JupiterV6Program, which is always known.
	// Their instructions cannot be decoded leg by leg; what they do is judged
	// by the whole-wallet simulation against the outflow budget.
	SwapPrograms []solana.PublicKey
}

// Swapper quotes, prepares and submits swaps for an executor's wallet through
// a swap API. It signs nothing it has not inspected and simulated.
type Swapper struct {
	ex   *Executor
	api  *SwapClient
	opts SwapOptions
}

// NewSwapper joins an executor (wallet, RPC, confirm loop) and a swap API.
//
// Swaps follow the executor's fee settings (FeeSettings), the same ones as
// every other kind: --max-priority-fee-lamports caps them, a fixed fee is
// asked as that many lamports, and off asks none.
func NewSwapper(ex *Executor, api *SwapClient, opts SwapOptions) *Swapper {
	return &Swapper{ex: ex, api: api, opts: opts}
}

// PriorityFee is what a swap asks the API for, from the operator's fee
// settings.
//
// Why the API's priority level and not solgate's own unit price: the API
// sets the compute-unit limit (dynamicComputeUnitLimit, from its own
// simulation) and spreads a lamport amount over it, so a unit price solgate
// estimated could only be turned into lamports with a guessed limit, and
// bytes the API built (and, with some routes, co-signed) cannot be re-priced
// afterwards. Asking for a level with maxLamports set to the operator's cap
// gets a fee sized for the real limit in one request (the free tier allows
// few), and the bound is the operator's, not the API's "auto" cap. The API's
// word is not trusted for it: the inspector holds the transaction's price ×
// limit to the same cap, and the approval binds the previewed fee as the
// upper bound at execution, as for transfers.
//
// The level follows the percentile setting: up to p25 "medium", up to p50
// "high", above (the default p75) "veryHigh".
func (s *Swapper) PriorityFee() SwapPriorityFee {
	f := s.ex.opts.Fees
	switch {
	case f.Fixed:
		return SwapPriorityFee{Lamports: f.FixedLamports}
	case f.MaxLamports == 0:
		return SwapPriorityFee{}
	case f.Percentile <= 25:
		return SwapPriorityFee{Level: "medium", MaxLamports: f.MaxLamports}
	case f.Percentile <= 50:
		return SwapPriorityFee{Level: "high", MaxLamports: f.MaxLamports}
	}
	return SwapPriorityFee{Level: "veryHigh", MaxLamports: f.MaxLamports}
}

// maxPriorityFee is the most priority fee a swap transaction may carry:
// the operator's cap.
func (s *Swapper) maxPriorityFee() uint64 { return s.ex.opts.Fees.MaxLamports }

// API is the swap API client.
func (s *Swapper) API() *SwapClient { return s.api }

// Quote asks the API for an ExactIn quote, with the wallet as the taker.
func (s *Swapper) Quote(ctx context.Context, r QuoteRequest) (*Quote, error) {
	r.Taker = s.ex.key.PublicKey()
	return s.api.Quote(ctx, r)
}

// SwapTerms are the economic terms a human approves: what goes in, and the
// least that must come out. ExpectedOut is the quote's expected output when
// it was approved; it measures how far the price moved since, and binds
// nothing.
type SwapTerms struct {
	InputMint   solana.PublicKey
	OutputMint  solana.PublicKey
	InAmount    uint64
	SlippageBps uint16
	MinimumOut  uint64
	ExpectedOut uint64
}

// Terms are the quote's terms (MinimumOut = otherAmountThreshold).
func (q *Quote) Terms() SwapTerms {
	return SwapTerms{InputMint: q.InputMint, OutputMint: q.OutputMint, InAmount: q.InAmount, SlippageBps: q.SlippageBps, MinimumOut: q.OtherAmountThreshold, ExpectedOut: q.OutAmount}
}

// PriceMovedError: the market no longer meets the approved minimum, even
// with the slippage tightened to nothing. Fresh is the last quote asked.
type PriceMovedError struct {
	Approved SwapTerms
	Fresh    *Quote
}

// MovedBps is how far the expected output fell since approval, in basis
// points of the approved expected output, rounded up (0 when the approval
// carried no expected output or the output did not fall).
func (e *PriceMovedError) MovedBps() uint64 {
	was, now := e.Approved.ExpectedOut, e.Fresh.OutAmount
	if was == 0 || now >= was {
		return 0
	}
	d := new(big.Int).Mul(new(big.Int).SetUint64(was-now), big.NewInt(10_000))
	q, r := d.QuoRem(d, new(big.Int).SetUint64(was), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Uint64()
}

func (e *PriceMovedError) Error() string {
	if e.Approved.ExpectedOut > 0 {
		return fmt.Sprintf("%s: the price moved %s%% against the swap since approval (expected out %d then, %d now); the market gives at most %d, below the approved minimum of %d",
			ErrPriceMoved, formatBpsPercent(e.MovedBps()), e.Approved.ExpectedOut, e.Fresh.OutAmount, e.Fresh.OutAmount, e.Approved.MinimumOut)
	}
	return fmt.Sprintf("%s: the market gives at most %d, below the approved minimum of %d", ErrPriceMoved, e.Fresh.OutAmount, e.Approved.MinimumOut)
}

func (e *PriceMovedError) Is(target error) bool { return target == ErrPriceMoved }

// formatBpsPercent renders basis points as a percentage without floats.
func formatBpsPercent(bps uint64) string {
	return fmt.Sprintf("%d.%02d", bps/100, bps%100)
}

// tightenedSlippage is the largest slippage at which a quote expecting out
// still guarantees at least minimum: 10000 − ceil(minimum × 10000 / out).
// ok is false when even no slippage would not reach the minimum.
func tightenedSlippage(out, minimum uint64) (uint16, bool) {
	if out == 0 || out < minimum {
		return 0, false
	}
	n := new(big.Int).Mul(new(big.Int).SetUint64(minimum), big.NewInt(10_000))
	q, r := n.QuoRem(n, new(big.Int).SetUint64(out), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if q.Cmp(big.NewInt(10_000)) > 0 {
		return 0, false
	}
	return uint16(10_000 - q.Int64()), true
}

// Requote asks for a fresh quote on the approved terms. The approval binds
// the input, the minimum out and the fee bound, not the route nor the
// slippage: when the fresh quote's minimum is below the approved one but the
// market still expects at least that much, it asks once more with the
// slippage tightened so the minimum is at least the approved one. A lower
// minimum is never accepted: when the market cannot meet the approved
// minimum at all, it returns the last quote with a *PriceMovedError stating
// how far the price moved, and the caller must not proceed.
func (s *Swapper) Requote(ctx context.Context, approved SwapTerms) (*Quote, error) {
	ask := func(bps uint16) (*Quote, error) {
		q, err := s.api.Quote(ctx, QuoteRequest{InputMint: approved.InputMint, OutputMint: approved.OutputMint, Amount: approved.InAmount, SlippageBps: bps, Taker: s.ex.key.PublicKey()})
		if err != nil {
			return nil, fmt.Errorf("re-quote: %w", err)
		}
		return q, nil
	}
	q, err := ask(approved.SlippageBps)
	if err != nil || q.OtherAmountThreshold >= approved.MinimumOut {
		return q, err
	}
	bps, ok := tightenedSlippage(q.OutAmount, approved.MinimumOut)
	if !ok || bps >= approved.SlippageBps {
		return q, &PriceMovedError{Approved: approved, Fresh: q}
	}
	tight, err := ask(bps)
	if err != nil {
		return nil, err
	}
	if tight.OtherAmountThreshold < approved.MinimumOut {
		// The market moved again between the two quotes.
		return tight, &PriceMovedError{Approved: approved, Fresh: tight}
	}
	return tight, nil
}

// TokenChange is one of the wallet's token accounts before and after.
type TokenChange struct {
	Account solana.PublicKey
	Mint    solana.PublicKey
	Pre     uint64
	Post    uint64
}

// SwapPreview describes a swap transaction from its bytes and its simulation.
type SwapPreview struct {
	Quote        *Quote
	Instructions []InstructionSummary
	Programs     []solana.PublicKey
	LookupTables []solana.PublicKey
	// Cosigners signed already (the pool on localnet).
	Cosigners []solana.PublicKey
	// ExpectedOut is the quote's outAmount, MinimumOut its otherAmountThreshold;
	// SimulatedOut is what the simulation gave the wallet (≥ MinimumOut, or
	// PrepareSwap refuses).
	ExpectedOut  uint64
	MinimumOut   uint64
	SimulatedOut uint64
	// Wallet is the wallet's SOL before and after in the simulation; Tokens
	// its input and output token accounts.
	Wallet BalanceChange
	Tokens []TokenChange
	// Fee is what the fee payer is charged (signatures + PriorityFee).
	Fee         uint64
	PriorityFee uint64
	// UnitLimit and UnitPrice are the transaction's compute budget (price
	// in micro-lamports per unit); PriorityFeeSource says what was asked of
	// the API (the operator's cap included); MaxPriorityFee is the most
	// priority fee the approval allows at execution: this one, as for
	// transfers.
	UnitLimit         uint64
	UnitPrice         uint64
	PriorityFeeSource string
	MaxPriorityFee    uint64
	// SpendLamports is the wallet's simulated SOL outflow, wrapped SOL
	// included: input (when SOL) + fee + rent of accounts it creates. SOL
	// caps are measured against it.
	SpendLamports uint64
	// PaidFrom names the accounts the input actually leaves from, as the
	// effects show it ("wrapped SOL account …", "SOL (native)").
	PaidFrom string
	// Effects is the engine's whole measure of the simulated bytes.
	Effects       Effects
	MessageSHA256 string
	Logs          []string
	UnitsConsumed uint64
}

// SwapTimings split preparation.
type SwapTimings struct {
	Build    time.Duration // the API's /swap
	Inspect  time.Duration // lookup tables, mints, inspection
	Simulate time.Duration // balances before + simulation
	Total    time.Duration
}

// PreparedSwap is an inspected, simulated, unsigned swap transaction.
type PreparedSwap struct {
	Quote      *Quote
	Terms      SwapTerms
	Tx         *ForeignTx
	Inspection *Inspection
	Preview    SwapPreview
	// LastValidBlockHeight is what the confirm loop uses to call a send
	// expired: the larger of the API's claim and our node's height + 150, so
	// an API that understates it cannot make us call a live transaction dead.
	LastValidBlockHeight uint64
	// BeforeSend, when set, runs after signing and before the first send;
	// an error stops the submission with nothing sent.
	BeforeSend              func(solana.Signature) error
	APILastValidBlockHeight uint64
	Timings                 SwapTimings

	// Effect is the effects engine's measure of the simulated bytes;
	// Budget what they may do (PrepareSwap refused them otherwise).
	Effect Effects
	Budget SwapBudget
	view   txView
	sim    simulation // the watched accounts as the simulation read them

	outAccount     solana.PublicKey // the wallet's output token account (zero for SOL out)
	inAccount      solana.PublicKey // the wallet's input token account (zero for SOL in)
	walletTokens   []solana.PublicKey
	walletAccounts map[solana.PublicKey]bool
	stats          CallStats
	submitted      atomic.Bool
}

// PrepareSwap has the API build the transaction for q, inspects it, and
// simulates it unsigned with the wallet's accounts, so the preview shows the
// SOL and tokens that would move. Any refusal is returned before anything is
// signed: *InspectionError (ErrUnsafeTransaction), *SimulationError, or an
// ErrSwapRefused when the simulation gives less than q's minimum or takes
// more than its input.
func (s *Swapper) PrepareSwap(ctx context.Context, q *Quote) (*PreparedSwap, error) {
	if q == nil {
		return nil, errors.New("prepare swap: no quote")
	}
	e := s.ex
	ctx, meter := withMeter(ctx)
	start := time.Now()
	wallet := e.key.PublicKey()
	p := &PreparedSwap{Quote: q, Terms: q.Terms()}

	t0 := time.Now()
	fee := s.PriorityFee()
	stx, err := s.api.SwapTransactionWithFee(ctx, q, wallet, fee)
	if err != nil {
		return nil, fmt.Errorf("prepare swap: %w", err)
	}
	if stx.Quote != nil {
		// Swap API v2: the transaction is its own build's, with that
		// build's minimum; judged, previewed and held to an approval as
		// such.
		q = stx.Quote
		p.Quote, p.Terms = q, q.Terms()
	}
	p.Tx = stx.Tx
	p.APILastValidBlockHeight = stx.LastValidBlockHeight
	p.Timings.Build = time.Since(t0)

	// Lookup tables and the mints' token programs, in one round trip.
	t0 = time.Now()
	tables := p.Tx.LookupTables()
	var mints []solana.PublicKey
	for _, m := range []solana.PublicKey{q.InputMint, q.OutputMint} {
		if !m.Equals(WrappedSOL) {
			mints = append(mints, m)
		}
	}
	accts, err := e.client.multipleAccounts(ctx, append(append([]solana.PublicKey{}, tables...), mints...))
	if err != nil {
		return nil, fmt.Errorf("prepare swap: %w", err)
	}
	resolved := LookupTables{}
	for i, k := range tables {
		a := accts[i]
		if a == nil || a.Data == nil {
			return nil, fmt.Errorf("prepare swap: %w", refuse("lookup table %s does not exist", k))
		}
		addrs, err := ParseLookupTable(a.Owner, a.Data.GetBinary())
		if err != nil {
			return nil, fmt.Errorf("prepare swap: %w", refuse("lookup table %s: %v", k, err))
		}
		resolved[k] = addrs
	}
	tokenProgram := map[solana.PublicKey]solana.PublicKey{}
	for i, m := range mints {
		a := accts[len(tables)+i]
		if a == nil {
			return nil, fmt.Errorf("prepare swap: mint %s does not exist", m)
		}
		if !a.Owner.Equals(solana.TokenProgramID) && !a.Owner.Equals(solana.Token2022ProgramID) {
			return nil, fmt.Errorf("prepare swap: %s is not a token mint (owner %s)", m, a.Owner)
		}
		tokenProgram[m] = a.Owner
	}
	insp, err := Inspect(p.Tx, resolved, InspectRules{
		Wallet: wallet, InputMint: q.InputMint, OutputMint: q.OutputMint, InAmount: q.InAmount,
		Pools: q.Pools(), SwapPrograms: s.opts.SwapPrograms, MaxPriorityFeeLamports: s.maxPriorityFee(),
	})
	if err != nil {
		return nil, fmt.Errorf("prepare swap: %w", err)
	}
	p.Inspection = insp
	if m := q.OutputMint; !m.Equals(WrappedSOL) {
		if p.outAccount, err = AssociatedTokenAddress(wallet, m, tokenProgram[m]); err != nil {
			return nil, fmt.Errorf("prepare swap: derive output token account: %w", err)
		}
	}
	if m := q.InputMint; !m.Equals(WrappedSOL) {
		if p.inAccount, err = AssociatedTokenAddress(wallet, m, tokenProgram[m]); err != nil {
			return nil, fmt.Errorf("prepare swap: derive input token account: %w", err)
		}
	}
	p.Timings.Inspect = time.Since(t0)

	if err := s.simulateSwap(ctx, p, stx.LastValidBlockHeight); err != nil {
		return nil, fmt.Errorf("prepare swap: %w", err)
	}
	p.Timings.Total = time.Since(start)
	p.stats = meter.stats()
	return p, nil
}

// simulateSwap simulates p's transaction unsigned and holds what it does to
// the wallet to the outflow budget and the minimum out. It reads only
// p.Quote, p.Tx and p.Inspection's accounts and fee, so it judges any
// transaction, whatever the inspector made of its instructions.
func (s *Swapper) simulateSwap(ctx context.Context, p *PreparedSwap, apiLastValid uint64) error {
	e, q, insp := s.ex, p.Quote, p.Inspection
	wallet := e.key.PublicKey()
	tables := p.Tx.LookupTables()
	var err error
	// The watch list is the wallet and every account the
	// transaction can write: an account it cannot write cannot change, and a
	// node refuses more addresses than the message has accounts, so this is
	// both complete and always accepted. The wallet's token accounts (both
	// token programs) are listed too, to bind the approval to them.
	t0 := time.Now()
	p.walletTokens, err = e.client.walletTokenAccounts(ctx, wallet)
	if err != nil {
		return err
	}
	height, err := e.client.rpc.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return fmt.Errorf("getBlockHeight: %s", rpcErrorText(err))
	}
	p.LastValidBlockHeight = max(apiLastValid, height+150)
	// One measure: the effects engine simulates the exact bytes with every
	// account the message can write, and asks whether the blockhash is
	// recent (a durable nonce's is not).
	p.view = viewOfForeign(p.Tx, insp)
	eff, sim, err := e.client.simulateEffects(ctx, p.Tx.Raw, p.view, wallet, true, nil)
	if err != nil {
		return err
	}
	p.Timings.Simulate = time.Since(t0)

	pv := &p.Preview
	pv.Quote = q
	pv.Instructions = insp.Instructions
	pv.Programs = insp.Programs
	pv.LookupTables = tables
	pv.Cosigners = insp.Cosigners
	pv.ExpectedOut = q.OutAmount
	pv.MinimumOut = q.OtherAmountThreshold
	pv.Fee = insp.Fee
	pv.PriorityFee = insp.PriorityFee
	pv.UnitLimit, pv.UnitPrice = insp.ComputeUnitLimit, insp.ComputeUnitPrice
	pv.PriorityFeeSource, pv.MaxPriorityFee = s.PriorityFee().String(), insp.PriorityFee
	if s.api.Version() == SwapAPIv2 {
		// /build is asked for no fee: it sets its own, which the
		// inspector held to the operator's cap.
		pv.PriorityFeeSource = fmt.Sprintf("the swap API's computeBudgetInstructions (/swap/v2/build), at most %d lamports (--max-priority-fee-lamports)", s.maxPriorityFee())
	}
	sum := sha256.Sum256(p.Tx.MessageBytes)
	pv.MessageSHA256 = hex.EncodeToString(sum[:])
	pv.Logs = sim.Logs
	pv.UnitsConsumed = sim.UnitsConsumed
	p.Effect, p.sim = eff, sim
	pv.Effects = eff
	pv.Wallet = BalanceChange{Account: wallet, Pre: readAccount(sim.Before[0]).lamports, Post: readAccount(sim.After[0]).lamports}
	pv.Tokens = eff.Tokens
	pv.SpendLamports = eff.SOLOut()
	pv.PaidFrom = paidFrom(wallet, q.InputMint, eff, pv.Wallet)
	// The approval binds the previewed fee as its upper bound, as for
	// transfers: a swap API that raises the priority fee at execution, even
	// within the operator's cap, is refused with nothing signed.
	p.Budget = SwapBudget{InputMint: q.InputMint, InAmount: q.InAmount, Fee: insp.Fee, Rent: eff.RentPaid}
	p.walletAccounts = walletAccountsOf(wallet, insp, p.walletTokens, sim.Keys, sim.Before, sim.After)
	return s.checkSimulation(p)
}

// checkSimulation: the wallet gives at most the budget and gets at least the
// minimum.
func (s *Swapper) checkSimulation(p *PreparedSwap) error {
	pv := &p.Preview
	q := p.Quote
	if err := p.Budget.Check(p.Effect); err != nil {
		return fmt.Errorf("%w: in the simulation %v; nothing was signed or sent", ErrSwapRefused, err)
	}
	var out uint64
	if q.OutputMint.Equals(WrappedSOL) {
		// SOL out arrives as lamports, net of the fee the wallet paid.
		if gain := int64(p.Effect.SOLAfter) - int64(p.Effect.SOLBefore) + int64(pv.Fee); gain > 0 {
			out = uint64(gain)
		}
	} else {
		out = p.Effect.TokensIn[q.OutputMint]
	}
	pv.SimulatedOut = out
	if out < p.Terms.MinimumOut {
		return fmt.Errorf("%w: the simulation gives the wallet %d of %s, below the minimum of %d; nothing was signed or sent", ErrSwapRefused, out, q.OutputMint, p.Terms.MinimumOut)
	}
	return nil
}

// walletAccountsOf lists the message's accounts that are the wallet's (the
// wallet, its token accounts listed by the node, and accounts the
// simulation shows as its token accounts), each with whether the message
// can write it.
func walletAccountsOf(wallet solana.PublicKey, insp *Inspection, listed, watch []solana.PublicKey, before, after []*rpc.Account) map[solana.PublicKey]bool {
	mine := map[solana.PublicKey]bool{wallet: true}
	for _, k := range listed {
		mine[k] = true
	}
	for i, k := range watch {
		if readAccount(before[i]).ownedBy(wallet) || readAccount(after[i]).ownedBy(wallet) {
			mine[k] = true
		}
	}
	out := map[solana.PublicKey]bool{}
	for i, k := range insp.Accounts {
		if mine[k] {
			out[k] = insp.Writable[i]
		}
	}
	return out
}

// walletTokenAccounts lists the wallet's token accounts under both token programs.
func (c *Client) walletTokenAccounts(ctx context.Context, wallet solana.PublicKey) ([]solana.PublicKey, error) {
	var out []solana.PublicKey
	for _, program := range []solana.PublicKey{solana.TokenProgramID, solana.Token2022ProgramID} {
		res, err := c.rpc.GetTokenAccountsByOwner(ctx, wallet, &rpc.GetTokenAccountsConfig{ProgramId: &program},
			&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			return nil, fmt.Errorf("list the wallet's token accounts: %s", rpcErrorText(err))
		}
		for _, a := range res.Value {
			out = append(out, a.Pubkey)
		}
	}
	return out, nil
}

func (c *Client) multipleAccounts(ctx context.Context, keys []solana.PublicKey) ([]*rpc.Account, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	// Nodes answer at most 100 accounts per call.
	var out []*rpc.Account
	for len(keys) > 0 {
		n := min(len(keys), 100)
		res, err := c.rpc.GetMultipleAccountsWithOpts(ctx, keys[:n], &rpc.GetMultipleAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			return nil, fmt.Errorf("getMultipleAccounts: %s", rpcErrorText(err))
		}
		if res == nil || len(res.Value) != n {
			return nil, errors.New("getMultipleAccounts: node returned the wrong number of accounts")
		}
		out = append(out, res.Value...)
		keys = keys[n:]
	}
	return out, nil
}

// SwapResult is the account of one swap submission. Received and Spent are
// read back from the chain (postTokenBalances/preTokenBalances and balances).
type SwapResult struct {
	Result
	Terms SwapTerms
	// Received is the output the wallet got; Spent the input it gave (for SOL
	// input: lamports beyond the fee, rent included).
	Received uint64
	Spent    uint64
	// WalletDelta is the wallet's lamport change, fee included.
	WalletDelta int64
	Tokens      []TokenChange
}

// ErrAlreadySubmitted: a PreparedSwap is signed and sent at most once.
var ErrAlreadySubmitted = errors.New("this prepared swap was already submitted")

// SubmitSwap fills the wallet's signature slot, verifies every signature,
// sends, follows the transaction until the chain answers (the same confirm
// loop as transfers), and re-fetches it: Executed only when meta.err is null
// and the wallet received at least the minimum out.
//
// The error is non-nil only when nothing was sent.
func (s *Swapper) SubmitSwap(ctx context.Context, p *PreparedSwap, progress func(Progress)) (*SwapResult, error) {
	if p == nil || p.Tx == nil {
		return nil, errors.New("submit swap: nothing prepared")
	}
	if !p.submitted.CompareAndSwap(false, true) {
		return nil, ErrAlreadySubmitted
	}
	e := s.ex
	ctx, meter := withMeter(ctx)
	start := time.Now()
	res := &SwapResult{Result: Result{Outcome: Unknown}, Terms: p.Terms}
	res.Timings.Simulate = p.Timings.Total
	finish := func() *SwapResult {
		res.Timings.Total = p.Timings.Total + time.Since(start)
		res.RPC = meter.stats().plus(p.stats)
		report(progress, Progress{Step: StepDone, Signature: res.Signature, Elapsed: res.Timings.Total, Detail: string(res.Outcome)})
		return res
	}

	landed, err := e.sendForeign(ctx, &res.Result, p.Tx, p.LastValidBlockHeight, p.BeforeSend, "swap", progress)
	if err != nil {
		return nil, err
	}
	if !landed {
		return finish(), nil
	}
	t0 := time.Now()
	s.verifySwap(ctx, p, res)
	res.Timings.Verify = time.Since(t0)
	return finish(), nil
}

// ExecuteSwap is the execution path for an approval: PrepareApproved, then
// SubmitSwap.
func (s *Swapper) ExecuteSwap(ctx context.Context, approved SwapApproval, progress func(Progress)) (*SwapResult, error) {
	report(progress, Progress{Step: StepSimulating})
	p, err := s.PrepareApproved(ctx, approved)
	if err != nil {
		return nil, err
	}
	return s.SubmitSwap(ctx, p, progress)
}

// verifySwap re-fetches the landed transaction and measures it with the
// effects engine from its own meta (pre/post balances and token balances):
// what the wallet received and gave, and whether that fits what was
// approved. A later re-read of the wallet is never used: a concurrent
// transfer landing in between must not show up as a loss, or hide one.
func (s *Swapper) verifySwap(ctx context.Context, p *PreparedSwap, res *SwapResult) {
	res.Result.sphere = p.Effect.sphere
	tx, ok := s.ex.readBack(ctx, &res.Result, "swap", func(tx *rpc.GetTransactionResult) ([]solana.PublicKey, error) {
		// A v0 message's accounts: static keys, then those loaded from lookup tables.
		return append(append(append([]solana.PublicKey{}, p.Tx.static...), tx.Meta.LoadedAddresses.Writable...), tx.Meta.LoadedAddresses.ReadOnly...), nil
	})
	if !ok || res.Effects == nil {
		return
	}
	eff := *res.Effects
	res.WalletDelta = int64(tx.Meta.PostBalances[0]) - int64(tx.Meta.PreBalances[0])
	res.Tokens = eff.Tokens
	if p.Terms.OutputMint.Equals(WrappedSOL) {
		// SOL out arrives as lamports, net of the fee the wallet paid.
		if gain := int64(eff.SOLAfter) - int64(eff.SOLBefore) + int64(tx.Meta.Fee); gain > 0 {
			res.Received = uint64(gain)
		}
	} else {
		res.Received = eff.TokensIn[p.Terms.OutputMint]
	}
	if p.Terms.InputMint.Equals(WrappedSOL) {
		res.Spent = eff.SOLOut() - min(eff.SOLOut(), tx.Meta.Fee)
	} else {
		res.Spent = eff.TokensOut[p.Terms.InputMint]
	}
	// Verification: the landed effects against the approved ones, with the
	// fee actually charged: more out, less in, or any undeclared change.
	budget := p.Budget
	budget.Fee = tx.Meta.Fee
	limits := budget.Limits()
	if !p.Terms.OutputMint.Equals(WrappedSOL) {
		limits.TokensIn = map[solana.PublicKey]uint64{p.Terms.OutputMint: p.Terms.MinimumOut}
	}
	diff := eff.Exceeds(limits)
	if diff == "" && res.Received < p.Terms.MinimumOut {
		diff = fmt.Sprintf("the wallet received %d of %s, below the approved minimum of %d", res.Received, p.Terms.OutputMint, p.Terms.MinimumOut)
	}
	if diff == "" {
		diff = s.controlAfterLanding(ctx, p)
	}
	if diff != "" {
		res.Outcome, res.Reason = ExecutedWithUnexpectedEffects, "executed with unexpected effects: "+diff
		return
	}
	res.Outcome = Executed
}

// controlAfterLanding reads the watched accounts again once the swap landed
// and names any change of control since the simulation read them. The
// landed meta carries lamports and token amounts, not delegates, frozen
// state or authorities; bytes whose programs behave differently when they
// land than when simulated could change those unseen. Nothing of the
// wallet's may change hands: solgate signs no such change, so one found
// here, whether this transaction or another made it, is reported. An RPC
// failure here proves nothing either way and is not reported.
func (s *Swapper) controlAfterLanding(ctx context.Context, p *PreparedSwap) string {
	return controlChangedSince(ctx, s.ex.client, s.ex.key.PublicKey(), p.sim)
}

// paidFrom names where a swap's input leaves from, as the effects measure
// it: the wallet's lamports, its wrapped-SOL accounts, or its token account.
func paidFrom(wallet solana.PublicKey, inputMint solana.PublicKey, eff Effects, walletLamports BalanceChange) string {
	var parts []string
	if inputMint.Equals(WrappedSOL) {
		spent := addOrMax(eff.Fee(), eff.RentPaid)
		if walletLamports.Pre > walletLamports.Post && walletLamports.Pre-walletLamports.Post > spent {
			parts = append(parts, fmt.Sprintf("SOL (native) of the wallet %s: %s", wallet, FormatSOL(walletLamports.Pre-walletLamports.Post-spent)))
		}
	}
	for _, t := range eff.Tokens {
		if t.Mint.Equals(inputMint) && t.Pre > t.Post {
			what := "token account"
			if t.Mint.Equals(WrappedSOL) {
				what = "wrapped-SOL account"
			}
			parts = append(parts, fmt.Sprintf("the wallet's %s %s: %d base units", what, t.Account, t.Pre-t.Post))
		}
	}
	if len(parts) == 0 {
		return "nothing of the input mint leaves the wallet in the simulation"
	}
	return strings.Join(parts, "; ")
}
