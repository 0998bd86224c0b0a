package executor

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// The wallet's sphere of control: every account the wallet's signature can
// move value out of, read from the accounts' own data before the
// transaction (and, for accounts it creates, after). Value leaving any of
// them to an account outside counts as the wallet's outflow. The layouts
// here are the ones no library on the hot path reads (solana-go parses
// neither nonce nor multisig accounts); sphere_test.go spells their
// published sizes and offsets.

// Rent exemption as the runtime computes it: (128 + data length) bytes ×
// 3,480 lamports per byte-year × 2 years. Accounts hold at least this; the
// lamports above it are free to move (Token-2022 WithdrawExcessLamports, a
// nonce withdrawal).
const (
	rentStorageOverhead  = 128
	rentLamportsPerByteY = 3480
	rentExemptYears      = 2
)

func rentExempt(dataLen int) uint64 {
	return uint64(rentStorageOverhead+dataLen) * rentLamportsPerByteY * rentExemptYears
}

// A system nonce account: version u32, state u32 (1 = initialized),
// authority (32), durable nonce (32), fee calculator (u64): 80 bytes.
const nonceAccountLen = 80

func nonceAuthority(owner solana.PublicKey, d []byte) (solana.PublicKey, bool) {
	if !owner.Equals(solana.SystemProgramID) || len(d) != nonceAccountLen || binary.LittleEndian.Uint32(d[4:8]) != 1 {
		return solana.PublicKey{}, false
	}
	return solana.PublicKeyFromBytes(d[8:40]), true
}

// An SPL Token multisig: m u8, n u8, is_initialized u8, then 11 signer
// keys: 355 bytes, in both token programs.
const (
	multisigLen        = 355
	multisigMaxSigners = 11
)

// multisigSatisfied reports whether the multisig in d (an account of a
// token program) counts the wallet among its signers and reaches its
// threshold m with the wallet and the transaction's other signers: then the
// wallet's signature moves what the multisig owns.
func multisigSatisfied(owner solana.PublicKey, d []byte, wallet solana.PublicKey, signers []solana.PublicKey) bool {
	if !isTokenProgram(owner) || len(d) != multisigLen || d[2] != 1 {
		return false
	}
	m, n := int(d[0]), int(d[1])
	if m == 0 || n > multisigMaxSigners {
		return false
	}
	signed := map[solana.PublicKey]bool{wallet: true}
	for _, s := range signers {
		signed[s] = true
	}
	hasWallet, count := false, 0
	for i := range n {
		k := solana.PublicKeyFromBytes(d[3+32*i : 35+32*i])
		if k.Equals(wallet) {
			hasWallet = true
		}
		if signed[k] {
			count++ // the token program counts each matching slot
		}
	}
	return hasWallet && count >= m
}

// Token-2022 mint extensions are entries (type u16, length u16, value)
// after the 165-byte base (padded) and the account-type byte (1 = mint).
// Type 3 is MintCloseAuthority (a key that may close the mint, its rent to
// anyone, once the supply is 0); type 12 PermanentDelegate (a key that may
// move or burn any holder's tokens of the mint).
const (
	extMintCloseAuthority = 3
	extPermanentDelegate  = 12
)

// mintExtensionKey reads the key a Token-2022 mint's extension typ holds
// (an OptionalNonZeroPubkey: all zeros is none).
func mintExtensionKey(owner solana.PublicKey, d []byte, typ uint16) (solana.PublicKey, bool) {
	if !owner.Equals(solana.Token2022ProgramID) || len(d) <= 166 || d[165] != 1 {
		return solana.PublicKey{}, false
	}
	for off := 166; off+4 <= len(d); {
		t, n := binary.LittleEndian.Uint16(d[off:]), int(binary.LittleEndian.Uint16(d[off+2:]))
		if t == 0 || off+4+n > len(d) {
			break
		}
		if t == typ && n == 32 {
			k := solana.PublicKeyFromBytes(d[off+4 : off+36])
			return k, !k.IsZero()
		}
		off += 4 + n
	}
	return solana.PublicKey{}, false
}

// permanentDelegate reads a Token-2022 mint's permanent delegate.
func permanentDelegate(owner solana.PublicKey, d []byte) (solana.PublicKey, bool) {
	return mintExtensionKey(owner, d, extPermanentDelegate)
}

