package authority_test

import (
	"context"
	"encoding/binary"
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
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
)

// onChain is a landed transaction as the ledger reports it, its compute
// budget decoded by hand from the published wire format: program
// ComputeBudget111111111111111111111111111111, data[0] = 2 is
// SetComputeUnitLimit (u32 LE units), data[0] = 3 is SetComputeUnitPrice
// (u64 LE micro-lamports per unit).
type onChain struct {
	limit, price, units, fee uint64
	hasPrice                 bool
	walletDelta              int64
}

func (w *world) landed(t *testing.T, sig string) onChain {
	t.Helper()
	s := solana.MustSignatureFromBase58(sig)
	v0 := uint64(0) // swaps are v0 transactions
	tx, err := w.chain.GetTransaction(context.Background(), s, &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v0})
	if err != nil || tx.Meta == nil {
		t.Fatalf("getTransaction %s: %v", sig, err)
	}
	dec, err := tx.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	var out onChain
	for _, ci := range dec.Message.Instructions {
		if dec.Message.AccountKeys[ci.ProgramIDIndex].String() != "ComputeBudget111111111111111111111111111111" {
			continue
		}
		switch d := ci.Data; {
		case len(d) == 5 && d[0] == 2:
			out.limit = uint64(binary.LittleEndian.Uint32(d[1:]))
		case len(d) == 9 && d[0] == 3:
			out.price, out.hasPrice = binary.LittleEndian.Uint64(d[1:]), true
		}
	}
	if out.limit == 0 {
		t.Errorf("transaction %s carries no SetComputeUnitLimit", sig)
	}
	if tx.Meta.ComputeUnitsConsumed != nil {
		out.units = *tx.Meta.ComputeUnitsConsumed
	}
	out.fee = tx.Meta.Fee
	for i, k := range dec.Message.AccountKeys {
		if k.Equals(w.wallet) {
			out.walletDelta = int64(tx.Meta.PostBalances[i]) - int64(tx.Meta.PreBalances[i])
		}
	}
	return out
}

// execute approves a pending proposal of tool and makes the confirmed call.
func (w *world) execute(t *testing.T, a *testkit.Agent, tool, id string, args map[string]any) testkit.Answer {
	t.Helper()
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	confirmed := map[string]any{"confirm": p.Token}
	for k, v := range args {
		confirmed[k] = v
	}
	return a.Call(tool, confirmed)
}

// A fee market on the recipient: the preview shows fee and priority fee
// apart, the transaction bids p75 with a limit no higher than the units it
// needs plus the margin, and the ledger charged exactly what was previewed,
// settled, counted in the session spend and recorded.
func TestTransferPriorityFeePreviewedChargedSettledRecorded(t *testing.T) {
	w := newWorld(t, nil)
	ctx := context.Background()
	// Ten non-zero fees (zeros do not count): nearest-rank p75 is the 8th
	// smallest, 800 000 micro-lamports per unit.
	market := []uint64{0, 300_000, 100_000, 0, 1_000_000, 200_000, 900_000, 400_000, 500_000, 600_000, 700_000, 800_000}
	if err := w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Accounts: map[string][]uint64{w.allowed.String(): market}}); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	const amount = 20_000_000
	walletBefore := w.balance(t, w.wallet)
	args := map[string]any{"to": w.allowed.String(), "lamports": amount}

	ans := a.Call("transfer_sol", args)
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", ans)
	}
	// A system transfer costs 150 units, each compute-budget instruction
	// 150, the memo naming the proposal (20 bytes) 287: 737 measured, limit
	// 737 + 1000 (the margin's floor) = 1737, and ceil(800 000 × 1737 /
	// 10^6) = 1390 lamports of priority fee.
	for _, want := range []string{"fee 0.000005 + priority 0.00000139 SOL (p75 of 10 recent fees for its accounts, standard method)", "1737 CU limit (737 used + margin) · 800000 micro-lamports/CU"} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("preview lacks %q:\n%s", want, ans.Text)
		}
	}
	if ans.Structured["priority_fee_lamports"] != "1390" || ans.Structured["fee_lamports"] != "6390" || ans.Structured["spend_lamports"] != fmt.Sprint(amount+6390) {
		t.Errorf("structured preview: %+v", ans.Structured)
	}

	done := w.execute(t, a, "transfer_sol", id, args)
	if done.Status() != "executed" {
		t.Fatalf("execute: %+v", done)
	}
	sig := done.Structured["signature"].(string)
	got := w.landed(t, sig)
	if margin := max((got.units+9)/10, 1000); got.units == 0 || got.limit > got.units+margin {
		t.Errorf("limit %d for %d units used: above units + margin", got.limit, got.units)
	}
	if !got.hasPrice || got.price != 800_000 {
		t.Errorf("price on chain %d, want p75 = 800000", got.price)
	}
	wantFee := 5000 + (got.price*got.limit+999_999)/1_000_000
	if got.fee != wantFee || got.fee != 6390 || done.Structured["fee_lamports"] != fmt.Sprint(got.fee) {
		t.Errorf("ledger charged %d (want %d = previewed 6390); answer says %v", got.fee, wantFee, done.Structured["fee_lamports"])
	}
	// The wallet paid it, the session spend counts it, the record holds it.
	if got.walletDelta != -(amount+6390) || w.balance(t, w.wallet) != walletBefore-amount-6390 {
		t.Errorf("wallet changed by %d, want -%d", got.walletDelta, amount+6390)
	}
	if s := w.authority.SpendSummary(); s.Spent != amount+6390 || s.Reserved != 0 {
		t.Errorf("session spend %d reserved %d, want %d", s.Spent, s.Reserved, amount+6390)
	}
	execs, err := w.store.Executions(id)
	if err != nil || len(execs) != 1 || execs[0].Fee != 6390 {
		t.Errorf("stored executions: %+v %v", execs, err)
	}
	audit, err := w.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	var audited bool
	for _, e := range audit {
		if e.Kind == "execution" && e.ProposalID == id {
			audited = strings.Contains(string(e.Body), `"fee":6390`) && strings.Contains(string(e.Body), sig)
		}
	}
	if !audited {
		t.Errorf("no audit entry records the execution of %s with fee 6390", id)
	}
	row, err := w.store.GetProposal(id)
	if err != nil || !strings.Contains(row.Preview, "priority 0.00000139 SOL (p75 of 10 recent fees for its accounts, standard method)") {
		t.Errorf("stored preview lacks the priority fee: %v\n%s", err, row.Preview)
	}
}

