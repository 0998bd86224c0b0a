package authority_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/policy"
)

// Through the real bridge: a read without payment; a 402 proposed with
// its terms; approved, the paid body arrives and the ledger shows exactly
// 0.001 moved wallet → merchant, fee paid by the facilitator.
func TestX402FetchPaysThroughTheBridge(t *testing.T) {
	w, api := x402World(t, withTokenCaps("0.01", "0.1"))
	a := startAgent(t, w.socket)
	merchant := solana.MustPublicKeyFromBase58(api.Merchant)
	facilitator := solana.MustPublicKeyFromBase58(api.Facilitator)

	free := a.Call("x402_fetch", map[string]any{"url": api.URL + "/free"})
	if free.Status() != "response" || !strings.Contains(free.Text, "no payment needed") || free.Structured["http_status"] != float64(200) {
		t.Fatalf("free read: %+v", free)
	}

	args := map[string]any{"url": api.URL + "/paid", "max_amount": 1000}
	ans, id := proposeX402(t, a, args)
	for _, want := range []string{"pay 0.001 ", "(1000 base units, 6 decimals)", "Origin: " + api.URL, "Pay to: " + api.Merchant,
		"Facilitator: " + api.Facilitator, "A paid answer (localnet)", "per session 0.1", "SOL spend: none"} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("preview lacks %q:\n%s", want, ans.Text)
		}
	}
	if got, _ := w.ownerTokens(t, merchant, api.Mint); got != 0 {
		t.Fatal("a proposal moved funds")
	}
	walletSOL, facSOL := w.balance(t, w.wallet), w.balance(t, facilitator)

	res := w.execute(t, a, "x402_fetch", id, args)
	if res.Status() != "executed" || !strings.Contains(res.Text, "the paid answer") {
		t.Fatalf("execute: %+v", res)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 999_000 {
		t.Fatalf("wallet holds %d, want 999000", got)
	}
	if got, _ := w.ownerTokens(t, merchant, api.Mint); got != 1000 {
		t.Fatalf("merchant holds %d, want 1000", got)
	}
	if got := w.balance(t, w.wallet); got != walletSOL {
		t.Fatalf("wallet SOL %d → %d", walletSOL, got)
	}
	if got := w.balance(t, facilitator); got >= facSOL {
		t.Fatalf("facilitator SOL %d → %d: it paid no fee", facSOL, got)
	}
	st := a.Call("get_spend_status", map[string]any{})
	if !strings.Contains(st.Text, "Token "+api.Mint+": 1000 spent, 0 reserved") {
		t.Fatalf("spend status:\n%s", st.Text)
	}

	// The signed bytes went to the origin only: the wire transaction the
	// console sent (the facilitator's slot empty, the wallet's signature in
	// it), rebuilt from the ledger, appears nowhere the agent reads.
	sig, _ := res.Structured["signature"].(string)
	v0 := uint64(0) // the payment is a v0 transaction
	landed, err := w.chain.GetTransaction(context.Background(), solana.MustSignatureFromBase58(sig), &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v0})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := landed.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	dec.Signatures[0] = solana.Signature{}
	wire, err := dec.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	sent := base64.StdEncoding.EncodeToString(wire)
	for _, r := range []testkit.Answer{ans, res, a.Call("proposal_status", map[string]any{"proposal_id": id})} {
		raw, _ := json.Marshal(r.Structured)
		if strings.Contains(r.Text+string(raw), sent[:60]) || strings.Contains(r.Text+string(raw), dec.Signatures[1].String()) {
			t.Fatalf("the signed payment reached the agent: %s %s", r.Text, raw)
		}
	}
}

