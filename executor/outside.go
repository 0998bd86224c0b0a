package executor

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// This file judges and signs transactions built outside solgate (an SDK's,
// a launchpad API's, a Solana Action's): sign_and_send_transaction and any
// kind that ends in "sign these bytes". solgate adds only the wallet's
// signature, and only to bytes it has decoded, checked and measured:
//   - the wallet is the fee payer (and so a required signer);
//   - every other required signature is already there and valid;
//   - every top-level program is on the allowlist (OutsideRules: the
//     policy's defaults and the operator's --allow-program);
//   - no durable nonce; the priority fee within the operator's cap;
//   - the effects engine's refusals (authority, delegate, freeze, a close
//     paying a stranger).
// Lifetime: bytes only the wallet signs may get a fresh blockhash (and, with
// no compute budget of their own, solgate's fee policy); bytes others signed
// keep theirs, and are refused once it has expired.
// The approval binds the message apart from its blockhash, plus the
// approved effects: at execution the bytes are measured again and refused
// when they would do worse, and the landed effects are verified against the
// approved ones.

// ErrBadTransaction: the bytes are not a transaction (bad base64, not a
// canonical legacy or v0 wire transaction). A caller's argument error, not
// a refusal.
var ErrBadTransaction = errors.New("not a valid transaction")

// ErrProgramNotAllowed: the bytes call a program at the top level that is
// not on the allowlist. Matched together with ErrUnsafeTransaction.
var ErrProgramNotAllowed = errors.New("program not allowed")

// ErrWorseThanApproved: at execution the bytes would do more than the
// approved effects (more out, less in, a new change). Nothing was signed.
var ErrWorseThanApproved = errors.New("worse than approved")

// ErrOutsideExpired: others signed the bytes, so their blockhash cannot be
// moved, and it has expired. Nothing was signed.
var ErrOutsideExpired = errors.New("blockhash expired")

// OutsideRules are the operator's settings that judge outside bytes.
type OutsideRules struct {
	// AllowPrograms is the whole allowlist of programs the bytes may call
	// at the top level, each with its label ("" for its well-known name):
	// the policy's (policy.DefaultPrograms and --allow-program). Empty
	// refuses every program.
	AllowPrograms map[solana.PublicKey]string
}

// OutsideFacts are what the calling kind knows about where the bytes came
// from: shown, carried into the prepared value, never used for a decision.
type OutsideFacts struct {
	// Origin is where the bytes came from (an action's scheme and host),
	// as the kind established it; "" for bytes the agent handed over.
	Origin string
	// Untrusted are lines written by someone else (the agent's label, an
	// action's title): the kind sanitises them before they are shown.
	Untrusted []string
}

// OutsideProgram is one program the bytes call, with its label.
type OutsideProgram struct {
	ID    solana.PublicKey
	Label string
}

// PreparedOutside is outside bytes checked and measured, ready to be shown
// (a proposal) or signed (an approved execution).
type PreparedOutside struct {
	// Tx is what would be signed: the bytes received, or (only the wallet
	// signing) the same message on a fresh blockhash, with solgate's compute
	// budget when it carried none.
	Tx    *ForeignTx
	Facts OutsideFacts
	// Effects is the engine's measure of Tx's exact bytes.
	Effects Effects
	// Programs are called at the top level, InnerPrograms by them (from
	// the simulation).
	Programs, InnerPrograms []OutsideProgram
	Instructions            []InstructionSummary
	// Signers are the required signers, wallet first; Cosigners those who
	// signed already.
	Signers, Cosigners []solana.PublicKey
	// WalletOnly: the wallet is the only signer, so the blockhash may be
	// refreshed at execution. OwnBudget: the bytes carried no compute
	// budget and solgate's fee policy was applied.
	WalletOnly, OwnBudget bool
	// Budget is the compute budget Tx carries (limit, price, priority fee,
	// where it came from).
	Budget Budget
	// LastValidBlockHeight bounds Tx's lifetime from above: after it the
	// bytes can never land. For co-signed bytes it is the expiry shown.
	LastValidBlockHeight uint64
	// Binding identifies the message apart from its blockhash (hex
	// SHA-256): what the approval binds besides the effects.
	Binding       string
	MessageSHA256 string
	Logs          []string
	UnitsConsumed uint64
	// BeforeSend, when set, runs after signing and before the first send;
	// an error stops the submission with nothing sent.
	BeforeSend func(solana.Signature) error

	limits    Limits
	sim       simulation
	stats     CallStats
	took      time.Duration
	submitted atomic.Bool
}

