package executor

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// This file is the effects engine: the one measure of what a transaction's
// exact bytes do to everything the wallet owns or controls. Every kind uses
// it for its preview, its caps, its settlement and its verification, so
// those four can never disagree about what left the wallet.
//
// It reads account states before and after: before sending, from a
// simulation of the exact bytes (post-state of every account the message
// can write); after landing, from the landed transaction's own
// meta.preBalances/postBalances and token balances. An account the message
// does not name cannot change, so the wallet's token accounts outside the
// message need no watching: the accounts the message can write are all that
// can move.

// Effects is what a transaction does to the wallet and what it controls.
type Effects struct {
	Wallet solana.PublicKey
	// SOLBefore and SOLAfter are the SOL of the wallet's sphere: its
	// lamports, the lamports of its wrapped-SOL token accounts (SOL and
	// WSOL counted together), and the lamports above rent of every other
	// account it controls (token accounts, nonce accounts).
	SOLBefore, SOLAfter uint64
	// NetworkFee is the signatures' fee, PriorityFee the compute-unit price
	// × limit: together what the fee payer is charged.
	NetworkFee, PriorityFee uint64
	// RentPaid is the rent of the accounts the transaction creates: what
	// their data requires, at most what they hold (the wallet's
	// wrapped-SOL accounts excluded: their lamports are in SOLAfter; an
	// account without data holds a payment, not rent). RentRefunded is the
	// rent of the accounts of the wallet's sphere it closes (wrapped SOL
	// likewise excluded).
	RentPaid, RentRefunded uint64
	// TokensOut is each mint's gross outflow from the wallet's sphere:
	// what accounts outside it gained (bounded by what the sphere's token
	// accounts lost plus the new supply of a mint the wallet may mint),
	// and never less than the sphere's net decrease. TokensIn is each
	// mint's net increase over the sphere's token accounts. Wrapped SOL is
	// excluded: it is SOL.
	TokensOut, TokensIn map[solana.PublicKey]uint64
	// Tokens are the wallet's token accounts whose amount changed.
	Tokens []TokenChange
	// Created and Closed list accounts brought into and out of existence;
	// Closed only the wallet's (or those it may close), with where their
	// lamports went.
	Created []solana.PublicKey
	Closed  []Closure
	// Changes are changes of owner, authority, delegate, delegated amount
	// or frozen state on anything the wallet owns or controls.
	Changes []AuthorityChange
	// Programs are invoked at the top level, InnerPrograms by those
	// programs (from the simulation's or the landed meta's inner
	// instructions).
	Programs, InnerPrograms []solana.PublicKey
	// Signers are the keys whose signatures the message requires.
	Signers []solana.PublicKey
	// DurableNonce: the message advances a nonce account (anywhere, inner
	// calls included), so its bytes stay valid past any blockhash expiry.
	DurableNonce bool
	NonceAccount solana.PublicKey
	// StaleBlockhash: the node does not know the message's blockhash as
	// recent (set only when it was asked).
	StaleBlockhash bool
	// FeePayer is set only by MeasureEffectsFeePayer, for a fee payer that
	// is not the wallet: NetworkFee and PriorityFee are then zero, since
	// the wallet pays neither (feepayer.go).
	FeePayer solana.PublicKey
	// SOLOutGross is what left the wallet's sphere of control (the wallet,
	// its token accounts, nonce accounts it is authority of, accounts it
	// is delegate or close authority of, accounts of multisigs it
	// satisfies) to accounts outside it, rent put into new accounts and
	// fees included: gross, so a refund coming in never nets a payment
	// going out. SOLOut is the larger of it and the net decrease.
	SOLOutGross uint64
	// Payees are the accounts outside the sphere that gain what the
	// wallet lost, by owning wallet for token accounts.
	Payees []Payee
	// Controlled are accounts outside the wallet's own whose value moved
	// because the wallet controls them, with why.
	Controlled []AuthorityChange
	// Unvalued are accounts of programs the engine cannot read whose data
	// names the wallet and which the bytes change: shown as changes that
	// cannot be valued, refused for outside bytes unless the owning
	// program is allowed (UnvaluedRefusal).
	Unvalued []Unvalued

	// sphere is what the wallet controlled, carried from the simulation
	// to the landed measure (whose meta has no account data).
	sphere *sphere
}

// Unvalued is a change the engine cannot value: an account of Program
// whose data names the wallet.
type Unvalued struct {
	Account, Program solana.PublicKey
}

func (u Unvalued) String() string {
	return fmt.Sprintf("%s (an account of program %s whose data names the wallet) changes: this cannot be valued", KeyString(u.Account), KeyString(u.Program))
}

// UnvaluedRefusal refuses the first change that cannot be valued whose
// owning program is not allowed, or returns nil.
func (e Effects) UnvaluedRefusal(allowed map[solana.PublicKey]string) error {
	for _, u := range e.Unvalued {
		if _, ok := allowed[u.Program]; !ok {
			return &EffectsRefusal{Reason: u.String() + "; the operator can admit the program with --allow-program " + u.Program.String()}
		}
	}
	return nil
}

// Payee is an account outside the wallet's control that gains what the
// wallet lost: SOL (lamports) and tokens (base units per mint).
type Payee struct {
	// Address is the owning wallet of a token account, else the account.
	Address solana.PublicKey
	// Wallet: a key's own (a system account, or a token account whose
	// owner is on the curve), not a program's (a pool's, a PDA's).
	Wallet   bool
	Lamports uint64
	Tokens   map[solana.PublicKey]uint64
}

// String is "ADDR gets 0.1 SOL and 5 base units of MINT".
func (p Payee) String() string {
	return KeyString(p.Address) + " gets " + strings.Join(p.parts(""), " and ")
}

// Short is "ADDR +0.1 SOL, +5 base units of MINT", for the console's
// narrow lines.
func (p Payee) Short() string {
	return KeyString(p.Address) + " " + strings.Join(p.parts("+"), ", ")
}

