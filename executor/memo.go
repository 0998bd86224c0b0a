package executor

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/gagliardetto/solana-go"
)

// A memo makes a transaction's bytes its own. Two approved, identical
// transfers built within one blockhash would otherwise be the same message
// with the same signature, and the second would be refused as already
// processed; on a cluster with 400 ms slots that is the common case for a
// standing grant. The SPL Memo program (v2, solana.MemoProgramID) takes no
// accounts here, moves no value and only logs its text.

// MaxMemoBytes bounds the memos solgate writes itself: short, so that the
// compute units and the transaction size they cost stay small.
const MaxMemoBytes = 64

// checkMemo refuses a memo solgate would not write: too long, not UTF-8 (the
// Memo program fails on it), or with characters that are not printable
// ASCII (the memo is shown in previews as it is).
func checkMemo(memo string) error {
	if len(memo) > MaxMemoBytes {
		return fmt.Errorf("memo is %d bytes, more than %d", len(memo), MaxMemoBytes)
	}
	if !utf8.ValidString(memo) {
		return fmt.Errorf("memo is not UTF-8")
	}
	for i := 0; i < len(memo); i++ {
		if c := memo[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("memo has a character outside printable ASCII at byte %d", i)
		}
	}
	return nil
}

// memoInstruction is an SPL Memo instruction with no signer accounts.
func memoInstruction(memo string) solana.Instruction {
	return solana.NewInstruction(solana.MemoProgramID, nil, []byte(memo))
}

// withMemo appends memo's instruction to ixs when memo is set.
func withMemo(ixs []solana.Instruction, memo string) []solana.Instruction {
	if memo == "" {
		return ixs
	}
	return append(ixs, memoInstruction(memo))
}

// describeMemo says what a memo instruction writes. Its text may be anyone's
// (a transaction built elsewhere), so it is quoted only when it is short
// printable ASCII; anything else is described by its size alone.
func describeMemo(metas []*solana.AccountMeta, data []byte) string {
	signers := ""
	if len(metas) > 0 {
		signers = fmt.Sprintf(", checked against %d signer account(s)", len(metas))
	}
	if checkMemo(string(data)) == nil {
		return "memo " + strconv.Quote(string(data)) + " (moves nothing" + signers + ")"
	}
	return fmt.Sprintf("memo of %d bytes, text not shown (moves nothing%s)", len(data), signers)
}
