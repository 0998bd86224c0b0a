package executor

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// The instructions every proposal builds (a system transfer and the compute
// budget's two) are written here as their bytes. solana-go's builders give
// the same bytes, but each Data() call encodes the instruction again by
// reflection, and a preview asks for it twice (the forecast's shape key
// and the message). TestInstructionBytesAsSolanaGo holds these to the
// builders, instruction by instruction and as compiled transactions.

// transferInstruction is system.NewTransferInstruction(lamports, from,
// to).Build(): tag 2 (u32), then the amount (u64), little-endian.
func transferInstruction(lamports uint64, from, to solana.PublicKey) solana.Instruction {
	data := make([]byte, 12)
	binary.LittleEndian.PutUint32(data, 2)
	binary.LittleEndian.PutUint64(data[4:], lamports)
	return solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{
		{PublicKey: from, IsSigner: true, IsWritable: true},
		{PublicKey: to, IsWritable: true},
	}, data)
}

// unitLimitInstruction is computebudget.NewSetComputeUnitLimitInstruction:
// tag 2 (u8), then the limit (u32).
func unitLimitInstruction(limit uint32) solana.Instruction {
	data := make([]byte, 5)
	data[0] = 2
	binary.LittleEndian.PutUint32(data[1:], limit)
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, data)
}

// unitPriceInstruction is computebudget.NewSetComputeUnitPriceInstruction:
// tag 3 (u8), then the price in micro-lamports (u64).
func unitPriceInstruction(microLamports uint64) solana.Instruction {
	data := make([]byte, 9)
	data[0] = 3
	binary.LittleEndian.PutUint64(data[1:], microLamports)
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, data)
}
