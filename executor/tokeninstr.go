package executor

import (
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// tokenInstructionNames are the SPL Token program's instruction tags (the
// first data byte), as numbered in the program's instruction enum; Token-2022
// keeps the same numbers for these.
var tokenInstructionNames = map[byte]string{
	0:  "initialize mint",
	1:  "initialize account",
	2:  "initialize multisig",
	3:  "transfer",
	4:  "approve a delegate",
	5:  "revoke the delegate",
	6:  "set authority",
	7:  "mint",
	8:  "burn",
	9:  "close account",
	10: "freeze account",
	11: "thaw account",
	12: "transfer (checked)",
	13: "approve a delegate (checked)",
	14: "mint (checked)",
	15: "burn (checked)",
	16: "initialize account (2)",
	17: "sync native (wrapped SOL)",
	18: "initialize account (3)",
}

// describeTokenInstruction puts a token instruction the swap's legs use in
// words, for the preview: transfers with their amount and accounts, the others
// by name. accounts are the instruction's accounts in order. It only
// describes; what the wallet may do is checked by the caller.
func describeTokenInstruction(data []byte, accounts []solana.PublicKey) string {
	if len(data) == 0 {
		return "empty token instruction"
	}
	tag := data[0]
	name, known := tokenInstructionNames[tag]
	if !known {
		return fmt.Sprintf("token instruction %d (unknown)", tag)
	}
	at := func(n int) string {
		if n < len(accounts) {
			return accounts[n].String()
		}
		return "?"
	}
	switch {
	case tag == 3 && len(data) == 9 && len(accounts) >= 3:
		return fmt.Sprintf("transfer %d base units from %s to %s (authority %s)", binary.LittleEndian.Uint64(data[1:9]), at(0), at(1), at(2))
	case tag == 12 && len(data) == 10 && len(accounts) >= 4:
		return fmt.Sprintf("transfer %d base units (%d decimals) of %s from %s to %s (authority %s)",
			binary.LittleEndian.Uint64(data[1:9]), data[9], at(1), at(0), at(2), at(3))
	case tag == 9 && len(accounts) >= 3:
		return fmt.Sprintf("close account %s, balance to %s (authority %s)", at(0), at(1), at(2))
	case tag == 17 && len(accounts) >= 1:
		return "sync native (wrapped SOL) of " + at(0)
	}
	return name
}
