package executor

import (
	"time"

	"github.com/gagliardetto/solana-go"
)

// Outcome is what the chain says happened to a signed transaction.
type Outcome string

const (
	// Executed: confirmed, re-fetched, meta.err == null and the balance deltas
	// match what was asked. The only outcome that may be called success.
	Executed Outcome = "executed"
	// Failed: landed on chain with an error (the fee was still charged), or
	// landed but the re-fetch disagreed with what was asked.
	Failed Outcome = "failed"
	// Expired: the blockhash's last valid block height passed and the
	// signature is not on chain: provably never landed, never can.
	Expired Outcome = "expired"
	// Rejected: the node refused the first send in preflight; it was not
	// forwarded, and no other copy had been sent.
	Rejected Outcome = "rejected"
	// ExecutedWithUnexpectedEffects: landed, but its effects, measured from
	// the landed transaction itself, differ from the approved ones (more
	// out, less in, an undeclared change). Never to be reported as executed.
	ExecutedWithUnexpectedEffects Outcome = "executed with unexpected effects"
	// Unknown: RPC trouble or the caller's deadline left the outcome open.
	// The signature is kept so it can be reconciled later.
	Unknown Outcome = "unknown"
)

// Landed reports whether the transaction is known to be on chain.
func (o Outcome) Landed() bool {
	return o == Executed || o == Failed || o == ExecutedWithUnexpectedEffects
}

// Result is the full account of one submission.
type Result struct {
	// sphere is what the wallet controlled when the bytes were measured,
	// for the landed measure (set by the submit paths).
	sphere *sphere

	Outcome   Outcome
	Signature solana.Signature
	// Reason explains any outcome other than Executed, in a sentence.
	Reason string
	Slot   uint64
	Fee    uint64
	// ChainErr is meta.err from the re-fetched transaction (nil when it succeeded).
	ChainErr any
	Logs     []string
	// Changes are the verified balance changes read back from the chain.
	Changes []BalanceChange
	// Effects are the landed transaction's effects, measured by the effects
	// engine from its own meta: what settlement counts. Nil when it was not
	// re-fetched.
	Effects *Effects
	Timings Timings
	// RPC counts the round trips this transfer took, preparation included.
	RPC CallStats
	// Rebroadcasts counts extra sends of the same bytes.
	Rebroadcasts int
}

// Timings split a submission's wall time by phase.
type Timings struct {
	Simulate time.Duration // blockhash + balances + simulation
	Sign     time.Duration
	Send     time.Duration // first send only
	Confirm  time.Duration // until confirmed (or given up)
	Verify   time.Duration // getTransaction re-fetch and checks
	Total    time.Duration
	// PollSleep is time spent sleeping between status polls: waiting on the
	// chain, like RPC waits. Total − RPC.Waiting − PollSleep is solgate's own work.
	PollSleep time.Duration
}

// Step names a phase for progress reports.
type Step string

const (
	StepSimulating  Step = "simulating"
	StepSigning     Step = "signing"
	StepSending     Step = "sending"
	StepConfirming  Step = "confirming"
	StepRebroadcast Step = "rebroadcast"
	StepVerifying   Step = "verifying"
	StepDone        Step = "done"
)

// Progress is reported while a transaction is on its way. Receivers must not
// block; progress may be dropped.
type Progress struct {
	Step      Step
	Signature solana.Signature
	Attempt   int
	Elapsed   time.Duration
	Detail    string
}

func report(fn func(Progress), p Progress) {
	if fn != nil {
		fn(p)
	}
}