func (p Payee) parts(sign string) []string {
	var parts []string
	if p.Lamports > 0 {
		parts = append(parts, sign+FormatSOL(p.Lamports)+" SOL")
	}
	for _, m := range sortedMints(p.Tokens) {
		parts = append(parts, fmt.Sprintf("%s%d base units of %s", sign, p.Tokens[m], m))
	}
	return parts
}

// Closure is a closed account and where its lamports went (zero: the
// engine could not tell).
type Closure struct {
	Account  solana.PublicKey
	Lamports uint64
	To       solana.PublicKey
}

// AuthorityChange is one change of who controls something of the wallet's.
type AuthorityChange struct {
	Account solana.PublicKey
	What    string
}

func (c AuthorityChange) String() string { return c.What + " on " + KeyString(c.Account) }

// SOLOut is what left the wallet in SOL and wrapped SOL together, fees and
// rent included; zero when it gained.
func (e Effects) SOLOut() uint64 {
	if e.SOLBefore > e.SOLAfter {
		return max(e.SOLBefore-e.SOLAfter, e.SOLOutGross)
	}
	return e.SOLOutGross
}

// SOLIn is what came into the wallet's SOL and wrapped SOL, gross like
// SOLOut (refunds included), so that SOLIn - SOLOut is the net change.
func (e Effects) SOLIn() uint64 {
	if in := addOrMax(e.SOLAfter, e.SOLOut()); in > e.SOLBefore {
		return in - e.SOLBefore
	}
	return 0
}

// Fee is the network fee plus the priority fee.
func (e Effects) Fee() uint64 { return addOrMax(e.NetworkFee, e.PriorityFee) }

// Summary is the effects in one line for previews and reasons:
// "SOL out 0.10001 (fees 0.00001, rent 0); tokens out: 5 of Mint…".
func (e Effects) Summary() string {
	var b strings.Builder
	if in := e.SOLIn(); in > 0 {
		fmt.Fprintf(&b, "SOL (with wrapped SOL) in %s", FormatSOL(in))
	} else {
		fmt.Fprintf(&b, "SOL (with wrapped SOL) out %s", FormatSOL(e.SOLOut()))
	}
	fmt.Fprintf(&b, " (fee %s + priority %s, rent paid %s, refunded %s)", FormatSOL(e.NetworkFee), FormatSOL(e.PriorityFee), FormatSOL(e.RentPaid), FormatSOL(e.RentRefunded))
	for _, m := range sortedMints(e.TokensOut) {
		fmt.Fprintf(&b, "; %d base units of %s out", e.TokensOut[m], m)
	}
	for _, m := range sortedMints(e.TokensIn) {
		fmt.Fprintf(&b, "; %d base units of %s in", e.TokensIn[m], m)
	}
	for _, c := range e.Controlled {
		fmt.Fprintf(&b, "; moved out of %s (%s)", KeyString(c.Account), c.What)
	}
	for _, u := range e.Unvalued {
		fmt.Fprintf(&b, "; %s", u)
	}
	for _, p := range e.Payees {
		fmt.Fprintf(&b, "; %s", p)
	}
	for _, c := range e.Changes {
		fmt.Fprintf(&b, "; %s", c)
	}
	if len(e.Created) > 0 || len(e.Closed) > 0 {
		fmt.Fprintf(&b, "; %d accounts created, %d closed", len(e.Created), len(e.Closed))
	}
	names := func(keys []solana.PublicKey) string {
		s := make([]string, len(keys))
		for i, k := range keys {
			s[i] = ProgramName(k)
		}
		return strings.Join(s, ", ")
	}
	if len(e.Programs) > 0 {
		fmt.Fprintf(&b, "; programs %s", names(e.Programs))
	}
	if len(e.InnerPrograms) > 0 {
		fmt.Fprintf(&b, "; inner programs %s", names(e.InnerPrograms))
	}
	fmt.Fprintf(&b, "; %d signers", len(e.Signers))
	if e.DurableNonce {
		fmt.Fprintf(&b, "; DURABLE NONCE %s", e.NonceAccount)
	}
	return b.String()
}

func sortedMints(m map[solana.PublicKey]uint64) []solana.PublicKey {
	out := make([]solana.PublicKey, 0, len(m))
	for k, v := range m {
		if v > 0 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i][:], out[j][:]) < 0 })
	return out
}

// ErrEffectsRefused is matched by *EffectsRefusal.
var ErrEffectsRefused = errors.New("refused by its effects")

// EffectsRefusal: what the exact bytes would do is something solgate never
// signs. Nothing was signed or sent.
type EffectsRefusal struct{ Reason string }

func (e *EffectsRefusal) Error() string {
	return "refused before signing: " + e.Reason + " (nothing was signed or sent)"
}

func (e *EffectsRefusal) Is(target error) bool {
	return target == ErrEffectsRefused || target == ErrUnsafeTransaction
}

// Refusal reports what in e is never signed, or nil: a durable nonce (its
// bytes would outlive the blockhash, so "expired" could not prove "never
// landed"), a blockhash the node does not know as recent, a change of
// owner, authority, delegate or frozen state (no kind declares one as its
// purpose today), and a close whose lamports go anywhere but the wallet.
func (e Effects) Refusal() error {
	switch {
	case e.DurableNonce:
		return &EffectsRefusal{Reason: fmt.Sprintf("the transaction uses a durable nonce (AdvanceNonceAccount on %s): its signed bytes would stay valid after its blockhash expires, so nobody could prove it never landed", e.NonceAccount)}
	case e.StaleBlockhash:
		return &EffectsRefusal{Reason: "the transaction's blockhash is not one the node knows as recent (isBlockhashValid is false): it may be a durable nonce, whose signed bytes never expire"}
	case len(e.Changes) > 0:
		return &EffectsRefusal{Reason: "the transaction would make an undeclared change: " + e.Changes[0].String()}
	}
	for _, c := range e.Closed {
		if !c.To.Equals(e.Wallet) {
			to := "an account the engine could not identify"
			if !c.To.IsZero() {
				to = KeyString(c.To)
			}
			return &EffectsRefusal{Reason: fmt.Sprintf("the transaction would close %s and send its %d lamports to %s, not to the wallet", c.Account, c.Lamports, to)}
		}
	}
	return nil
}

