package executor

import (
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
)

// token judges an SPL Token or Token-2022 instruction (they share these
// tags). Without the wallet among its accounts it cannot use the wallet's
// authority and is only described. With it, allowed are: a transfer of the
// input mint from the wallet's account to a pool's, within the swap's input;
// closing a token account with its balance to the wallet; initializing an
// account and syncing wrapped SOL. Everything else (Approve, SetAuthority,
// Burn, ...) is refused by its tag.
func (j *swapJudge) token(x judgedInstruction, sum *InstructionSummary) error {
	i := x.index
	if len(x.data) < 1 {
		return refuse("instruction %d: empty token instruction", i)
	}
	sum.Summary = describeTokenInstruction(x.data, x.keys)
	if !x.usesWallet {
		return nil // cannot use the wallet's authority without the wallet
	}
	r := j.r
	switch tag := x.data[0]; tag {
	case token.Instruction_Transfer, token.Instruction_TransferChecked:
		var src, mint, dst, auth solana.PublicKey
		var ok bool
		if tag == token.Instruction_Transfer {
			if len(x.data) != 9 || len(x.accounts) != 3 {
				return refuse("instruction %d: malformed token transfer", i)
			}
			src, _ = x.acct(0)
			dst, _ = x.acct(1)
			auth, ok = x.acct(2)
		} else {
			if len(x.data) != 10 || len(x.accounts) != 4 {
				return refuse("instruction %d: malformed token transfer", i)
			}
			src, _ = x.acct(0)
			mint, _ = x.acct(1)
			dst, _ = x.acct(2)
			auth, ok = x.acct(3)
		}
		amount := binary.LittleEndian.Uint64(x.data[1:9])
		if !ok || !auth.Equals(r.Wallet) {
			return refuse("instruction %d: a token transfer lists the wallet in an unexpected position", i)
		}
		sum.Summary = fmt.Sprintf("transfer %d tokens from %s to %s (authority: the wallet)", amount, src, dst)
		if tag == token.Instruction_TransferChecked && !mint.Equals(r.InputMint) {
			return refuse("instruction %d transfers the wallet's %s tokens, but the swap's input is %s", i, mint, r.InputMint)
		}
		if p, ok := j.ownInput[src]; !ok || !p.Equals(x.prog) {
			return refuse("instruction %d transfers tokens out of %s, which is not the wallet's %s account", i, src, r.InputMint)
		}
		if p, ok := j.poolInput[dst]; !ok || !p.Equals(x.prog) {
			return refuse("instruction %d sends the wallet's tokens to %s, which is not the pool's %s account (pool %s)", i, dst, r.InputMint, poolList(r.Pools))
		}
		if j.in.TokensOut+amount < j.in.TokensOut || j.in.TokensOut+amount > r.InAmount {
			return refuse("instruction %d: the wallet's token transfers add up to more than the swap's input of %d", i, r.InAmount)
		}
		j.in.TokensOut += amount
	case token.Instruction_CloseAccount: // rent (and wrapped SOL) back to the wallet only
		dst, ok1 := x.acct(1)
		owner, ok2 := x.acct(2)
		if !ok1 || !ok2 || len(x.accounts) != 3 || !owner.Equals(r.Wallet) || !dst.Equals(r.Wallet) {
			return refuse("instruction %d closes a token account with the wallet's authority but sends its balance to %s, not the wallet", i, dst)
		}
		sum.Summary = "close the wallet's token account, balance to the wallet"
	case token.Instruction_InitializeAccount, token.Instruction_InitializeAccount2,
		token.Instruction_InitializeAccount3, token.Instruction_SyncNative:
		// No authority used; the description above stands.
	default:
		return refuse("instruction %d: token instruction %d with the wallet is not allowed in a swap (only transfers to the pool, close and sync are)", i, tag)
	}
	return nil
}