// OutsideApproval is what a human approved: the binding and the effects,
// the compute budget solgate chose (its limit stays, its priority fee is a
// ceiling), and the lifetime of co-signed bytes.
type OutsideApproval struct {
	Binding              string
	Effects              Effects
	OwnBudget            bool
	Budget               Budget
	LastValidBlockHeight uint64
}

// Approval is what approving p binds.
func (p *PreparedOutside) Approval() OutsideApproval {
	return OutsideApproval{Binding: p.Binding, Effects: p.Effects, OwnBudget: p.OwnBudget, Budget: p.Budget, LastValidBlockHeight: p.LastValidBlockHeight}
}

// Limits are the approved effects as bounds: no more of SOL or any mint
// out, no less in.
func (a OutsideApproval) Limits() Limits {
	l := Limits{SOLOut: a.Effects.SOLOut(), SOLIn: a.Effects.SOLIn(), TokensOut: map[solana.PublicKey]uint64{}, TokensIn: map[solana.PublicKey]uint64{}}
	for m, v := range a.Effects.TokensOut {
		l.TokensOut[m] = v
	}
	for m, v := range a.Effects.TokensIn {
		l.TokensIn[m] = v
	}
	return l
}

// DecodeOutside reads the base64 wire transaction an agent or a server
// handed over. Errors wrap ErrBadTransaction and say what was wrong.
func DecodeOutside(b64 string) ([]byte, error) {
	s := strings.TrimSpace(b64)
	if s == "" {
		return nil, fmt.Errorf("%w: empty; accepted: a base64 wire transaction (legacy or v0)", ErrBadTransaction)
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not standard base64 (%v); accepted: a base64 wire transaction (legacy or v0)", ErrBadTransaction, err)
	}
	if _, err := DecodeTransaction(raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadTransaction, err)
	}
	return raw, nil
}

// PrepareOutside checks and measures outside bytes for a proposal. A
// refusal is an *InspectionError or *EffectsRefusal (both ErrUnsafeTransaction),
// a *SimulationError, or ErrOutsideExpired; malformed bytes are
// ErrBadTransaction. Nothing is signed.
func (e *Executor) PrepareOutside(ctx context.Context, raw []byte, rules OutsideRules, facts OutsideFacts) (*PreparedOutside, error) {
	return e.prepareOutside(ctx, raw, rules, facts, nil)
}

// PrepareApprovedOutside prepares approved bytes for execution: every check
// again, a fresh blockhash when only the wallet signs, a fresh simulation,
// and ErrWorseThanApproved when the effects are now worse than approved.
func (e *Executor) PrepareApprovedOutside(ctx context.Context, raw []byte, rules OutsideRules, facts OutsideFacts, approved OutsideApproval) (*PreparedOutside, error) {
	return e.prepareOutside(ctx, raw, rules, facts, &approved)
}

