package executor

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	alt "github.com/gagliardetto/solana-go/programs/address-lookup-table"
)

// This file holds the checks solgate makes before signing a transaction it
// did not build itself (a swap API's answer). The transaction is decoded by a
// strict parser of our own, cross-checked against solana-go's decoding, and
// refused unless every rule holds. A refusal names exactly what was wrong.

// ErrUnsafeTransaction is matched (errors.Is) by every *InspectionError.
var ErrUnsafeTransaction = errors.New("unsafe transaction")

// InspectionError is a refusal to sign: Reason says what was wrong. Nothing
// was signed or sent when it is returned.
type InspectionError struct {
	Reason string
}

func (e *InspectionError) Error() string {
	return "refused before signing: " + e.Reason + " (nothing was signed or sent)"
}

func (e *InspectionError) Is(target error) bool { return target == ErrUnsafeTransaction }

func refuse(format string, args ...any) error {
	return &InspectionError{Reason: fmt.Sprintf(format, args...)}
}

// MaxTransactionSize is the largest wire transaction a cluster accepts.
const MaxTransactionSize = 1232

// LamportsPerSignature is the base fee per signature on every public cluster.
const LamportsPerSignature = 5000

// ForeignTx is a transaction someone else built, decoded strictly. Raw holds
// the exact bytes received; MessageBytes is the part signatures cover.
type ForeignTx struct {
	Raw          []byte
	MessageBytes []byte
	// Tx is solana-go's decoding of the same bytes (lookups unresolved). Its
	// re-encoding is checked to equal Raw, so both views agree.
	Tx *solana.Transaction

	sigOffset  int // offset of signature 0 in Raw
	versioned  bool
	header     solana.MessageHeader
	static     []solana.PublicKey
	blockhash  solana.Hash
	ixs        []wireInstruction
	lookups    []wireLookup
	signatures []solana.Signature
}

type wireInstruction struct {
	program  uint8
	accounts []uint8
	data     []byte
}

type wireLookup struct {
	table    solana.PublicKey
	writable []uint8
	readonly []uint8
}

// IsVersioned reports a v0 message (false: legacy).
func (t *ForeignTx) IsVersioned() bool { return t.versioned }

// FeePayer is account 0, the key that pays the fee and signs first.
func (t *ForeignTx) FeePayer() solana.PublicKey { return t.static[0] }

// Blockhash is the message's recent blockhash.
func (t *ForeignTx) Blockhash() solana.Hash { return t.blockhash }

// LookupTables are the address lookup tables the message loads accounts from.
func (t *ForeignTx) LookupTables() []solana.PublicKey {
	out := make([]solana.PublicKey, len(t.lookups))
	for i, l := range t.lookups {
		out[i] = l.table
	}
	return out
}

// NumSignatures is the number of signature slots (= required signatures).
func (t *ForeignTx) NumSignatures() int { return len(t.signatures) }

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || r.off+n > len(r.b) {
		r.fail("truncated at byte %d reading %s", r.off, what)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) byte1(what string) uint8 {
	s := r.take(1, what)
	if s == nil {
		return 0
	}
	return s[0]
}

// compactU16 reads Solana's shortvec length, refusing non-canonical encodings.
func (r *reader) compactU16(what string) int {
	v := 0
	for i := 0; i < 3; i++ {
		b := r.byte1(what)
		if r.err != nil {
			return 0
		}
		if i == 2 && b > 0x03 {
			r.fail("%s: compact-u16 overflows", what)
			return 0
		}
		v |= int(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			if i > 0 && b == 0 {
				r.fail("%s: non-canonical compact-u16", what)
				return 0
			}
			return v
		}
	}
	r.fail("%s: compact-u16 too long", what)
	return 0
}

func (r *reader) pubkey(what string) solana.PublicKey {
	var pk solana.PublicKey
	copy(pk[:], r.take(32, what))
	return pk
}

