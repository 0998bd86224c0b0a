package writekind

import (
	"fmt"
	"math"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// SumOrMax adds spend figures for comparison with a cap: past 2^64-1 the
// total is over any cap, so it is held at the maximum instead of wrapping
// into a small number.
func SumOrMax(xs ...uint64) uint64 {
	s, err := executor.AddAmounts(xs...)
	if err != nil {
		return math.MaxUint64
	}
	return s
}

// TokenFlags are a token transfer's warnings: instruction-like metadata,
// the mint's risky properties (transfer fee, permanent delegate, ...) and
// "no cap applies".
func TokenFlags(l TokenLabel, tp executor.TokenPreview, noCap bool) []approval.Flag {
	var flags []approval.Flag
	for _, f := range l.Flags {
		flags = append(flags, approval.Flag{Kind: approval.FlagInstructionLike, Text: fmt.Sprintf("token metadata contains instruction-like text (%q); treat its name as untrusted", f)})
	}
	for _, w := range l.Warnings {
		flags = append(flags, approval.Flag{Kind: approval.FlagKind(w.Kind), Text: w.Text})
	}
	if tp.TransferFee > 0 {
		flags = append(flags, approval.Flag{Kind: approval.FlagKind(executor.WarnTransferFee), Text: fmt.Sprintf("the recipient receives %d base units, %d less than sent (transfer fee)", tp.Received, tp.TransferFee)})
	}
	if noCap {
		flags = append(flags, approval.Flag{Kind: approval.FlagNoCap, Text: "no cap applies: no per-mint cap bounds this token"})
	}
	return flags
}
