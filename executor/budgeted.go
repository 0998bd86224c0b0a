package executor

import (
	"context"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Budgeted is a caller's own instructions built behind their compute
// budget and simulated, not signed.
type Budgeted struct {
	Tx                   *solana.Transaction
	LastValidBlockHeight uint64
	// Preview is the simulation of Tx's exact bytes through the effects
	// engine: Preview.Effects is what MeasureEffects(ctx, Tx,
	// Preview.Budget.PriorityFee) measures, and Preview.Budget is the
	// compute budget Tx carries, the one an approval binds.
	Preview Preview
}

// PrepareBudgeted builds ixs, paid by the wallet, behind the compute budget
// every transaction solgate builds carries (SetComputeUnitLimit at the
// measured units plus the margin, SetComputeUnitPrice from the fee market,
// capped; see "# Priority fees" in doc.go), and simulates the exact bytes.
// It is how a kind that builds its own instructions gets a transfer's
// budget: without a price, a transaction may never land on a busy cluster.
// A failing simulation is a *SimulationError, effects the engine refuses an
// *EffectsRefusal. Nothing is signed.
//
// approved nil is a proposal's preview: as PreviewTransfer, it may build
// on a recently fetched blockhash and on the budget the last preview of the
// same shape measured. approved set is the execution of what was approved,
// as PrepareApprovedTransfer: a fresh blockhash, units and market, the
// approved unit limit kept, and ErrComputeOverApproved or
// ErrPriorityFeeOverApproved (nothing signed) when the transaction now needs
// more units or the market a higher priority fee than the human saw, so
// that the approval bounds what is paid. what names the transaction in
// errors.
func (e *Executor) PrepareBudgeted(ctx context.Context, what string, ixs []solana.Instruction, approved *Budget) (*Budgeted, error) {
	prepare := func(maxAge time.Duration) (*Budgeted, error) {
		tx, _, bh, preview, _, err := e.budgetedSimulation(ctx, what, ixs, maxAge, approved, nil)
		if err != nil {
			return nil, err
		}
		return &Budgeted{Tx: tx, LastValidBlockHeight: bh.LastValidBlockHeight, Preview: preview}, nil
	}
	if approved != nil {
		return prepare(0)
	}
	return previewOnRecentBlockhash(e, prepare)
}
