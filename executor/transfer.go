package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
)

// Executor builds, simulates, signs, sends, confirms and verifies transactions
// for one wallet. It knows nothing of MCP, policy or the TUI: callers decide
// whether a transaction may be sent; the executor makes sure that what it
// reports is what the chain says.
type Executor struct {
	client *Client
	key    *Keypair
	opts   Options
	recent recentBlockhash
	// feeSource is the fee estimate an auto source settled on (nil: not yet).
	feeSource atomic.Pointer[string]
	// forecasts are the budgets previews last measured, per shape.
	forecasts forecasts
	// tokenShapes are what token transfer previews last read, per mint and
	// recipient (tokenround.go).
	tokenShapes tokenShapes
	// claims are the messages prepared for execution (messageclaims.go).
	claims messageClaims
}

// Options set the confirm loop's pacing. Zero values mean the defaults.
type Options struct {
	// PollInterval caps the wait between getSignatureStatuses calls; the loop
	// starts faster and backs off to this.
	PollInterval time.Duration
	// Rebroadcast is how often the same signed bytes are sent again while the
	// signature is unknown, and how often block height is checked for expiry.
	Rebroadcast time.Duration
	// FirstPoll is the first wait before asking for the signature's status;
	// it doubles up to PollInterval. Short, because a fast cluster (or
	// localnet) confirms within a slot or two.
	FirstPoll time.Duration
	// PreviewBlockhashAge is how long PreviewTransfer may reuse a fetched
	// blockhash (default 1 s, far inside the ~150-block lifetime). A preview
	// is never signed; execution always fetches a fresh one.
	PreviewBlockhashAge time.Duration
	// Fees choose the priority fee; the zero value means DefaultFeeSettings.
	Fees FeeSettings
	// VerifyWindow is how long a confirmed transaction is looked for with
	// getTransaction before its outcome is "unknown" (default
	// DefaultVerifyWindow).
	VerifyWindow time.Duration
}

// DefaultVerifyWindow: load-balanced mainnet RPCs often serve a transaction
// seconds after confirming its status.
const DefaultVerifyWindow = 30 * time.Second

func (o Options) withDefaults() Options {
	if o.Fees == (FeeSettings{}) {
		o.Fees = DefaultFeeSettings()
	}
	if o.Fees.Percentile == 0 {
		o.Fees.Percentile = DefaultPriorityFeePercentile
	}
	if o.VerifyWindow <= 0 {
		o.VerifyWindow = DefaultVerifyWindow
	}
	if o.PreviewBlockhashAge <= 0 {
		o.PreviewBlockhashAge = time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 500 * time.Millisecond
	}
	if o.Rebroadcast <= 0 {
		o.Rebroadcast = 2 * time.Second
	}
	if o.FirstPoll <= 0 {
		o.FirstPoll = 25 * time.Millisecond
	}
	return o
}

// New returns an executor signing with key through client.
func New(client *Client, key *Keypair, opts Options) *Executor {
	return &Executor{client: client, key: key, opts: opts.withDefaults()}
}

// Wallet is the address that signs and pays.
func (e *Executor) Wallet() solana.PublicKey { return e.key.PublicKey() }

// Client is the RPC client the executor uses.
func (e *Executor) Client() *Client { return e.client }

// Transfer is a native SOL transfer from the executor's wallet.
type Transfer struct {
	To       solana.PublicKey
	Lamports uint64
	// Memo, when set, is written with an SPL Memo instruction (memo.go):
	// the hub names the proposal, so that two identical approved
	// transfers are two different transactions.
	Memo string
}

// ErrInvalidTransfer is wrapped by argument errors found before any RPC call.
var ErrInvalidTransfer = errors.New("invalid transfer")

func (e *Executor) checkTransfer(t Transfer) error {
	switch {
	case t.Lamports == 0:
		return fmt.Errorf("%w: lamports must be greater than zero", ErrInvalidTransfer)
	case t.To.IsZero():
		return fmt.Errorf("%w: to is the all-zero address (11111111111111111111111111111111), which no one controls", ErrInvalidTransfer)
	case t.To.Equals(e.key.PublicKey()):
		return fmt.Errorf("%w: to is the console's own wallet %s; a transfer to yourself moves nothing but the fee", ErrInvalidTransfer, t.To)
	}
	if err := checkMemo(t.Memo); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidTransfer, err)
	}
	return nil
}

// Prepared is a transaction built and simulated but not signed. Its Preview is
// derived from the transaction bytes and the simulation, never from a request.
type Prepared struct {
	Transfer             Transfer
	Tx                   *solana.Transaction
	LastValidBlockHeight uint64
	Preview              Preview
	// BeforeSend, when set, runs after signing and before the first send,
	// with the signature; an error stops the submission with nothing sent.
	// The hub uses it to persist the signature before the bytes leave.
	BeforeSend func(solana.Signature) error
	// checkLanded judges the re-fetched transaction against what was
	// prepared. Every constructor states its own: there is no default, so
	// a new kind of transaction cannot be judged as a SOL transfer by
	// omission (a Prepared without one is never reported executed).
	checkLanded func(*rpc.GetTransactionResult, *Result) error
	// limits bound the landed effects: past them the outcome is "executed
	// with unexpected effects", never "executed".
	limits *Limits
	// Timings and RPC calls spent preparing, carried into the final Result.
	simulateTook time.Duration
	stats        CallStats
}

