package writekind

import (
	"strconv"

	"github.com/solgate/solgate/executor"
)

// SOL is an amount of lamports as the human and the model read it, written
// without fmt, as every proposal's answer writes it (TestCapsTextAsFmt holds
// it to the fmt spelling).
func SOL(l uint64) string {
	return executor.FormatSOL(l) + " SOL (" + strconv.FormatUint(l, 10) + " lamports)"
}