func (e *Executor) prepareOutside(ctx context.Context, raw []byte, rules OutsideRules, facts OutsideFacts, approved *OutsideApproval) (*PreparedOutside, error) {
	ctx, meter := withMeter(ctx)
	start := time.Now()
	wallet := e.key.PublicKey()
	t, err := DecodeTransaction(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadTransaction, err)
	}
	// The fee payer is account 0 and always a required signer: the wallet
	// paying is the wallet signing.
	if !t.FeePayer().Equals(wallet) {
		return nil, refuse("the fee payer is %s, not the wallet %s: solgate signs only transactions its wallet pays for", t.FeePayer(), wallet)
	}
	binding := outsideBinding(t)
	if approved != nil && approved.Binding != binding {
		return nil, fmt.Errorf("%w: the transaction's message is not the one approved (binding %s, approved %s); nothing was signed or sent", ErrWorseThanApproved, binding, approved.Binding)
	}
	tables, err := e.client.lookupTables(ctx, t.LookupTables())
	if err != nil {
		return nil, err
	}
	accounts, writable, _, err := resolveAccounts(t, tables)
	if err != nil {
		return nil, err
	}
	p := &PreparedOutside{Facts: facts, Binding: binding, WalletOnly: t.NumSignatures() == 1}
	p.Signers = append(p.Signers, t.static[:t.header.NumRequiredSignatures]...)
	// Every signature but the wallet's must be there and valid: solgate
	// adds its own and nothing else.
	for i := 1; i < len(t.signatures); i++ {
		if !ed25519.Verify(ed25519.PublicKey(t.static[i][:]), t.MessageBytes, t.signatures[i][:]) {
			return nil, refuse("signature %d (signer %s) is missing or invalid: solgate adds only the wallet's signature, every other signer must have signed already", i, t.static[i])
		}
		p.Cosigners = append(p.Cosigners, t.static[i])
	}
	// Programs, deny by default, and the compute budget the bytes carry.
	allowed := map[solana.PublicKey]string{}
	for k, label := range rules.AllowPrograms {
		if label == "" {
			label = ProgramName(k)
		}
		allowed[k] = label
	}
	j := newSwapJudge(InspectRules{Wallet: wallet}, &Inspection{})
	haveBudget, nonBudget := false, 0
	seen := map[solana.PublicKey]bool{}
	for i, ix := range t.ixs {
		prog := t.static[ix.program]
		label, ok := allowed[prog]
		if !ok {
			return nil, fmt.Errorf("%w: %w", ErrProgramNotAllowed, refuse("instruction %d calls program %s, which is not allowed: it is not on the program allowlist; the operator can admit it with --allow-program %s", i, prog, prog))
		}
		if !seen[prog] {
			seen[prog] = true
			p.Programs = append(p.Programs, OutsideProgram{ID: prog, Label: label})
		}
		if !prog.Equals(solana.ComputeBudget) {
			nonBudget++
			continue
		}
		haveBudget = true
		x, err := newJudgedInstruction(i, prog, ix, accounts)
		if err != nil {
			return nil, err
		}
		var sum InstructionSummary
		if err := j.computeBudget(x, &sum); err != nil {
			return nil, err
		}
	}
	// What the bytes' own budget costs: price × limit (the limit they set,
	// or the default a validator applies).
	limit := j.cuLimit
	if !j.haveLimit {
		limit = min(uint64(200_000)*uint64(nonBudget), MaxComputeUnitLimit)
	}
	limit = min(limit, MaxComputeUnitLimit)
	own := Budget{UnitLimit: uint32(limit), UnitPrice: j.cuPrice, PriorityFee: priorityFee(j.cuPrice, uint32(limit)), Source: "set by the transaction's builder"}
	if !haveBudget {
		own.Source = "none in the transaction"
	}
	if own.PriorityFee > e.opts.Fees.MaxLamports {
		return nil, refuse("the transaction's priority fee is %d lamports (%d micro-lamports per unit × %d units), above the %d-lamport cap (--max-priority-fee-lamports)", own.PriorityFee, own.UnitPrice, own.UnitLimit, e.opts.Fees.MaxLamports)
	}

	// A durable nonce is refused by name before anything is simulated or
	// rebuilt, not as whatever failure its simulation would report.
	if static := newEffects(wallet, txView{keys: accounts, writable: writable, signers: p.Signers, ixs: viewIxs(t)}, nil).Effects; static.DurableNonce {
		return nil, static.Refusal()
	}

	// Lifetime.
	final := t
	switch {
	case p.WalletOnly:
		// Only the wallet signs: the bytes can move to a fresh blockhash,
		// so an old one is no reason to refuse and never outlives the
		// confirm loop's expiry.
		bh, err := e.recent.get(ctx, e.client, 0)
		if err != nil {
			return nil, fmt.Errorf("prepare transaction: getLatestBlockhash: %s", rpcErrorText(err))
		}
		p.LastValidBlockHeight = bh.LastValidBlockHeight
		if !haveBudget {
			// No compute budget of its own: solgate's fee policy applies,
			// as to the transactions it builds.
			build := func(b Budget) (*solana.Transaction, error) {
				ft, err := rebuildOutside(t, bh.Blockhash, budgetInstructions(b))
				if err != nil {
					return nil, err
				}
				return ft.Tx, nil
			}
			var ceiling *Budget
			if approved != nil && approved.OwnBudget {
				ceiling = &approved.Budget
			}
			if p.Budget, err = e.measureBudget(ctx, build, ceiling); err != nil {
				return nil, err
			}
			p.OwnBudget = true
			if final, err = rebuildOutside(t, bh.Blockhash, budgetInstructions(p.Budget)); err != nil {
				return nil, err
			}
		} else {
			p.Budget = own
			if final, err = rebuildOutside(t, bh.Blockhash, nil); err != nil {
				return nil, err
			}
		}
	default:
		// Others signed: the blockhash is theirs and stays. It must still
		// be recent, and it expires at most 150 blocks from now.
		p.Budget = own
		height, err := e.client.rpc.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
		if err != nil {
			return nil, fmt.Errorf("prepare transaction: getBlockHeight: %s", rpcErrorText(err))
		}
		p.LastValidBlockHeight = height + 150
		if approved != nil && approved.LastValidBlockHeight > 0 {
			p.LastValidBlockHeight = min(p.LastValidBlockHeight, approved.LastValidBlockHeight)
		}
		ok, err := e.client.rpc.IsBlockhashValid(ctx, t.Blockhash(), rpc.CommitmentConfirmed)
		if err != nil {
			return nil, fmt.Errorf("prepare transaction: isBlockhashValid: %s", rpcErrorText(err))
		}
		if ok == nil || !ok.Value || height > p.LastValidBlockHeight {
			return nil, fmt.Errorf("%w: the transaction's blockhash %s is no longer valid (block height %d); others signed it, so solgate cannot move it to a fresh one: its builder must sign it again (nothing was signed or sent)", ErrOutsideExpired, t.Blockhash(), height)
		}
	}
	p.Tx = final

	// Measure the exact bytes to be signed.
	faccounts, fwritable, _, err := resolveAccounts(final, tables)
	if err != nil {
		return nil, err
	}
	view := txView{keys: faccounts, writable: fwritable, signers: p.Signers, ixs: viewIxs(final), blockhash: final.blockhash, priorityFee: p.Budget.PriorityFee}
	eff, sim, err := e.client.simulateEffects(ctx, final.Raw, view, wallet, false, nil)
	if err != nil {
		return nil, err
	}
	if err := eff.Refusal(); err != nil {
		return nil, err
	}
	if err := eff.UnvaluedRefusal(allowed); err != nil {
		return nil, err
	}
	p.Effects, p.sim = eff, sim
	p.Logs, p.UnitsConsumed = sim.Logs, sim.UnitsConsumed
	for _, k := range eff.InnerPrograms {
		label, ok := allowed[k]
		if !ok {
			label = ProgramName(k)
		}
		p.InnerPrograms = append(p.InnerPrograms, OutsideProgram{ID: k, Label: label})
	}
	p.Instructions = describeInstructions(final.Tx)
	sum := sha256.Sum256(final.MessageBytes)
	p.MessageSHA256 = hex.EncodeToString(sum[:])
	p.limits = p.Approval().Limits()
	if approved != nil {
		// Worse than approved: more out, less in, or any change.
		if diff := eff.Exceeds(approved.Limits()); diff != "" {
			return nil, fmt.Errorf("%w: at execution the transaction would do more than was approved: %s (nothing was signed or sent; propose again)", ErrWorseThanApproved, diff)
		}
		p.limits = approved.Limits()
	}
	p.took, p.stats = time.Since(start), meter.stats()
	return p, nil
}

