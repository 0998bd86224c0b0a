package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// The x402 settle-lie server through the real binaries, three rounds with
// the console stopped and started again between them, under a per-day cap of
// 1,500 base units (0.0015 of the 6-decimal mint; the API asks 1,000 a
// call). The server keeps each partially signed payment, answers with a
// settlement signature it made up, and lands the payment itself once the
// console is gone; the chain then passes the blockhash's last valid height.
// A console that released the reservation at expiry on the server's word
// would count 0 and pay again each round (3,000 under a 1,500 cap); this one
// finds the payment by its exact message in the payer account's history, so
// the merchant holds at most 1,500 and, after each restart, the books' day
// spend (read from the state database) equals what left the wallet (read
// from the ledger).
func TestX402SettleLieAcrossConsoleRestarts(t *testing.T) {
	ctx := context.Background()
	// At the default pace the blockhash lives 60 s unless the test expires it.
	w := newConsoleWorld(t, localnet.Options{PaidAPI: true}, solana.LAMPORTS_PER_SOL)
	api := w.l.PaidAPI()
	const start = 1_000_000
	w.mintToWallet(t, api.Mint, start)
	merchant := solana.MustPublicKeyFromBase58(api.Merchant)
	console, socket, errLog := w.consoleCommand(t, "console", "--allow-x402-origin", api.URL,
		"--max-token-per-tx", api.Mint+"=0.001", "--max-token-per-day", api.Mint+"=0.0015")
	// Three consoles in one pane; between them the shell waits for Enter,
	// so the server can land what it kept while no console runs.
	pane := openConsole(t, 160, 50, console+"; echo STOPPED-1; read _; "+console+"; echo STOPPED-2; read _; "+console+"; echo STOPPED-3; read _", errLog)
	tokens := func(owner solana.PublicKey) uint64 { t.Helper(); return w.tokens(t, owner, api.Mint) }
	solBefore := w.balance(t, w.wallet)

	// books reads the day spend of the mint from the state database, as the
	// next console rebuilds it, while no console runs.
	books := func(when string) (spent, reserved uint64) {
		t.Helper()
		st, err := store.OpenExisting(w.statePath("console"))
		if err != nil {
			t.Fatalf("%s: open the state: %v", when, err)
		}
		defer st.Close()
		spend, err := policy.NewSpend(st, nil)
		if err != nil {
			t.Fatalf("%s: the books: %v", when, err)
		}
		tt := spend.State().Tokens[api.Mint]
		return tt.DaySpent, tt.DayReserved
	}
	stop := func(n int) {
		t.Helper()
		pane.Keys(t, "q")
		waitUntil(t, 30*time.Second, fmt.Sprintf("console %d to stop", n), func() bool {
			return strings.Contains(pane.Normal()+pane.Screen(), fmt.Sprintf("STOPPED-%d", n))
		}, pane)
	}
	restart := func() {
		t.Helper()
		pane.Keys(t, "Enter")
		pane.WaitFor(t, 30*time.Second, "QUEUE", "console open")
	}
	// checkBooks: the day spend a restarted console left is what left the
	// wallet.
	checkBooks := func(when string) {
		t.Helper()
		spent, reserved := books(when)
		left := start - tokens(w.wallet)
		if spent != left || reserved != 0 {
			t.Fatalf("%s: the books say %d spent today, %d reserved; %d left the wallet", when, spent, reserved, left)
		}
		if m := tokens(merchant); m > 1500 || m != left {
			t.Fatalf("%s: the merchant holds %d (the wallet lost %d), more than the 1500 day cap or not what left", when, m, left)
		}
		if sol := w.balance(t, w.wallet); sol != solBefore {
			t.Fatalf("%s: the wallet's SOL moved %d → %d: the facilitator pays the fee", when, solBefore, sol)
		}
	}

	args := map[string]any{"url": api.URL + "/hostile/settlelie"}
	// round pays through console n when the day cap leaves room, and
	// otherwise must be refused by it, nothing signed.
	round := func(n int, spent uint64, a *testkit.Agent) {
		t.Helper()
		ans := a.Call("x402_fetch", args)
		if spent+1000 > 1500 {
			if ans.Status() != "denied" || ans.Structured["rule"] != "max_token_per_day" {
				t.Fatalf("round %d, %d spent today: %s %v; want refused by the day cap", n, spent, ans.Text, ans.Structured)
			}
			return
		}
		id := pendingID(t, ans, fmt.Sprintf("round %d", n))
		pane.WaitFor(t, 30*time.Second, id, "a approve")
		waitGone(t, pane, 30*time.Second, "a waits: just selected")
		pane.Keys(t, "a")
		done := a.Call("x402_fetch", map[string]any{"url": args["url"], "confirm": approvedToken(t, a, id, fmt.Sprintf("round %d", n))})
		if done.Status() != "submitted" || !strings.Contains(fmt.Sprint(done.Structured["reason"]), "not the facilitator's") {
			t.Fatalf("round %d: %s %v; want submitted, the server's settlement not believed", n, done.Text, done.Structured)
		}
		if ss := a.Call("get_spend_status", nil); !strings.Contains(ss.Text, "Token "+api.Mint+": 0 spent, 1000 reserved") {
			t.Fatalf("round %d, the payment in flight:\n%s", n, ss.Text)
		}
	}
	// landKept: with the console stopped, the server lands what it kept
	// and the chain passes the blockhash's last valid height.
	landKept := func(n int) []string {
		t.Helper()
		landed, err := w.l.LandKept(ctx)
		if err != nil {
			t.Fatalf("after round %d, the server's landing: %v", n, err)
		}
		if err := w.l.ExpireBlockhash(ctx); err != nil {
			t.Fatal(err)
		}
		return landed
	}

	var spent uint64
	for n := 1; n <= 3; n++ {
		if n > 1 {
			// The restarted console reconciles before it takes a write.
			restart()
		}
		a := testkit.StartAgent(t, socket, fmt.Sprintf("settlelie-agent-%d", n))
		round(n, spent, a)
		stop(n)
		if n > 1 {
			checkBooks(fmt.Sprintf("after restart %d", n-1))
		}
		if landed := landKept(n); n == 1 && len(landed) != 1 {
			t.Fatalf("round 1: the server landed %v, want its one kept payment", landed)
		}
		spent = start - tokens(w.wallet)
	}
	if got := tokens(merchant); got != 1000 {
		t.Fatalf("the merchant holds %d after three rounds, want the one 1000 the day cap allowed", got)
	}
	// The second console's reconcile found the payment landed, not expired.
	errs, _ := os.ReadFile(errLog)
	if !strings.Contains(string(errs), "reconcile:") || !strings.Contains(string(errs), "landed in slot") || strings.Contains(string(errs), "never landed") {
		t.Errorf("the consoles' reconcile lines:\n%s", errs)
	}
}