// Limits bound what a transaction may do: the most SOL (wrapped SOL, fees
// and rent included) and the most of each mint that may leave, and the
// least of each mint (or SOL) that must arrive.
type Limits struct {
	SOLOut    uint64
	TokensOut map[solana.PublicKey]uint64
	// SOLIn and TokensIn are minimums.
	SOLIn    uint64
	TokensIn map[solana.PublicKey]uint64
}

// Exceeds names the first way e goes past l, or "" when it fits: more out,
// less in, or any change of authority (no limit allows one).
func (e Effects) Exceeds(l Limits) string {
	var diffs []string
	if out := e.SOLOut(); out > l.SOLOut {
		diffs = append(diffs, fmt.Sprintf("%d lamports of SOL and wrapped SOL left the wallet (fees %d, rent %d included), %d more than the %d allowed", out, e.Fee(), e.RentPaid, out-l.SOLOut, l.SOLOut))
	}
	for _, m := range sortedMints(e.TokensOut) {
		if out, allowed := e.TokensOut[m], l.TokensOut[m]; out > allowed {
			diffs = append(diffs, fmt.Sprintf("%d base units of %s left the wallet, %d more than the %d allowed", out, m, out-allowed, allowed))
		}
	}
	if in := e.SOLIn(); in < l.SOLIn {
		diffs = append(diffs, fmt.Sprintf("%d lamports of SOL arrived, %d less than the %d expected", in, l.SOLIn-in, l.SOLIn))
	}
	for _, m := range sortedMints(l.TokensIn) {
		if in, want := e.TokensIn[m], l.TokensIn[m]; in < want {
			diffs = append(diffs, fmt.Sprintf("%d base units of %s arrived, %d less than the %d expected", in, m, want-in, want))
		}
	}
	for _, c := range e.Changes {
		diffs = append(diffs, "undeclared "+c.String())
	}
	for _, c := range e.Closed {
		if !c.To.Equals(e.Wallet) {
			diffs = append(diffs, fmt.Sprintf("%s closed with its lamports sent elsewhere than the wallet", c.Account))
		}
	}
	return strings.Join(diffs, "; ")
}

// txView is the part of a message the engine reads: its accounts in order
// (static, then loaded writable, then loaded readonly), which it can write,
// its signers, its top-level instructions and its fees.
type txView struct {
	keys        []solana.PublicKey
	writable    []bool
	signers     []solana.PublicKey
	ixs         []viewIx
	blockhash   solana.Hash
	priorityFee uint64
}

type viewIx struct {
	program  int
	accounts []int
	data     []byte
}

// viewOfTransaction views a transaction solgate built itself (its keys are
// all static). priorityFee is the compute budget's price × limit.
func viewOfTransaction(tx *solana.Transaction, priorityFee uint64) txView {
	v := txView{keys: tx.Message.AccountKeys, blockhash: tx.Message.RecentBlockhash, priorityFee: priorityFee}
	for i, k := range tx.Message.AccountKeys {
		w, err := tx.Message.IsWritable(k)
		v.writable = append(v.writable, err == nil && w)
		if i < int(tx.Message.Header.NumRequiredSignatures) {
			v.signers = append(v.signers, k)
		}
	}
	for _, ci := range tx.Message.Instructions {
		v.ixs = append(v.ixs, compiledIx(ci))
	}
	return v
}

// viewOfForeign views a transaction built elsewhere, its lookup tables
// resolved by Inspect.
func viewOfForeign(t *ForeignTx, insp *Inspection) txView {
	v := txView{keys: insp.Accounts, writable: insp.Writable, blockhash: t.blockhash, priorityFee: insp.PriorityFee}
	v.signers = append(v.signers, t.static[:t.header.NumRequiredSignatures]...)
	for _, ix := range t.ixs {
		x := viewIx{program: int(ix.program), data: ix.data}
		for _, a := range ix.accounts {
			x.accounts = append(x.accounts, int(a))
		}
		v.ixs = append(v.ixs, x)
	}
	return v
}

func compiledIx(ci solana.CompiledInstruction) viewIx {
	x := viewIx{program: int(ci.ProgramIDIndex), data: ci.Data}
	for _, a := range ci.Accounts {
		x.accounts = append(x.accounts, int(a))
	}
	return x
}

// simulation is what the node said about the exact bytes, beside the effects.
type simulation struct {
	Logs          []string
	UnitsConsumed uint64
	// Keys are the accounts read, Before and After their states.
	Keys          []solana.PublicKey
	Before, After []*rpc.Account
}

type simulateValue struct {
	Err               any                    `json:"err"`
	Logs              []string               `json:"logs"`
	Accounts          wireAccounts           `json:"accounts"`
	UnitsConsumed     *uint64                `json:"unitsConsumed"`
	InnerInstructions []rpc.InnerInstruction `json:"innerInstructions"`
}

