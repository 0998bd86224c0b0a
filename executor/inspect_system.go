package executor

import (
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go/programs/system"
)

// system judges a system program instruction. With the wallet involved only
// a transfer is allowed, and only of SOL the swap spends: when the input is
// SOL, to a pool or the wallet's own wrapped-SOL account, adding up to no
// more than the swap's input.
func (j *swapJudge) system(x judgedInstruction, sum *InstructionSummary) error {
	i := x.index
	if len(x.data) < 4 {
		return refuse("instruction %d: undecodable system instruction", i)
	}
	tag := binary.LittleEndian.Uint32(x.data)
	if tag != system.Instruction_Transfer {
		if x.usesWallet {
			return refuse("instruction %d: system instruction %d on the wallet is not allowed in a swap (only transfers are)", i, tag)
		}
		sum.Summary = fmt.Sprintf("system instruction %d (wallet not involved)", tag)
		return nil
	}
	from, ok1 := x.acct(0)
	to, ok2 := x.acct(1)
	if len(x.data) != 12 || !ok1 || !ok2 {
		return refuse("instruction %d: malformed system transfer", i)
	}
	lamports := binary.LittleEndian.Uint64(x.data[4:])
	sum.Summary = fmt.Sprintf("transfer %d lamports (%s SOL) from %s to %s", lamports, FormatSOL(lamports), from, to)
	r := j.r
	if !from.Equals(r.Wallet) {
		if x.usesWallet && !to.Equals(r.Wallet) {
			return refuse("instruction %d: a system transfer lists the wallet in an unexpected position", i)
		}
		return nil
	}
	sum.LamportsOut = lamports
	if !j.solInput {
		return refuse("instruction %d sends %d lamports of the wallet's SOL to %s, but the swap's input is %s, not SOL", i, lamports, to, r.InputMint)
	}
	if !j.isPool(to) && !j.ownWSOL[to] {
		return refuse("instruction %d sends %d lamports of the wallet's SOL to %s, which is not the pool (%s) or the wallet's own wrapped-SOL account", i, lamports, to, poolList(r.Pools))
	}
	if j.in.SOLOut+lamports < j.in.SOLOut || j.in.SOLOut+lamports > r.InAmount {
		return refuse("instruction %d: the wallet's SOL transfers add up to more than the swap's input of %d lamports", i, r.InAmount)
	}
	j.in.SOLOut += lamports
	return nil
}
