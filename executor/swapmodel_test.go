package executor_test

import (
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
)

// This file is a small model of what the fuzzed swap transactions do to
// accounts (system transfers, SPL token transfers, close, sync native,
// approve, set authority, associated token account creation), so the fuzz
// target can hold every accepted transaction to the outflow budget without a
// ledger. The budget gate is the product's (MeasureWallet over the watch
// list, SwapBudget.Check); the oracle below recomputes the outflow from every
// account of the model, not only the watched ones.

const modelRent = executor.TokenAccountRent

type modelAcct struct {
	lamports uint64
	token    bool
	mint     solana.PublicKey
	owner    solana.PublicKey
	amount   uint64
	delegate *solana.PublicKey
}

type model map[solana.PublicKey]*modelAcct

func (m model) clone() model {
	c := model{}
	for k, v := range m {
		cp := *v
		c[k] = &cp
	}
	return c
}

func (m model) get(k solana.PublicKey) *modelAcct {
	if a := m[k]; a != nil {
		return a
	}
	a := &modelAcct{}
	m[k] = a
	return a
}

// rpcAccount is the account as a node would return it (nil when absent).
func (m model) rpcAccount(k solana.PublicKey) *rpc.Account {
	a := m[k]
	if a == nil || (a.lamports == 0 && !a.token) {
		return nil
	}
	if !a.token {
		return &rpc.Account{Owner: solana.SystemProgramID, Lamports: a.lamports, Data: rpc.DataBytesOrJSONFromBytes(nil)}
	}
	d := make([]byte, 165)
	copy(d[0:32], a.mint[:])
	copy(d[32:64], a.owner[:])
	binary.LittleEndian.PutUint64(d[64:72], a.amount)
	if a.delegate != nil {
		d[72] = 1
		copy(d[76:108], a.delegate[:])
	}
	d[108] = 1
	if a.mint.Equals(executor.WrappedSOL) {
		d[109] = 1
		binary.LittleEndian.PutUint64(d[113:121], modelRent)
	}
	return &rpc.Account{Owner: solana.TokenProgramID, Lamports: a.lamports, Data: rpc.DataBytesOrJSONFromBytes(d)}
}

func (f *inspectFixture) modelStart() model {
	w, p := f.wallet.PublicKey(), f.pool.PublicKey()
	poolWSOL, _ := executor.AssociatedTokenAddress(p, executor.WrappedSOL, solana.TokenProgramID)
	return model{
		w:            {lamports: 10 * solana.LAMPORTS_PER_SOL},
		p:            {lamports: 1000 * solana.LAMPORTS_PER_SOL},
		f.walletTA:   {lamports: modelRent, token: true, mint: f.mint, owner: w, amount: 100_000_000},
		f.poolTA:     {lamports: modelRent, token: true, mint: f.mint, owner: p, amount: 1_000_000_000_000},
		f.walletWSOL: {lamports: modelRent + solana.LAMPORTS_PER_SOL, token: true, mint: executor.WrappedSOL, owner: w, amount: solana.LAMPORTS_PER_SOL},
		poolWSOL:     {lamports: modelRent, token: true, mint: executor.WrappedSOL, owner: p},
	}
}

// run executes the message's instructions on m; false when the transaction
// would fail (then nothing changed, as on chain).
func runModel(start model, keys []solana.PublicKey, signers int, msg solana.Message, fee uint64) (model, bool) {
	m := start.clone()
	payer := m.get(keys[0])
	if payer.lamports < fee {
		return start, false
	}
	payer.lamports -= fee
	signer := func(k solana.PublicKey) bool {
		for i := 0; i < signers; i++ {
			if keys[i].Equals(k) {
				return true
			}
		}
		return false
	}
	for _, ix := range msg.Instructions {
		prog := keys[ix.ProgramIDIndex]
		d := []byte(ix.Data)
		acc := func(n int) solana.PublicKey {
			if n >= len(ix.Accounts) {
				return solana.PublicKey{}
			}
			return keys[ix.Accounts[n]]
		}
		switch {
		case prog.Equals(solana.ComputeBudget):
		case prog.Equals(solana.SystemProgramID):
			if len(d) != 12 || binary.LittleEndian.Uint32(d) != 2 || len(ix.Accounts) < 2 {
				return start, false
			}
			from, to, l := m.get(acc(0)), m.get(acc(1)), binary.LittleEndian.Uint64(d[4:])
			if !signer(acc(0)) || from.token || from.lamports < l {
				return start, false
			}
			from.lamports -= l
			to.lamports += l
		case prog.Equals(solana.TokenProgramID) || prog.Equals(solana.Token2022ProgramID):
			if len(d) == 0 || len(ix.Accounts) == 0 {
				return start, false
			}
			src := m.get(acc(0))
			switch d[0] {
			case 3, 12:
				if len(d) < 9 {
					return start, false
				}
				dstN, authN := 1, 2
				if d[0] == 12 {
					dstN, authN = 2, 3
				}
				dst, auth, amt := m.get(acc(dstN)), acc(authN), binary.LittleEndian.Uint64(d[1:9])
				if !src.token || !dst.token || !src.mint.Equals(dst.mint) || src.amount < amt || !signer(auth) ||
					!(src.owner.Equals(auth) || (src.delegate != nil && src.delegate.Equals(auth))) {
					return start, false
				}
				src.amount -= amt
				dst.amount += amt
				if src.mint.Equals(executor.WrappedSOL) {
					src.lamports -= amt
					dst.lamports += amt
				}
			case 9: // CloseAccount
				dst, owner := m.get(acc(1)), acc(2)
				if !src.token || !src.owner.Equals(owner) || !signer(owner) || (src.amount != 0 && !src.mint.Equals(executor.WrappedSOL)) {
					return start, false
				}
				dst.lamports += src.lamports
				*src = modelAcct{}
			case 17: // SyncNative
				if !src.token || !src.mint.Equals(executor.WrappedSOL) {
					return start, false
				}
				src.amount = src.lamports - modelRent
			case 4: // Approve
				if !src.token || !signer(acc(2)) || !src.owner.Equals(acc(2)) {
					return start, false
				}
				del := acc(1)
				src.delegate = &del
			case 6: // SetAuthority(AccountOwner)
				if len(d) < 35 || !src.token || !signer(acc(1)) || !src.owner.Equals(acc(1)) || d[1] != 2 || d[2] != 1 {
					return start, false
				}
				src.owner = solana.PublicKeyFromBytes(d[3:35])
			case 1, 16, 18:
			default:
				return start, false
			}
		case prog.Equals(solana.SPLAssociatedTokenAccountProgramID):
			if len(ix.Accounts) != 6 {
				return start, false
			}
			payer, ata := m.get(acc(0)), m.get(acc(1))
			if ata.token {
				if len(d) == 1 && d[0] == 1 {
					continue // idempotent
				}
				return start, false
			}
			want, _ := executor.AssociatedTokenAddress(acc(2), acc(3), acc(5))
			if !signer(acc(0)) || payer.lamports < modelRent || !want.Equals(acc(1)) {
				return start, false
			}
			payer.lamports -= modelRent
			*ata = modelAcct{lamports: ata.lamports + modelRent, token: true, mint: acc(3), owner: acc(2)}
		default:
			return start, false
		}
	}
	return m, true
}