// simulateEffects simulates raw (the exact wire bytes, the wallet's
// signature slot possibly empty) once, with the post-state of every account
// the message can write, and measures the effects. checkBlockhash also asks
// the node whether the blockhash is recent (for bytes built elsewhere).
//
// beside, when not nil, are calls asked in the same round (besideBatch).
func (c *Client) simulateEffects(ctx context.Context, raw []byte, v txView, wallet solana.PublicKey, checkBlockhash bool, beside *besideBatch) (Effects, simulation, error) {
	var sim simulation
	// The watch list: the wallet, then every account the message can
	// write. A node accepts at most as many addresses as the message has
	// accounts, and this list never has more.
	watch := []solana.PublicKey{wallet}
	for i, k := range v.keys {
		if v.writable[i] && !k.Equals(wallet) {
			watch = append(watch, k)
		}
	}
	if len(watch) > len(v.keys) {
		return Effects{}, sim, fmt.Errorf("effects: the wallet %s is not among the message's accounts, and a node reports no more accounts than the message names; the effects cannot be measured", wallet)
	}
	// What the message says of itself is judged before anything is
	// simulated: a durable nonce is refused by name, not as whatever
	// failure its simulation would report.
	static := newEffects(wallet, v, nil).Effects
	if static.DurableNonce {
		return static, sim, static.Refusal()
	}
	if checkBlockhash {
		ok, err := c.rpc.IsBlockhashValid(ctx, v.blockhash, rpc.CommitmentConfirmed)
		if err != nil {
			return Effects{}, sim, fmt.Errorf("effects: isBlockhashValid: %s", rpcErrorText(err))
		}
		if ok == nil || !ok.Value {
			static.StaleBlockhash = true
			return static, sim, static.Refusal()
		}
	}
	// The states before are read before the simulation and again after it,
	// and the measure counts only when both reads agree: then nothing that
	// touches a watched account landed while the node simulated, and the
	// simulation's post-state is this transaction's alone. Read once, a
	// transfer of ours landing in between would count as this one's outflow
	// (or, read after, hide part of it).
	addrs := make([]string, len(watch))
	for i, k := range watch {
		addrs[i] = KeyString(k)
	}
	const attempts = 10
	simParams := simulationParams(raw, addrs)
	for attempt := 1; ; attempt++ {
		// One round: the reads and the simulation go as one batch where the
		// node takes batches (batch.go says why that proves as much).
		before, value, again, sameSlot, err := c.aroundSimulation(ctx, watch, simParams, beside)
		if err != nil {
			return Effects{}, sim, err
		}
		out := struct{ Value *simulateValue }{value}
		if out.Value == nil {
			return Effects{}, sim, errors.New("effects: the node returned an empty simulation result")
		}
		if out.Value.Err != nil {
			return Effects{}, sim, &SimulationError{Err: out.Value.Err, Logs: out.Value.Logs}
		}
		if len(out.Value.Accounts) != len(watch) {
			return Effects{}, sim, fmt.Errorf("effects: the node returned %d simulated accounts for the %d watched; the effects cannot be measured, so nothing is signed", len(out.Value.Accounts), len(watch))
		}
		if !sameSlot || !sameStates(wallet, before, again) {
			if attempt < attempts {
				continue
			}
			return Effects{}, sim, fmt.Errorf("effects: the watched accounts changed during each of %d simulations (other transactions landing); the effects cannot be measured alone, so nothing is signed", attempts)
		}
		after, err := out.Value.Accounts.accounts()
		if err != nil {
			return Effects{}, sim, fmt.Errorf("effects: the simulated accounts cannot be read (%v), so nothing is signed", err)
		}
		sim = simulation{Logs: out.Value.Logs, Keys: watch, Before: before, After: after}
		if out.Value.UnitsConsumed != nil {
			sim.UnitsConsumed = *out.Value.UnitsConsumed
		}
		// Owners of the watched token accounts and mints that the message
		// names may be multisigs the wallet satisfies: their data (read
		// only when there are any) says.
		var multisigs map[solana.PublicKey]*rpc.Account
		if cands := multisigCandidates(wallet, v, before, after); len(cands) > 0 {
			accts, err := c.multipleAccounts(ctx, cands)
			if err != nil {
				return Effects{}, sim, fmt.Errorf("effects: read the owners of the token accounts: %w", err)
			}
			multisigs = make(map[solana.PublicKey]*rpc.Account, len(cands))
			for i, k := range cands {
				multisigs[k] = accts[i]
			}
		}
		return measureSphere(wallet, v, watch, before, after, out.Value.InnerInstructions, multisigs), sim, nil
	}
}

// sameStates reports whether two reads of the same accounts agree on
// everything the measure reads: whether each exists, and the whole state of
// the wallet and of every account that names it (its token accounts, mints
// and accounts it is an authority of). Other accounts (a busy pool's state,
// written every slot) may move between the reads: they are not counted.
func sameStates(wallet solana.PublicKey, a, b []*rpc.Account) bool {
	if len(a) != len(b) {
		return false
	}
	w := wallet[:]
	for i := range a {
		x, y := readAccount(a[i]), readAccount(b[i])
		if x.exists != y.exists {
			return false
		}
		if i > 0 && !bytes.Contains(x.data, w) && !bytes.Contains(y.data, w) {
			continue // neither the wallet nor naming it: not measured
		}
		if x.lamports != y.lamports || !x.owner.Equals(y.owner) || !bytes.Equal(x.data, y.data) {
			return false
		}
	}
	return true
}

// accountState is what the engine reads from an account.
type accountState struct {
	exists   bool
	lamports uint64
	owner    solana.PublicKey // the program that owns it
	data     []byte
	token    *tokenFields
	mint     *mintAccount
}

type tokenFields struct {
	mint, owner     solana.PublicKey
	amount          uint64
	delegate        []byte // COption<Pubkey>, raw
	state           byte   // 1 initialized, 2 frozen
	delegatedAmount uint64
	closeAuthority  []byte // COption<Pubkey>, raw
}

type mintAccount struct {
	mintAuthority, freezeAuthority []byte // COption<Pubkey>, raw
	supply                         uint64
}

func isTokenProgram(k solana.PublicKey) bool {
	return k.Equals(solana.TokenProgramID) || k.Equals(solana.Token2022ProgramID)
}

func readAccount(a *rpc.Account) accountState {
	if a == nil || (a.Lamports == 0 && (a.Data == nil || len(a.Data.GetBinary()) == 0)) {
		return accountState{}
	}
	s := accountState{exists: true, lamports: a.Lamports, owner: a.Owner}
	if a.Data != nil {
		s.data = a.Data.GetBinary()
	}
	if !isTokenProgram(a.Owner) {
		return s
	}
	d := s.data
	switch {
	// 165 bytes is an SPL token account; Token-2022 accounts with
	// extensions are longer and carry the account type at byte 165
	// (2 = account, 1 = mint).
	case len(d) >= 165 && (len(d) == 165 || d[165] == 2) && d[108] != 0:
		s.token = &tokenFields{
			mint: solana.PublicKeyFromBytes(d[0:32]), owner: solana.PublicKeyFromBytes(d[32:64]),
			amount: binary.LittleEndian.Uint64(d[64:72]), delegate: d[72:108], state: d[108],
			delegatedAmount: binary.LittleEndian.Uint64(d[121:129]), closeAuthority: d[129:165],
		}
	case len(d) >= 82 && (len(d) == 82 || (len(d) > 165 && d[165] == 1)) && d[45] == 1:
		s.mint = &mintAccount{mintAuthority: d[0:36], freezeAuthority: d[46:82], supply: binary.LittleEndian.Uint64(d[36:44])}
	}
	return s
}

