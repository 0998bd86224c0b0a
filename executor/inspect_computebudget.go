package executor

import (
	"encoding/binary"
	"fmt"

	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
)

// computeBudgetSetLoadedAccountsDataSizeLimit is the compute budget
// program's instruction 4 (a u32 byte limit). solana-go v1.14 names only
// tags 0 to 3, so this one is spelt here.
const computeBudgetSetLoadedAccountsDataSizeLimit uint8 = 4

// computeBudget judges a compute budget instruction: the unit limit and unit
// price may each be set once (they bound the fee Inspect checks); a heap
// frame or loaded-data limit is harmless. Anything else is refused, so the
// fee cannot be raised by a form the inspector does not read.
func (j *swapJudge) computeBudget(x judgedInstruction, sum *InstructionSummary) error {
	d := x.data
	switch {
	case len(d) == 5 && d[0] == computebudget.Instruction_SetComputeUnitLimit:
		if j.haveLimit {
			return refuse("instruction %d sets the compute unit limit a second time", x.index)
		}
		j.haveLimit, j.cuLimit = true, uint64(binary.LittleEndian.Uint32(d[1:]))
		sum.Summary = fmt.Sprintf("set compute unit limit %d", j.cuLimit)
	case len(d) == 9 && d[0] == computebudget.Instruction_SetComputeUnitPrice:
		if j.havePrice {
			return refuse("instruction %d sets the compute unit price a second time", x.index)
		}
		j.havePrice, j.cuPrice = true, binary.LittleEndian.Uint64(d[1:])
		sum.Summary = fmt.Sprintf("set compute unit price %d micro-lamports", j.cuPrice)
	case len(d) == 5 && (d[0] == computebudget.Instruction_RequestHeapFrame || d[0] == computeBudgetSetLoadedAccountsDataSizeLimit):
		sum.Summary = "compute budget request"
	default:
		return refuse("instruction %d: undecodable compute budget instruction", x.index)
	}
	return nil
}