// sphere is what the wallet controls among the accounts a transaction
// names. It is found from the simulation's reads and carried to the landed
// measure, whose meta has balances but no account data.
type sphere struct {
	// owners are the token-account owners whose accounts are the wallet's:
	// the wallet and the multisigs its signature satisfies.
	owners map[solana.PublicKey]bool
	// accounts are others whose value the wallet can move, with why: a
	// nonce account it is authority of, a token account it is delegate or
	// close authority of.
	accounts map[solana.PublicKey]string
	// mints are those it may mint (mint authority): new supply is an outflow.
	mints map[solana.PublicKey]bool
	// dataLen is every watched account's data length (after the
	// transaction, or before when it closed): what its rent is.
	dataLen map[solana.PublicKey]int
	// leaves are accounts of the sphere before the transaction that are not
	// after it (a nonce account whose authority it hands to another key):
	// what they hold after is no longer the wallet's.
	leaves map[solana.PublicKey]bool
	// delegated are Token-2022 mints whose permanent delegate is the
	// wallet: every holder's token account of them is the wallet's to move,
	// and those the transaction takes from are counted as its own.
	delegated map[solana.PublicKey]bool
	// wallets are the accounts known to belong to a key (system accounts
	// and token accounts whose owner is on the curve): payees that are
	// wallets, held to the recipient allowlist.
	wallets map[solana.PublicKey]bool
	// unvalued are accounts of programs the engine cannot read whose data
	// names the wallet (a stake account it is withdrawer of, a position in
	// some protocol), with their owning program: their lamports above rent
	// count as the wallet's, and any change of them is shown as one that
	// cannot be valued.
	unvalued map[solana.PublicKey]solana.PublicKey
}

func newSphere(wallet solana.PublicKey) *sphere {
	return &sphere{
		owners:   map[solana.PublicKey]bool{wallet: true},
		accounts: map[solana.PublicKey]string{}, mints: map[solana.PublicKey]bool{},
		dataLen: map[solana.PublicKey]int{}, wallets: map[solana.PublicKey]bool{},
		unvalued: map[solana.PublicKey]solana.PublicKey{},
		leaves:   map[solana.PublicKey]bool{}, delegated: map[solana.PublicKey]bool{},
	}
}