// PrepareTransfer fetches a fresh blockhash, measures and prices the
// compute budget, builds the transfer and simulates it without signatures.
// A simulation error aborts with *SimulationError: nothing is signed.
// `solgate prove` uses it; an approved proposal executes through
// PrepareApprovedTransfer, which holds it to what was approved.
func (e *Executor) PrepareTransfer(ctx context.Context, t Transfer) (*Prepared, error) {
	return e.prepareTransfer(ctx, t, 0, nil)
}

// PrepareApprovedTransfer prepares an approved transfer for execution: a
// fresh blockhash, a fresh measuring simulation and a fresh fee market, held
// to the approved budget. It keeps the approved compute-unit limit, and
// refuses (ErrComputeOverApproved, ErrPriorityFeeOverApproved) when the
// transaction now needs more units or the market a higher priority fee than
// the approval allowed. Nothing is signed in either case.
func (e *Executor) PrepareApprovedTransfer(ctx context.Context, t Transfer, approved Budget) (*Prepared, error) {
	return e.prepareTransfer(ctx, t, 0, &approved)
}

// PreviewTransfer is PrepareTransfer for a proposal's preview: it may build on
// a blockhash fetched up to Options.PreviewBlockhashAge ago, which saves a
// round trip per proposal. The result is only for showing; executing always
// prepares again with a fresh blockhash.
func (e *Executor) PreviewTransfer(ctx context.Context, t Transfer) (*Prepared, error) {
	return previewOnRecentBlockhash(e, func(maxAge time.Duration) (*Prepared, error) {
		return e.prepareTransfer(ctx, t, maxAge, nil)
	})
}

// previewOnRecentBlockhash prepares a proposal's preview on a blockhash
// fetched up to Options.PreviewBlockhashAge ago and, when that blockhash
// expired early (a fork, or a test ledger told to expire it), once more on
// a fresh one: an expired blockhash says nothing about the transaction.
func previewOnRecentBlockhash[T any](e *Executor, prepare func(maxAge time.Duration) (T, error)) (T, error) {
	p, err := prepare(e.opts.PreviewBlockhashAge)
	var simErr *SimulationError
	if errors.As(err, &simErr) && simErr.Err == "BlockhashNotFound" {
		e.recent.forget()
		p, err = prepare(0)
	}
	return p, err
}

func (e *Executor) prepareTransfer(ctx context.Context, t Transfer, maxAge time.Duration, approved *Budget) (*Prepared, error) {
	if err := e.checkTransfer(t); err != nil {
		return nil, err
	}
	ctx, meter := withMeter(ctx)
	start := time.Now()

	ixs := withMemo([]solana.Instruction{system.NewTransferInstruction(t.Lamports, e.key.PublicKey(), t.To).Build()}, t.Memo)
	tx, budget, bh, preview, _, err := e.budgetedSimulation(ctx, "transfer", ixs, maxAge, approved, nil)
	if err != nil {
		return nil, err
	}
	// What may leave at most: the amount, the signatures' fee and the
	// priority fee. The simulation's measure can be larger (the balance is
	// read before it, so anything of ours landing in between counts too),
	// which only makes the caps stricter; the landed effects must fit this.
	fee := addOrMax(uint64(tx.Message.Header.NumRequiredSignatures)*LamportsPerSignature, budget.PriorityFee)
	stats := meter.stats()
	preview.RPC = stats
	payer := e.key.PublicKey()
	return &Prepared{
		limits: &Limits{SOLOut: addOrMax(t.Lamports, fee)},
		// Recipient +amount, payer −(amount + fee), to the lamport.
		checkLanded: func(tx *rpc.GetTransactionResult, res *Result) error {
			return checkTransferDeltas(t, payer, tx.Meta.Fee, res.Changes)
		},
		Transfer:             t,
		Tx:                   tx,
		LastValidBlockHeight: bh.LastValidBlockHeight,
		Preview:              preview,
		simulateTook:         time.Since(start),
		stats:                stats,
	}, nil
}

