package executor

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gagliardetto/solana-go"
)

// Jupiter Swap API v2 (GET {base}/swap/v2/build): one call gives the quote
// and the raw instructions for the taker to build and sign itself; Jupiter
// never executes. The console compiles the instructions into a v0 message
// with the wallet as fee payer and only signer, and from there the bytes are
// judged exactly as v1's: inspected with lookup tables read from the chain
// (never the API's own copy), simulated, held to the outflow budget and the
// approved minimum.

// Swap API versions (--swap-api-version).
const (
	SwapAPIv1 = 1 // GET /swap/v1/quote, POST /swap/v1/swap
	SwapAPIv2 = 2 // GET /swap/v2/build
)

// Bounds on a /build answer, so a hostile API cannot make the console
// allocate without limit; a transaction has at most 64 instructions' worth
// of room in 1232 bytes anyway.
const (
	maxBuildInstructions = 64
	maxBuildTables       = 32
	maxBuildTableLen     = 256 // a lookup table's capacity
)

// buildInstructionWire is one instruction as /build gives it: programId,
// accounts (pubkey, isSigner, isWritable) and data in base64.
type buildInstructionWire struct {
	ProgramID string `json:"programId"`
	Accounts  []struct {
		Pubkey     string `json:"pubkey"`
		IsSigner   bool   `json:"isSigner"`
		IsWritable bool   `json:"isWritable"`
	} `json:"accounts"`
	Data string `json:"data"`
}

// buildWire is /build's answer beside the quote fields (quoteWire):
// the instructions, the lookup tables already resolved, and a blockhash.
type buildWire struct {
	ComputeBudgetInstructions     []buildInstructionWire `json:"computeBudgetInstructions"`
	SetupInstructions             []buildInstructionWire `json:"setupInstructions"`
	SwapInstruction               *buildInstructionWire  `json:"swapInstruction"`
	CleanupInstruction            *buildInstructionWire  `json:"cleanupInstruction"`
	OtherInstructions             []buildInstructionWire `json:"otherInstructions"`
	TipInstruction                *buildInstructionWire  `json:"tipInstruction"`
	AddressesByLookupTableAddress map[string][]string    `json:"addressesByLookupTableAddress"`
	BlockhashWithMetadata         *struct {
		Blockhash            []int   `json:"blockhash"`
		LastValidBlockHeight *uint64 `json:"lastValidBlockHeight"`
	} `json:"blockhashWithMetadata"`
}

// swapBuild is a parsed /build answer's transaction material.
type swapBuild struct {
	instructions         []solana.Instruction // in the order they are compiled
	tables               map[solana.PublicKey]solana.PublicKeySlice
	blockhash            solana.Hash
	lastValidBlockHeight uint64
}

// Version is the swap API version the client speaks (SwapAPIv1 or SwapAPIv2).
func (c *SwapClient) Version() int {
	if c.opts.Version == SwapAPIv2 {
		return SwapAPIv2
	}
	return SwapAPIv1
}

// build asks GET /swap/v2/build for r with r.Taker as the taker and checks
// the quote in the answer against r.
func (c *SwapClient) build(ctx context.Context, r QuoteRequest) (*Quote, error) {
	if r.Taker.IsZero() {
		return nil, fmt.Errorf("%w: build: no taker (the wallet that signs and pays)", ErrSwapAPI)
	}
	v := url.Values{}
	v.Set("inputMint", r.InputMint.String())
	v.Set("outputMint", r.OutputMint.String())
	v.Set("amount", strconv.FormatUint(r.Amount, 10))
	v.Set("slippageBps", strconv.FormatUint(uint64(r.SlippageBps), 10))
	v.Set("taker", r.Taker.String())
	body, err := c.do(ctx, "build", http.MethodGet, c.endpoint("/swap/v2/build")+"?"+v.Encode(), nil)
	if err != nil {
		return nil, err
	}
	q, err := parseQuote(body, true)
	if err != nil {
		return nil, fmt.Errorf("%w: build: malformed response: %v", ErrSwapAPI, err)
	}
	if err := q.matches(r); err != nil {
		return nil, fmt.Errorf("%w: build's quote does not match the request: %v", ErrSwapAPI, err)
	}
	if q.build, err = parseBuild(body, r.Taker); err != nil {
		return nil, fmt.Errorf("%w: build: %v", ErrSwapAPI, err)
	}
	return q, nil
}

// buildTransaction asks /build afresh for q's terms with user as the taker
// (a fresh blockhash each time, as /swap gives) and compiles the answer. The
// market moves between two calls, so the transaction comes with its own
// quote (SwapTx.Quote): the minimum its swap instruction carries, which the
// chain enforces, is that quote's, and it is what the Swapper judges and an
// approval's minimum is checked against.
func (c *SwapClient) buildTransaction(ctx context.Context, q *Quote, user solana.PublicKey) (*SwapTx, error) {
	fresh, err := c.build(ctx, QuoteRequest{InputMint: q.InputMint, OutputMint: q.OutputMint, Amount: q.InAmount, SlippageBps: q.SlippageBps, Taker: user})
	if err != nil {
		return nil, err
	}
	raw, err := fresh.build.compile(user)
	if err != nil {
		return nil, fmt.Errorf("%w: build: %v", ErrSwapAPI, err)
	}
	ft, err := DecodeTransaction(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: build: compiled transaction: %v", ErrSwapAPI, err)
	}
	return &SwapTx{Tx: ft, LastValidBlockHeight: fresh.build.lastValidBlockHeight, Quote: fresh}, nil
}