// lookupTables reads and parses the lookup tables a message loads
// accounts from; a missing or malformed table is a refusal.
func (c *Client) lookupTables(ctx context.Context, keys []solana.PublicKey) (LookupTables, error) {
	out := LookupTables{}
	if len(keys) == 0 {
		return out, nil
	}
	accts, err := c.multipleAccounts(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read lookup tables: %w", err)
	}
	for i, k := range keys {
		if accts[i] == nil {
			return nil, refuse("lookup table %s does not exist", k)
		}
		addrs, err := ParseLookupTable(accts[i].Owner, accts[i].Data.GetBinary())
		if err != nil {
			return nil, refuse("lookup table %s: %v", k, err)
		}
		out[k] = addrs
	}
	return out, nil
}

// viewIxs are t's top-level instructions as the engine reads them.
func viewIxs(t *ForeignTx) []viewIx {
	out := make([]viewIx, 0, len(t.ixs))
	for _, ix := range t.ixs {
		x := viewIx{program: int(ix.program), data: ix.data}
		for _, a := range ix.accounts {
			x.accounts = append(x.accounts, int(a))
		}
		out = append(out, x)
	}
	return out
}

// outsideBinding is the hex SHA-256 of t's message with its blockhash
// zeroed: the same message on any blockhash binds the same.
func outsideBinding(t *ForeignTx) string {
	sum := sha256.Sum256(encodeMessage(t, solana.Hash{}, nil))
	return hex.EncodeToString(sum[:])
}

