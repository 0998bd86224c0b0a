package executor

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

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
		case prog.Equals(solana.MemoProgramID):
			s.Summary = describeMemo(metas, ci.Data)
		default:
			s.Summary = fmt.Sprintf("%d accounts, %d bytes of data", len(metas), len(ci.Data))
		}
		out = append(out, s)
	}
	return out
}

// describeSystem reads a plain transfer (tag 2, the amount, two accounts:
// what every SOL proposal holds) from its bytes, and anything else through
// solana-go's reflective decoder, which gives the same text for a plain
// transfer (TestDescribeFastPathsAsDecoded).
func describeSystem(metas []*solana.AccountMeta, data []byte, payer solana.PublicKey) (string, uint64) {
	if len(data) == 12 && len(metas) == 2 && binary.LittleEndian.Uint32(data) == 2 {
		lamports := binary.LittleEndian.Uint64(data[4:])
		from, to := metas[0].PublicKey, metas[1].PublicKey
		var out uint64
		if from.Equals(payer) {
			out = lamports
		}
		return "transfer " + strconv.FormatUint(lamports, 10) + " lamports (" + FormatSOL(lamports) + " SOL) from " + KeyString(from) + " to " + KeyString(to), out
	}
	return describeSystemDecoded(metas, data, payer)
}