// budgeted builds the transaction of ixs behind its compute-budget
// instructions: a blockhash (one fetched at most maxAge ago may be reused),
// the unit limit measured by simulation and the priced fee, held to approved
// when it is set. what names the transaction in errors.
func (e *Executor) budgeted(ctx context.Context, what string, ixs []solana.Instruction, maxAge time.Duration, approved *Budget) (*solana.Transaction, Budget, rpc.LatestBlockhashResult, error) {
	bh, err := e.recent.get(ctx, e.client, maxAge)
	if err != nil {
		return nil, Budget{}, bh, fmt.Errorf("prepare %s: getLatestBlockhash: %s", what, rpcErrorText(err))
	}
	payer := e.key.PublicKey()
	build := func(b Budget) (*solana.Transaction, error) {
		tx, err := solana.NewTransaction(append(budgetInstructions(b), ixs...), bh.Blockhash, solana.TransactionPayer(payer))
		if err != nil {
			return nil, fmt.Errorf("prepare %s: build transaction: %w", what, err)
		}
		return tx, nil
	}
	budget, err := e.measureBudget(ctx, build, approved)
	if err != nil {
		return nil, Budget{}, bh, err
	}
	tx, err := build(budget)
	return tx, budget, bh, err
}

// measureBudget simulates the transaction with the largest limit to learn
// the units it needs, while the fee market is asked (side by side: both
// are waits on the node), and returns the budget to build it with. With
// approved set, the limit stays the approved one and the fresh figures must
// fit inside the approval.
func (e *Executor) measureBudget(ctx context.Context, build func(Budget) (*solana.Transaction, error), approved *Budget) (Budget, error) {
	// The price instruction is in the measured transaction too (it costs
	// units); a price of 1 micro-lamport keeps the measuring fee negligible.
	probe, err := build(Budget{UnitLimit: MaxComputeUnitLimit, UnitPrice: 1})
	if err != nil {
		return Budget{}, err
	}
	market := e.startMarket(ctx, writableAccounts(probe))
	units, err := e.measureUnits(ctx, probe)
	price, source := market()
	if err != nil {
		return Budget{}, err
	}
	limit := unitLimitFor(units)
	if approved != nil {
		if units > uint64(approved.UnitLimit) {
			return Budget{}, fmt.Errorf("%w: the fresh simulation at execution needs %d compute units, more than the %d approved (nothing was signed or sent; propose again)", ErrComputeOverApproved, units, approved.UnitLimit)
		}
		limit = approved.UnitLimit
	}
	b := e.priced(units, limit, price, source)
	if approved != nil && b.PriorityFee > approved.PriorityFee {
		return Budget{}, fmt.Errorf("%w: the priority fee at execution would be %d lamports (%s), above the %d approved (nothing was signed or sent; propose again)", ErrPriorityFeeOverApproved, b.PriorityFee, b.Source, approved.PriorityFee)
	}
	return b, nil
}

// recentBlockhash remembers the last blockhash fetched, for previews.
type recentBlockhash struct {
	mu         sync.Mutex
	value      rpc.LatestBlockhashResult
	fetched    time.Time
	refreshing bool
	// forgotten: a fetch started before this may not install its answer.
	forgotten time.Time
}

// get returns a blockhash fetched at most maxAge ago, fetching one if needed;
// maxAge 0 always fetches (and refreshes what previews reuse). Past half
// its age a reused blockhash is refreshed in the background, so previews
// arriving steadily never wait for one.
func (r *recentBlockhash) get(ctx context.Context, c *Client, maxAge time.Duration) (rpc.LatestBlockhashResult, error) {
	if maxAge > 0 {
		r.mu.Lock()
		v, at := r.value, r.fetched
		age := time.Since(at)
		fresh := !at.IsZero() && age < maxAge
		if fresh && age > maxAge/2 && !r.refreshing {
			r.refreshing = true
			go r.refresh(c)
		}
		r.mu.Unlock()
		if fresh {
			return v, nil
		}
	}
	return r.fetch(ctx, c)
}

// refresh fetches a blockhash for later previews, outside any caller's
// context (a preview that finished must not cancel it).
func (r *recentBlockhash) refresh(c *Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = r.fetch(ctx, c)
	r.mu.Lock()
	r.refreshing = false
	r.mu.Unlock()
}

func (r *recentBlockhash) fetch(ctx context.Context, c *Client) (rpc.LatestBlockhashResult, error) {
	at := time.Now()
	out, err := c.rpc.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return rpc.LatestBlockhashResult{}, err
	}
	if out == nil || out.Value == nil {
		return rpc.LatestBlockhashResult{}, errors.New("node returned an empty answer")
	}
	r.mu.Lock()
	if at.After(r.fetched) && at.After(r.forgotten) {
		r.value, r.fetched = *out.Value, at
	}
	r.mu.Unlock()
	return *out.Value, nil
}

func (r *recentBlockhash) forget() {
	r.mu.Lock()
	r.fetched, r.forgotten = time.Time{}, time.Now()
	r.mu.Unlock()
}

// ExecuteTransfer is PrepareTransfer followed by Submit: the whole path that
// `solgate prove` and the hub's execute step use.
func (e *Executor) ExecuteTransfer(ctx context.Context, t Transfer, progress func(Progress)) (*Result, error) {
	report(progress, Progress{Step: StepSimulating})
	p, err := e.PrepareTransfer(ctx, t)
	if err != nil {
		return nil, err
	}
	return e.Submit(ctx, p, progress)
}
