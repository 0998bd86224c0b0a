package executor

import (
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
)

// tokenInstructionNames are the SPL Token program's instruction tags (the
// first data byte), as numbered in the program's instruction enum; Token-2022
// keeps the same numbers for these.
var tokenInstructionNames = map[byte]string{
	token.Instruction_InitializeMint:     "initialize mint",
	token.Instruction_InitializeAccount:  "initialize account",
	token.Instruction_InitializeMultisig: "initialize multisig",
	token.Instruction_Transfer:           "transfer",
	token.Instruction_Approve:            "approve a delegate",
	token.Instruction_Revoke:             "revoke the delegate",
	token.Instruction_SetAuthority:       "set authority",
	token.Instruction_MintTo:             "mint",
	token.Instruction_Burn:               "burn",
	token.Instruction_CloseAccount:       "close account",
	token.Instruction_FreezeAccount:      "freeze account",
	token.Instruction_ThawAccount:        "thaw account",
	token.Instruction_TransferChecked:    "transfer (checked)",
	token.Instruction_ApproveChecked:     "approve a delegate (checked)",
	token.Instruction_MintToChecked:      "mint (checked)",
	token.Instruction_BurnChecked:        "burn (checked)",
	token.Instruction_InitializeAccount2: "initialize account (2)",
	token.Instruction_SyncNative:         "sync native (wrapped SOL)",
	token.Instruction_InitializeAccount3: "initialize account (3)",
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
	case tag == token.Instruction_Transfer && len(data) == 9 && len(accounts) >= 3:
		return fmt.Sprintf("transfer %d base units from %s to %s (authority %s)", binary.LittleEndian.Uint64(data[1:9]), at(0), at(1), at(2))
	case tag == token.Instruction_TransferChecked && len(data) == 10 && len(accounts) >= 4:
		return fmt.Sprintf("transfer %d base units (%d decimals) of %s from %s to %s (authority %s)",
			binary.LittleEndian.Uint64(data[1:9]), data[9], at(1), at(0), at(2), at(3))
	case tag == token.Instruction_CloseAccount && len(accounts) >= 3:
		return fmt.Sprintf("close account %s, balance to %s (authority %s)", at(0), at(1), at(2))
	case tag == token.Instruction_SyncNative && len(accounts) >= 1:
		return "sync native (wrapped SOL) of " + at(0)
	}
	return name
}