// DecodeTransaction parses wire bytes (legacy or v0) and checks the structure
// a validator would sanitize: sizes, counts, header, indexes, no duplicate
// keys, no trailing bytes. It never panics on any input.
func DecodeTransaction(raw []byte) (*ForeignTx, error) {
	if len(raw) == 0 {
		return nil, errors.New("empty transaction")
	}
	if len(raw) > MaxTransactionSize {
		return nil, fmt.Errorf("transaction is %d bytes, over the %d-byte limit", len(raw), MaxTransactionSize)
	}
	r := &reader{b: raw}
	t := &ForeignTx{Raw: append([]byte(nil), raw...)}
	nsig := r.compactU16("signature count")
	if r.err == nil && nsig*64 > len(raw)-r.off {
		r.fail("%d signatures do not fit in %d bytes", nsig, len(raw))
	}
	t.sigOffset = r.off
	for i := 0; i < nsig && r.err == nil; i++ {
		var s solana.Signature
		copy(s[:], r.take(64, "signature"))
		t.signatures = append(t.signatures, s)
	}
	msgOffset := r.off
	if r.err == nil && r.off < len(raw) && raw[r.off]&0x80 != 0 {
		if v := raw[r.off] & 0x7f; v != 0 {
			r.fail("unsupported transaction version %d", v)
		}
		t.versioned = true
		r.off++
	}
	t.header.NumRequiredSignatures = r.byte1("header")
	t.header.NumReadonlySignedAccounts = r.byte1("header")
	t.header.NumReadonlyUnsignedAccounts = r.byte1("header")
	nkeys := r.compactU16("account key count")
	if r.err == nil && nkeys*32 > len(raw)-r.off {
		r.fail("%d account keys do not fit", nkeys)
	}
	for i := 0; i < nkeys && r.err == nil; i++ {
		t.static = append(t.static, r.pubkey("account key"))
	}
	copy(t.blockhash[:], r.take(32, "recent blockhash"))
	nix := r.compactU16("instruction count")
	if r.err == nil && nix > len(raw)-r.off {
		r.fail("%d instructions do not fit", nix)
	}
	for i := 0; i < nix && r.err == nil; i++ {
		var ix wireInstruction
		ix.program = r.byte1("program index")
		na := r.compactU16("instruction account count")
		ix.accounts = append([]uint8(nil), r.take(na, "instruction accounts")...)
		nd := r.compactU16("instruction data length")
		ix.data = append([]byte(nil), r.take(nd, "instruction data")...)
		t.ixs = append(t.ixs, ix)
	}
	if t.versioned {
		nl := r.compactU16("lookup count")
		if r.err == nil && nl*34 > len(raw)-r.off {
			r.fail("%d lookups do not fit", nl)
		}
		for i := 0; i < nl && r.err == nil; i++ {
			var l wireLookup
			l.table = r.pubkey("lookup table")
			nw := r.compactU16("writable lookup count")
			l.writable = append([]uint8(nil), r.take(nw, "writable lookups")...)
			nr := r.compactU16("readonly lookup count")
			l.readonly = append([]uint8(nil), r.take(nr, "readonly lookups")...)
			t.lookups = append(t.lookups, l)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(raw) {
		return nil, fmt.Errorf("%d trailing bytes after the message", len(raw)-r.off)
	}
	t.MessageBytes = t.Raw[msgOffset:]

	// What a validator's sanitize step checks.
	h := t.header
	switch {
	case h.NumRequiredSignatures == 0:
		return nil, errors.New("message requires no signatures (no fee payer)")
	case int(h.NumRequiredSignatures) != nsig:
		return nil, fmt.Errorf("message requires %d signatures but the transaction carries %d", h.NumRequiredSignatures, nsig)
	case int(h.NumRequiredSignatures) > len(t.static):
		return nil, fmt.Errorf("message requires %d signatures but has only %d account keys", h.NumRequiredSignatures, len(t.static))
	case h.NumReadonlySignedAccounts >= h.NumRequiredSignatures:
		return nil, errors.New("the fee payer is marked read-only")
	case int(h.NumRequiredSignatures)+int(h.NumReadonlyUnsignedAccounts) > len(t.static):
		return nil, errors.New("header marks more read-only accounts than the message has")
	}
	total := len(t.static)
	seenTables := map[solana.PublicKey]bool{}
	for _, l := range t.lookups {
		if seenTables[l.table] {
			return nil, fmt.Errorf("lookup table %s is listed twice", l.table)
		}
		seenTables[l.table] = true
		if len(l.writable)+len(l.readonly) == 0 {
			return nil, fmt.Errorf("lookup table %s loads no accounts", l.table)
		}
		total += len(l.writable) + len(l.readonly)
	}
	if total > 256 {
		return nil, fmt.Errorf("message refers to %d accounts, more than 256", total)
	}
	seen := map[solana.PublicKey]bool{}
	for _, k := range t.static {
		if seen[k] {
			return nil, fmt.Errorf("account %s appears twice among the account keys", k)
		}
		seen[k] = true
	}
	for i, ix := range t.ixs {
		if int(ix.program) >= len(t.static) {
			return nil, fmt.Errorf("instruction %d: program index %d is not a static account key (%d keys)", i, ix.program, len(t.static))
		}
		if ix.program == 0 {
			return nil, fmt.Errorf("instruction %d: the fee payer is invoked as a program", i)
		}
		for _, a := range ix.accounts {
			if int(a) >= total {
				return nil, fmt.Errorf("instruction %d: account index %d is out of range (%d accounts)", i, a, total)
			}
		}
	}

	// solana-go's view must be the same bytes: re-encoding it gives back
	// exactly what was received, so previews, simulation and signing all see
	// one transaction.
	tx, err := solana.TransactionFromDecoder(bin.NewBinDecoder(t.Raw))
	if err != nil {
		return nil, fmt.Errorf("solana-go cannot decode it: %v", err)
	}
	if tx.Message.IsVersioned() != t.versioned {
		return nil, errors.New("decoders disagree about the message version")
	}
	again, err := tx.MarshalBinary()
	if err != nil || !bytes.Equal(again, t.Raw) {
		return nil, errors.New("not in canonical encoding (re-encoding differs from the bytes received)")
	}
	t.Tx = tx
	return t, nil
}

// ---------------------------------------------------------------- lookup tables

// LookupTables maps a lookup table's address to the addresses it holds.
type LookupTables map[solana.PublicKey][]solana.PublicKey

// ParseLookupTable reads an address lookup table account's addresses with
// solana-go's decoder. The checks before it fail closed where that decoder is
// lenient: another owner, a length that is not the header plus whole
// addresses (it would drop a ragged tail, and panic on a short one), or a
// table that is not initialized.
func ParseLookupTable(owner solana.PublicKey, data []byte) ([]solana.PublicKey, error) {
	if !owner.Equals(solana.AddressLookupTableProgramID) {
		return nil, fmt.Errorf("owned by %s, not the address lookup table program", owner)
	}
	if len(data) < alt.LOOKUP_TABLE_META_SIZE || (len(data)-alt.LOOKUP_TABLE_META_SIZE)%32 != 0 {
		return nil, fmt.Errorf("%d bytes is not a lookup table layout", len(data))
	}
	if binary.LittleEndian.Uint32(data[:4]) != 1 {
		return nil, errors.New("not an initialized lookup table")
	}
	state, err := alt.DecodeAddressLookupTableState(data)
	if err != nil {
		return nil, fmt.Errorf("lookup table: %w", err)
	}
	return state.Addresses, nil
}

// ---------------------------------------------------------------- inspection

// InspectRules are what a swap transaction may do with the wallet.
type InspectRules struct {
	Wallet     solana.PublicKey
	InputMint  solana.PublicKey
	OutputMint solana.PublicKey
	InAmount   uint64
	// Pools are the quote route's ammKey addresses. The wallet's SOL may go
	// (by system transfer) only to a pool or to the wallet's own wrapped-SOL
	// account; its input tokens only to a pool's associated token account.
	Pools []solana.PublicKey
	// SwapPrograms are aggregator programs allowed to run besides
	// JupiterV6Program, which always is. What they do is bounded by the
	// whole-wallet simulation against the outflow budget, not by decoding.
	SwapPrograms []solana.PublicKey
	// MaxPriorityFeeLamports caps compute-unit price × limit.
	MaxPriorityFeeLamports uint64
}

// Inspection is what the inspector learnt from an accepted transaction.
type Inspection struct {
	// Accounts are all keys in message order: static, then loaded writable,
	// then loaded readonly. Writable matches it index by index.
	Accounts []solana.PublicKey
	Writable []bool
	Loaded   int // how many of Accounts came from lookup tables
	Programs []solana.PublicKey
	// Instructions describe each top-level instruction, for previews.
	Instructions []InstructionSummary
	// SOLOut is lamports the wallet sends by top-level system transfers;
	// TokensOut is input tokens it sends by top-level token transfers.
	SOLOut    uint64
	TokensOut uint64
	// CreatesAccounts counts associated token accounts the wallet pays rent for.
	CreatesAccounts  int
	ComputeUnitLimit uint64
	// ComputeUnitPrice is the SetComputeUnitPrice value, micro-lamports per unit.
	ComputeUnitPrice uint64
	// PriorityFee is compute-unit price × limit, rounded up; Fee adds the
	// signature fees: what the fee payer will be charged.
	PriorityFee uint64
	Fee         uint64
	// Cosigners are the other signers whose signatures are present and valid.
	Cosigners []solana.PublicKey
}

// knownPrograms are always allowed: the builtins a swap transaction needs,
// and the Memo program, which moves nothing.
var knownPrograms = map[solana.PublicKey]bool{
	solana.MemoProgramID:                      true,
	solana.SystemProgramID:                    true,
	solana.ComputeBudget:                      true,
	solana.TokenProgramID:                     true,
	solana.Token2022ProgramID:                 true,
	solana.SPLAssociatedTokenAccountProgramID: true,
}

// AssociatedTokenAddress derives owner's associated token account for mint
// under tokenProgram (SPL Token or Token-2022).
func AssociatedTokenAddress(owner, mint, tokenProgram solana.PublicKey) (solana.PublicKey, error) {
	pk, _, err := solana.FindProgramAddress([][]byte{owner[:], tokenProgram[:], mint[:]}, solana.SPLAssociatedTokenAccountProgramID)
	return pk, err
}

// Inspect checks a foreign transaction against the rules. tables must hold
// every lookup table the message uses. It never panics and never touches the
// network; a refusal is an *InspectionError.
//
// Each instruction is judged by its program's rules (inspect_system.go,
// inspect_token.go, inspect_computebudget.go, inspect_ata.go); this function
// holds what spans instructions: the fee payer, signatures, the program
// allow-list and the fee bound.
func Inspect(t *ForeignTx, tables LookupTables, r InspectRules) (*Inspection, error) {
	if t == nil {
		return nil, refuse("no transaction")
	}
	if r.Wallet.IsZero() {
		return nil, refuse("no wallet to inspect for")
	}
	// 1. The fee payer is our wallet.
	if !t.static[0].Equals(r.Wallet) {
		return nil, refuse("fee payer is %s, not the wallet %s", t.static[0], r.Wallet)
	}

	// 2. Resolve lookup tables before anything is judged: an account loaded
	// from a table is as much a destination as a static one.
	in := &Inspection{}
	var err error
	if in.Accounts, in.Writable, in.Loaded, err = resolveAccounts(t, tables); err != nil {
		return nil, err
	}

	// 3. Signatures already present (everyone's but ours) must be valid: we
	// keep them as they are and add only our own.
	for i := 1; i < len(t.signatures); i++ {
		if !ed25519.Verify(ed25519.PublicKey(t.static[i][:]), t.MessageBytes, t.signatures[i][:]) {
			return nil, refuse("signature %d (signer %s) is missing or invalid; only the wallet's slot may be empty", i, t.static[i])
		}
		in.Cosigners = append(in.Cosigners, t.static[i])
	}

	allowed := map[solana.PublicKey]bool{}
	for k := range knownPrograms {
		allowed[k] = true
	}
	// Jupiter's aggregator is always known: every transaction its Swap API
	// builds invokes it.
	allowed[JupiterV6Program] = true
	for _, k := range r.SwapPrograms {
		allowed[k] = true
	}
	j := newSwapJudge(r, in)

	nonBudget := 0
	progSeen := map[solana.PublicKey]bool{}
	for i, ix := range t.ixs {
		prog := t.static[ix.program]
		if !allowed[prog] {
			return nil, refuse("instruction %d invokes unknown program %s", i, prog)
		}
		if !progSeen[prog] {
			progSeen[prog] = true
			in.Programs = append(in.Programs, prog)
		}
		x, err := newJudgedInstruction(i, prog, ix, in.Accounts)
		if err != nil {
			return nil, err
		}
		sum := InstructionSummary{Program: prog, Name: ProgramName(prog)}
		if !prog.Equals(solana.ComputeBudget) {
			nonBudget++
		}
		switch {
		case prog.Equals(solana.ComputeBudget):
			err = j.computeBudget(x, &sum)
		case prog.Equals(solana.SystemProgramID):
			err = j.system(x, &sum)
		case prog.Equals(solana.TokenProgramID) || prog.Equals(solana.Token2022ProgramID):
			err = j.token(x, &sum)
		case prog.Equals(solana.SPLAssociatedTokenAccountProgramID):
			err = j.associatedTokenAccount(x, &sum)
		case prog.Equals(solana.MemoProgramID):
			sum.Summary = describeMemo(nil, ix.data)
		default: // an aggregator: judged by the whole-wallet simulation
			sum.Summary = fmt.Sprintf("aggregator instruction: %d accounts, %d bytes of data; judged by the whole-wallet simulation, not decoded", len(ix.accounts), len(ix.data))
		}
		if err != nil {
			return nil, err
		}
		in.Instructions = append(in.Instructions, sum)
	}

	// 4. The fee is bounded: signatures plus priority fee.
	cuLimit := j.cuLimit
	if !j.haveLimit {
		cuLimit = min(uint64(200_000)*uint64(nonBudget), 1_400_000)
	}
	cuLimit = min(cuLimit, 1_400_000)
	in.ComputeUnitLimit, in.ComputeUnitPrice = cuLimit, j.cuPrice
	if cuPrice := j.cuPrice; cuPrice > 0 {
		hi, lo := bits.Mul64(cuPrice, cuLimit)
		if hi != 0 {
			return nil, refuse("priority fee overflows (price %d micro-lamports × %d units)", cuPrice, cuLimit)
		}
		in.PriorityFee = lo / 1_000_000
		if lo%1_000_000 != 0 {
			in.PriorityFee++
		}
	}
	if in.PriorityFee > r.MaxPriorityFeeLamports {
		return nil, refuse("priority fee of %d lamports (%s SOL) is over the %d-lamport limit", in.PriorityFee, FormatSOL(in.PriorityFee), r.MaxPriorityFeeLamports)
	}
	in.Fee = uint64(len(t.signatures))*LamportsPerSignature + in.PriorityFee
	if in.Fee > math.MaxUint64/2 {
		return nil, refuse("fee out of range")
	}
	return in, nil
}

// swapJudge holds what Inspect derives from the rules once, and what the
// per-program checks add up across instructions.
type swapJudge struct {
	r        InspectRules
	in       *Inspection
	solInput bool
	// Destinations derived once: the wallet's wrapped-SOL accounts, and for
	// each token program the wallet's input-token account and the pools'.
	ownWSOL   map[solana.PublicKey]bool
	ownInput  map[solana.PublicKey]solana.PublicKey // wallet's input ATA -> token program
	poolInput map[solana.PublicKey]solana.PublicKey // pool's input ATA -> token program
	// The compute budget the message asks for, set at most once each.
	cuLimit, cuPrice     uint64
	haveLimit, havePrice bool
}

func newSwapJudge(r InspectRules, in *Inspection) *swapJudge {
	j := &swapJudge{
		r:         r,
		in:        in,
		solInput:  r.InputMint.Equals(WrappedSOL),
		ownWSOL:   map[solana.PublicKey]bool{},
		ownInput:  map[solana.PublicKey]solana.PublicKey{},
		poolInput: map[solana.PublicKey]solana.PublicKey{},
	}
	for _, prog := range []solana.PublicKey{solana.TokenProgramID, solana.Token2022ProgramID} {
		if a, err := AssociatedTokenAddress(r.Wallet, WrappedSOL, prog); err == nil {
			j.ownWSOL[a] = true
		}
		if a, err := AssociatedTokenAddress(r.Wallet, r.InputMint, prog); err == nil {
			j.ownInput[a] = prog
		}
		for _, p := range r.Pools {
			if a, err := AssociatedTokenAddress(p, r.InputMint, prog); err == nil {
				j.poolInput[a] = prog
			}
		}
	}
	return j
}

func (j *swapJudge) isPool(k solana.PublicKey) bool {
	for _, p := range j.r.Pools {
		if p.Equals(k) {
			return true
		}
	}
	return false
}

// judgedInstruction is one top-level instruction with its accounts resolved
// (lookup tables included), as the per-program checks see it.
type judgedInstruction struct {
	index    int // position in the message, for refusals
	prog     solana.PublicKey
	accounts []uint8            // indexes into the message's accounts
	keys     []solana.PublicKey // the same accounts, resolved
	data     []byte
	// usesWallet: the wallet (account 0) is among the accounts, so its
	// authority can be exercised.
	usesWallet bool
}

func newJudgedInstruction(index int, prog solana.PublicKey, ix wireInstruction, accounts []solana.PublicKey) (judgedInstruction, error) {
	x := judgedInstruction{index: index, prog: prog, accounts: ix.accounts, data: ix.data}
	for _, a := range ix.accounts {
		// DecodeTransaction already bounded every index by the account
		// count resolveAccounts produced; checked again so that a change
		// there cannot turn into a panic here.
		if int(a) >= len(accounts) {
			return judgedInstruction{}, refuse("instruction %d: account index %d is out of range (%d accounts)", index, a, len(accounts))
		}
		x.keys = append(x.keys, accounts[a])
		if a == 0 {
			x.usesWallet = true
		}
	}
	return x, nil
}

// acct is the instruction's n-th account, false when it has fewer.
func (x judgedInstruction) acct(n int) (solana.PublicKey, bool) {
	if n >= len(x.keys) {
		return solana.PublicKey{}, false
	}
	return x.keys[n], true
}

// resolveAccounts lists the message's accounts in order (static, then loaded
// writable, then loaded readonly) with whether each is writable, refusing
// unresolved tables, out-of-range lookups and duplicates.
func resolveAccounts(t *ForeignTx, tables LookupTables) (accounts []solana.PublicKey, writable []bool, loaded int, err error) {
	h := t.header
	nStatic := len(t.static)
	accounts = append(accounts, t.static...)
	for i := range t.static {
		w := false
		if i < int(h.NumRequiredSignatures) {
			w = i < int(h.NumRequiredSignatures-h.NumReadonlySignedAccounts)
		} else {
			w = i < nStatic-int(h.NumReadonlyUnsignedAccounts)
		}
		writable = append(writable, w)
	}
	resolve := func(l wireLookup, idx []uint8) ([]solana.PublicKey, error) {
		addrs, ok := tables[l.table]
		if !ok {
			return nil, refuse("lookup table %s was not resolved", l.table)
		}
		var out []solana.PublicKey
		for _, i := range idx {
			if int(i) >= len(addrs) {
				return nil, refuse("lookup table %s has %d addresses; the message asks for index %d", l.table, len(addrs), i)
			}
			out = append(out, addrs[i])
		}
		return out, nil
	}
	var loadedW, loadedR []solana.PublicKey
	for _, l := range t.lookups {
		w, err := resolve(l, l.writable)
		if err != nil {
			return nil, nil, 0, err
		}
		ro, err := resolve(l, l.readonly)
		if err != nil {
			return nil, nil, 0, err
		}
		loadedW = append(loadedW, w...)
		loadedR = append(loadedR, ro...)
	}
	for _, k := range loadedW {
		accounts = append(accounts, k)
		writable = append(writable, true)
	}
	for _, k := range loadedR {
		accounts = append(accounts, k)
		writable = append(writable, false)
	}
	seen := map[solana.PublicKey]int{}
	for i, k := range accounts {
		if j, dup := seen[k]; dup {
			return nil, nil, 0, refuse("account %s appears twice (accounts %d and %d)", k, j, i)
		}
		seen[k] = i
	}
	return accounts, writable, len(loadedW) + len(loadedR), nil
}

func poolList(pools []solana.PublicKey) string {
	if len(pools) == 0 {
		return "none named by the quote"
	}
	s := make([]string, len(pools))
	for i, p := range pools {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}

// signForeign fills the wallet's signature slot (index 0) of a foreign
// transaction and returns the new wire bytes, leaving every other signature
// exactly as it was. It then verifies every signature.
func (k *Keypair) signForeign(t *ForeignTx) ([]byte, solana.Signature, error) {
	if !t.static[0].Equals(k.pub) {
		return nil, solana.Signature{}, refuse("fee payer is %s, not the wallet %s", t.static[0], k.pub)
	}
	sig, err := k.priv.Sign(t.MessageBytes)
	if err != nil {
		return nil, solana.Signature{}, fmt.Errorf("sign: %w", err)
	}
	out := append([]byte(nil), t.Raw...)
	copy(out[t.sigOffset:t.sigOffset+64], sig[:])
	signed, err := DecodeTransaction(out)
	if err != nil {
		return nil, solana.Signature{}, fmt.Errorf("sign: re-decode: %w", err)
	}
	for i, s := range signed.signatures {
		if !ed25519.Verify(ed25519.PublicKey(signed.static[i][:]), signed.MessageBytes, s[:]) {
			return nil, solana.Signature{}, fmt.Errorf("sign: signature %d (signer %s) does not verify", i, signed.static[i])
		}
	}
	// And solana-go's own check on its decoding of the same bytes.
	if err := signed.Tx.VerifySignatures(); err != nil {
		return nil, solana.Signature{}, fmt.Errorf("sign: signatures do not verify: %w", err)
	}
	return out, sig, nil
}