// A market above the cap: the priority fee is the cap, the preview says so,
// and the capped fee counts against the per-transfer cap like any lamport.
func TestPriorityFeeAboveCapIsCappedAndCounted(t *testing.T) {
	w := newWorld(t, nil)
	ctx := context.Background()
	// 500 SOL-ish bids: 500 000 000 micro-lamports × 1737 units is 868 500
	// lamports, over the default 100 000 cap.
	if err := w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{500_000_000}}); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)

	// 0.09999 SOL + 5000 fits the default 0.1 SOL per-transfer cap; the
	// 100 000-lamport priority fee on top does not.
	near := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 99_990_000})
	if near.Status() != "denied" || !strings.Contains(fmt.Sprint(near.Structured["rule"]), "max_sol_per_tx") {
		t.Errorf("amount + fee + capped priority over the per-transfer cap: %+v", near)
	}

	args := map[string]any{"to": w.allowed.String(), "lamports": 1_000_000}
	ans := a.Call("transfer_sol", args)
	if ans.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", ans)
	}
	for _, want := range []string{"priority 0.0001 SOL", "CAPPED at the 100000-lamport maximum (the market asked 868500)"} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("preview lacks %q:\n%s", want, ans.Text)
		}
	}
	if ans.Structured["priority_fee_capped"] != true {
		t.Errorf("structured: %+v", ans.Structured)
	}
	done := w.execute(t, a, "transfer_sol", ans.Structured["proposal_id"].(string), args)
	if done.Status() != "executed" {
		t.Fatalf("execute: %+v", done)
	}
	got := w.landed(t, done.Structured["signature"].(string))
	if pf := got.fee - 5000; pf != 100_000 || pf != (got.price*got.limit+999_999)/1_000_000 {
		t.Errorf("charged priority %d (price %d × limit %d), want the 100000 cap", pf, got.price, got.limit)
	}
	if s := w.authority.SpendSummary(); s.Spent != 1_000_000+got.fee {
		t.Errorf("session spend %d, want %d", s.Spent, 1_000_000+got.fee)
	}
}

