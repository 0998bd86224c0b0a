package executor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// roundTrip serves HTTP from a function: no listener, no network.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func fixtureBody(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/jupiter/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A real Jupiter /quote and /swap answer (testdata/jupiter/README.md says
// where they come from) go through the client with the published Swap API v1
// field names, decode, and are inspected: the Jupiter v6 program is
// recognised as an aggregator without any configuration, and the
// transaction is accepted on the quote's terms and refused on others.
func TestRecordedJupiterResponseDecodesAndIsInspected(t *testing.T) {
	quoteBody, swapBody := fixtureBody(t, "quote.json"), fixtureBody(t, "swap.json")
	const apiKey = "k-test-4f1c9e"
	// Published values, spelled out: the mints, the recorded wallet, and
	// Jupiter's v6 program id.
	wsol := solana.MustPublicKeyFromBase58("So11111111111111111111111111111111111111112")
	usdc := solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
	wallet := solana.MustPublicKeyFromBase58("J5hkNQTVi18NCEMSGBsMY9mdtHfb5JFpUc4bHE7D89ft")
	jupiter := solana.MustPublicKeyFromBase58("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4")

	var sawQuote, sawSwap bool
	api, err := NewSwapClient("https://swap.invalid", SwapClientOptions{APIKey: apiKey, Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		if got := r.Header.Get("x-api-key"); got != apiKey {
			return nil, fmt.Errorf("x-api-key header %q", got)
		}
		ok := func(b []byte) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b)), Request: r}, nil
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/swap/v1/quote":
			q := r.URL.Query()
			want := map[string]string{"inputMint": wsol.String(), "outputMint": usdc.String(), "amount": "100", "slippageBps": "100", "swapMode": "ExactIn"}
			for k, v := range want {
				if q.Get(k) != v {
					return nil, fmt.Errorf("quote query %s=%q, want %q", k, q.Get(k), v)
				}
			}
			sawQuote = true
			return ok(quoteBody)
		case r.Method == http.MethodPost && r.URL.Path == "/swap/v1/swap":
			var body map[string]json.RawMessage
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				return nil, err
			}
			// SwapRequest's fields as jupiter-swap-api-client serialises them.
			for k, v := range map[string]string{"userPublicKey": `"` + wallet.String() + `"`, "wrapAndUnwrapSol": "true", "dynamicComputeUnitLimit": "true", "prioritizationFeeLamports": "0"} {
				if string(body[k]) != v {
					return nil, fmt.Errorf("swap body %s=%s, want %s", k, body[k], v)
				}
			}
			var sent, recorded any
			if json.Unmarshal(body["quoteResponse"], &sent) != nil || json.Unmarshal(quoteBody, &recorded) != nil || fmt.Sprint(sent) != fmt.Sprint(recorded) {
				return nil, errors.New("quoteResponse is not the quote as received")
			}
			sawSwap = true
			return ok(swapBody)
		}
		return nil, fmt.Errorf("unexpected %s %s", r.Method, r.URL)
	})})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := api.Quote(ctx, QuoteRequest{InputMint: wsol, OutputMint: usdc, Amount: 100, SlippageBps: 100})
	if err != nil {
		t.Fatalf("recorded quote: %v", err)
	}
	if q.OutAmount != 66 || q.OtherAmountThreshold != 66 || len(q.Route) != 1 || q.Route[0].Label != "Stabble Weighted Swap" {
		t.Fatalf("quote parsed as %+v", q)
	}
	stx, err := api.SwapTransaction(ctx, q, wallet)
	if err != nil {
		t.Fatalf("recorded swap: %v", err)
	}
	if !sawQuote || !sawSwap {
		t.Fatal("the client did not call both endpoints")
	}
	if stx.LastValidBlockHeight != 301043236 || stx.ComputeUnitLimit != 450353 || stx.PrioritizationFeeLamports != 55511 {
		t.Errorf("swap response parsed as %+v", stx)
	}
	if !stx.Tx.FeePayer().Equals(wallet) || !stx.Tx.IsVersioned() {
		t.Fatalf("transaction: payer %s, versioned %v", stx.Tx.FeePayer(), stx.Tx.IsVersioned())
	}

	// Its lookup table's contents were not recorded: distinct stand-ins.
	tables := LookupTables{}
	for _, k := range stx.Tx.LookupTables() {
		for i := 0; i < 32; i++ {
			h := sha256.Sum256([]byte(fmt.Sprintf("%s stand-in %d", k, i)))
			tables[k] = append(tables[k], solana.PublicKeyFromBytes(h[:]))
		}
	}
	rules := InspectRules{Wallet: wallet, InputMint: q.InputMint, OutputMint: q.OutputMint, InAmount: q.InAmount, Pools: q.Pools(), MaxPriorityFeeLamports: DefaultPriorityFeeCapLamports}
	in, err := Inspect(stx.Tx, tables, rules)
	if err != nil {
		t.Fatalf("the recorded Jupiter transaction was refused: %v", err)
	}
	var aggregator *InstructionSummary
	for i, s := range in.Instructions {
		if s.Program.Equals(jupiter) {
			aggregator = &in.Instructions[i]
		}
	}
	if aggregator == nil || aggregator.Name != "Jupiter v6 aggregator" || !strings.Contains(aggregator.Summary, "judged by the whole-wallet simulation") {
		t.Fatalf("Jupiter's instruction not recognised as the aggregator: %+v", in.Instructions)
	}
	// 123262 micro-lamports × 450353 units, rounded up; two token accounts
	// created (wrapped SOL, USDC); 100 lamports wrapped.
	if in.PriorityFee != 55512 || in.Fee != 5000+55512 || in.SOLOut != 100 || in.CreatesAccounts != 2 {
		t.Errorf("inspection: priority fee %d, fee %d, SOL out %d, creates %d", in.PriorityFee, in.Fee, in.SOLOut, in.CreatesAccounts)
	}

	// On other terms it is refused.
	smaller := rules
	smaller.InAmount = 99
	if _, err := Inspect(stx.Tx, tables, smaller); !errors.Is(err, ErrUnsafeTransaction) || !strings.Contains(err.Error(), "more than the swap's input of 99") {
		t.Errorf("inspected against an input of 99: %v", err)
	}
	tokenIn := rules
	tokenIn.InputMint, tokenIn.OutputMint = usdc, wsol
	if _, err := Inspect(stx.Tx, tables, tokenIn); !errors.Is(err, ErrUnsafeTransaction) {
		t.Errorf("inspected as a USDC→SOL swap: %v", err)
	}

	// The budget, on what this transaction does on mainnet (wrap 100
	// lamports in a new WSOL account, route, close it; open the USDC account
	// and receive 60): it fits. With the WSOL account left open it still
	// fits (the lamports stay the wallet's); sent elsewhere it does not.
	wsolTA, _ := AssociatedTokenAddress(wallet, wsol, solana.TokenProgramID)
	usdcTA, _ := AssociatedTokenAddress(wallet, usdc, solana.TokenProgramID)
	keys := []solana.PublicKey{wallet, wsolTA, usdcTA}
	const start = 1_000_000_000
	before := []*rpc.Account{systemAcct(start), nil, nil}
	after := []*rpc.Account{systemAcct(start - 100 - in.Fee - TokenAccountRent), nil, tokenAccount(usdc, wallet, 60, nil)}
	eff := MeasureWallet(wallet, keys, before, after)
	budget := SwapBudget{InputMint: wsol, InAmount: q.InAmount, Fee: in.Fee, Rent: eff.RentPaid}
	if err := budget.Check(eff); err != nil || eff.TokensIn[usdc] != 60 {
		t.Errorf("the honest outcome: %v (received %d)", err, eff.TokensIn[usdc])
	}
	after[0] = systemAcct(start - 200 - in.Fee - TokenAccountRent)
	if err := budget.Check(MeasureWallet(wallet, keys, before, after)); err == nil {
		t.Error("100 lamports more leaving the wallet fit the budget")
	}
}

// The API key never appears in an error, whatever fails.
func TestSwapAPIKeyNotInErrors(t *testing.T) {
	const apiKey = "k-secret-9d2e11"
	api, err := NewSwapClient("https://swap.invalid/prefix", SwapClientOptions{APIKey: apiKey, Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		return nil, errors.New("connection reset by peer")
	})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = api.Quote(context.Background(), QuoteRequest{InputMint: WrappedSOL, OutputMint: solana.TokenProgramID, Amount: 1, SlippageBps: 1})
	if err == nil || strings.Contains(err.Error(), apiKey) {
		t.Fatalf("error %v", err)
	}
}
