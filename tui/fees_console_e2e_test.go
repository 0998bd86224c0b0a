package tui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
)

// The priority-fee flags of the real console: the percentile and the cap
// given on its command line choose the fee the screen shows before approval
// and the ledger charges after it.
func TestConsoleShowsPriorityFeeFromFlagsAndLedgerChargesIt(t *testing.T) {
	w := startConsole(t, "--priority-fee-percentile", "50", "--max-priority-fee-lamports", "1000")
	ctx := context.Background()
	// Nearest-rank p50 of four fees is the 2nd smallest: 200 000
	// micro-lamports per unit; over a 1737-unit limit (737 measured: the
	// transfer, the two compute-budget instructions and the memo naming the
	// proposal; + the 1000-unit margin floor) that is ceil(347.4) = 348
	// lamports.
	if err := w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{400_000, 100_000, 300_000, 200_000}}); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket, "fee-agent")
	const amount = 50_000_000
	args := map[string]any{"to": w.recipient.String(), "lamports": amount}
	st, text := a.call("transfer_sol", args)
	id, _ := st["proposal_id"].(string)
	if st["status"] != "pending_approval" {
		t.Fatalf("propose: %v\n%s", st, text)
	}
	w.term.waitFor(30*time.Second, id, "0.050005348 SOL", "priority 0.000000348 SOL", "p50 of 4 recent fees", "200000 micro-lamports/CU")

	w.term.approvable(id)
	w.term.keys("a")
	st, _ = a.call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	token, _ := st["confirm"].(string)
	if token == "" {
		t.Fatalf("not approved: %v\n%s", st, w.term.screen())
	}
	args["confirm"] = token
	st, text = a.call("transfer_sol", args)
	if st["status"] != "executed" {
		t.Fatalf("execute: %v\n%s", st, text)
	}
	sig := solana.MustSignatureFromBase58(st["signature"].(string))
	tx, err := w.chain.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil || tx.Meta == nil {
		t.Fatal(err)
	}
	if tx.Meta.Fee != 5348 || tx.Meta.PreBalances[0]-tx.Meta.PostBalances[0] != amount+5348 {
		t.Errorf("ledger charged fee %d, wallet lost %d; want 5348 and %d", tx.Meta.Fee, tx.Meta.PreBalances[0]-tx.Meta.PostBalances[0], amount+5348)
	}
	w.term.waitFor(30*time.Second, "EXECUTED", "fee 5,348")

	// A market far above the 1000-lamport cap: the cap, and the screen says so.
	if err := w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{10_000_000}}); err != nil {
		t.Fatal(err)
	}
	st, text = a.call("transfer_sol", map[string]any{"to": w.recipient.String(), "lamports": 1_000_000})
	if st["status"] != "pending_approval" || !strings.Contains(text, "CAPPED at the 1000-lamport maximum (the market asked 17370)") {
		t.Fatalf("capped proposal: %v\n%s", st, text)
	}
	// The new proposal is listed above the executed one.
	w.term.waitFor(30*time.Second, st["proposal_id"].(string))
	w.term.keys("k")
	w.term.waitFor(30*time.Second, "DETAIL  "+st["proposal_id"].(string), "CAPPED", "priority 0.000001 SOL")
}