// Execution is held to the approval: a fresh simulation needing more units
// than approved, or a priority fee above the approved one, is refused with
// nothing signed or sent and nothing spent.
func TestExecutionOverApprovedBudgetIsRefused(t *testing.T) {
	w := newWorld(t, nil)
	ctx := context.Background()
	w.calmMarket(t)
	a := startAgent(t, w.socket)
	walletBefore := w.balance(t, w.wallet)

	for _, tc := range []struct {
		name   string
		arm    func() error
		reason string
	}{
		{"more compute units", func() error { return w.ledger.SetExtraComputeUnits(ctx, 5_000) },
			"needs more compute units than approved: the fresh simulation at execution needs 5737 compute units, more than the 1737 approved"},
		{"higher priority fee", func() error {
			return w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{3_000_000}})
		},
			"the priority fee at execution would be 5211 lamports (p75 of 1 recent fees for its accounts, standard method), above the 1737 approved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"to": w.allowed.String(), "lamports": 2_000_000}
			ans := a.Call("transfer_sol", args)
			if ans.Status() != "pending_approval" {
				t.Fatalf("propose: %+v", ans)
			}
			if err := tc.arm(); err != nil {
				t.Fatal(err)
			}
			done := w.execute(t, a, "transfer_sol", ans.Structured["proposal_id"].(string), args)
			if done.Status() != "failed" || !strings.Contains(done.Text, tc.reason) || !strings.Contains(done.Text, "nothing was signed or sent") {
				t.Errorf("execute: want failed with %q:\n%s", tc.reason, done.Text)
			}
			w.calmMarket(t)
		})
	}
	st, err := w.ledger.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.SendsReceived != 0 || w.balance(t, w.allowed) != 0 || w.balance(t, w.wallet) != walletBefore {
		t.Errorf("a refused execution reached the ledger: %+v", st)
	}
	if s := w.authority.SpendSummary(); s.Spent != 0 || s.Reserved != 0 {
		t.Errorf("refused executions left spend %d reserved %d", s.Spent, s.Reserved)
	}
}

// An RPC that does not serve getRecentPrioritizationFees: no priority fee,
// a note in the preview, and the transfer goes through.
func TestRPCWithoutFeeMarketStillTransfers(t *testing.T) {
	w := newWorld(t, nil)
	ctx := context.Background()
	if err := w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Unsupported: true}); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	args := map[string]any{"to": w.allowed.String(), "lamports": 3_000_000}
	ans := a.Call("transfer_sol", args)
	if !strings.Contains(ans.Text, "fee 0.000005 + priority 0 SOL (no priority fee: the RPC does not serve getRecentPrioritizationFees, standard method)") {
		t.Errorf("preview lacks the note:\n%s", ans.Text)
	}
	done := w.execute(t, a, "transfer_sol", ans.Structured["proposal_id"].(string), args)
	if done.Status() != "executed" {
		t.Fatalf("execute: %+v", done)
	}
	got := w.landed(t, done.Structured["signature"].(string))
	if got.hasPrice || got.fee != 5000 || w.balance(t, w.allowed) != 3_000_000 {
		t.Errorf("landed %+v, want no price and a 5000-lamport fee", got)
	}
}

// A node that accepts Triton's percentile option and ignores it, under
// --priority-fee-source auto: it is not taken for Triton. Its answers to
// the standard method (four busy slots of twenty, which the ledger applies
// to every transaction) set the price, the preview and the structured answer say "standard method",
// and the transaction lands with that price.
func TestNodeIgnoringPercentileIsNotTakenForTriton(t *testing.T) {
	w := newWorld(t, nil)
	ctx := context.Background()
	global := make([]uint64, 20)
	for _, i := range []int{3, 8, 13, 18} {
		global[i] = 2_000_000
	}
	if err := w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: global, IgnoresPercentile: true}); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	args := map[string]any{"to": w.allowed.String(), "lamports": 3_000_000}
	ans := a.Call("transfer_sol", args)
	src, _ := ans.Structured["priority_fee_source"].(string)
	if ans.Status() != "pending_approval" || !strings.Contains(src, "standard method") || strings.Contains(ans.Text, "Triton") ||
		!strings.Contains(ans.Text, "priority 0.0000") || !strings.Contains(ans.Text, "(p75 of 4 recent fees") {
		t.Fatalf("preview on a node that ignores percentile: source %q\n%s", src, ans.Text)
	}
	done := w.execute(t, a, "transfer_sol", ans.Structured["proposal_id"].(string), args)
	if done.Status() != "executed" {
		t.Fatalf("execute: %+v", done)
	}
	if got := w.landed(t, done.Structured["signature"].(string)); !got.hasPrice || got.price != 2_000_000 {
		t.Errorf("landed with price %d, want the global market's p75, 2000000", got.price)
	}
}