func (s accountState) ownedBy(w solana.PublicKey) bool {
	return s.token != nil && s.token.owner.Equals(w)
}

// optKey reads a COption<Pubkey>: the key, or nil for None.
func optKey(opt []byte) *solana.PublicKey {
	if len(opt) != 36 || binary.LittleEndian.Uint32(opt[:4]) == 0 {
		return nil
	}
	k := solana.PublicKeyFromBytes(opt[4:36])
	return &k
}

// keyOr is *k, or the zero key for nil.
func keyOr(k *solana.PublicKey) solana.PublicKey {
	if k == nil {
		return solana.PublicKey{}
	}
	return *k
}

func optText(opt []byte) string {
	if k := optKey(opt); k != nil {
		return KeyString(*k)
	}
	return "none"
}

func optIs(opt []byte, w solana.PublicKey) bool {
	k := optKey(opt)
	return k != nil && k.Equals(w)
}

// measureStates measures effects from account states before and after
// (keys[i] read as before[i] and after[i]), plus the message's
// instructions and the inner ones the node reported.
func measureStates(wallet solana.PublicKey, v txView, keys []solana.PublicKey, before, after []*rpc.Account, inner []rpc.InnerInstruction) Effects {
	return measureSphere(wallet, v, keys, before, after, inner, nil)
}

// measureSphere is measureStates with the data of the candidate multisigs
// (multisigCandidates) read beside the watched accounts.
func measureSphere(wallet solana.PublicKey, v txView, keys []solana.PublicKey, before, after []*rpc.Account, inner []rpc.InnerInstruction, multisigs map[solana.PublicKey]*rpc.Account) Effects {
	e := newEffects(wallet, v, inner)
	e.sphere = findSphere(wallet, v.signers, keys, before, after, multisigs)
	for i, k := range keys {
		b, a := readAccount(before[i]), readAccount(after[i])
		if k.Equals(wallet) {
			e.SOLBefore = addOrMax(e.SOLBefore, b.lamports)
			e.SOLAfter = addOrMax(e.SOLAfter, a.lamports)
			if b.lamports > a.lamports {
				e.bound = addOrMax(e.bound, b.lamports-a.lamports)
			}
			if b.exists && (!b.owner.Equals(a.owner) || len(b.data) != len(a.data)) {
				e.Changes = append(e.Changes, AuthorityChange{Account: k, What: fmt.Sprintf("the wallet account reassigned to program %s with %d bytes of data", a.owner, len(a.data))})
			}
			continue
		}
		e.add(k, b.side(), a.side())
		if prog, ok := e.sphere.unvalued[k]; ok && (b.lamports != a.lamports || !bytes.Equal(b.data, a.data) || !a.owner.Equals(b.owner)) {
			e.Unvalued = append(e.Unvalued, Unvalued{Account: k, Program: prog})
		}
		if e.sphere.mints[k] && b.mint != nil && a.mint != nil && a.mint.supply > b.mint.supply {
			e.supplyUp[k] = addOrMax(e.supplyUp[k], a.mint.supply-b.mint.supply)
		}
		e.Changes = append(e.Changes, controlChanges(wallet, e.sphere.owners, k, b, a)...)
	}
	return e.finish()
}

// side is one account on one side of a transaction, as both measures read
// it (the simulation from account data, the landed one from its meta).
type side struct {
	exists      bool
	lamports    uint64
	token       bool // a token account: mint, owner and amount are set
	mint, owner solana.PublicKey
	amount      uint64
}

func (s accountState) side() side {
	out := side{exists: s.exists, lamports: s.lamports}
	if s.token != nil {
		out.token, out.mint, out.owner, out.amount = true, s.token.mint, s.token.owner, s.token.amount
	}
	return out
}

func (s side) wsol() bool { return s.token && s.mint.Equals(WrappedSOL) }

// effectsBuilder adds up accounts into Effects; both measures (simulated
// states and landed balances) go through it, so they cannot differ in
// what they count.
type effectsBuilder struct {
	Effects
	closeTo         map[solana.PublicKey]solana.PublicKey
	tokPre, tokPost map[solana.PublicKey]uint64
	// bound is what left the sphere's accounts, whole lamports (rent
	// included) summed over each account that lost: the most the wallet
	// can have paid anyone. gain is what accounts outside the sphere
	// gained, plus the rent put into the sphere's new accounts.
	bound, gain uint64
	// tokBound and tokGain are the same per mint; supplyUp is new supply
	// of the mints the wallet may mint.
	tokBound, tokGain, supplyUp map[solana.PublicKey]uint64
	payees                      map[solana.PublicKey]*Payee
}

