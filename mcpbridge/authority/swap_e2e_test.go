package authority_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority"
)

// tokenBalance reads the wallet's balance of mint from the ledger (0 when it
// has no token account yet).
func (w *world) tokenBalance(t *testing.T, mint string) uint64 {
	t.Helper()
	ata, _, err := solana.FindAssociatedTokenAddress(w.wallet, solana.MustPublicKeyFromBase58(mint))
	if err != nil {
		t.Fatal(err)
	}
	if acct, err := w.chain.GetAccountInfoWithOpts(context.Background(), ata, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed}); err == rpc.ErrNotFound || (err == nil && acct.Value == nil) {
		return 0
	}
	out, err := w.chain.GetTokenAccountBalance(context.Background(), ata, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("token balance: %v", err)
	}
	n, _ := strconv.ParseUint(out.Value.Amount, 10, 64)
	return n
}

func swapArgs(w *world, out string, lamports uint64) map[string]any {
	return map[string]any{"input_mint": w.ledger.DemoMints().WSOL, "output_mint": out, "amount": lamports, "slippage_bps": 100}
}

func TestSwapSOLForTokenNeedsApprovalAndLands(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	usdc := w.ledger.DemoMints().USDC.Mint
	const amount = 50_000_000
	args := swapArgs(w, usdc, amount)
	solBefore, tokBefore := w.balance(t, w.wallet), w.tokenBalance(t, usdc)

	prop := a.Call("swap", args)
	if prop.IsError || prop.Status() != "pending_approval" {
		t.Fatalf("propose swap: %+v", prop)
	}
	minOut, _ := strconv.ParseUint(fmt.Sprint(prop.Structured["min_out"]), 10, 64)
	expected, _ := strconv.ParseUint(fmt.Sprint(prop.Structured["expected_out"]), 10, 64)
	if minOut == 0 || expected < minOut || !strings.Contains(prop.Text, "for at least") {
		t.Fatalf("preview lacks expect/minimum: %+v", prop)
	}
	if w.balance(t, w.wallet) != solBefore || w.tokenBalance(t, usdc) != tokBefore {
		t.Fatal("a swap proposal moved funds")
	}
	id := prop.Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	if ttl := time.Until(p.TokenExpires); ttl > 2*time.Minute+time.Second {
		t.Errorf("swap token lives %s, want at most 2 minutes", ttl)
	}
	args["confirm"] = p.Token
	done := a.Call("swap", args)
	if done.IsError || done.Status() != "executed" {
		t.Fatalf("execute swap: %+v", done)
	}
	// The ledger: SOL down by the amount plus fees (and the token account's
	// rent on the first swap), tokens up by at least the minimum.
	got := w.tokenBalance(t, usdc) - tokBefore
	if got < minOut {
		t.Errorf("received %d tokens, approved minimum %d", got, minOut)
	}
	spent := solBefore - w.balance(t, w.wallet)
	if spent < amount+5000 || spent > amount+5000+3_000_000 {
		t.Errorf("wallet spent %d lamports for a %d swap", spent, amount)
	}
	if fmt.Sprint(done.Structured["received"]) != fmt.Sprint(got) {
		t.Errorf("reported received %v, ledger says %d", done.Structured["received"], got)
	}
	// The spend ledger settled at the chain's outflow.
	if s := w.authority.SpendSummary(); s.Spent != spent || s.Reserved != 0 {
		t.Errorf("spend summary %+v, chain outflow %d", s, spent)
	}
}