// rebuildOutside is t's message on blockhash, with prepend placed before
// its instructions (their program added to the static keys, read-only,
// when absent), and every signature slot empty. Only a message that the
// wallet alone signs is ever rebuilt: nobody else's signature could cover
// the new bytes.
func rebuildOutside(t *ForeignTx, blockhash solana.Hash, prepend []solana.Instruction) (*ForeignTx, error) {
	if t.NumSignatures() != 1 {
		return nil, errors.New("rebuild: others signed this message, so it cannot change")
	}
	msg := encodeMessage(t, blockhash, prepend)
	raw := appendCompactU16(nil, 1)
	raw = append(raw, make([]byte, 64)...)
	raw = append(raw, msg...)
	out, err := DecodeTransaction(raw)
	if err != nil {
		return nil, fmt.Errorf("rebuild: %w", err)
	}
	return out, nil
}

// encodeMessage writes t's message in wire form on blockhash, with prepend's
// instructions first. Their program ids (they take no accounts) join the
// static keys as read-only unsigned keys, which shifts every index into the
// loaded accounts by as many.
func encodeMessage(t *ForeignTx, blockhash solana.Hash, prepend []solana.Instruction) []byte {
	static := append([]solana.PublicKey{}, t.static...)
	header := t.header
	nStatic := len(t.static)
	indexOf := map[solana.PublicKey]int{}
	for i, k := range static {
		indexOf[k] = i
	}
	var pre []wireInstruction
	for _, ix := range prepend {
		prog := ix.ProgramID()
		i, ok := indexOf[prog]
		if !ok {
			i = len(static)
			static = append(static, prog)
			indexOf[prog] = i
			header.NumReadonlyUnsignedAccounts++
		}
		data, _ := ix.Data()
		pre = append(pre, wireInstruction{program: uint8(i), data: data})
	}
	shift := len(static) - nStatic
	var b []byte
	if t.versioned {
		b = append(b, 0x80)
	}
	b = append(b, header.NumRequiredSignatures, header.NumReadonlySignedAccounts, header.NumReadonlyUnsignedAccounts)
	b = appendCompactU16(b, len(static))
	for _, k := range static {
		b = append(b, k[:]...)
	}
	b = append(b, blockhash[:]...)
	b = appendCompactU16(b, len(pre)+len(t.ixs))
	put := func(ix wireInstruction, shifted bool) {
		b = append(b, ix.program)
		b = appendCompactU16(b, len(ix.accounts))
		for _, a := range ix.accounts {
			if shifted && int(a) >= nStatic {
				a += uint8(shift)
			}
			b = append(b, a)
		}
		b = appendCompactU16(b, len(ix.data))
		b = append(b, ix.data...)
	}
	for _, ix := range pre {
		put(ix, false)
	}
	for _, ix := range t.ixs {
		put(ix, true)
	}
	if t.versioned {
		b = appendCompactU16(b, len(t.lookups))
		for _, l := range t.lookups {
			b = append(b, l.table[:]...)
			b = appendCompactU16(b, len(l.writable))
			b = append(b, l.writable...)
			b = appendCompactU16(b, len(l.readonly))
			b = append(b, l.readonly...)
		}
	}
	return b
}

