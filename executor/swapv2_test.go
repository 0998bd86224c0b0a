package executor_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
)

// The v2 shapes are spelled here as Jupiter's published API description
// gives them (GET /swap/v2/build; its answer's quote fields,
// computeBudgetInstructions, setupInstructions, swapInstruction,
// cleanupInstruction, otherInstructions, addressesByLookupTableAddress and
// blockhashWithMetadata {blockhash: [bytes], lastValidBlockHeight}), never
// built from the client's own types.

var (
	v2Taker    = fixedPub(21)
	v2Table    = fixedPub(22)
	v2InTable  = fixedPub(23) // an account the swap names that the table holds
	v2Program  = fixedPub(24) // the route's program
	v2OutATA   = fixedPub(25)
	v2Blockhas = func() (b [32]byte) {
		for i := range b {
			b[i] = byte(200 + i)
		}
		return b
	}()
)

// buildJSON is a /build answer for testIn → testOut of 50000000 with
// slippageBps 100, minimum out threshold, swap instruction accounts extra
// after the taker and the pool.
func buildJSON(threshold string, extraSwapAccounts string, blockhash string) string {
	if blockhash == "" {
		var nums []string
		for _, b := range v2Blockhas {
			nums = append(nums, fmt.Sprint(b))
		}
		blockhash = "[" + strings.Join(nums, ",") + "]"
	}
	cuLimit := base64.StdEncoding.EncodeToString([]byte{2, 0x40, 0x0d, 0x03, 0x00}) // SetComputeUnitLimit 200000
	return `{
  "inputMint": "` + testIn.String() + `",
  "outputMint": "` + testOut.String() + `",
  "inAmount": "50000000",
  "outAmount": "7477127",
  "otherAmountThreshold": "` + threshold + `",
  "swapMode": "ExactIn",
  "slippageBps": 100,
  "routePlan": [{"swapInfo": {"ammKey": "` + testAMM.String() + `", "label": "Test", "inputMint": "` + testIn.String() + `", "outputMint": "` + testOut.String() + `", "inAmount": "50000000", "outAmount": "7477127"}, "percent": 100, "bps": 10000, "usdValue": 7.4}],
  "computeBudgetInstructions": [{"programId": "ComputeBudget111111111111111111111111111111", "accounts": [], "data": "` + cuLimit + `"}],
  "setupInstructions": [{"programId": "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL", "accounts": [
    {"pubkey": "` + v2Taker.String() + `", "isWritable": true, "isSigner": true},
    {"pubkey": "` + v2OutATA.String() + `", "isWritable": true, "isSigner": false},
    {"pubkey": "` + v2Taker.String() + `", "isWritable": false, "isSigner": false},
    {"pubkey": "` + testOut.String() + `", "isWritable": false, "isSigner": false},
    {"pubkey": "11111111111111111111111111111111", "isWritable": false, "isSigner": false},
    {"pubkey": "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "isWritable": false, "isSigner": false}], "data": "AQ=="}],
  "swapInstruction": {"programId": "` + v2Program.String() + `", "accounts": [
    {"pubkey": "` + v2Taker.String() + `", "isWritable": true, "isSigner": true},
    {"pubkey": "` + testAMM.String() + `", "isWritable": true, "isSigner": false},
    {"pubkey": "` + v2InTable.String() + `", "isWritable": true, "isSigner": false}` + extraSwapAccounts + `], "data": "AQID"},
  "cleanupInstruction": {"programId": "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "accounts": [
    {"pubkey": "` + v2OutATA.String() + `", "isWritable": true, "isSigner": false}], "data": "CQ=="},
  "otherInstructions": [],
  "addressesByLookupTableAddress": {"` + v2Table.String() + `": ["` + v2InTable.String() + `"]},
  "blockhashWithMetadata": {"blockhash": ` + blockhash + `, "lastValidBlockHeight": 12345}
}`
}

// v2Server serves answers in turn to GET /swap/v2/build and records the
// requests.
type v2Server struct {
	mu      sync.Mutex
	answers []string
	reqs    []*http.Request
}

func newV2Client(t *testing.T, answers ...string) (*executor.SwapClient, *v2Server) {
	t.Helper()
	s := &v2Server{answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.reqs = append(s.reqs, r)
		if r.Method != http.MethodGet || r.URL.Path != "/swap/v2/build" || len(s.answers) == 0 {
			http.Error(w, `{"error":"not here"}`, http.StatusNotFound)
			return
		}
		a := s.answers[0]
		if len(s.answers) > 1 {
			s.answers = s.answers[1:]
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, a)
	}))
	t.Cleanup(srv.Close)
	c, err := executor.NewSwapClient(srv.URL, executor.SwapClientOptions{Version: 2, APIKey: "k-v2"})
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func v2Request() executor.QuoteRequest {
	r := testQuoteRequest()
	r.Taker = v2Taker
	return r
}