// parseBuild reads /build's transaction material. Only the taker may be asked
// to sign: an instruction that needs anyone else's signature could never
// land from the taker's signature alone, or would need a co-signer the
// console does not know.
func parseBuild(body []byte, taker solana.PublicKey) (*swapBuild, error) {
	var w buildWire
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("malformed response: %s", sanitizeExcerpt([]byte(err.Error()), 200))
	}
	if w.SwapInstruction == nil {
		return nil, errors.New("malformed response: no swapInstruction")
	}
	b := &swapBuild{tables: map[solana.PublicKey]solana.PublicKeySlice{}}
	add := func(field string, array bool, ws []buildInstructionWire) error {
		for i, iw := range ws {
			name := field
			if array {
				name = fmt.Sprintf("%s[%d]", field, i)
			}
			ix, err := iw.instruction(name, taker)
			if err != nil {
				return err
			}
			b.instructions = append(b.instructions, ix)
		}
		return nil
	}
	one := func(p *buildInstructionWire) []buildInstructionWire {
		if p == nil {
			return nil
		}
		return []buildInstructionWire{*p}
	}
	// Jupiter's published order: compute budget, setup, swap, cleanup; the
	// other and tip instructions after (the inspector and the simulation
	// judge what they do like any other instruction).
	for _, part := range []struct {
		field string
		array bool
		ixs   []buildInstructionWire
	}{
		{"computeBudgetInstructions", true, w.ComputeBudgetInstructions},
		{"setupInstructions", true, w.SetupInstructions},
		{"swapInstruction", false, one(w.SwapInstruction)},
		{"cleanupInstruction", false, one(w.CleanupInstruction)},
		{"otherInstructions", true, w.OtherInstructions},
		{"tipInstruction", false, one(w.TipInstruction)},
	} {
		if err := add(part.field, part.array, part.ixs); err != nil {
			return nil, err
		}
	}
	if len(b.instructions) > maxBuildInstructions {
		return nil, fmt.Errorf("%d instructions, over %d", len(b.instructions), maxBuildInstructions)
	}
	if len(w.AddressesByLookupTableAddress) > maxBuildTables {
		return nil, fmt.Errorf("addressesByLookupTableAddress names %d tables, over %d", len(w.AddressesByLookupTableAddress), maxBuildTables)
	}
	for k, addrs := range w.AddressesByLookupTableAddress {
		table, err := parsePubkey(k, "addressesByLookupTableAddress key")
		if err != nil {
			return nil, err
		}
		if len(addrs) > maxBuildTableLen {
			return nil, fmt.Errorf("addressesByLookupTableAddress[%s] has %d addresses, over a table's %d", table, len(addrs), maxBuildTableLen)
		}
		keys := make(solana.PublicKeySlice, 0, len(addrs))
		for i, a := range addrs {
			pk, err := parsePubkey(a, fmt.Sprintf("addressesByLookupTableAddress[%s][%d]", table, i))
			if err != nil {
				return nil, err
			}
			keys = append(keys, pk)
		}
		b.tables[table] = keys
	}
	bh := w.BlockhashWithMetadata
	if bh == nil || bh.LastValidBlockHeight == nil || *bh.LastValidBlockHeight == 0 {
		return nil, errors.New("malformed response: no blockhashWithMetadata.lastValidBlockHeight")
	}
	if len(bh.Blockhash) != 32 {
		return nil, fmt.Errorf("malformed response: blockhashWithMetadata.blockhash has %d bytes, want 32", len(bh.Blockhash))
	}
	for i, v := range bh.Blockhash {
		if v < 0 || v > 255 {
			return nil, fmt.Errorf("malformed response: blockhashWithMetadata.blockhash[%d] = %d is not a byte", i, v)
		}
		b.blockhash[i] = byte(v)
	}
	b.lastValidBlockHeight = *bh.LastValidBlockHeight
	return b, nil
}

func (iw buildInstructionWire) instruction(field string, taker solana.PublicKey) (solana.Instruction, error) {
	program, err := parsePubkey(iw.ProgramID, field+".programId")
	if err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(iw.Data)
	if err != nil {
		return nil, fmt.Errorf("%s.data is not base64", field)
	}
	metas := make(solana.AccountMetaSlice, 0, len(iw.Accounts))
	for j, a := range iw.Accounts {
		pk, err := parsePubkey(a.Pubkey, fmt.Sprintf("%s.accounts[%d].pubkey", field, j))
		if err != nil {
			return nil, err
		}
		if a.IsSigner && !pk.Equals(taker) {
			return nil, fmt.Errorf("%s.accounts[%d] asks %s to sign: only the taker (%s) signs a /build transaction", field, j, pk, taker)
		}
		metas = append(metas, solana.NewAccountMeta(pk, a.IsWritable, a.IsSigner))
	}
	return solana.NewInstruction(program, metas, data), nil
}

// compile makes the unsigned v0 transaction: the taker pays and is its only
// signer; accounts in the API's lookup tables are addressed through them.
func (b *swapBuild) compile(taker solana.PublicKey) ([]byte, error) {
	tx, err := solana.NewTransaction(b.instructions, b.blockhash, solana.TransactionPayer(taker), solana.TransactionAddressTables(b.tables))
	if err != nil {
		return nil, fmt.Errorf("compile: %v", err)
	}
	// A versioned message even when no table is used: v2's transactions
	// are v0 throughout.
	tx.Message.SetVersion(solana.MessageVersionV0)
	if n := tx.Message.Header.NumRequiredSignatures; n != 1 {
		return nil, fmt.Errorf("compile: %d signers, want the taker alone", n)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("compile: %v", err)
	}
	return raw, nil
}