func describeSystemDecoded(metas []*solana.AccountMeta, data []byte, payer solana.PublicKey) (string, uint64) {
	if s, ok := describeWithdrawNonce(metas, data); ok {
		return s, 0
	}
	if len(data) == 36 && binary.LittleEndian.Uint32(data) == systemAuthorizeNonce && len(metas) >= 2 {
		return fmt.Sprintf("hand the authority of nonce account %s to %s, by %s", KeyString(metas[0].PublicKey), KeyString(solana.PublicKeyFromBytes(data[4:36])), KeyString(metas[1].PublicKey)), 0
	}
	inst, err := system.DecodeInstruction(metas, data)
	if err != nil {
		return "undecodable system instruction", 0
	}
	switch v := inst.Impl.(type) {
	case *system.Transfer:
		if len(metas) < 2 {
			// solana-go decodes it, and its account getters would index
			// past the end: a hostile message must not crash the console.
			return "system transfer with accounts missing", 0
		}
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
	if s, ok := describeTokenMoves(metas, data); ok {
		return s
	}
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
			*v.Amount, *v.Decimals, KeyString(v.GetMintAccount().PublicKey), KeyString(v.GetSourceAccount().PublicKey), KeyString(v.GetDestinationAccount().PublicKey), KeyString(v.GetOwnerAccount().PublicKey)) + multisigText(metas, 4)
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

// describeComputeBudget reads the unit limit and price (what every
// proposal sets) from their bytes, and anything else through solana-go's
// decoder, which gives the same texts for those two.
func describeComputeBudget(metas []*solana.AccountMeta, data []byte) string {
	switch {
	case len(metas) == 0 && len(data) == 5 && data[0] == 2:
		return "set compute-unit limit " + strconv.FormatUint(uint64(binary.LittleEndian.Uint32(data[1:])), 10)
	case len(metas) == 0 && len(data) == 9 && data[0] == 3:
		return "set compute-unit price " + strconv.FormatUint(binary.LittleEndian.Uint64(data[1:]), 10) + " micro-lamports per unit"
	}
	return describeComputeBudgetDecoded(metas, data)
}

func describeComputeBudgetDecoded(metas []*solana.AccountMeta, data []byte) string {
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
//
// It is spelt with strconv, not fmt: a preview writes it about eight times
// (TestFormatSOLAsFmt holds it to the fmt spelling it had).
func FormatSOL(lamports uint64) string {
	whole, frac := lamports/solana.LAMPORTS_PER_SOL, lamports%solana.LAMPORTS_PER_SOL
	if frac == 0 {
		return strconv.FormatUint(whole, 10)
	}
	var buf [32]byte
	b := strconv.AppendUint(buf[:0], whole, 10)
	b = append(b, '.')
	// frac < 10^9: nine digits, zero-padded, then the trailing zeros cut.
	var digits [9]byte
	for i := 8; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 9
	for digits[n-1] == '0' {
		n--
	}
	return string(append(b, digits[:n]...))
}

// Token instruction tags shared by SPL Token and Token-2022 that move value
// out of what an authority controls (spl-token's instruction.rs; 38 is
// Token-2022's WithdrawExcessLamports).
const (
	tokenTransfer        = 3
	tokenTransferChecked = 12
	tokenMintTo          = 7
	tokenBurn            = 8
	tokenCloseAccount    = 9
	tokenMintToChecked   = 14
	tokenBurnChecked     = 15
	tokenWithdrawExcess  = 38
	systemWithdrawNonce  = 5
	systemWithdrawAmount = 12 // u32 tag + u64 lamports
	// SetAuthority: authority type u8, then COption<Pubkey> (u8 + 32).
	tokenSetAuthority = 6
	// Token-2022's TransferFeeExtension (26), sub-instruction 1
	// TransferCheckedWithFee: amount u64, decimals u8, fee u64.
	tokenTransferFeeExt    = 26
	transferCheckedWithFee = 1
	// AuthorizeNonceAccount: u32 tag, then the new authority.
	systemAuthorizeNonce = 7
)

// authorityTypes are SetAuthority's types both token programs share.
var authorityTypes = []string{"mint", "freeze", "account owner", "close"}

// describeTokenMoves reads, from their bytes, the token instructions that
// move value by an authority: with amount, source and destination, and the
// multisig signers when the authority is a multisig.
func describeTokenMoves(metas []*solana.AccountMeta, data []byte) (string, bool) {
	if len(data) == 0 {
		return "", false
	}
	at := func(i int) string {
		if i < len(metas) {
			return KeyString(metas[i].PublicKey)
		}
		return "?"
	}
	amount := func() (uint64, bool) {
		if len(data) < 9 {
			return 0, false
		}
		return binary.LittleEndian.Uint64(data[1:9]), true
	}
	switch data[0] {
	case tokenMintTo, tokenMintToChecked:
		n, ok := amount()
		if !ok || len(metas) < 3 {
			return "", false
		}
		return fmt.Sprintf("mint %d base units of %s (new supply) to %s, by mint authority %s", n, at(0), at(1), at(2)) + multisigText(metas, 3), true
	case tokenBurn, tokenBurnChecked:
		n, ok := amount()
		if !ok || len(metas) < 3 {
			return "", false
		}
		return fmt.Sprintf("burn %d base units of %s from %s, by %s", n, at(1), at(0), at(2)) + multisigText(metas, 3), true
	case tokenTransfer:
		n, ok := amount()
		if !ok || len(metas) < 3 {
			return "", false
		}
		return fmt.Sprintf("transfer %d base units from %s to %s, signed by %s", n, at(0), at(1), at(2)) + multisigText(metas, 3), true
	case tokenCloseAccount:
		if len(metas) < 3 {
			return "", false
		}
		return fmt.Sprintf("close account %s, its lamports to %s, by %s", at(0), at(1), at(2)) + multisigText(metas, 3), true
	case tokenWithdrawExcess:
		if len(metas) < 3 {
			return "", false
		}
		return fmt.Sprintf("withdraw the lamports above rent from %s to %s, by %s", at(0), at(1), at(2)) + multisigText(metas, 3), true
	case tokenTransferFeeExt:
		if len(data) != 19 || data[1] != transferCheckedWithFee || len(metas) < 4 {
			return "", false
		}
		n, fee := binary.LittleEndian.Uint64(data[2:10]), binary.LittleEndian.Uint64(data[11:19])
		return fmt.Sprintf("transfer %d base units (%d decimals) of mint %s from %s to %s, a fee of %d of them withheld, signed by %s", n, data[10], at(1), at(0), at(2), fee, at(3)) + multisigText(metas, 4), true
	case tokenSetAuthority:
		if len(data) < 3 || len(metas) < 2 {
			return "", false
		}
		kind := fmt.Sprintf("authority of type %d", data[1])
		if int(data[1]) < len(authorityTypes) {
			kind = authorityTypes[data[1]] + " authority"
		}
		to := "none"
		switch {
		case data[2] == 1 && len(data) == 35:
			to = KeyString(solana.PublicKeyFromBytes(data[3:35]))
		case data[2] != 0 || len(data) != 3:
			return "", false
		}
		return fmt.Sprintf("set the %s of %s to %s, by %s", kind, at(0), to, at(1)) + multisigText(metas, 2), true
	}
	return "", false
}

// multisigText names the signers that follow an authority at index from:
// present only when the authority is a multisig.
func multisigText(metas []*solana.AccountMeta, from int) string {
	if len(metas) <= from {
		return ""
	}
	var signers []string
	for _, m := range metas[from:] {
		signers = append(signers, KeyString(m.PublicKey))
	}
	return fmt.Sprintf(" (the authority is a multisig %s; its signers here: %s)", KeyString(metas[from-1].PublicKey), strings.Join(signers, ", "))
}

// describeWithdrawNonce reads WithdrawNonceAccount (tag 5, u64 lamports;
// accounts nonce, recipient, recent blockhashes, rent, authority).
func describeWithdrawNonce(metas []*solana.AccountMeta, data []byte) (string, bool) {
	if len(data) != systemWithdrawAmount || binary.LittleEndian.Uint32(data) != systemWithdrawNonce || len(metas) < 5 {
		return "", false
	}
	n := binary.LittleEndian.Uint64(data[4:])
	return fmt.Sprintf("withdraw %d lamports (%s SOL) from nonce account %s to %s, by nonce authority %s", n, FormatSOL(n), KeyString(metas[0].PublicKey), KeyString(metas[1].PublicKey), KeyString(metas[4].PublicKey)), true
}