func appendCompactU16(b []byte, n int) []byte {
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// SubmitOutside fills the wallet's signature slot, verifies every
// signature, sends, follows the transaction until the chain answers, and
// verifies the landed effects (from the transaction's own meta) against
// the approved ones: past them the outcome is "executed with unexpected
// effects". The error is non-nil only when nothing was sent.
func (e *Executor) SubmitOutside(ctx context.Context, p *PreparedOutside, progress func(Progress)) (*Result, error) {
	if p == nil || p.Tx == nil {
		return nil, errors.New("submit transaction: nothing prepared")
	}
	if !p.submitted.CompareAndSwap(false, true) {
		return nil, ErrAlreadySubmitted
	}
	ctx, meter := withMeter(ctx)
	start := time.Now()
	res := &Result{Outcome: Unknown, sphere: p.Effects.sphere}
	res.Timings.Simulate = p.took
	finish := func() *Result {
		res.Timings.Total = p.took + time.Since(start)
		res.RPC = meter.stats().plus(p.stats)
		report(progress, Progress{Step: StepDone, Signature: res.Signature, Elapsed: res.Timings.Total, Detail: string(res.Outcome)})
		return res
	}
	landed, err := e.sendForeign(ctx, res, p.Tx, p.LastValidBlockHeight, p.BeforeSend, "transaction", progress)
	if err != nil {
		return nil, err
	}
	if !landed {
		return finish(), nil
	}
	t0 := time.Now()
	_, ok := e.readBack(ctx, res, "transaction", func(tx *rpc.GetTransactionResult) ([]solana.PublicKey, error) {
		return append(append(append([]solana.PublicKey{}, p.Tx.static...), tx.Meta.LoadedAddresses.Writable...), tx.Meta.LoadedAddresses.ReadOnly...), nil
	})
	if ok && res.Effects != nil {
		diff := res.Effects.Exceeds(p.limits)
		if diff == "" {
			diff = controlChangedSince(ctx, e.client, e.key.PublicKey(), p.sim)
		}
		if diff != "" {
			res.Outcome, res.Reason = ExecutedWithUnexpectedEffects, "executed with unexpected effects: "+diff
		} else {
			res.Outcome = Executed
		}
	}
	res.Timings.Verify = time.Since(t0)
	return finish(), nil
}

// sendForeign fills the wallet's signature slot of t (every other
// signature stays as it was), runs beforeSend with the signature, sends and
// follows the bytes until the chain answers (the confirm loop, expiring
// after lastValid). It reports whether they landed, for the caller to
// verify; the error is non-nil only when nothing was sent. noun names the
// transaction in reasons.
func (e *Executor) sendForeign(ctx context.Context, res *Result, t *ForeignTx, lastValid uint64, beforeSend func(solana.Signature) error, noun string, progress func(Progress)) (bool, error) {
	report(progress, Progress{Step: StepSigning})
	t0 := time.Now()
	raw, sig, err := e.key.signForeign(t)
	if err != nil {
		return false, fmt.Errorf("submit %s: %w", noun, err)
	}
	res.Signature = sig
	res.Timings.Sign = time.Since(t0)
	if beforeSend != nil {
		if err := beforeSend(sig); err != nil {
			return false, fmt.Errorf("submit %s: before send: %w (nothing was sent)", noun, err)
		}
	}
	return e.sendAndConfirm(ctx, res, raw, &Prepared{Tx: t.Tx, LastValidBlockHeight: lastValid}, noun, progress), nil
}

// controlChangedSince reads the simulation's watched accounts again once a
// transaction landed and names any change of control since the simulation
// read them: the landed meta carries lamports and token amounts, not
// delegates, frozen state or authorities. An RPC failure here proves
// nothing either way and is not reported.
func controlChangedSince(ctx context.Context, c *Client, wallet solana.PublicKey, sim simulation) string {
	if len(sim.Keys) == 0 {
		return ""
	}
	again, err := c.multipleAccounts(ctx, sim.Keys)
	if err != nil || len(again) != len(sim.Keys) {
		return ""
	}
	var diffs []string
	for i, k := range sim.Keys {
		b, a := readAccount(sim.Before[i]), readAccount(again[i])
		if k.Equals(wallet) {
			if !b.owner.Equals(a.owner) || len(b.data) != len(a.data) {
				diffs = append(diffs, fmt.Sprintf("the wallet account now belongs to program %s with %d bytes of data", a.owner, len(a.data)))
			}
			continue
		}
		for _, ch := range controlChanges(wallet, nil, k, b, a) {
			diffs = append(diffs, "after landing, "+ch.String())
		}
	}
	return strings.Join(diffs, "; ")
}

// AllowedProgram is one --allow-program value: a program admitted at the
// top level of outside transactions, with the operator's label.
type AllowedProgram struct {
	ID    solana.PublicKey
	Label string
}

func (a AllowedProgram) String() string {
	if a.Label == "" {
		return a.ID.String()
	}
	return a.ID.String() + "=" + a.Label
}

// maxProgramLabel bounds an operator's label: it shares a preview line.
const maxProgramLabel = 40

// ParseAllowedProgram reads "ID" or "ID=LABEL": a base58 program id and a
// short printable label.
func ParseAllowedProgram(s string) (AllowedProgram, error) {
	id, label, _ := strings.Cut(s, "=")
	pk, err := solana.PublicKeyFromBase58(strings.TrimSpace(id))
	if err != nil {
		return AllowedProgram{}, fmt.Errorf("%q is not a program id (%v); accepted: ID or ID=LABEL, a base58 program id and an optional label", id, err)
	}
	label = strings.TrimSpace(label)
	if n := len([]rune(label)); n > maxProgramLabel {
		return AllowedProgram{}, fmt.Errorf("label of %s is %d characters; accepted: at most %d", pk, n, maxProgramLabel)
	}
	for _, r := range label {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			return AllowedProgram{}, fmt.Errorf("label of %s holds a control or formatting character %U; accepted: printable text", pk, r)
		}
	}
	return AllowedProgram{ID: pk, Label: label}, nil
}

// Preview is p in the shape every kind's preview takes: the decoded
// instructions, each watched account's lamports before and after, the fee
// and the effects.
func (p *PreparedOutside) Preview() Preview {
	pv := Preview{
		From: p.Tx.FeePayer(), Instructions: p.Instructions, Fee: p.Effects.Fee(), SpendLamports: p.Effects.SOLOut(),
		MessageSHA256: p.MessageSHA256, Logs: p.Logs, UnitsConsumed: p.UnitsConsumed, Budget: p.Budget, Effects: p.Effects,
	}
	for i, k := range p.sim.Keys {
		pv.Changes = append(pv.Changes, BalanceChange{Account: k, Pre: readAccount(p.sim.Before[i]).lamports, Post: readAccount(p.sim.After[i]).lamports})
	}
	return pv
}