func newEffects(wallet solana.PublicKey, v txView, inner []rpc.InnerInstruction) *effectsBuilder {
	e := &effectsBuilder{
		Effects: Effects{
			Wallet: wallet, Signers: v.signers, PriorityFee: v.priorityFee,
			NetworkFee: uint64(len(v.signers)) * LamportsPerSignature,
			TokensOut:  map[solana.PublicKey]uint64{}, TokensIn: map[solana.PublicKey]uint64{},
		},
		closeTo: map[solana.PublicKey]solana.PublicKey{},
		tokPre:  map[solana.PublicKey]uint64{}, tokPost: map[solana.PublicKey]uint64{},
		tokBound: map[solana.PublicKey]uint64{}, tokGain: map[solana.PublicKey]uint64{}, supplyUp: map[solana.PublicKey]uint64{},
		payees: map[solana.PublicKey]*Payee{},
	}
	key := func(i int) (solana.PublicKey, bool) {
		if i < 0 || i >= len(v.keys) {
			return solana.PublicKey{}, false
		}
		return v.keys[i], true
	}
	seen, seenInner := map[solana.PublicKey]bool{}, map[solana.PublicKey]bool{}
	look := func(x viewIx, top bool) {
		prog, ok := key(x.program)
		if !ok {
			return
		}
		if top && !seen[prog] {
			seen[prog] = true
			e.Programs = append(e.Programs, prog)
		}
		if !top && !seenInner[prog] {
			seenInner[prog] = true
			e.InnerPrograms = append(e.InnerPrograms, prog)
		}
		acct := func(n int) solana.PublicKey {
			if n < len(x.accounts) {
				k, _ := key(x.accounts[n])
				return k
			}
			return solana.PublicKey{}
		}
		switch {
		case prog.Equals(solana.SystemProgramID) && len(x.data) >= 4:
			switch binary.LittleEndian.Uint32(x.data) {
			case 4: // AdvanceNonceAccount
				e.DurableNonce, e.NonceAccount = true, acct(0)
			case 5: // WithdrawNonceAccount: may empty (close) the nonce account
				e.closeTo[acct(0)] = acct(1)
			}
		case isTokenProgram(prog) && len(x.data) >= 1 && x.data[0] == 9: // CloseAccount
			e.closeTo[acct(0)] = acct(1)
		case prog.Equals(solana.AddressLookupTableProgramID) && len(x.data) >= 4 && binary.LittleEndian.Uint32(x.data) == 4:
			// CloseLookupTable: table, authority, recipient
			e.closeTo[acct(0)] = acct(2)
		}
	}
	for _, x := range v.ixs {
		look(x, true)
	}
	for _, group := range inner {
		for _, ci := range group.Instructions {
			look(compiledIx(solana.CompiledInstruction{ProgramIDIndex: ci.ProgramIDIndex, Accounts: ci.Accounts, Data: ci.Data}), false)
		}
	}
	return e
}

// add adds one account (not the wallet) seen before (b) and after (a).
func (e *effectsBuilder) add(k solana.PublicKey, b, a side) {
	s := e.sphere
	mine := s.holds(k, b) || (!b.exists && s.holds(k, a))
	if _, unvalued := s.unvalued[k]; unvalued && a.lamports > b.lamports {
		// Value going into an account the engine cannot read is not
		// counted as still the wallet's: it left what can be valued.
		mine = false
	}
	rent := s.rentOf(k, a)
	if !a.exists {
		rent = s.rentOf(k, b)
	}
	if mine {
		// SOL of the sphere: the wallet's wrapped SOL whole, any other
		// account's lamports above its rent (what can be withdrawn).
		e.SOLBefore = addOrMax(e.SOLBefore, counted(b, rent))
		if !s.leaves[k] {
			e.SOLAfter = addOrMax(e.SOLAfter, counted(a, rent))
		}
		if b.lamports > a.lamports {
			e.bound = addOrMax(e.bound, b.lamports-a.lamports)
		}
		if why, ok := s.accounts[k]; ok && (b.lamports != a.lamports || b.amount != a.amount) {
			e.Controlled = append(e.Controlled, AuthorityChange{Account: k, What: why})
		} else if ok := b.token && !b.owner.Equals(e.Wallet) && s.owners[b.owner]; ok && b.amount != a.amount {
			e.Controlled = append(e.Controlled, AuthorityChange{Account: k, What: "token account owned by multisig " + KeyString(b.owner) + ", whose threshold the wallet's signature meets"})
		}
	}
	switch {
	case !b.exists && a.exists:
		e.Created = append(e.Created, k)
		// Rent is what an account's data requires, at most what it holds;
		// the lamports of a new account without data are a payment.
		if !(mine && a.wsol()) {
			r := min(a.lamports, rent)
			e.RentPaid = addOrMax(e.RentPaid, r)
			if mine {
				e.gain = addOrMax(e.gain, r)
			}
		}
	case b.exists && !a.exists && mine:
		e.Closed = append(e.Closed, Closure{Account: k, Lamports: b.lamports, To: e.closeTo[k]})
		if !b.wsol() {
			e.RentRefunded = addOrMax(e.RentRefunded, min(b.lamports, rent))
		}
	}
	if !mine && a.lamports > b.lamports {
		e.gain = addOrMax(e.gain, a.lamports-b.lamports)
		e.payee(k, a).Lamports += a.lamports - b.lamports
	}
	switch {
	case mine:
		if b.token && !b.wsol() {
			e.tokPre[b.mint] = addOrMax(e.tokPre[b.mint], b.amount)
			if !a.token || !a.mint.Equals(b.mint) {
				e.tokBound[b.mint] = addOrMax(e.tokBound[b.mint], b.amount)
			} else if b.amount > a.amount {
				e.tokBound[b.mint] = addOrMax(e.tokBound[b.mint], b.amount-a.amount)
			}
		}
		if a.token && !a.wsol() {
			e.tokPost[a.mint] = addOrMax(e.tokPost[a.mint], a.amount)
		}
		if (b.token || a.token) && b.amount != a.amount {
			mint := a.mint
			if b.token {
				mint = b.mint
			}
			e.Tokens = append(e.Tokens, TokenChange{Account: k, Mint: mint, Pre: b.amount, Post: a.amount})
		}
	case a.token && !a.wsol():
		var pre uint64
		if b.token && b.mint.Equals(a.mint) {
			pre = b.amount
		}
		if a.amount > pre {
			e.tokGain[a.mint] = addOrMax(e.tokGain[a.mint], a.amount-pre)
			p := e.payee(k, a)
			if p.Tokens == nil {
				p.Tokens = map[solana.PublicKey]uint64{}
			}
			p.Tokens[a.mint] += a.amount - pre
		}
	}
}

// counted is the SOL of a sphere account on one side: a wrapped-SOL
// account's lamports, any other's above its rent.
func counted(s side, rent uint64) uint64 {
	switch {
	case !s.exists:
		return 0
	case s.wsol():
		return s.lamports
	case s.lamports > rent:
		return s.lamports - rent
	}
	return 0
}

// payee is the payee k's gains go to: a token account's owner, or k.
func (e *effectsBuilder) payee(k solana.PublicKey, a side) *Payee {
	who := k
	if a.token {
		who = a.owner
	}
	p, ok := e.payees[who]
	if !ok {
		p = &Payee{Address: who}
		if e.sphere != nil {
			p.Wallet = e.sphere.wallets[k]
		}
		e.payees[who] = p
	}
	return p
}