// checkBudget runs an accepted transaction through the model. If the
// product's budget gate lets it through, the wallet's outflow computed over
// every account of the model must be within the approved input + fee + rent,
// no other asset may decrease, and no token account of the wallet may be
// closed, given away or delegated.
func (f *inspectFixture) checkBudget(t *testing.T, tx *solana.Transaction, in *executor.Inspection, r executor.InspectRules) {
	t.Helper()
	keys := tx.Message.AccountKeys
	before := f.modelStart()
	after, ok := runModel(before, keys, int(tx.Message.Header.NumRequiredSignatures), tx.Message, in.Fee)
	if !ok {
		return // the simulation fails: refused before signing
	}
	// The product's gate: the watch list PrepareSwap uses.
	watch := []solana.PublicKey{r.Wallet}
	for i, k := range in.Accounts {
		if i > 0 && in.Writable[i] {
			watch = append(watch, k)
		}
	}
	pre, post := make([]*rpc.Account, len(watch)), make([]*rpc.Account, len(watch))
	for i, k := range watch {
		pre[i], post[i] = before.rpcAccount(k), after.rpcAccount(k)
	}
	eff := executor.MeasureWallet(r.Wallet, watch, pre, post)
	budget := executor.SwapBudget{InputMint: r.InputMint, InAmount: r.InAmount, Fee: in.Fee, Rent: eff.RentPaid}
	if budget.Check(eff) != nil {
		return // refused before signing
	}

	// The oracle, over every account of the model.
	w := r.Wallet
	value := func(m model) (sol uint64, tokens map[solana.PublicKey]uint64) {
		tokens = map[solana.PublicKey]uint64{}
		sol = m.get(w).lamports
		for _, a := range m {
			if !a.token || !a.owner.Equals(w) {
				continue
			}
			if a.mint.Equals(executor.WrappedSOL) {
				sol += a.lamports
			} else {
				tokens[a.mint] += a.amount
			}
		}
		return sol, tokens
	}
	solB, tokB := value(before)
	solA, tokA := value(after)
	var rent uint64
	for k, a := range after {
		if a.token && a.owner.Equals(w) && !a.mint.Equals(executor.WrappedSOL) && !before.get(k).token {
			rent += a.lamports
		}
	}
	allowed := in.Fee + rent
	if r.InputMint.Equals(executor.WrappedSOL) {
		allowed += r.InAmount
	}
	if solB > solA && solB-solA > allowed {
		t.Fatalf("accepted: %d lamports (SOL and WSOL) left the wallet, budget %d", solB-solA, allowed)
	}
	for mint, b := range tokB {
		if a := tokA[mint]; a < b {
			lost := b - a
			if !mint.Equals(r.InputMint) || lost > r.InAmount {
				t.Fatalf("accepted: %d of mint %s left the wallet (input %s, %d)", lost, mint, r.InputMint, r.InAmount)
			}
		}
	}
	for k, b := range before {
		if !b.token || !b.owner.Equals(w) {
			continue
		}
		a := after.get(k)
		switch {
		case !a.token && !b.mint.Equals(executor.WrappedSOL):
			t.Fatalf("accepted: the wallet's token account %s closed", k)
		case a.token && !a.owner.Equals(w):
			t.Fatalf("accepted: the wallet's token account %s given to %s", k, a.owner)
		case a.token && a.delegate != nil && b.delegate == nil:
			t.Fatalf("accepted: the wallet's token account %s given a delegate", k)
		}
	}
}
