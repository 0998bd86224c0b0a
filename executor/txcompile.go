package executor

import (
	"fmt"
	"sort"

	"github.com/gagliardetto/solana-go"
)

// newTransaction is solana.NewTransaction(instructions, blockhash,
// solana.TransactionPayer(payer)) for a message without address lookup
// tables, which is every transaction solgate builds. solana-go's indexes
// the message's accounts by their base58 text, encoding every key of every
// instruction again: about 4 % of the console's CPU a proposal. This is its
// algorithm step for step (the same order, the same flags merged into the
// same instructions' account metas), with the accounts indexed by key.
// TestNewTransactionIsSolanaGos holds the two to the same bytes.
func newTransaction(instructions []solana.Instruction, blockhash solana.Hash, payer solana.PublicKey) (*solana.Transaction, error) {
	if len(instructions) == 0 {
		return nil, fmt.Errorf("requires at-least one instruction to create a transaction")
	}
	if payer.IsZero() {
		// solana-go then takes the first instruction's first signer;
		// solgate always names its payer, so that case stays solana-go's.
		return solana.NewTransaction(instructions, blockhash)
	}
	var programIDs solana.PublicKeySlice
	var accounts []*solana.AccountMeta
	for _, ix := range instructions {
		accounts = append(accounts, ix.Accounts()...)
		programIDs.UniqueAppend(ix.ProgramID())
	}
	for _, p := range programIDs {
		accounts = append(accounts, &solana.AccountMeta{PublicKey: p})
	}
	// Signers first, then writable (AccountMeta.less), stably.
	sort.SliceStable(accounts, func(i, j int) bool {
		a, b := accounts[i], accounts[j]
		if a.IsSigner != b.IsSigner {
			return a.IsSigner
		}
		if a.IsWritable != b.IsWritable {
			return a.IsWritable
		}
		return false
	})
	uniqIndex := make(map[solana.PublicKey]int, len(accounts))
	uniq := make([]*solana.AccountMeta, 0, len(accounts))
	for _, acc := range accounts {
		if i, found := uniqIndex[acc.PublicKey]; found {
			uniq[i].IsWritable = uniq[i].IsWritable || acc.IsWritable
			continue
		}
		uniq = append(uniq, acc)
		uniqIndex[acc.PublicKey] = len(uniq) - 1
	}
	payerIndex := -1
	for i, acc := range uniq {
		if acc.PublicKey.Equals(payer) {
			payerIndex = i
		}
	}
	count := len(uniq)
	if payerIndex < 0 {
		count++
	}
	all := make([]*solana.AccountMeta, count)
	next := 1
	for i, acc := range uniq {
		if i == payerIndex {
			acc.IsSigner, acc.IsWritable = true, true
			all[0] = acc
			continue
		}
		all[next] = acc
		next++
	}
	if payerIndex < 0 {
		all[0] = &solana.AccountMeta{PublicKey: payer, IsSigner: true, IsWritable: true}
	}
	msg := solana.Message{RecentBlockhash: blockhash, AccountKeys: make(solana.PublicKeySlice, 0, len(all))}
	index := make(map[solana.PublicKey]uint16, len(all))
	for _, acc := range all {
		index[acc.PublicKey] = uint16(len(msg.AccountKeys))
		msg.AccountKeys = append(msg.AccountKeys, acc.PublicKey)
		if acc.IsSigner {
			msg.Header.NumRequiredSignatures++
			if !acc.IsWritable {
				msg.Header.NumReadonlySignedAccounts++
			}
			continue
		}
		if !acc.IsWritable {
			msg.Header.NumReadonlyUnsignedAccounts++
		}
	}
	for n, ix := range instructions {
		metas := ix.Accounts()
		accountIndex := make([]uint16, len(metas))
		for i, acc := range metas {
			accountIndex[i] = index[acc.PublicKey]
		}
		data, err := ix.Data()
		if err != nil {
			return nil, fmt.Errorf("unable to encode instructions [%d]: %w", n, err)
		}
		msg.Instructions = append(msg.Instructions, solana.CompiledInstruction{
			ProgramIDIndex: index[ix.ProgramID()],
			Accounts:       accountIndex,
			Data:           data,
		})
	}
	return &solana.Transaction{Message: msg}, nil
}