// finish turns the sums into outflows. An asset's outflow is gross: what
// accounts outside the sphere gained (bounded by what the sphere's
// accounts lost, so others' payments to each other are not the wallet's),
// and never less than the sphere's net decrease. A refund coming in does
// not net a payment going out.
func (e *effectsBuilder) finish() Effects {
	e.SOLOutGross = min(addOrMax(e.gain, e.Fee()), e.bound)
	for _, m := range unionKeys(e.tokPre, e.tokGain) {
		var out uint64
		if pre, post := e.tokPre[m], e.tokPost[m]; pre > post {
			out = pre - post
		}
		out = max(out, min(e.tokGain[m], addOrMax(e.tokBound[m], e.supplyUp[m])))
		if out > 0 {
			e.TokensOut[m] = out
		}
	}
	for m, post := range e.tokPost {
		if pre := e.tokPre[m]; post > pre {
			e.TokensIn[m] = post - pre
		}
	}
	// Payees are named for what the wallet lost: SOL beyond the fee, and
	// each mint that left.
	paid := e.SOLOut() > e.Fee()
	for _, p := range e.payees {
		if !paid {
			p.Lamports = 0
		}
		for m := range p.Tokens {
			if e.TokensOut[m] == 0 {
				delete(p.Tokens, m)
			}
		}
		if p.Lamports > 0 || len(p.Tokens) > 0 {
			e.Payees = append(e.Payees, *p)
		}
	}
	// Largest SOL payment first, then by address: the order is stable.
	sort.Slice(e.Payees, func(i, j int) bool {
		if a, b := e.Payees[i].Lamports, e.Payees[j].Lamports; a != b {
			return a > b
		}
		return bytes.Compare(e.Payees[i].Address[:], e.Payees[j].Address[:]) < 0
	})
	return e.Effects
}