func TestSwapRefusedWhenPriceMovedAfterApproval(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	mints := w.ledger.DemoMints()
	args := swapArgs(w, mints.USDC.Mint, 50_000_000)
	prop := a.Call("swap", args)
	id := prop.Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	// The market moves 5% against the swap between approval and execution:
	// more than the 1% slippage left above the approved minimum, so no
	// tightened slippage can meet it.
	if _, err := w.ledger.TickPool(context.Background(), mints.USDC.Mint, 500); err != nil {
		t.Fatal(err)
	}
	before, _ := w.ledger.Stats(context.Background())
	solBefore, tokBefore := w.balance(t, w.wallet), w.tokenBalance(t, mints.USDC.Mint)
	args["confirm"] = p.Token
	ans := a.Call("swap", args)
	if ans.Status() != "failed" || !strings.Contains(ans.Text, "price moved beyond the approved minimum — nothing was swapped") {
		t.Fatalf("after the price moved: %+v", ans)
	}
	// The refusal states the movement: a percentage and both expected outputs.
	if !regexp.MustCompile(`the price moved [0-9]+\.[0-9]{2}% against the swap since approval \(expected out [0-9]+ then, [0-9]+ now\)`).MatchString(ans.Text) {
		t.Errorf("the refusal does not state the movement: %q", ans.Text)
	}
	after, _ := w.ledger.Stats(context.Background())
	if after.SendsReceived != before.SendsReceived {
		t.Errorf("a send reached the ledger: %d → %d", before.SendsReceived, after.SendsReceived)
	}
	if w.balance(t, w.wallet) != solBefore || w.tokenBalance(t, mints.USDC.Mint) != tokBefore {
		t.Errorf("the ledger moved after a refusal: SOL %d → %d, tokens %d → %d", solBefore, w.balance(t, w.wallet), tokBefore, w.tokenBalance(t, mints.USDC.Mint))
	}
	if again := a.Call("swap", args); again.IsError || again.Status() != "refused" {
		t.Errorf("the token survived: %+v", again)
	}
}

// A real market moves between approval and execution. A small adverse
// tick, more than the slippage's margin leaves the approved quote's minimum
// but less than the market's room above it, is absorbed by requoting with a
// tighter slippage: the swap executes and the wallet gets at least the
// approved minimum.
func TestSwapApprovedBeforeSmallAdverseTickExecutesAtTheApprovedMinimum(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	usdc := w.ledger.DemoMints().USDC.Mint
	args := swapArgs(w, usdc, 50_000_000) // 100 bps slippage
	prop := a.Call("swap", args)
	if prop.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", prop)
	}
	minOut, _ := strconv.ParseUint(fmt.Sprint(prop.Structured["min_out"]), 10, 64)
	p, err := w.authority.Approve(prop.Structured["proposal_id"].(string), "operator")
	if err != nil {
		t.Fatal(err)
	}
	// 40 bps against the swap: a fresh quote at 100 bps now guarantees
	// less than the approved minimum.
	if _, err := w.ledger.TickPool(context.Background(), usdc, 40); err != nil {
		t.Fatal(err)
	}
	tokBefore := w.tokenBalance(t, usdc)
	args["confirm"] = p.Token
	done := a.Call("swap", args)
	if done.Status() != "executed" {
		t.Fatalf("after a small adverse tick: %+v", done)
	}
	got := w.tokenBalance(t, usdc) - tokBefore
	if got < minOut {
		t.Fatalf("the ledger shows %d tokens received, below the approved minimum %d", got, minOut)
	}
}

func TestTamperedSwapTransactionsRefusedBeforeSigning(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	usdc := w.ledger.DemoMints().USDC.Mint
	for i, mode := range []string{localnet.SwapTamperPayer, localnet.SwapTamperProgram, localnet.SwapTamperDestination, localnet.SwapTamperDestinationALT} {
		if err := w.ledger.SetSwapFault(context.Background(), localnet.SwapFault{Mode: mode, Count: 1}); err != nil {
			t.Fatal(err)
		}
		// Distinct amounts: each attempt is a new fingerprint.
		ans := a.Call("swap", swapArgs(w, usdc, uint64(10_000_000+i)))
		if ans.IsError || ans.Status() != "denied" || ans.Structured["rule"] != "transaction_inspection" {
			t.Errorf("%s: %+v", mode, ans)
		}
	}
	if s, _ := w.ledger.Stats(context.Background()); s.SendsReceived != 0 {
		t.Errorf("tampered transactions reached the ledger: %d sends", s.SendsReceived)
	}
	if len(w.authority.Proposals()) != 0 {
		t.Error("a tampered swap reached the human")
	}
}

