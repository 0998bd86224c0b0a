package authority_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority/reconcile"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// withDayCap puts a per-mint day cap of perDay on the paid API's asset.
func withDayCap(perDay string) func(*policy.Config, localnet.PaidAPI) {
	return func(c *policy.Config, api localnet.PaidAPI) {
		v, err := policy.ParseTokenCap(api.Mint + "=" + perDay)
		if err != nil {
			panic(err)
		}
		c.MaxTokenPerDay = []policy.TokenCap{v}
	}
}

// A server that keeps the partially signed payment, answers with a
// settlement signature it made up, and lands the payment itself after the
// console stopped waiting, with the console restarted in between: the next
// console finds the payment on chain by its exact message in the payer
// token account's history and settles it, so the books' day spend equals
// what left the wallet and a second payment of the same price is refused by
// the 1,500 per-day cap (0.0015 of a 6-decimal mint). A console that
// released at expiry on the server's word would count 0 and pay again.
func TestX402SettleLieSettledFromTheChainAcrossARestart(t *testing.T) {
	ctx := context.Background()
	// At the default pace the blockhash lives 60 s, long enough for the
	// restart and the server's landing, and the test ends its life itself.
	w, api := x402World(t, withDayCap("0.0015"))
	a := startAgent(t, w.socket)
	merchant := solana.MustPublicKeyFromBase58(api.Merchant)
	args := map[string]any{"url": api.URL + "/hostile/settlelie"}
	_, id := proposeX402(t, a, args)
	res := w.execute(t, a, "x402_fetch", id, args)
	if res.Status() != "submitted" || !strings.Contains(fmt.Sprint(res.Structured["reason"]), "not the facilitator's") {
		t.Fatalf("execute: %+v", res)
	}
	if s := w.authority.SpendSummary(); len(s.Tokens) != 1 || s.Tokens[0].Reserved != 1000 {
		t.Fatalf("after the made-up settlement: %+v", s.Tokens)
	}

	// The console stops with the payment in flight; then the server lands
	// it, and the chain passes the blockhash's last valid height.
	w.stop()
	landed, err := w.ledger.LandKept(ctx)
	if err != nil || len(landed) != 1 {
		t.Fatalf("the server's landing: %v %v", landed, err)
	}
	if err := w.ledger.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.ownerTokens(t, merchant, api.Mint); got != 1000 {
		t.Fatalf("merchant holds %d, want the 1000 the server landed", got)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 999_000 {
		t.Fatalf("wallet holds %d, want 999000", got)
	}

	// The next console: its books rebuilt from the store, reconciled with
	// the chain before it takes a write.
	spend, err := policy.NewSpend(w.store, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tt := spend.State().Tokens[api.Mint]; tt.DayReserved != 1000 {
		t.Fatalf("restored books: %+v", tt)
	}
	ex := executor.New(executor.NewClient(w.ledger.RPC(), executor.ClientOptions{}), w.key, executor.Options{})
	// The RPC failing says nothing: the reservation stays as it was.
	if err := w.ledger.FailNextCalls(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	if err := reconcile.Run(ctx, ex, spend, w.store, nil, nil); err == nil {
		t.Fatal("reconcile succeeded with every RPC call failing")
	}
	if err := w.ledger.FailNextCalls(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if r, err := w.store.GetReservation(id); err != nil || r.State != store.StateReserved && r.State != store.StateUnknown {
		t.Fatalf("after a failed reconcile: %+v %v", r, err)
	}
	if tt := spend.State().Tokens[api.Mint]; tt.DayReserved != 1000 {
		t.Fatalf("books after a failed reconcile: %+v", tt)
	}
	var lines []string
	if err := reconcile.Run(ctx, ex, spend, w.store, nil, func(s string) { lines = append(lines, s) }); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "landed") || strings.Contains(lines[0], "never landed") {
		t.Fatalf("reconcile said %q", lines)
	}
	if tt := spend.State().Tokens[api.Mint]; tt.DaySpent != 1000 || tt.DayReserved != 0 {
		t.Fatalf("books after reconcile: %+v; 1000 left the wallet", tt)
	}
	r, err := w.store.GetReservation(id)
	if err != nil || r.State != store.StateSettled || len(r.Tokens) != 1 || r.Tokens[0].Amount != 1000 {
		t.Fatalf("stored reservation %+v %v; want settled at 1000", r, err)
	}
	execs, err := w.store.Executions(id)
	if err != nil || len(execs) == 0 || execs[len(execs)-1].Signature != landed[0] || execs[len(execs)-1].Outcome != store.ExecExecuted || execs[len(execs)-1].Fee != 0 {
		t.Fatalf("execution rows %+v %v; want the last executed under the landed %s", execs, err, landed[0])
	}

	// The same again, a third time after another restart: the books still
	// say 1000, and a second payment would pass the day cap.
	spend, err = policy.NewSpend(w.store, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tt := spend.State().Tokens[api.Mint]; tt.DaySpent != 1000 || tt.DayReserved != 0 {
		t.Fatalf("books after a second restart: %+v", tt)
	}
	cfg := policy.DefaultConfig()
	withDayCap("0.0015")(&cfg, api)
	cfg.AllowedX402Origins = []string{api.URL}
	d, err := spend.Reserve("round-2", cfg, policy.Proposal{
		Tool: wire.ToolX402Fetch, Network: "localnet", FeePaidByOther: true,
		Counterparties: []policy.Counterparty{policy.X402Origin(api.URL), policy.X402PayTo(api.Merchant)}, Mints: []string{api.Mint},
		Tokens: []policy.TokenSpend{{Mint: api.Mint, Amount: 1000, Decimals: 6, DecimalsKnown: true}},
	})
	if err != nil || d.Allowed || d.Rule != policy.RuleTokenPerDay {
		t.Fatalf("a second payment under the 1500 day cap: %+v %v", d, err)
	}
}

// The same server with the console running: its follower finds the payment
// the server landed after the console's wait, by its message, and settles
// it; the proposal says it landed, not that it expired.
func TestX402SettleLieSettledByTheFollower(t *testing.T) {
	ctx := context.Background()
	w, api := x402World(t, withDayCap("0.0015"))
	a := startAgent(t, w.socket)
	args := map[string]any{"url": api.URL + "/hostile/settlelie"}
	_, id := proposeX402(t, a, args)
	if res := w.execute(t, a, "x402_fetch", id, args); res.Status() != "submitted" {
		t.Fatalf("execute: %+v", res)
	}
	landed, err := w.ledger.LandKept(ctx)
	if err != nil || len(landed) != 1 {
		t.Fatalf("the server's landing: %v %v", landed, err)
	}
	if err := w.ledger.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	st := a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	if st.Status() != "executed" || !strings.Contains(st.Text, "PAID and verified on chain") || !strings.Contains(st.Text, landed[0]) || st.Structured["fee_lamports"] != nil && fmt.Sprint(st.Structured["fee_lamports"]) != "0" {
		t.Fatalf("status: %+v", st)
	}
	if s := w.authority.SpendSummary(); len(s.Tokens) != 1 || s.Tokens[0].Spent != 1000 || s.Tokens[0].Reserved != 0 {
		t.Fatalf("books: %+v", s.Tokens)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 999_000 {
		t.Fatalf("wallet holds %d, want 999000", got)
	}
}

// A payment found on chain after a restart is settled at what the chain
// says moved and checked against what was approved: one that moved more is
// recorded and said as such, never settled at the approved figure. The
// signed bytes cannot move more than they say, so the approval is what the
// test lowers: the stored reservation is edited to 500 (as if the human had
// approved 500) before the next console reconciles the 1000 the server
// landed.
func TestX402FoundLateIsCheckedAgainstTheApprovedAmount(t *testing.T) {
	ctx := context.Background()
	w, api := x402World(t, withDayCap("0.0015"))
	a := startAgent(t, w.socket)
	args := map[string]any{"url": api.URL + "/hostile/settlelie"}
	_, id := proposeX402(t, a, args)
	if res := w.execute(t, a, "x402_fetch", id, args); res.Status() != "submitted" {
		t.Fatalf("execute: %+v", res)
	}
	w.stop()
	if landed, err := w.ledger.LandKept(ctx); err != nil || len(landed) != 1 {
		t.Fatalf("the server's landing: %v %v", landed, err)
	}
	if err := w.ledger.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := w.store.GetReservation(id)
	if err != nil || len(r.Tokens) != 1 || r.Tokens[0].Amount != 1000 {
		t.Fatalf("stored reservation %+v %v", r, err)
	}
	r.Tokens[0].Amount = 500
	if err := w.store.UpdateReservation(r); err != nil {
		t.Fatal(err)
	}
	spend, err := policy.NewSpend(w.store, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex := executor.New(executor.NewClient(w.ledger.RPC(), executor.ClientOptions{}), w.key, executor.Options{})
	var lines []string
	if err := reconcile.Run(ctx, ex, spend, w.store, nil, func(s string) { lines = append(lines, s) }); err != nil {
		t.Fatal(err)
	}
	said := strings.Join(lines, "\n")
	if !strings.Contains(said, "moved more than was approved: 1000 base units of "+api.Mint+" left the wallet, 500 more than the 500 approved") {
		t.Fatalf("reconcile said:\n%s", said)
	}
	if tt := spend.State().Tokens[api.Mint]; tt.DaySpent != 1000 || tt.DayReserved != 0 {
		t.Fatalf("books after reconcile: %+v; 1000 left the wallet", tt)
	}
	if got, _ := w.ownerTokens(t, w.wallet, api.Mint); got != 999_000 {
		t.Fatalf("wallet holds %d, want 999000", got)
	}
	execs, err := w.store.Executions(id)
	if err != nil || len(execs) == 0 || execs[len(execs)-1].Outcome != store.ExecLosses {
		t.Fatalf("execution rows %+v %v; want the last recorded as executed with unexpected losses", execs, err)
	}
}