func unionKeys(a, b map[solana.PublicKey]uint64) []solana.PublicKey {
	seen := map[solana.PublicKey]bool{}
	var out []solana.PublicKey
	for _, m := range []map[solana.PublicKey]uint64{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// controlChanges lists changes of control over k, an account the wallet
// owns or holds an authority over, between b and a.
//
// owners are the token-account owners whose accounts are the wallet's (the
// wallet, multisigs it satisfies); nil means the wallet alone.
func controlChanges(wallet solana.PublicKey, owners map[solana.PublicKey]bool, k solana.PublicKey, b, a accountState) []AuthorityChange {
	owned := func(s accountState) bool {
		return s.token != nil && (s.token.owner.Equals(wallet) || owners[s.token.owner])
	}
	var out []AuthorityChange
	add := func(format string, args ...any) {
		out = append(out, AuthorityChange{Account: k, What: fmt.Sprintf(format, args...)})
	}
	switch {
	case b.token != nil && (owned(b) || optIs(b.token.delegate, wallet) || optIs(b.token.closeAuthority, wallet)):
		if !a.exists {
			return nil // a close: judged by where its lamports go
		}
		if a.token == nil {
			add("the wallet's token account turned into something else (program %s)", a.owner)
			return out
		}
		bt, at := b.token, a.token
		if !bt.owner.Equals(at.owner) {
			add("token account owner changed from %s to %s", bt.owner, at.owner)
		}
		if !bytes.Equal(bt.delegate, at.delegate) {
			add("token account delegate changed from %s to %s", optText(bt.delegate), optText(at.delegate))
		}
		// Any move of the allowance counts, a delegate spending it included:
		// guessing which moves are "only spending" hid an Approve lowering
		// it beside an owner's transfer (found by the differential test).
		if bt.delegatedAmount != at.delegatedAmount {
			add("token account delegated amount changed from %d to %d", bt.delegatedAmount, at.delegatedAmount)
		}
		if bt.state != at.state {
			add("token account %s", map[bool]string{true: "frozen", false: "thawed"}[at.state == 2])
		}
		if !bytes.Equal(bt.closeAuthority, at.closeAuthority) {
			add("token account close authority changed from %s to %s", optText(bt.closeAuthority), optText(at.closeAuthority))
		}
	case !b.exists && owned(a):
		// Opened for the wallet: it must come clean.
		if optKey(a.token.delegate) != nil || a.token.delegatedAmount != 0 {
			add("token account opened for the wallet with delegate %s", optText(a.token.delegate))
		}
		if optKey(a.token.closeAuthority) != nil {
			add("token account opened for the wallet with close authority %s", optText(a.token.closeAuthority))
		}
		if a.token.state == 2 {
			add("token account opened for the wallet frozen")
		}
	case b.mint != nil && (optIs(b.mint.mintAuthority, wallet) || optIs(b.mint.freezeAuthority, wallet) || owners[keyOr(optKey(b.mint.mintAuthority))]):
		if a.mint == nil {
			add("a mint the wallet controls turned into something else")
			return out
		}
		if !bytes.Equal(b.mint.mintAuthority, a.mint.mintAuthority) {
			add("mint authority changed from %s to %s", optText(b.mint.mintAuthority), optText(a.mint.mintAuthority))
		}
		if !bytes.Equal(b.mint.freezeAuthority, a.mint.freezeAuthority) {
			add("freeze authority changed from %s to %s", optText(b.mint.freezeAuthority), optText(a.mint.freezeAuthority))
		}
	case b.exists && b.token == nil && b.mint == nil:
		// Any other account naming the wallet in its data (a nonce, stake,
		// lookup-table or program-data account whose authority it is): the
		// key must stay where it was, under the same program.
		w := wallet[:]
		for off := 0; off+32 <= len(b.data); off++ {
			if !bytes.Equal(b.data[off:off+32], w) {
				continue
			}
			switch {
			case !a.exists:
				// Closed: judged by where its lamports go.
			case !a.owner.Equals(b.owner) || off+32 > len(a.data) || !bytes.Equal(a.data[off:off+32], w):
				add("an authority the wallet holds (its key at byte %d of an account of program %s) changed", off, b.owner)
			}
			break
		}
	}
	return out
}

// landedEffects measures the landed transaction from its own meta: the
// lamports before and after of every account it names, and the token
// balances. keys are the message's accounts in order (lookup-table ones
// included). Delegates and frozen state are not in the meta; the
// simulation before signing refused any change of them.
func landedEffects(wallet solana.PublicKey, v txView, tx *rpc.GetTransactionResult, sph *sphere) (Effects, error) {
	m := tx.Meta
	if len(m.PreBalances) != len(v.keys) || len(m.PostBalances) != len(v.keys) {
		return Effects{}, fmt.Errorf("the landed transaction has %d accounts but %d/%d balances", len(v.keys), len(m.PreBalances), len(m.PostBalances))
	}
	e := newEffects(wallet, v, m.InnerInstructions)
	if sph == nil {
		// Nothing measured before (a reconciliation after a restart): the
		// wallet's own accounts only.
		sph = newSphere(wallet)
	}
	e.sphere = sph
	sigFee := uint64(len(v.signers)) * LamportsPerSignature
	e.NetworkFee = min(sigFee, m.Fee)
	e.PriorityFee = m.Fee - e.NetworkFee
	read := func(list []rpc.TokenBalance) (map[int]side, error) {
		out := map[int]side{}
		for _, tb := range list {
			if int(tb.AccountIndex) >= len(v.keys) || tb.UiTokenAmount == nil {
				return nil, fmt.Errorf("token balance at index %d does not match the transaction's %d accounts", tb.AccountIndex, len(v.keys))
			}
			amt, err := strconv.ParseUint(tb.UiTokenAmount.Amount, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("token balance %q is not an amount", sanitizeExcerpt([]byte(tb.UiTokenAmount.Amount), 30))
			}
			s := side{token: true, mint: tb.Mint, amount: amt}
			if tb.Owner != nil {
				s.owner = *tb.Owner
			}
			out[int(tb.AccountIndex)] = s
		}
		return out, nil
	}
	pre, err := read(m.PreTokenBalances)
	if err != nil {
		return Effects{}, err
	}
	post, err := read(m.PostTokenBalances)
	if err != nil {
		return Effects{}, err
	}
	// New supply of a mint the wallet may mint: every token account that
	// moved is in the message, so the sum of their changes is the supply's.
	supply := map[solana.PublicKey]int64{}
	for i, s := range pre {
		if sph.mints[s.mint] && m.PreBalances[i] > 0 {
			supply[s.mint] -= int64(s.amount)
		}
	}
	for i, s := range post {
		if sph.mints[s.mint] && m.PostBalances[i] > 0 {
			supply[s.mint] += int64(s.amount)
		}
	}
	for mint, d := range supply {
		if d > 0 {
			e.supplyUp[mint] = uint64(d)
		}
	}
	for i, k := range v.keys {
		bl, al := m.PreBalances[i], m.PostBalances[i]
		if k.Equals(wallet) {
			e.SOLBefore = addOrMax(e.SOLBefore, bl)
			e.SOLAfter = addOrMax(e.SOLAfter, al)
			if bl > al {
				e.bound = addOrMax(e.bound, bl-al)
			}
			continue
		}
		b, a := pre[i], post[i]
		b.exists, b.lamports = bl > 0, bl
		a.exists, a.lamports = al > 0, al
		if !a.exists {
			a = side{}
		}
		e.add(k, b, a)
		if b.token && sph.owners[b.owner] && a.token && !sph.owners[a.owner] {
			e.Changes = append(e.Changes, AuthorityChange{Account: k, What: fmt.Sprintf("token account owner changed from %s to %s", b.owner, a.owner)})
		}
	}
	return e.finish(), nil
}

// landedView is the view of a re-fetched transaction: its decoded message
// with the loaded addresses appended, as the meta's balances are ordered.
func landedView(tx *rpc.GetTransactionResult, priorityFee uint64) (txView, error) {
	decoded, err := tx.Transaction.GetTransaction()
	if err != nil {
		return txView{}, err
	}
	v := viewOfTransaction(decoded, priorityFee)
	n := len(v.keys)
	v.keys = append(append(append([]solana.PublicKey{}, v.keys...), tx.Meta.LoadedAddresses.Writable...), tx.Meta.LoadedAddresses.ReadOnly...)
	v.writable = append(v.writable[:n:n], make([]bool, len(v.keys)-n)...)
	for i := range tx.Meta.LoadedAddresses.Writable {
		v.writable[n+i] = true
	}
	return v, nil
}

// MeasureEffects measures what tx (built for the wallet, unsigned or
// signed) would do, by simulating its exact bytes: the entry point for a
// transaction built elsewhere. priorityFee is its compute budget's price ×
// limit. It does not judge: Effects.Refusal does.
func (e *Executor) MeasureEffects(ctx context.Context, tx *solana.Transaction, priorityFee uint64) (Effects, error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return Effects{}, fmt.Errorf("effects: encode transaction: %w", err)
	}
	eff, _, err := e.client.simulateEffects(ctx, raw, viewOfTransaction(tx, priorityFee), e.key.PublicKey(), false, nil)
	return eff, err
}

// SubmitMeasured signs tx with the wallet, sends it, follows it until the
// chain answers, and measures the landed transaction from its own meta
// (Result.Effects). Landed effects past limits are "executed with
// unexpected effects". The error is non-nil only when nothing was sent.
//
// measured is MeasureEffects' answer for tx: what the wallet controlled is
// carried from it to the landed measure. beforeSend, when set, runs after
// signing and before the first send, with the signature (Prepared.BeforeSend).
// The landed effects within limits are the whole check: the caller judges
// anything more from Result.Effects.
func (e *Executor) SubmitMeasured(ctx context.Context, tx *solana.Transaction, measured Effects, lastValidBlockHeight uint64, limits Limits, beforeSend func(solana.Signature) error, progress func(Progress)) (*Result, error) {
	p := &Prepared{Tx: tx, LastValidBlockHeight: lastValidBlockHeight, limits: &limits, Preview: Preview{Effects: measured}, BeforeSend: beforeSend}
	p.checkLanded = func(*rpc.GetTransactionResult, *Result) error { return nil }
	return e.Submit(ctx, p, progress)
}