// Swaps follow the operator's fee policy: the request asks the swap API for
// a priority level held to --max-priority-fee-lamports, the landed
// transaction carries a compute-unit price from it, the ledger's priority
// fee stays within the cap, and the session spend counts it.
func TestSwapPriorityFeeFollowsTheOperatorsCap(t *testing.T) {
	const maxPriority = 30_000
	w := newWorldSetup(t, func(*authority.Options, *localnet.Ledger) {}, func(s *startup.Setup, _ *localnet.Ledger) {
		s.Fees = executor.FeeSettings{Percentile: 75, MaxLamports: maxPriority}
	}, host.ListenConfig{})
	ctx := context.Background()
	// A busy global market: 5 000 000 micro-lamports per unit asks more than
	// the cap allows for any swap of more than 6 000 units.
	busy := make([]uint64, 20)
	for i := range busy {
		busy[i] = 5_000_000
	}
	if err := w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: busy}); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	usdc := w.ledger.DemoMints().USDC.Mint
	const amount = 50_000_000
	args := swapArgs(w, usdc, amount)
	solBefore := w.balance(t, w.wallet)
	prop := a.Call("swap", args)
	if prop.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", prop)
	}
	previewed := fmt.Sprint(prop.Structured["priority_fee_lamports"])
	if !strings.Contains(prop.Text, `"veryHigh" priority level, at most 30000 lamports`) || !strings.Contains(prop.Text, "approval allows at most a "+previewed+"-lamport priority fee") || previewed == "0" {
		t.Errorf("the preview does not show the swap's priority fee (%s) and its bound:\n%s", previewed, prop.Text)
	}
	done := w.execute(t, a, "swap", prop.Structured["proposal_id"].(string), args)
	if done.Status() != "executed" {
		t.Fatalf("execute: %+v", done)
	}
	got := w.landed(t, done.Structured["signature"].(string))
	if !got.hasPrice || got.price == 0 {
		t.Fatalf("the swap landed without a compute-unit price: %+v", got)
	}
	priority := (got.price*got.limit + 999_999) / 1_000_000
	if priority > maxPriority || priority == 0 || fmt.Sprint(priority) != previewed {
		t.Errorf("priority fee %d lamports (price %d × limit %d), cap %d, previewed %s", priority, got.price, got.limit, maxPriority, previewed)
	}
	// Two signatures (the wallet and localnet's pool) plus the priority fee.
	if got.fee != 10_000+priority {
		t.Errorf("ledger charged %d, want 10000 + %d", got.fee, priority)
	}
	spent := solBefore - w.balance(t, w.wallet)
	if s := w.authority.SpendSummary(); s.Spent != spent || s.Reserved != 0 || spent < amount+got.fee {
		t.Errorf("session spend %d reserved %d; the wallet paid %d (fee %d)", s.Spent, s.Reserved, spent, got.fee)
	}
}

// A confirmed transfer whose getTransaction lags past the verify window is
// "unknown", never "executed" on the status alone, and its reservation
// stays: the session spend still counts it.
func TestUnknownAfterTheVerifyWindowKeepsItsReservation(t *testing.T) {
	w := newWorldSetup(t, func(*authority.Options, *localnet.Ledger) {}, func(s *startup.Setup, _ *localnet.Ledger) {
		s.VerifyWindow = 300 * time.Millisecond
	}, host.ListenConfig{})
	ctx := context.Background()
	if err := w.ledger.LagGetTransaction(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	args := map[string]any{"to": w.allowed.String(), "lamports": 4_000_000}
	prop := a.Call("transfer_sol", args)
	if prop.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", prop)
	}
	done := w.execute(t, a, "transfer_sol", prop.Structured["proposal_id"].(string), args)
	if st := done.Status(); st == "executed" || st == "failed" {
		t.Fatalf("a transfer that could not be read back was called %s: %+v", st, done)
	}
	if w.balance(t, w.allowed) != 4_000_000 {
		t.Fatal("the transfer did not land")
	}
	if s := w.authority.SpendSummary(); s.Reserved < 4_000_000 {
		t.Errorf("the unknown outcome released its reservation: %+v", s)
	}
}

// calmMarket sets the ledger's fee market to one recent fee of 1,000,000
// micro-lamports a unit and no extra compute: the state the over-budget
// tests start from and return to after each case.
func (w *world) calmMarket(t *testing.T) {
	t.Helper()
	if err := w.ledger.SetExtraComputeUnits(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if err := w.ledger.SetPrioritizationFees(t.Context(), localnet.FeeMarket{Fees: []uint64{1_000_000}}); err != nil {
		t.Fatal(err)
	}
}
