package executor

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
)

// InstructionSummary is one decoded instruction, for previews.
type InstructionSummary struct {
	Program solana.PublicKey
	Name    string // program name when known, else the address
	Summary string // what it does, in words
	// LamportsOut is SOL this instruction moves out of the fee payer, when the
	// decoder can tell (system transfers); used to separate fee from amount.
	LamportsOut uint64
}

var programNames = map[solana.PublicKey]string{
	solana.SystemProgramID:                    "System Program",
	solana.ComputeBudget:                      "Compute Budget",
	solana.TokenProgramID:                     "SPL Token",
	solana.Token2022ProgramID:                 "SPL Token-2022",
	solana.SPLAssociatedTokenAccountProgramID: "Associated Token Account",
	solana.MemoProgramID:                      "Memo",
	JupiterV6Program:                          "Jupiter v6 aggregator",
}

// ProgramName is the well-known name of a program, or its address.
func ProgramName(id solana.PublicKey) string {
	if n, ok := programNames[id]; ok {
		return n
	}
	return KeyString(id)
}

// describeInstructions decodes what it can from the message itself. It reads
// only the transaction bytes, so a preview cannot be talked into saying
// something the transaction does not do.
func describeInstructions(tx *solana.Transaction) []InstructionSummary {
	payer := tx.Message.AccountKeys[0]
	var out []InstructionSummary
	for _, ci := range tx.Message.Instructions {
		prog, err := tx.Message.Program(ci.ProgramIDIndex)
		if err != nil {
			out = append(out, InstructionSummary{Name: "unknown", Summary: "program index out of range"})
			continue
		}
		s := InstructionSummary{Program: prog, Name: ProgramName(prog)}
		metas, err := ci.ResolveInstructionAccounts(&tx.Message)
		switch {
		case err != nil:
			s.Summary = "accounts could not be resolved"
		case prog.Equals(solana.SystemProgramID):
			s.Summary, s.LamportsOut = describeSystem(metas, ci.Data, payer)
		case prog.Equals(solana.ComputeBudget):
			s.Summary = describeComputeBudget(metas, ci.Data)
		case prog.Equals(solana.TokenProgramID), prog.Equals(solana.Token2022ProgramID):
			s.Summary = describeToken(metas, ci.Data)
		case prog.Equals(solana.SPLAssociatedTokenAccountProgramID):
			s.Summary = describeAssociatedAccount(metas, ci.Data)
		default:
			s.Summary = fmt.Sprintf("%d accounts, %d bytes of data", len(metas), len(ci.Data))
		}
		out = append(out, s)
	}
	return out
}

func describeSystem(metas []*solana.AccountMeta, data []byte, payer solana.PublicKey) (string, uint64) {
	inst, err := system.DecodeInstruction(metas, data)
	if err != nil {
		return "undecodable system instruction", 0
	}
	switch v := inst.Impl.(type) {
	case *system.Transfer:
		from, to := v.GetFundingAccount().PublicKey, v.GetRecipientAccount().PublicKey
		var out uint64
		if from.Equals(payer) {
			out = *v.Lamports
		}
		return fmt.Sprintf("transfer %d lamports (%s SOL) from %s to %s", *v.Lamports, FormatSOL(*v.Lamports), KeyString(from), KeyString(to)), out
	default:
		return fmt.Sprintf("system instruction %s", system.InstructionIDToName(inst.TypeID.Uint32())), 0
	}
}

// describeToken decodes what SPL Token and Token-2022 share: the
// instruction layout of the original program (solana-go's token package);
// Token-2022's own additions are named by their tag only.
func describeToken(metas []*solana.AccountMeta, data []byte) string {
	inst, err := token.DecodeInstruction(metas, data)
	if err != nil {
		if len(data) > 0 {
			return fmt.Sprintf("token instruction %d (not decoded)", data[0])
		}
		return "empty token instruction"
	}
	switch v := inst.Impl.(type) {
	case *token.TransferChecked:
		return fmt.Sprintf("transfer %d base units (%d decimals) of mint %s from %s to %s, signed by %s",
			*v.Amount, *v.Decimals, KeyString(v.GetMintAccount().PublicKey), KeyString(v.GetSourceAccount().PublicKey), KeyString(v.GetDestinationAccount().PublicKey), KeyString(v.GetOwnerAccount().PublicKey))
	default:
		return "token instruction " + token.InstructionIDToName(inst.TypeID.Uint8())
	}
}

// describeAssociatedAccount names the associated token account program's
// instructions: 0 (or no data) Create, 1 CreateIdempotent, 2 RecoverNested;
// accounts are payer, account, owner, mint.
func describeAssociatedAccount(metas []*solana.AccountMeta, data []byte) string {
	name := "create"
	switch {
	case len(data) == 0 || data[0] == ataCreate:
	case data[0] == ataCreateIdempotent:
		name = "create (idempotent)"
	case data[0] == ataRecoverNested:
		return "recover nested associated token account"
	default:
		return fmt.Sprintf("associated token account instruction %d (not decoded)", data[0])
	}
	if len(metas) < 4 {
		return name + " an associated token account (accounts missing)"
	}
	return fmt.Sprintf("%s the associated token account %s of owner %s for mint %s, paid by %s", name, KeyString(metas[1].PublicKey), KeyString(metas[2].PublicKey), KeyString(metas[3].PublicKey), KeyString(metas[0].PublicKey))
}

func describeComputeBudget(metas []*solana.AccountMeta, data []byte) string {
	inst, err := computebudget.DecodeInstruction(metas, data)
	if err != nil {
		return "undecodable compute budget instruction"
	}
	switch v := inst.Impl.(type) {
	case *computebudget.SetComputeUnitLimit:
		return fmt.Sprintf("set compute-unit limit %d", v.Units)
	case *computebudget.SetComputeUnitPrice:
		return fmt.Sprintf("set compute-unit price %d micro-lamports per unit", v.MicroLamports)
	default:
		return "compute budget instruction " + computebudget.InstructionIDToName(inst.TypeID.Uint8())
	}
}

// FormatSOL renders lamports as SOL without floating point: 1500000 → "0.0015".
func FormatSOL(lamports uint64) string {
	whole, frac := lamports/solana.LAMPORTS_PER_SOL, lamports%solana.LAMPORTS_PER_SOL
	if frac == 0 {
		return fmt.Sprintf("%d", whole)
	}
	s := fmt.Sprintf("%d.%09d", whole, frac)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return s
}
