package executor_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/executor/x402"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// newX402Fixture is newFixture on a ledger started with lopts that also
// serves the paid API: the wallet holds 1 SOL and tokens base units of the
// API's asset.
func newX402Fixture(t *testing.T, lopts localnet.Options, tokens uint64) (*ledgerFixture, localnet.PaidAPI) {
	t.Helper()
	ctx := context.Background()
	lopts.PaidAPI = true
	l, chain := testkit.StartLedger(t, lopts)
	key, err := executor.NewRandomKeypair()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Fund(ctx, key.PublicKey().String(), solana.LAMPORTS_PER_SOL); err != nil {
		t.Fatalf("fund: %v", err)
	}
	client := executor.NewClient(l.RPC(), executor.ClientOptions{RetryBase: 20 * time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	f := &ledgerFixture{ledger: l, chain: chain, key: key, ex: executor.New(client, key, executor.Options{})}
	api := l.PaidAPI()
	f.mintTo(t, api.Mint, key.PublicKey(), tokens)
	return f, api
}

// x402Slots are the slots the x402 tests run on: the default (mainnet's)
// pace, so a blockhash lives 60 s and a machine under load cannot age the
// payment out before the facilitator checks it.
var x402Slots = localnet.Options{}

// x402Offer fetches path from the localnet paid API and parses its 402.
func x402Offer(t *testing.T, f *ledgerFixture, path string) (*x402.PaymentRequired, x402.Requirement, error) {
	t.Helper()
	api := f.ledger.PaidAPI()
	resp, err := x402.Do(context.Background(), x402.NewHTTPClient(10*time.Second), x402.Request{URL: api.URL + path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusPaymentRequired {
		t.Fatalf("GET %s: status %d, want 402; body %q", path, resp.Status, resp.Body)
	}
	pr, err := x402.ParsePaymentRequired(resp.Header.Get(x402.HeaderPaymentRequired), resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := x402.Select(pr, executor.CAIP2(f.ledger.GenesisHash()))
	return pr, req, err
}

func x402Payment(t *testing.T, r x402.Requirement) executor.X402Payment {
	t.Helper()
	return executor.X402Payment{
		Mint: solana.MustPublicKeyFromBase58(r.Asset), PayTo: solana.MustPublicKeyFromBase58(r.PayTo),
		FeePayer: solana.MustPublicKeyFromBase58(r.FeePayer), Amount: r.Amount, Memo: r.Memo,
	}
}

// retryPaid signs the prepared payment p as token owner and retries url
// with it in the header pr's version names; it returns the wallet's own
// signature, the header's name and the server's answer.
func retryPaid(t *testing.T, f *ledgerFixture, pr *x402.PaymentRequired, req x402.Requirement, p *executor.PreparedX402, url string) (solana.Signature, string, *x402.Response) {
	t.Helper()
	b64, own, err := f.ex.SignX402(p)
	if err != nil {
		t.Fatal(err)
	}
	name, value, err := x402.PaymentHeader(pr, req, b64)
	if err != nil {
		t.Fatalf("header %q: %v", name, err)
	}
	resp, err := x402.Do(context.Background(), x402.NewHTTPClient(60*time.Second), x402.Request{URL: url}, map[string]string{name: value})
	if err != nil {
		t.Fatal(err)
	}
	return own, name, resp
}

// The whole exact payment against the official packages' resource server
// and facilitator: the 402 read, the payment built and measured, signed as
// token owner only, retried, co-signed and submitted by the facilitator;
// the ledger shows exactly 0.001 moved, the fee paid by the facilitator.
func TestX402PaysPaidAPIOnLedger(t *testing.T) {
	ctx := context.Background()
	f, api := newX402Fixture(t, x402Slots, 1_000_000)
	wallet := f.key.PublicKey()

	pr, req, err := x402Offer(t, f, "/paid")
	if err != nil {
		t.Fatal(err)
	}
	// The published form of a CAIP-2 Solana id: "solana:" and 32 characters of genesis.
	if want := "solana:" + f.ledger.GenesisHash()[:32]; req.Network != want || req.Scheme != "exact" || req.Amount != 1000 || req.Asset != api.Mint || req.PayTo != api.Merchant || req.FeePayer != api.Facilitator {
		t.Fatalf("offer %+v, want exact 1000 of %s to %s on %s paid by %s", req, api.Mint, api.Merchant, want, api.Facilitator)
	}
	if pr.Version != 2 || !strings.Contains(pr.ResourceURL, "/paid") {
		t.Fatalf("PaymentRequired v%d resource %q", pr.Version, pr.ResourceURL)
	}

	p, err := f.ex.PrepareX402Payment(ctx, x402Payment(t, req))
	if err != nil {
		t.Fatal(err)
	}
	eff := p.Effects
	mint := solana.MustPublicKeyFromBase58(api.Mint)
	if eff.SOLOut() != 0 || eff.Fee() != 0 || eff.TokensOut[mint] != 1000 || len(eff.TokensOut) != 1 || !eff.FeePayer.Equals(solana.MustPublicKeyFromBase58(api.Facilitator)) {
		t.Fatalf("measured effects: %s (fee payer %s)", eff.Summary(), eff.FeePayer)
	}
	if len(p.Memo) != 32 {
		t.Fatalf("memo %q: want a 16-byte hex nonce when the server gives none", p.Memo)
	}

	walletSOL := f.balance(t, wallet)
	facSOL := f.balance(t, solana.MustPublicKeyFromBase58(api.Facilitator))
	merchantBefore, _ := testkit.OwnerTokens(t, f.chain, solana.MustPublicKeyFromBase58(api.Merchant), api.Mint)

	own, name, resp := retryPaid(t, f, pr, req, p, api.URL+"/paid")
	if own.IsZero() || !p.Tx.Signatures[0].IsZero() {
		t.Fatalf("signed: own %s, fee payer slot %s: want only the wallet's signature", own, p.Tx.Signatures[0])
	}
	if name != "PAYMENT-SIGNATURE" {
		t.Fatalf("header %q", name)
	}
	if resp.Status != 200 || !strings.Contains(string(resp.Body), "the paid answer") {
		t.Fatalf("paid retry: %d %q (PAYMENT-REQUIRED %q)", resp.Status, resp.Body, resp.Header.Get("PAYMENT-REQUIRED"))
	}
	st, err := x402.ParseSettlement(resp.Header.Get("PAYMENT-RESPONSE"))
	if err != nil || !st.Success {
		t.Fatalf("settlement %+v: %v", st, err)
	}
	sig := solana.MustSignatureFromBase58(st.Transaction)

	// The ledger: exactly 1000 base units moved; the wallet paid no SOL.
	if got, _ := testkit.OwnerTokens(t, f.chain, wallet, api.Mint); got != 1_000_000-1000 {
		t.Fatalf("wallet holds %d, want %d", got, 1_000_000-1000)
	}
	if got, _ := testkit.OwnerTokens(t, f.chain, solana.MustPublicKeyFromBase58(api.Merchant), api.Mint); got != merchantBefore+1000 {
		t.Fatalf("merchant holds %d, want %d", got, merchantBefore+1000)
	}
	if got := f.balance(t, wallet); got != walletSOL {
		t.Fatalf("wallet SOL %d → %d: the facilitator should pay the fee", walletSOL, got)
	}
	if got := f.balance(t, solana.MustPublicKeyFromBase58(api.Facilitator)); got >= facSOL {
		t.Fatalf("facilitator SOL %d → %d: it paid no fee", facSOL, got)
	}
	l, err := f.ex.LookupX402(ctx, p, sig)
	if err != nil || !l.Found || l.TokensOut != 1000 || l.Failed {
		t.Fatalf("lookup: %+v %v", l, err)
	}
}

func TestX402HostileOffersRefusedNothingSigned(t *testing.T) {
	ctx := context.Background()
	f, api := newX402Fixture(t, x402Slots, 1_000_000)
	wallet := f.key.PublicKey()
	f.mintTo(t, "So11111111111111111111111111111111111111112", wallet, 50_000_000)
	sends := f.stats(t).SendsReceived
	sol := f.balance(t, wallet)

	cases := []struct {
		path, want string
		extra      func(executor.X402Payment) []solana.Instruction
	}{
		{path: "/hostile/feepayer?wallet=" + wallet.String(), want: "as fee payer"},
		{path: "/hostile/wsol", want: "wrapped SOL"},
		{path: "/paid", want: "lamports of SOL", extra: func(executor.X402Payment) []solana.Instruction {
			return []solana.Instruction{system.NewTransferInstruction(5_000_000, wallet, freshAddress(t)).Build()}
		}},
		{path: "/paid", want: "instruction 4 (program Memo) is not part of the exact scheme", extra: func(executor.X402Payment) []solana.Instruction {
			return []solana.Instruction{solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(wallet).SIGNER()}, []byte("x"))}
		}},
	}
	for _, c := range cases {
		_, req, err := x402Offer(t, f, c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		pay := x402Payment(t, req)
		if c.extra != nil {
			_, err = f.ex.PrepareX402WithExtra(ctx, pay, c.extra(pay)...)
		} else {
			_, err = f.ex.PrepareX402Payment(ctx, pay)
		}
		if !errors.Is(err, executor.ErrX402Refused) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v, want a refusal naming %q", c.path, err, c.want)
		}
	}
	if got := f.stats(t).SendsReceived; got != sends {
		t.Fatalf("%d transactions sent during refusals", got-sends)
	}
	if got, _ := testkit.OwnerTokens(t, f.chain, wallet, api.Mint); got != 1_000_000 {
		t.Fatalf("wallet tokens %d after refusals", got)
	}
	if got := f.balance(t, wallet); got != sol {
		t.Fatalf("wallet SOL %d → %d after refusals", sol, got)
	}
}

// A facilitator that says it settled and never submits: the signature it
// reports is never found, and once the blockhash has expired it never can be.
func TestX402NeverSubmittedIsNeverFound(t *testing.T) {
	ctx := context.Background()
	f, api := newX402Fixture(t, x402Slots, 1_000_000)
	wallet := f.key.PublicKey()
	pr, req, err := x402Offer(t, f, "/nosubmit")
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.ex.PrepareX402Payment(ctx, x402Payment(t, req))
	if err != nil {
		t.Fatal(err)
	}
	_, _, resp := retryPaid(t, f, pr, req, p, api.URL+"/nosubmit")
	if resp.Status != 200 {
		t.Fatalf("retry: %+v", resp)
	}
	st, err := x402.ParseSettlement(resp.Header.Get("PAYMENT-RESPONSE"))
	if err != nil || !st.Success {
		t.Fatalf("the lying facilitator should claim success: %+v %v", st, err)
	}
	if err := f.ledger.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := f.ex.BlockHeight(ctx)
	if err != nil || h <= p.LastValidBlockHeight {
		t.Fatalf("block height %d, last valid %d: %v", h, p.LastValidBlockHeight, err)
	}
	l, err := f.ex.LookupX402(ctx, p, solana.MustSignatureFromBase58(st.Transaction))
	if err != nil || l.Found {
		t.Fatalf("lookup after expiry: %+v %v", l, err)
	}
	if got, _ := testkit.OwnerTokens(t, f.chain, wallet, api.Mint); got != 1_000_000 {
		t.Fatalf("wallet tokens %d: nothing should have moved", got)
	}
}

// x402 v1 (PaymentRequired in the body, X-PAYMENT on the retry) against the
// packages' v1 facilitator, which knows only the public networks' names:
// the ledger impersonates devnet, which solgate identifies as devnet (a test
// network, never mainnet).
func TestX402V1PaysOnDevnetImpersonation(t *testing.T) {
	ctx := context.Background()
	f, api := newX402Fixture(t, localnet.Options{Network: "devnet"}, 5000)
	l, chain, key := f.ledger, f.chain, f.key
	if n, genesis, err := f.ex.Client().DetectNetwork(ctx); err != nil || n != executor.Devnet || genesis != "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG" || n.Guarded() {
		t.Fatalf("network %s (%s): %v", n, genesis, err)
	}
	if api.V1Network != "solana-devnet" {
		t.Fatalf("v1 network %q", api.V1Network)
	}
	resp, err := x402.Do(ctx, x402.NewHTTPClient(60*time.Second), x402.Request{URL: api.URL + "/v1/paid"}, nil)
	if err != nil || resp.Status != 402 || resp.Header.Get("PAYMENT-REQUIRED") != "" {
		t.Fatalf("v1 402: %v %+v", err, resp)
	}
	pr, err := x402.ParsePaymentRequired("", resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := x402.Select(pr, executor.CAIP2(l.GenesisHash()))
	if err != nil || pr.Version != 1 || req.Network != "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" || req.Amount != 1000 {
		t.Fatalf("v1 offer %+v: %v", req, err)
	}
	p, err := f.ex.PrepareX402Payment(ctx, x402Payment(t, req))
	if err != nil {
		t.Fatal(err)
	}
	_, name, paid := retryPaid(t, f, pr, req, p, api.URL+"/v1/paid")
	if name != "X-PAYMENT" || paid.Status != 200 {
		t.Fatalf("v1 retry %s: %d %s", name, paid.Status, paid.Body)
	}
	st, err := x402.ParseSettlement(paid.Header.Get("X-PAYMENT-RESPONSE"))
	if err != nil || !st.Success {
		t.Fatalf("v1 settlement %+v %v", st, err)
	}
	if got, _ := testkit.OwnerTokens(t, chain, key.PublicKey(), api.Mint); got != 4000 {
		t.Fatalf("wallet holds %d, want 4000", got)
	}
	if got, _ := testkit.OwnerTokens(t, chain, solana.MustPublicKeyFromBase58(api.Merchant), api.Mint); got != 1000 {
		t.Fatalf("merchant holds %d, want 1000", got)
	}
}