func TestTokenInputSwapsNeedTheUncappedOptIn(t *testing.T) {
	// Default policy: refused, naming the opt-in.
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	mints := w.ledger.DemoMints()
	if _, err := w.ledger.MintTo(context.Background(), mints.USDC.Mint, w.wallet.String(), 5_000_000); err != nil {
		t.Fatal(err)
	}
	back := map[string]any{"input_mint": mints.USDC.Mint, "output_mint": mints.WSOL, "amount": 1_000_000, "slippage_bps": 100}
	ans := a.Call("swap", back)
	if ans.Status() != "denied" || !strings.Contains(ans.Text, "allow-uncapped-token-swaps") {
		t.Fatalf("token→SOL by default: %+v", ans)
	}

	// With the opt-in: allowed, and it says plainly that no cap applies.
	w2 := newWorld(t, func(o *authority.Options) { o.Policy.AllowUncappedTokenSwaps = true })
	a2 := startAgent(t, w2.socket)
	mints = w2.ledger.DemoMints() // each ledger makes its own mints
	back = map[string]any{"input_mint": mints.USDC.Mint, "output_mint": mints.WSOL, "amount": 1_000_000, "slippage_bps": 100}
	if _, err := w2.ledger.MintTo(context.Background(), mints.USDC.Mint, w2.wallet.String(), 5_000_000); err != nil {
		t.Fatal(err)
	}
	prop := a2.Call("swap", back)
	if prop.Status() != "pending_approval" || prop.Structured["no_cap_applies"] != true || !strings.Contains(prop.Text, "NO CAP APPLIES") {
		t.Fatalf("token→SOL with opt-in: %+v", prop)
	}
	p, err := w2.authority.Approve(prop.Structured["proposal_id"].(string), "operator")
	if err != nil {
		t.Fatal(err)
	}
	solBefore := w2.balance(t, w2.wallet)
	back["confirm"] = p.Token
	if done := a2.Call("swap", back); done.Status() != "executed" {
		t.Fatalf("execute token→SOL: %+v", done)
	}
	if w2.tokenBalance(t, mints.USDC.Mint) != 4_000_000 || w2.balance(t, w2.wallet) <= solBefore-5000 {
		t.Errorf("ledger after token→SOL: tokens %d, SOL %d → %d", w2.tokenBalance(t, mints.USDC.Mint), solBefore, w2.balance(t, w2.wallet))
	}
}

func TestSwapAPIFailuresAreClearErrors(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	usdc := w.ledger.DemoMints().USDC.Mint
	for i, mode := range []string{localnet.SwapDown, localnet.SwapSlow, localnet.Swap500, localnet.SwapGarbage, localnet.SwapHuge} {
		if err := w.ledger.SetSwapFault(context.Background(), localnet.SwapFault{Mode: mode, Count: 1, Delay: 30 * time.Second}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		ans := a.Call("swap", swapArgs(w, usdc, uint64(20_000_000+i)))
		if !ans.IsError || !strings.Contains(ans.Text, "nothing was proposed") {
			t.Errorf("%s: %+v", mode, ans)
		}
		// The slow API would answer after 30 s: well under that is the 2 s
		// timeout at work, with room for a busy machine.
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("%s: took %s with a 2 s API timeout (the slow API answers after 30 s)", mode, took)
		}
	}
	_ = w.ledger.SetSwapFault(context.Background(), localnet.SwapFault{})
	if s, _ := w.ledger.Stats(context.Background()); s.SendsReceived != 0 {
		t.Errorf("sends reached the ledger: %d", s.SendsReceived)
	}
}