// Refusals before any proposal: an origin not allowed (no request made),
// max_amount below the price, an uncapped asset; the hostile offers
// refused by the payment's shape and effects. The ledger never moves.
func TestX402FetchRefusals(t *testing.T) {
	w, api := x402World(t, withTokenCaps("0.01", ""))
	a := startAgent(t, w.socket)
	before := testkit.Sends(t, w.ledger)
	for _, c := range []struct {
		args       map[string]any
		rule, want string
	}{
		{map[string]any{"url": "http://127.0.0.1:1/paid"}, policy.RuleX402Origin, "--allow-x402-origin http://127.0.0.1:1"},
		{map[string]any{"url": api.URL + "/paid", "max_amount": 999}, "max_amount", "more than your max_amount of 999"},
		{map[string]any{"url": api.URL + "/hostile/feepayer?wallet=" + w.wallet.String()}, "x402_payment", "as fee payer"},
		{map[string]any{"url": api.URL + "/hostile/wsol"}, "x402_payment", "wrapped SOL"},
	} {
		ans := a.Call("x402_fetch", c.args)
		if ans.Status() != "denied" || ans.Structured["rule"] != c.rule || !strings.Contains(ans.Text, c.want) {
			t.Errorf("%v: %+v", c.args, ans)
		}
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 1_000_000 || testkit.Sends(t, w.ledger) != before {
		t.Fatalf("refusals moved funds: wallet %d, %d sends", got, testkit.Sends(t, w.ledger)-before)
	}
	if p := w.authority.Proposals(); len(p) != 0 {
		t.Fatalf("refusals queued %d proposals", len(p))
	}
}

// The hostile server that advertises 0.001 and asks more on the retry:
// refused at execution with the reason, nothing signed, ledger unchanged.
func TestX402FetchOverpriceOnRetryRefused(t *testing.T) {
	w, api := x402World(t, withTokenCaps("0.01", ""))
	a := startAgent(t, w.socket)
	args := map[string]any{"url": api.URL + "/hostile/overprice"}
	ans, id := proposeX402(t, a, args)
	if !strings.Contains(ans.Text, "pay 0.001 ") {
		t.Fatalf("propose: %+v", ans)
	}
	res := w.execute(t, a, "x402_fetch", id, args)
	if res.Status() != "failed" || !strings.Contains(res.Text, "more than the 0.001") || !strings.Contains(res.Text, "nothing was signed or sent") {
		t.Fatalf("execute: %+v", res)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 1_000_000 {
		t.Fatalf("wallet holds %d", got)
	}
	w.noTokenSpend(t)
}

// A facilitator that claims success and never submits: the reservation is
// held until the blockhash expires, then released; the spend shows it.
func TestX402FetchNeverSubmittedReleasedAtExpiry(t *testing.T) {
	// The blockhash lives 60 s at the default pace unless the test expires
	// it, so the reservation is seen held before the expiry the test causes.
	w, api := x402World(t, withTokenCaps("0.01", "0.1"))
	a := startAgent(t, w.socket)
	args := map[string]any{"url": api.URL + "/nosubmit"}
	_, id := proposeX402(t, a, args)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan testkit.Answer, 1)
	go func() { done <- a.Call("x402_fetch", map[string]any{"url": args["url"], "confirm": p.Token}) }()
	// The payment was handed over (the console follows the facilitator's
	// signature) and is reserved while its blockhash lives.
	testkit.Eventually(t, 30*time.Second, "the payment handed over", func() bool {
		q, _ := w.authority.Proposal(id)
		return q.Signature != ""
	}, func() string { q, _ := w.authority.Proposal(id); return string(q.Status) + " " + q.Reason })
	if s := w.authority.SpendSummary(); len(s.Tokens) != 1 || s.Tokens[0].Reserved != 1000 {
		t.Fatalf("while its blockhash lives: %+v", s.Tokens)
	}
	if err := w.ledger.ExpireBlockhash(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.Status() == "submitted" {
		// The answer came before the follower's verdict: wait for it.
		testkit.Eventually(t, 30*time.Second, "the follower's verdict", func() bool {
			q, _ := w.authority.Proposal(id)
			return q.Status.Final()
		}, func() string { q, _ := w.authority.Proposal(id); return string(q.Status) + " " + q.Reason })
		res = a.Call("proposal_status", map[string]any{"proposal_id": id})
	}
	if res.Status() != "failed" || !strings.Contains(res.Text, "never landed") || !strings.Contains(res.Text, "nothing was spent") {
		t.Fatalf("execute: %+v", res)
	}
	st := a.Call("get_spend_status", map[string]any{})
	if !strings.Contains(st.Text, "Token "+api.Mint+": 0 spent, 0 reserved") {
		t.Fatalf("spend status after release:\n%s", st.Text)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 1_000_000 {
		t.Fatalf("wallet holds %d", got)
	}
}

// A grant made on an x402 proposal: later calls to the same origin, payTo
// and asset pay without a key, each through proposal_status as always; the
// per-mint session cap (0.01 = ten calls) stops the call that would pass
// it, though the grant has calls left; the ledger shows ten payments.
func TestX402FetchGrantCoversLaterCallsUntilTheSessionCap(t *testing.T) {
	t.Parallel()
	w, api := x402World(t, withTokenCaps("0.001", "0.01"))
	a := startAgent(t, w.socket)
	merchant := solana.MustPublicKeyFromBase58(api.Merchant)
	args := map[string]any{"url": api.URL + "/paid", "max_amount": 1000}

	_, id := proposeX402(t, a, args)
	// The grant's ceiling is in SOL; an x402 payment spends none, so its
	// ceiling is 0 and its bound the count, the per-call amount and the
	// per-mint caps.
	_, g, err := w.authority.ApproveWithGrant(id, "operator", approval.GrantTerms{Count: 10, Ceiling: 0, For: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if g.MaxAmount != 1000 || !strings.Contains(g.Counterparty, api.URL) || !strings.Contains(g.Counterparty, api.Merchant) || !strings.Contains(g.Counterparty, api.Mint) {
		t.Fatalf("grant %+v", g)
	}
	pay := func(id string) {
		t.Helper()
		st := a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 10})
		token, _ := st.Structured["confirm"].(string)
		if st.Status() != "approved" || token == "" {
			t.Fatalf("status of %s: %+v", id, st)
		}
		confirmed := map[string]any{"confirm": token}
		for k, v := range args {
			confirmed[k] = v
		}
		if res := a.Call("x402_fetch", confirmed); res.Status() != "executed" || !strings.Contains(res.Text, "the paid answer") {
			t.Fatalf("execute %s: %+v", id, res)
		}
	}
	pay(id)
	for i := 0; i < 9; i++ {
		ans := a.Call("x402_fetch", args)
		next, _ := ans.Structured["proposal_id"].(string)
		p, _ := w.authority.Proposal(next)
		if p == nil || p.Status != approval.StatusApproved || p.DecidedBy != fmt.Sprintf("grant #%d", g.N) {
			t.Fatalf("call %d not covered by the grant: %+v %+v", i+2, ans, p)
		}
		pay(next)
	}
	if got, _ := w.ownerTokens(t, merchant, api.Mint); got != 10_000 {
		t.Fatalf("merchant holds %d after ten calls, want 10000", got)
	}
	// The eleventh would pass the per-mint session cap: denied by policy,
	// though the grant has a call left.
	over := a.Call("x402_fetch", args)
	if over.Status() != "denied" || over.Structured["rule"] != policy.RuleTokenPerSession {
		t.Fatalf("over the session cap: %+v", over)
	}
	if left := w.authority.Grants(); len(left) != 1 || left[0].Left() != 1 {
		t.Fatalf("grants after: %+v", left)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 990_000 {
		t.Fatalf("wallet holds %d, want 990000", got)
	}
}

// A server that takes the payment and answers without a settlement: the
// console cannot learn the transaction's id, so it looks for the payment by
// its exact message in the payer token account's history. It stays
// reserved while its blockhash lives, and is released once the chain is
// past it and the history shows it never landed.
func TestX402FetchNoSettlementReleasedOnlyByTheChain(t *testing.T) {
	w, api := x402World(t, withTokenCaps("0.01", "0.1"))
	a := startAgent(t, w.socket)
	args := map[string]any{"url": api.URL + "/hostile/nosettle"}
	_, id := proposeX402(t, a, args)
	res := w.execute(t, a, "x402_fetch", id, args)
	if res.Status() != "submitted" || !strings.Contains(fmt.Sprint(res.Structured["reason"]), "no settlement signature") {
		t.Fatalf("execute: %+v", res)
	}
	// The follower asks the chain three times while the blockhash lives
	// and keeps the payment reserved.
	seen := authority.FollowRounds(w.authority)
	testkit.Eventually(t, 30*time.Second, "three follower rounds", func() bool {
		return authority.FollowRounds(w.authority) >= seen+3
	}, func() string { return fmt.Sprintf("%d rounds", authority.FollowRounds(w.authority)-seen) })
	if s := w.authority.SpendSummary(); len(s.Tokens) != 1 || s.Tokens[0].Reserved != 1000 || s.Tokens[0].Spent != 0 {
		t.Fatalf("while the blockhash lives: %+v", s.Tokens)
	}
	if err := w.ledger.ExpireBlockhash(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	if st.Status() != "failed" || !strings.Contains(st.Text, "never landed") || !strings.Contains(st.Text, "history holds no transaction with its message") {
		t.Fatalf("status after expiry: %+v", st)
	}
	if s := w.authority.SpendSummary(); len(s.Tokens) != 1 || s.Tokens[0].Reserved != 0 || s.Tokens[0].Spent != 0 {
		t.Fatalf("after expiry: %+v", s.Tokens)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 1_000_000 {
		t.Fatalf("wallet holds %d", got)
	}
}

// The asset needs a per-mint cap (or the uncapped opt-in): without one the
// payment is denied before a proposal, naming the setting.
func TestX402FetchUncappedAssetDenied(t *testing.T) {
	w, api := x402World(t, nil)
	a := startAgent(t, w.socket)
	ans := a.Call("x402_fetch", map[string]any{"url": api.URL + "/paid"})
	if ans.Status() != "denied" || ans.Structured["rule"] != policy.RuleUncappedTransfer || !strings.Contains(ans.Text, "--max-token-per-tx "+api.Mint+"=AMOUNT") {
		t.Fatalf("uncapped asset: %+v", ans)
	}
	if len(w.authority.Proposals()) != 0 {
		t.Fatal("a proposal was queued")
	}
}

// A seller's memo is written on chain byte for byte (the packages'
// facilitator checks it, so the payment landing proves it), while people
// and the model read it sanitised and flagged.
func TestX402FetchSellerMemo(t *testing.T) {
	w, api := x402World(t, withTokenCaps("0.01", "0.1"))
	a := startAgent(t, w.socket)
	args := map[string]any{"url": api.URL + "/memo"}
	ans, id := proposeX402(t, a, args)
	memo, _ := ans.Structured["memo"].(string)
	if strings.ContainsRune(ans.Text, 0x1b) || strings.ContainsRune(memo, 0x1b) || !strings.Contains(memo, "order-7") {
		t.Fatalf("memo shown as %q:\n%s", memo, ans.Text)
	}
	if !strings.Contains(ans.Text, "instruction-like") {
		t.Errorf("the memo's instruction-like text is not flagged:\n%s", ans.Text)
	}
	res := w.execute(t, a, "x402_fetch", id, args)
	if res.Status() != "executed" {
		t.Fatalf("execute: %+v", res)
	}
	if got, _ := w.ownerTokens(t, solana.MustPublicKeyFromBase58(api.Merchant), api.Mint); got != 1000 {
		t.Fatalf("merchant holds %d", got)
	}
}

// x402 v1 through the kind, on a ledger impersonating devnet (v1 names only
// public clusters): the offer from the body, X-PAYMENT on the retry, the
// settlement from X-PAYMENT-RESPONSE, and the ledger shows the payment.
func TestX402FetchV1OnDevnet(t *testing.T) {
	w, api := x402WorldOn(t, localnet.Options{Network: "devnet"}, withTokenCaps("0.01", "0.1"))
	a := startAgent(t, w.socket)
	args := map[string]any{"url": api.URL + "/v1/paid"}
	ans, id := proposeX402(t, a, args)
	if ans.Structured["x402_version"] != float64(1) || ans.Structured["x402_network"] != "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" {
		t.Fatalf("propose: %s %v", ans.Text, ans.Structured)
	}
	res := w.execute(t, a, "x402_fetch", id, args)
	if res.Status() != "executed" || !strings.Contains(res.Text, "the paid answer") {
		t.Fatalf("execute: %+v", res)
	}
	if pr, _ := res.Structured["payment_response"].(map[string]any); pr == nil || pr["success"] != true {
		t.Errorf("no v1 settlement in the result: %v", res.Structured)
	}
	if got, _ := w.ownerTokens(t, solana.MustPublicKeyFromBase58(api.Merchant), api.Mint); got != 1000 {
		t.Fatalf("merchant holds %d, want 1000", got)
	}
}

// The hostile server that offers payTo = the merchant, and on the retry
// after approval names another payee (whose token account exists, so the
// payment could be built): refused at execution, nothing signed, the
// ledger unchanged. The human approved a payee, not a price alone.
func TestX402FetchPayToSwitchedOnRetryRefused(t *testing.T) {
	w, api := x402World(t, withTokenCaps("0.01", ""))
	a := startAgent(t, w.socket)
	thief, _ := executor.NewRandomKeypair()
	if _, err := w.ledger.MintTo(context.Background(), api.Mint, thief.PublicKey().String(), 1); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"url": api.URL + "/hostile/switchpayto?to=" + thief.PublicKey().String()}
	ans, id := proposeX402(t, a, args)
	if !strings.Contains(ans.Text, "Pay to: "+api.Merchant) {
		t.Fatalf("propose: %+v", ans)
	}
	before := testkit.Sends(t, w.ledger)
	res := w.execute(t, a, "x402_fetch", id, args)
	if res.Status() != "failed" || !strings.Contains(res.Text, "changed since approval") || !strings.Contains(res.Text, thief.PublicKey().String()) {
		t.Fatalf("execute: %+v", res)
	}
	if got, _ := w.ownerTokens(t, thief.PublicKey(), api.Mint); got != 1 {
		t.Fatalf("the swapped payee holds %d, want 1", got)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 1_000_000 || testkit.Sends(t, w.ledger) != before {
		t.Fatalf("wallet holds %d, %d sends", got, testkit.Sends(t, w.ledger)-before)
	}
	w.noTokenSpend(t)
}

// landedVersion is the transaction version the ledger reports for sig
// ("legacy" or "0").
func (w *world) landedVersion(t *testing.T, sig string) string {
	t.Helper()
	var out struct {
		Version any `json:"version"`
	}
	zero := 0
	err := w.chain.RPCCallForInto(context.Background(), &out, "getTransaction", []any{sig, map[string]any{
		"encoding": "base64", "commitment": "confirmed", "maxSupportedTransactionVersion": zero}})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(out.Version)
}

func (w *world) x402Refused(t *testing.T) (version, extensions uint64) {
	t.Helper()
	s, err := w.ledger.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s.X402VersionRefused, s.X402ExtensionsDropped
}

// The paid API built with the official @x402/express and @x402/svm,
// whose facilitator takes only versioned (v0) transactions (its offers say
// extra.transactionVersions [0], and it refuses any other version): the
// payment is a v0 transaction, carries the offer's recentBlockhash once the
// cluster confirmed it valid, settles, and the body comes back. A server
// that asks for legacy gets legacy. At mainnet's pace (400 ms slots), the
// ledger's default: the facilitator settles at a real cluster's speed.
func TestX402FetchPaysAV0OnlyFacilitator(t *testing.T) {
	w, api := x402World(t, withTokenCaps("0.01", "0.1"))
	a := startAgent(t, w.socket)
	merchant := solana.MustPublicKeyFromBase58(api.Merchant)
	for i, tc := range []struct {
		path, version, blockhash string
	}{
		{"/paid", "0", "the server's extra.recentBlockhash, checked valid on the cluster"},
		{"/paid/legacy", "legacy", "the server's extra.recentBlockhash, checked valid on the cluster"},
		// A hash no cluster knows is not used: the console's own is.
		{"/paid/unknownhash", "0", "the console's own, fetched fresh"},
	} {
		args := map[string]any{"url": api.URL + tc.path}
		ans, id := proposeX402(t, a, args)
		want := map[string]string{"0": "v0", "legacy": "legacy"}[tc.version]
		if line := "Transaction: " + want + " message; blockhash: " + tc.blockhash; !strings.Contains(ans.Text, line) {
			t.Errorf("%s: preview lacks %q:\n%s", tc.path, line, ans.Text)
		}
		res := w.execute(t, a, "x402_fetch", id, args)
		if res.Status() != "executed" || !strings.Contains(res.Text, "the paid answer") {
			t.Fatalf("%s: execute: %+v", tc.path, res)
		}
		if got := w.landedVersion(t, res.Str("signature")); got != tc.version {
			t.Fatalf("%s: landed as version %s; want %s", tc.path, got, tc.version)
		}
		if got, _ := w.ownerTokens(t, merchant, api.Mint); got != uint64(1000*(i+1)) {
			t.Fatalf("%s: merchant holds %d, want %d", tc.path, got, 1000*(i+1))
		}
	}
	if v, _ := w.x402Refused(t); v != 0 {
		t.Fatalf("the facilitators refused %d payments for their version", v)
	}
}

// The offer's `extensions` are echoed in the payment as received; the
// paid API refuses a payment that drops them.
func TestX402FetchEchoesExtensions(t *testing.T) {
	w, api := x402World(t, withTokenCaps("0.01", "0.1"))
	a := startAgent(t, w.socket)
	args := map[string]any{"url": api.URL + "/paid/extensions"}
	_, id := proposeX402(t, a, args)
	res := w.execute(t, a, "x402_fetch", id, args)
	if res.Status() != "executed" || !strings.Contains(res.Text, "the paid answer") {
		t.Fatalf("execute: %+v", res)
	}
	if _, dropped := w.x402Refused(t); dropped != 0 {
		t.Fatalf("%d payments dropped the extensions", dropped)
	}
	if got, _ := w.ownerTokens(t, solana.MustPublicKeyFromBase58(api.Merchant), api.Mint); got != 1000 {
		t.Fatalf("merchant holds %d, want 1000", got)
	}
}
