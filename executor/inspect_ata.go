package executor

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// The associated token account program's instruction tags (one data byte;
// no data at all also means Create). solana-go's associatedtokenaccount
// package encodes no tag (it knows only Create), so they are spelt here.
const (
	// ataCreate fails when the account exists.
	ataCreate uint8 = 0
	// ataCreateIdempotent succeeds either way, so someone creating the
	// account in the meantime cannot make the transaction fail.
	ataCreateIdempotent uint8 = 1
	// ataRecoverNested moves tokens out of an ATA owned by an ATA.
	ataRecoverNested uint8 = 2
)

// associatedTokenAccount judges an associated token account instruction.
// With the wallet involved only Create / CreateIdempotent is allowed, with
// the wallet as payer (account 0) or owner (account 2) and nowhere else; the
// wallet pays rent only for its own account under a token program.
func (j *swapJudge) associatedTokenAccount(x judgedInstruction, sum *InstructionSummary) error {
	i := x.index
	r := j.r
	payer, _ := x.acct(0)
	owner, _ := x.acct(2)
	tokenProg, _ := x.acct(5)
	create := len(x.data) == 0 || (len(x.data) == 1 && (x.data[0] == ataCreate || x.data[0] == ataCreateIdempotent))
	if !create || len(x.accounts) != 6 {
		if x.usesWallet {
			return refuse("instruction %d: associated token account instruction with the wallet is not allowed in a swap (only create is)", i)
		}
		sum.Summary = "associated token account instruction (wallet not involved)"
		return nil
	}
	ataAcct, _ := x.acct(1)
	mintAcct, _ := x.acct(3)
	sum.Summary = fmt.Sprintf("create %s's token account %s for %s if missing", owner, ataAcct, mintAcct)
	if payer.Equals(r.Wallet) {
		if !owner.Equals(r.Wallet) {
			return refuse("instruction %d makes the wallet pay rent for a token account owned by %s", i, owner)
		}
		if !tokenProg.Equals(solana.TokenProgramID) && !tokenProg.Equals(solana.Token2022ProgramID) {
			return refuse("instruction %d creates a token account under %s, not a token program", i, tokenProg)
		}
		j.in.CreatesAccounts++
	}
	for n, a := range x.accounts {
		if a == 0 && n != 0 && n != 2 {
			return refuse("instruction %d: an associated token account instruction lists the wallet in an unexpected position", i)
		}
	}
	return nil
}