// multisigCandidates are keys of the message that own a watched token
// account that lost value, or hold the mint authority of a watched mint
// whose supply grew, or are the Token-2022 mint of such an account: the
// ones whose data must be read to tell whether they are multisigs the
// wallet satisfies (or mints whose permanent delegate it is). Accounts that only gained need no
// read (nothing left them), which keeps a plain payment to one round.
func multisigCandidates(wallet solana.PublicKey, v txView, before, after []*rpc.Account) []solana.PublicKey {
	inMsg := map[solana.PublicKey]bool{}
	for _, k := range v.keys {
		inMsg[k] = true
	}
	seen := map[solana.PublicKey]bool{wallet: true}
	var out []solana.PublicKey
	add := func(k solana.PublicKey) {
		if inMsg[k] && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for i := range before {
		b, a := readAccount(before[i]), readAccount(after[i])
		switch {
		case b.token != nil:
			if a.token == nil || a.token.amount < b.token.amount || a.lamports < b.lamports {
				add(b.token.owner)
				if b.owner.Equals(solana.Token2022ProgramID) {
					add(b.token.mint) // its permanent delegate may be the wallet
				}
			}
		case b.mint != nil:
			if k := optKey(b.mint.mintAuthority); k != nil && a.mint != nil && a.mint.supply > b.mint.supply {
				add(*k)
			}
		}
	}
	return out
}

// findSphere reads the sphere from the watched accounts' states (keys[i]
// as before[i] and after[i]) and the candidate multisigs' data.
func findSphere(wallet solana.PublicKey, signers []solana.PublicKey, keys []solana.PublicKey, before, after []*rpc.Account, multisigs map[solana.PublicKey]*rpc.Account) *sphere {
	s := newSphere(wallet)
	for k, a := range multisigs {
		if a != nil && multisigSatisfied(a.Owner, a.Data.GetBinary(), wallet, signers) {
			s.owners[k] = true
		}
	}
	for k, a := range multisigs {
		if a == nil {
			continue
		}
		if d, ok := permanentDelegate(a.Owner, a.Data.GetBinary()); ok && s.owners[d] {
			s.delegated[k] = true
		}
	}
	for i, k := range keys {
		b, a := readAccount(before[i]), readAccount(after[i])
		if a.exists {
			s.dataLen[k] = len(a.data)
		} else {
			s.dataLen[k] = len(b.data)
		}
		if auth, ok := nonceAuthority(b.owner, b.data); ok && s.owners[auth] {
			s.accounts[k] = "nonce account of which the wallet is authority"
			if auth, ok := nonceAuthority(a.owner, a.data); a.exists && (!ok || !s.owners[auth]) {
				s.leaves[k] = true // authorised to another key: no longer the wallet's
			}
		} else if auth, ok := nonceAuthority(a.owner, a.data); !b.exists && ok && s.owners[auth] {
			// Created by the transaction with the wallet as authority.
			s.accounts[k] = "nonce account of which the wallet is authority"
		} else if namesWalletUnread(wallet, b) {
			s.accounts[k] = "account of program " + KeyString(b.owner) + " whose data names the wallet"
			s.unvalued[k] = b.owner
		}
		if t := b.token; t != nil && !s.owners[t.owner] {
			switch {
			case optIs(t.delegate, wallet):
				s.accounts[k] = "token account of which the wallet is delegate"
			case optIs(t.closeAuthority, wallet):
				s.accounts[k] = "token account of which the wallet is close authority"
			case s.delegated[t.mint] && (a.token == nil || a.token.amount < t.amount):
				// Any holder's account of the mint is the wallet's to move;
				// the ones the transaction takes from count as its own, and
				// what they pay to any other account as its outflow.
				s.accounts[k] = "token account the wallet moves as permanent delegate of its mint"
			}
		}
		if m := b.mint; m != nil {
			if auth := optKey(m.mintAuthority); auth != nil && s.owners[*auth] {
				s.mints[k] = true
			}
			if c, ok := mintExtensionKey(b.owner, b.data, extMintCloseAuthority); ok && s.owners[c] {
				// Its lamports are the wallet's to take: closing it
				// elsewhere pays someone.
				s.accounts[k] = "mint of which the wallet is close authority"
			}
		}
		// Who a payee is: a system account (or a new one) on the curve is
		// someone's wallet; so is a token account whose owner is on it.
		switch {
		case a.token != nil:
			s.wallets[k] = a.token.owner.IsOnCurve()
		case b.token != nil:
			s.wallets[k] = b.token.owner.IsOnCurve()
		case (!a.exists || a.owner.Equals(solana.SystemProgramID)) && len(a.data) == 0:
			s.wallets[k] = k.IsOnCurve()
		}
	}
	return s
}

// holds reports whether the account k, in state st, is the wallet's to
// move value out of (the wallet itself is counted apart).
func (s *sphere) holds(k solana.PublicKey, st side) bool {
	if s == nil {
		return false
	}
	if _, ok := s.accounts[k]; ok {
		return true
	}
	return st.token && s.owners[st.owner]
}

// rentOf is the rent an account's data requires, from the sphere's record
// of its length (a token account's 165 bytes when unrecorded, else none).
func (s *sphere) rentOf(k solana.PublicKey, st side) uint64 {
	n, ok := 0, false
	if s != nil {
		n, ok = s.dataLen[k]
	}
	if !ok && st.token {
		n = 165
	}
	if n == 0 {
		// No data, no rent: lamports put into a new account without data
		// are a payment to it.
		return 0
	}
	return rentExempt(n)
}

// namesWalletUnread reports whether b is an account of a program the engine
// does not read (not the system program's, not a token account or mint)
// whose data holds the wallet's key.
func namesWalletUnread(wallet solana.PublicKey, b accountState) bool {
	if !b.exists || b.token != nil || b.mint != nil || b.owner.Equals(solana.SystemProgramID) || isTokenProgram(b.owner) {
		return false
	}
	return bytes.Contains(b.data, wallet[:])
}

// landedSphere re-derives, for a transaction found on chain with nothing
// measured before it (a reconciliation after a restart), what the wallet
// controlled among its accounts: from the accounts' data as they are now
// (nonce authorities, delegates, multisigs named as token owners in the
// meta) and from the instructions that executed (an instruction the chain
// ran with the wallet, or a multisig it satisfies, as authority proves the
// wallet could move what it moved, even out of an account since closed or
// a delegation since used up). Counting more than the wallet controlled
// would only overstate its spend; counting less would let a restart forget
// a withdrawal.
func (c *Client) landedSphere(ctx context.Context, wallet solana.PublicKey, v txView, tx *rpc.GetTransactionResult) (*sphere, error) {
	var keys []solana.PublicKey
	for i, k := range v.keys {
		if v.writable[i] && !k.Equals(wallet) {
			keys = append(keys, k)
		}
	}
	now, err := c.multipleAccounts(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read the transaction's accounts: %w", err)
	}
	// Token owners the meta names, other than the wallet: possible
	// multisigs, read to tell.
	seen := map[solana.PublicKey]bool{wallet: true}
	var cands []solana.PublicKey
	for _, list := range [][]rpc.TokenBalance{tx.Meta.PreTokenBalances, tx.Meta.PostTokenBalances} {
		for _, tb := range list {
			if tb.Owner != nil && !seen[*tb.Owner] {
				seen[*tb.Owner] = true
				cands = append(cands, *tb.Owner)
			}
		}
	}
	msigs := map[solana.PublicKey]*rpc.Account{}
	if len(cands) > 0 {
		accts, err := c.multipleAccounts(ctx, cands)
		if err != nil {
			return nil, fmt.Errorf("read the token accounts' owners: %w", err)
		}
		for i, k := range cands {
			msigs[k] = accts[i]
		}
	}
	s := findSphere(wallet, v.signers, keys, now, now, msigs)
	for i, k := range keys {
		if now[i] == nil {
			delete(s.dataLen, k) // closed: its length is not known now
		}
	}
	if tx.Meta.Err != nil {
		return s, nil // nothing but the fee moved
	}
	key := func(x viewIx, n int) (solana.PublicKey, bool) {
		if n >= len(x.accounts) || x.accounts[n] >= len(v.keys) {
			return solana.PublicKey{}, false
		}
		return v.keys[x.accounts[n]], true
	}
	// authorized: the instruction's account n (its authority) is the wallet
	// or a multisig it satisfies.
	authorized := func(x viewIx, n int) bool {
		k, ok := key(x, n)
		return ok && s.owners[k]
	}
	// Token accounts the meta shows owned by the wallet (or a multisig it
	// satisfies) are its own already.
	owned := map[solana.PublicKey]bool{}
	for _, tb := range tx.Meta.PreTokenBalances {
		if tb.Owner != nil && s.owners[*tb.Owner] && int(tb.AccountIndex) < len(v.keys) {
			owned[v.keys[tb.AccountIndex]] = true
		}
	}
	mark := func(x viewIx, n int, why string) {
		if k, ok := key(x, n); ok && !s.owners[k] && !owned[k] {
			if _, has := s.accounts[k]; !has {
				s.accounts[k] = why
			}
		}
	}
	ran := append([]viewIx(nil), v.ixs...)
	for _, group := range tx.Meta.InnerInstructions {
		for _, ci := range group.Instructions {
			ran = append(ran, compiledIx(solana.CompiledInstruction{ProgramIDIndex: ci.ProgramIDIndex, Accounts: ci.Accounts, Data: ci.Data}))
		}
	}
	for _, x := range ran {
		if x.program >= len(v.keys) || len(x.data) == 0 {
			continue
		}
		prog := v.keys[x.program]
		switch {
		case prog.Equals(solana.SystemProgramID) && len(x.data) >= 4 && binary.LittleEndian.Uint32(x.data) == systemWithdrawNonce && authorized(x, 4):
			// WithdrawNonceAccount: nonce, to, recent blockhashes, rent, authority.
			mark(x, 0, "nonce account of which the wallet is authority")
			if k, ok := key(x, 0); ok {
				if _, known := s.dataLen[k]; !known {
					s.dataLen[k] = nonceAccountLen
				}
			}
		case isTokenProgram(prog):
			switch x.data[0] {
			case tokenTransfer, tokenWithdrawExcess: // source, destination, authority
				if authorized(x, 2) {
					mark(x, 0, "token account the wallet may move out of (it signed as its authority)")
				}
			case tokenTransferChecked: // source, mint, destination, authority
				if authorized(x, 3) {
					mark(x, 0, "token account the wallet may move out of (it signed as its authority)")
				}
			case tokenBurn, tokenBurnChecked, tokenCloseAccount: // account, mint or destination, authority
				if authorized(x, 2) {
					mark(x, 0, "token account the wallet may move out of (it signed as its authority)")
				}
			case tokenMintTo, tokenMintToChecked: // mint, destination, authority
				if authorized(x, 2) {
					if k, ok := key(x, 0); ok {
						s.mints[k] = true
					}
				}
			}
		}
	}
	return s, nil
}