func TestV2BuildRequestQuoteAndCompiledTransaction(t *testing.T) {
	c, srv := newV2Client(t, buildJSON("7402355", "", ""))
	if c.Version() != 2 {
		t.Fatalf("version %d", c.Version())
	}
	q, err := c.Quote(context.Background(), v2Request())
	if err != nil {
		t.Fatal(err)
	}
	r := srv.reqs[0]
	want := map[string]string{"inputMint": testIn.String(), "outputMint": testOut.String(), "amount": "50000000", "slippageBps": "100", "taker": v2Taker.String()}
	for k, v := range want {
		if got := r.URL.Query().Get(k); got != v {
			t.Errorf("query %s = %q, want %q", k, got, v)
		}
	}
	if r.Method != "GET" || r.URL.Path != "/swap/v2/build" || r.Header.Get("x-api-key") != "k-v2" {
		t.Errorf("request %s %s, x-api-key %q", r.Method, r.URL.Path, r.Header.Get("x-api-key"))
	}
	if q.InAmount != 50_000_000 || q.OutAmount != 7_477_127 || q.OtherAmountThreshold != 7_402_355 || len(q.Route) != 1 || !q.Route[0].AMMKey.Equals(testAMM) {
		t.Fatalf("quote %+v", q)
	}

	// The market moved between the quote and the transaction's build: the
	// transaction comes with its own build's quote, whose minimum its swap
	// instruction carries (and an approval's minimum is checked against).
	srv.mu.Lock()
	srv.answers = []string{strings.ReplaceAll(buildJSON("7326000", "", ""), `"7477127"`, `"7400000"`)}
	srv.mu.Unlock()
	stx, err := c.SwapTransaction(context.Background(), q, v2Taker)
	if err != nil {
		t.Fatal(err)
	}
	if stx.Quote == nil || stx.Quote.OtherAmountThreshold != 7_326_000 || stx.Quote.OutAmount != 7_400_000 {
		t.Errorf("the transaction's own quote: %+v", stx.Quote)
	}
	if len(srv.reqs) != 2 || srv.reqs[1].URL.Query().Get("taker") != v2Taker.String() {
		t.Fatalf("the transaction was not built from a fresh /build: %d requests", len(srv.reqs))
	}
	tx := stx.Tx
	if !tx.IsVersioned() || !tx.FeePayer().Equals(v2Taker) || tx.NumSignatures() != 1 || stx.LastValidBlockHeight != 12345 {
		t.Fatalf("versioned %v, payer %s, %d signatures, last valid %d", tx.IsVersioned(), tx.FeePayer(), tx.NumSignatures(), stx.LastValidBlockHeight)
	}
	if tx.Blockhash() != solana.Hash(v2Blockhas) {
		t.Errorf("blockhash %s, want the bytes of blockhashWithMetadata.blockhash", tx.Blockhash())
	}
	if tables := tx.LookupTables(); len(tables) != 1 || !tables[0].Equals(v2Table) {
		t.Errorf("lookup tables %v, want [%s]", tables, v2Table)
	}
	msg := tx.Tx.Message
	for _, k := range msg.AccountKeys {
		if k.Equals(v2InTable) {
			t.Errorf("%s is a static key; the table holds it", k)
		}
	}
	var programs []string
	for _, ix := range msg.Instructions {
		programs = append(programs, msg.AccountKeys[ix.ProgramIDIndex].String())
	}
	wantOrder := []string{"ComputeBudget111111111111111111111111111111", "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL", v2Program.String(), "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"}
	if strings.Join(programs, " ") != strings.Join(wantOrder, " ") {
		t.Errorf("instruction programs %v, want %v", programs, wantOrder)
	}
}

func TestV2BuildRefusals(t *testing.T) {
	thief := fixedPub(30)
	for _, tc := range []struct {
		name    string
		quote   string // the first /build (the quote)
		rebuild string // the second (the transaction); "" = same as quote
		want    string
	}{
		{"another signer", buildJSON("7402355", `, {"pubkey": "`+thief.String()+`", "isWritable": false, "isSigner": true}`, ""), "",
			"swapInstruction.accounts[3] asks " + thief.String() + " to sign: only the taker"},
		{"short blockhash", buildJSON("7402355", "", "[1,2,3]"), "", "blockhashWithMetadata.blockhash has 3 bytes"},
		{"blockhash as text", buildJSON("7402355", "", `"11111111111111111111111111111111"`), "", "malformed response"},
		{"no swap instruction", strings.Replace(buildJSON("7402355", "", ""), `"swapInstruction"`, `"swapInstructionX"`, 1), "", "no swapInstruction"},
		{"threshold looser than the slippage", buildJSON("7000000", "", ""), "", "below what 100 bps of slippage allows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answers := []string{tc.quote}
			if tc.rebuild != "" {
				answers = append(answers, tc.rebuild)
			}
			c, _ := newV2Client(t, answers...)
			q, err := c.Quote(context.Background(), v2Request())
			if err == nil {
				_, err = c.SwapTransaction(context.Background(), q, v2Taker)
			}
			if !errors.Is(err, executor.ErrSwapAPI) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	c, _ := newV2Client(t, buildJSON("7402355", "", ""))
	if _, err := c.Quote(context.Background(), testQuoteRequest()); err == nil || !strings.Contains(err.Error(), "no taker") {
		t.Errorf("a build without a taker: %v", err)
	}
	if _, err := executor.NewSwapClient("http://127.0.0.1:1", executor.SwapClientOptions{Version: 3}); err == nil || !strings.Contains(err.Error(), "accepted are 1") {
		t.Errorf("version 3: %v", err)
	}
}