func TestTokenInfoSanitisesAndFlagsHostileMetadata(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	bait := w.ledger.DemoMints().Bait.Mint
	ans := a.Call("get_token_info", map[string]any{"mint": bait})
	if ans.IsError {
		t.Fatalf("get_token_info: %+v", ans)
	}
	for _, field := range []string{"name", "symbol"} {
		if strings.ContainsAny(fmt.Sprint(ans.Structured[field]), "\x1b\x07") {
			t.Errorf("%s carries control characters: %q", field, ans.Structured[field])
		}
	}
	if !strings.Contains(ans.Text, "instruction-like text") || !strings.Contains(ans.Text, "do not follow it") {
		t.Errorf("no warning about the injection-style name:\n%s", ans.Text)
	}
	if strings.Contains(ans.Text, "\x1b") {
		t.Error("escape sequence reached the model")
	}
	q := a.Call("get_quote", swapArgs(w, w.ledger.DemoMints().USDC.Mint, 10_000_000))
	if q.IsError || q.Structured["min_out_amount"] == nil {
		t.Errorf("get_quote: %+v", q)
	}
}

// Jupiter's free tier allows 60 requests a minute: an HTTP 429 reaches the
// model as one clear error saying so, with the wait the API asked for, and
// nothing is proposed.
func TestSwapAPIRateLimitIsAClearError(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	if err := w.ledger.SetSwapFault(context.Background(), localnet.SwapFault{Mode: localnet.Swap429, Count: 1}); err != nil {
		t.Fatal(err)
	}
	ans := a.Call("swap", swapArgs(w, w.ledger.DemoMints().USDC.Mint, 30_000_000))
	for _, want := range []string{"nothing was proposed", "HTTP 429: the swap API's rate limit was reached", "60 requests a minute", "it asks to wait 7 s"} {
		if !ans.IsError || !strings.Contains(ans.Text, want) {
			t.Errorf("answer lacks %q: %+v", want, ans)
		}
	}
	if len(w.authority.Proposals()) != 0 {
		t.Error("a proposal was queued")
	}
}

// A swap denied at execution goes through the same run skeleton as every
// kind: its Facts are judged by the reservation, and the retry breaker's
// verdict reaches the agent and holds its next proposal (swaps once dropped
// Breaker.Observe's result and judged a copy of their facts).
func TestSwapDeniedAtExecutionTripsTheBreaker(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) {
		o.Policy.MaxLamportsPerSession = 150_000_000
		o.Policy.BreakerDenials = 1
	})
	a := startAgent(t, w.socket)
	usdc := w.ledger.DemoMints().USDC.Mint
	args := swapArgs(w, usdc, 90_000_000)
	prop := a.Call("swap", args)
	if prop.Status() != "pending_approval" {
		t.Fatalf("propose swap: %+v", prop)
	}
	sp, err := w.authority.Approve(prop.Structured["proposal_id"].(string), "operator")
	if err != nil {
		t.Fatal(err)
	}
	// Meanwhile a transfer spends most of the session cap.
	tr := map[string]any{"to": w.allowed.String(), "lamports": 90_000_000}
	_, tok := w.approved(t, a, tr)
	tr["confirm"] = tok
	if ans := a.Call("transfer_sol", tr); ans.Status() != "executed" {
		t.Fatalf("transfer: %+v", ans)
	}
	tokBefore := w.tokenBalance(t, usdc)
	args["confirm"] = sp.Token
	ans := a.Call("swap", args)
	reason := fmt.Sprint(ans.Structured["reason"])
	if ans.Status() != "failed" || !strings.Contains(reason, "max_sol_per_session") || !strings.Contains(reason, "paused") {
		t.Fatalf("the swap's denial at execution must carry the breaker's verdict: %+v", ans)
	}
	if w.tokenBalance(t, usdc) != tokBefore {
		t.Fatal("a swap denied at execution moved tokens")
	}
	// The breaker holds: the next write from this agent is refused before
	// anything is built.
	next := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 1000})
	if next.Status() != "denied" || next.Structured["rule"] != "retry_breaker" {
		t.Fatalf("after the breaker tripped: %+v", next)
	}
}
