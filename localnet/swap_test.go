package localnet_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
)

const wsol = "So11111111111111111111111111111111111111112"

func getQuote(t *testing.T, l *localnet.Ledger, in, out string, amount uint64, bps int) (map[string]any, []byte) {
	t.Helper()
	v := url.Values{"inputMint": {in}, "outputMint": {out}, "amount": {strconv.FormatUint(amount, 10)}, "slippageBps": {strconv.Itoa(bps)}}
	resp, err := http.Get(l.SwapAPI() + "/swap/v1/quote?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("quote: HTTP %d %s", resp.StatusCode, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m, body
}

func postSwap(t *testing.T, l *localnet.Ledger, user solana.PublicKey, quote []byte) (int, []byte) {
	t.Helper()
	req := fmt.Sprintf(`{"userPublicKey":%q,"quoteResponse":%s,"wrapAndUnwrapSol":true,"dynamicComputeUnitLimit":true,"prioritizationFeeLamports":10000}`, user, quote)
	resp, err := http.Post(l.SwapAPI()+"/swap/v1/swap", "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

func swapTx(t *testing.T, l *localnet.Ledger, user solana.PublicKey, quote []byte) (*solana.Transaction, map[string]any) {
	t.Helper()
	status, body := postSwap(t, l, user, quote)
	if status != 200 {
		t.Fatalf("swap: HTTP %d %s", status, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	tx, err := solana.TransactionFromBase64(m["swapTransaction"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return tx, m
}

func amountOf(t *testing.T, v any) uint64 {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("amount %v is not a string", v)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tokenAmount(t *testing.T, c *rpc.Client, ta solana.PublicKey) uint64 {
	t.Helper()
	out, err := c.GetTokenAccountBalance(ctxT(t), ta, rpc.CommitmentConfirmed)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(out.Value.Amount, 10, 64)
	return n
}

func userATA(t *testing.T, owner, mint solana.PublicKey) solana.PublicKey {
	t.Helper()
	a, _, err := solana.FindAssociatedTokenAddress(owner, mint)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// signAndSend fills the user's slot, keeps the pool's signature and sends.
func signAndSend(t *testing.T, c *rpc.Client, tx *solana.Transaction, user solana.PrivateKey) solana.Signature {
	t.Helper()
	if _, err := tx.PartialSign(func(pk solana.PublicKey) *solana.PrivateKey {
		if pk.Equals(user.PublicKey()) {
			return &user
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := tx.VerifySignatures(); err != nil {
		t.Fatal(err)
	}
	sig, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if st := waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed); st.Err != nil {
		t.Fatalf("swap failed on chain: %v", st.Err)
	}
	return sig
}

func TestSwapQuoteAndSwapMoveRealBalances(t *testing.T) {
	l, c := start(t, localnet.Options{})
	demo := l.DemoMints()
	usdc := solana.MustPublicKeyFromBase58(demo.USDC.Mint)
	pool := solana.MustPublicKeyFromBase58(demo.USDC.Pool)
	poolTA := solana.MustPublicKeyFromBase58(demo.USDC.PoolTokenAccount)
	user := fundedWallet(t, l, 2*sol)
	const in = 50_000_000

	q, raw := getQuote(t, l, wsol, usdc.String(), in, 100)
	// Jupiter's field names and types.
	for _, k := range []string{"inputMint", "inAmount", "outputMint", "outAmount", "otherAmountThreshold", "swapMode", "slippageBps", "priceImpactPct", "routePlan", "contextSlot", "timeTaken"} {
		if _, ok := q[k]; !ok {
			t.Errorf("quote lacks %s", k)
		}
	}
	if q["swapMode"] != "ExactIn" || q["slippageBps"] != float64(100) || q["inAmount"] != "50000000" {
		t.Errorf("quote %v", q)
	}
	if _, ok := q["priceImpactPct"].(string); !ok {
		t.Errorf("priceImpactPct %v is not a string", q["priceImpactPct"])
	}
	step := q["routePlan"].([]any)[0].(map[string]any)
	si := step["swapInfo"].(map[string]any)
	for _, k := range []string{"ammKey", "label", "inputMint", "outputMint", "inAmount", "outAmount", "feeAmount", "feeMint"} {
		if _, ok := si[k]; !ok {
			t.Errorf("swapInfo lacks %s", k)
		}
	}
	if si["ammKey"] != pool.String() || step["percent"] != float64(100) {
		t.Errorf("route %v", step)
	}

	// Constant product with a 30 bps fee, against the reserves on the ledger.
	rentFloor, err := c.GetMinimumBalanceForRentExemption(ctxT(t), 0, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	x := new(big.Int).SetUint64(balance(t, c, pool) - rentFloor)
	y := new(big.Int).SetUint64(tokenAmount(t, c, poolTA))
	fee := (in*30 + 9999) / 10000
	net := big.NewInt(in - int64(fee))
	want := new(big.Int).Quo(new(big.Int).Mul(y, net), new(big.Int).Add(x, net))
	out := amountOf(t, q["outAmount"])
	if want.Uint64() != out || amountOf(t, q["otherAmountThreshold"]) != out*9900/10000 || amountOf(t, si["feeAmount"]) != uint64(fee) {
		t.Fatalf("outAmount %d threshold %v fee %v; constant product gives %s", out, q["otherAmountThreshold"], si["feeAmount"], want)
	}

	tx, resp := swapTx(t, l, user.PublicKey(), raw)
	if resp["lastValidBlockHeight"] == nil || resp["prioritizationFeeLamports"] == nil {
		t.Fatalf("swap response %v", resp)
	}
	m := tx.Message
	if !m.IsVersioned() || len(m.AddressTableLookups) != 1 || m.AddressTableLookups[0].AccountKey.String() != demo.LookupTable {
		t.Fatal("want a v0 transaction using the demo lookup table")
	}
	if !m.AccountKeys[0].Equals(user.PublicKey()) || tx.Signatures[0] != (solana.Signature{}) {
		t.Fatal("the user must be the fee payer, with an empty signature slot")
	}
	msgBytes, _ := m.MarshalBinary()
	if len(tx.Signatures) != 2 || !m.AccountKeys[1].Equals(pool) || !tx.Signatures[1].Verify(pool, msgBytes) {
		t.Fatal("the pool's signature must be present and valid")
	}
	if p, _ := m.Program(m.Instructions[0].ProgramIDIndex); !p.Equals(solana.ComputeBudget) {
		t.Fatalf("first instruction invokes %s, want the compute budget program", p)
	}

	before := balance(t, c, user.PublicKey())
	poolBefore := balance(t, c, pool)
	poolTokens := tokenAmount(t, c, poolTA)
	sig := signAndSend(t, c, tx, user)

	userTA := userATA(t, user.PublicKey(), usdc)
	if got := tokenAmount(t, c, userTA); got != out {
		t.Fatalf("user tokens %d, want %d", got, out)
	}
	zero := uint64(0)
	got, err := c.GetTransaction(ctxT(t), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &zero})
	if err != nil {
		t.Fatal(err)
	}
	rent, _ := c.GetMinimumBalanceForRentExemption(ctxT(t), 165, rpc.CommitmentConfirmed)
	if after := balance(t, c, user.PublicKey()); before-after != in+got.Meta.Fee+rent {
		t.Errorf("user SOL went down by %d, want %d + fee %d + rent %d", before-after, in, got.Meta.Fee, rent)
	}
	if balance(t, c, pool)-poolBefore != in || poolTokens-tokenAmount(t, c, poolTA) != out {
		t.Error("the pool's reserves did not move by the swap")
	}
	var fromMeta uint64
	for _, tb := range got.Meta.PostTokenBalances {
		if tb.Owner != nil && tb.Owner.Equals(user.PublicKey()) {
			fromMeta, _ = strconv.ParseUint(tb.UiTokenAmount.Amount, 10, 64)
		}
	}
	if fromMeta != out {
		t.Errorf("postTokenBalances show %d for the user, want %d", fromMeta, out)
	}
	if s := stats(t, l); s.SwapQuotes != 1 || s.SwapTransactions != 1 || s.TransactionsExecuted != 1 {
		t.Errorf("stats %+v", s)
	}

	// And back: tokens → SOL.
	q2, raw2 := getQuote(t, l, usdc.String(), wsol, out/2, 50)
	solOut := amountOf(t, q2["outAmount"])
	tx2, _ := swapTx(t, l, user.PublicKey(), raw2)
	before = balance(t, c, user.PublicKey())
	sig2 := signAndSend(t, c, tx2, user)
	got2, err := c.GetTransaction(ctxT(t), sig2, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if after := balance(t, c, user.PublicKey()); after-before != solOut-got2.Meta.Fee {
		t.Errorf("user SOL went up by %d, want %d - fee %d", after-before, solOut, got2.Meta.Fee)
	}
	if got := tokenAmount(t, c, userTA); got != out-out/2 {
		t.Errorf("user tokens %d, want %d", got, out-out/2)
	}
}

func TestSwapPoolMovesAndStaleQuoteRefused(t *testing.T) {
	l, _ := start(t, localnet.Options{})
	usdc := l.DemoMints().USDC.Mint
	user := solana.NewWallet().PublicKey()
	q1, raw := getQuote(t, l, wsol, usdc, 50_000_000, 100)
	st, err := l.MovePool(ctxT(t), localnet.PoolMove{Lamports: 100 * sol})
	if err != nil {
		t.Fatal(err)
	}
	if st.SOLReserve != 1100*sol || st.Pool != l.DemoMints().USDC.Pool {
		t.Fatalf("pool state %+v", st)
	}
	q2, _ := getQuote(t, l, wsol, usdc, 50_000_000, 100)
	if amountOf(t, q2["otherAmountThreshold"]) >= amountOf(t, q1["otherAmountThreshold"]) {
		t.Fatalf("quote after the move %v, before %v", q2["outAmount"], q1["outAmount"])
	}
	status, body := postSwap(t, l, user, raw)
	if status != 422 || !bytes.Contains(body, []byte("SLIPPAGE_TOLERANCE_EXCEEDED")) {
		t.Fatalf("stale quote: HTTP %d %s", status, body)
	}
	if _, err := l.MovePool(ctxT(t), localnet.PoolMove{}); err == nil {
		t.Fatal("a move of nothing was accepted")
	}
}

func TestSwapFaults(t *testing.T) {
	l, _ := start(t, localnet.Options{})
	demo := l.DemoMints()
	user := solana.NewWallet().PublicKey()
	_, raw := getQuote(t, l, wsol, demo.USDC.Mint, 50_000_000, 100)
	quoteURL := l.SwapAPI() + "/swap/v1/quote?inputMint=" + wsol + "&outputMint=" + demo.USDC.Mint + "&amount=1000000"
	arm := func(f localnet.SwapFault) {
		t.Helper()
		if err := l.SetSwapFault(ctxT(t), f); err != nil {
			t.Fatal(err)
		}
	}
	get := func() (*http.Response, error) {
		return (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Get(quoteURL)
	}

	arm(localnet.SwapFault{Mode: localnet.Swap500, Count: 2})
	for i := 0; i < 3; i++ {
		resp, err := get()
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: 500, false: 200}[i < 2]; resp.StatusCode != want {
			t.Fatalf("request %d: HTTP %d, want %d", i, resp.StatusCode, want)
		}
	}

	arm(localnet.SwapFault{Mode: localnet.SwapGarbage})
	resp, err := get()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || json.Valid(body) {
		t.Fatalf("garbage: HTTP %d %q", resp.StatusCode, body)
	}

	arm(localnet.SwapFault{Mode: localnet.SwapHuge})
	resp, err = get()
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n < 50<<20 {
		t.Fatalf("huge body was %d bytes", n)
	}

	arm(localnet.SwapFault{Mode: localnet.SwapDown})
	if _, err := get(); err == nil {
		t.Fatal("down: got an answer")
	}

	arm(localnet.SwapFault{Mode: localnet.SwapSlow, Delay: 300 * time.Millisecond})
	began := time.Now()
	if resp, err := get(); err != nil || resp.StatusCode != 200 {
		t.Fatalf("slow: %v", err)
	}
	if d := time.Since(began); d < 300*time.Millisecond {
		t.Fatalf("slow answered after %s", d)
	}

	// Tampering applies to /swap only; a quote in between does not use it up.
	tampered := func(mode string) *solana.Transaction {
		t.Helper()
		arm(localnet.SwapFault{Mode: mode})
		getQuote(t, l, wsol, demo.USDC.Mint, 1_000_000, 50)
		tx, _ := swapTx(t, l, user, raw)
		return tx
	}
	if tx := tampered(localnet.SwapTamperPayer); tx.Message.AccountKeys[0].Equals(user) {
		t.Error("tamper-payer: the user is still the fee payer")
	}
	tx := tampered(localnet.SwapTamperProgram)
	known := map[solana.PublicKey]bool{solana.SystemProgramID: true, solana.ComputeBudget: true, solana.TokenProgramID: true, solana.SPLAssociatedTokenAccountProgramID: true}
	unknown := 0
	for _, ix := range tx.Message.Instructions {
		if p, _ := tx.Message.Program(ix.ProgramIDIndex); !known[p] {
			unknown++
		}
	}
	if unknown != 1 {
		t.Errorf("tamper-program: %d unknown programs", unknown)
	}
	for _, mode := range []string{localnet.SwapTamperDestination, localnet.SwapTamperDestinationALT} {
		tx := tampered(mode)
		tx.Message.SetAddressTables(map[solana.PublicKey]solana.PublicKeySlice{})
		dest := systemTransferDestination(t, l, tx, user)
		if dest == demo.USDC.Pool || (mode == localnet.SwapTamperDestinationALT && dest != demo.Thief) {
			t.Errorf("%s: the user's SOL goes to %s", mode, dest)
		}
	}
	if s := stats(t, l); s.SwapFaults != 2+1+1+1+1+4 {
		t.Errorf("swap faults %d", s.SwapFaults)
	}
}

// systemTransferDestination finds where the user's SOL goes, resolving the
// lookup table from the ledger.
func systemTransferDestination(t *testing.T, l *localnet.Ledger, tx *solana.Transaction, user solana.PublicKey) string {
	t.Helper()
	c := rpc.New(l.RPC())
	keys := append(solana.PublicKeySlice{}, tx.Message.AccountKeys...)
	for _, lk := range tx.Message.AddressTableLookups {
		acct, err := c.GetAccountInfo(ctxT(t), lk.AccountKey)
		if err != nil {
			t.Fatal(err)
		}
		d := acct.Value.Data.GetBinary()
		entry := func(i uint8) solana.PublicKey { return solana.PublicKeyFromBytes(d[56+32*int(i) : 88+32*int(i)]) }
		for _, i := range lk.WritableIndexes {
			keys = append(keys, entry(i))
		}
		for _, i := range lk.ReadonlyIndexes {
			keys = append(keys, entry(i))
		}
	}
	for _, ix := range tx.Message.Instructions {
		if keys[ix.ProgramIDIndex].Equals(solana.SystemProgramID) && len(ix.Data) == 12 && binary.LittleEndian.Uint32(ix.Data) == 2 && keys[ix.Accounts[0]].Equals(user) {
			return keys[ix.Accounts[1]].String()
		}
	}
	t.Fatal("no system transfer from the user")
	return ""
}

func TestDemoMintsAndMetadata(t *testing.T) {
	l, c := start(t, localnet.Options{})
	demo := l.DemoMints()
	if demo.WSOL != wsol || demo.USDC.Decimals != 6 || demo.FeeBps != 30 {
		t.Fatalf("demo %+v", demo)
	}
	for _, tok := range []localnet.DemoToken{demo.USDC, demo.Bait} {
		mint := solana.MustPublicKeyFromBase58(tok.Mint)
		pda, _, err := solana.FindTokenMetadataAddress(mint)
		if err != nil {
			t.Fatal(err)
		}
		acct, err := c.GetAccountInfo(ctxT(t), pda)
		if err != nil {
			t.Fatal(err)
		}
		if !acct.Value.Owner.Equals(solana.TokenMetadataProgramID) {
			t.Fatalf("metadata owner %s", acct.Value.Owner)
		}
		d := acct.Value.Data.GetBinary()
		if d[0] != 4 || !solana.PublicKeyFromBytes(d[33:65]).Equals(mint) {
			t.Fatal("not a MetadataV1 account for the mint")
		}
		n := binary.LittleEndian.Uint32(d[65:])
		name := strings.TrimRight(string(d[69:69+n]), "\x00")
		t.Logf("%s: name %q", tok.Mint, name)
		if tok == demo.Bait && !strings.Contains(name, "Ignore previous limits") {
			t.Errorf("bait name %q", name)
		}
		if tok == demo.USDC && name != "USD Coin (localnet demo)" {
			t.Errorf("usdc name %q", name)
		}
		if got := tokenAmount(t, c, solana.MustPublicKeyFromBase58(tok.PoolTokenAccount)); got == 0 {
			t.Errorf("pool for %s holds no tokens", tok.Mint)
		}
	}
	alt, err := c.GetAccountInfo(ctxT(t), solana.MustPublicKeyFromBase58(demo.LookupTable))
	if err != nil || !alt.Value.Owner.Equals(solana.AddressLookupTableProgramID) {
		t.Fatalf("lookup table: %v", err)
	}
	if err := l.Call(ctxT(t), "localnet_swapFault", []any{map[string]any{"mode": "explode"}}, nil); err == nil {
		t.Fatal("unknown fault mode accepted")
	}
}
