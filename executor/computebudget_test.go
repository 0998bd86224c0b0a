package executor_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
)

// landedBudget reads a landed transaction back from the ledger and decodes
// its compute-budget instructions by hand, from the published wire format
// (program ComputeBudget111111111111111111111111111111; data[0] = 2:
// SetComputeUnitLimit, u32 LE; data[0] = 3: SetComputeUnitPrice, u64 LE
// micro-lamports), not with the code under test.
type landed struct {
	limit, price uint64
	hasLimit     bool
	hasPrice     bool
	fee          uint64
	units        uint64
	payerDelta   int64
}

func readLanded(t *testing.T, chain *rpc.Client, sig solana.Signature) landed {
	t.Helper()
	tx, err := chain.GetTransaction(context.Background(), sig, &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil || tx.Meta == nil {
		t.Fatalf("getTransaction %s: %v", sig, err)
	}
	dec, err := tx.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	var out landed
	for _, ci := range dec.Message.Instructions {
		if dec.Message.AccountKeys[ci.ProgramIDIndex].String() != "ComputeBudget111111111111111111111111111111" {
			continue
		}
		switch d := ci.Data; {
		case len(d) == 5 && d[0] == 2:
			out.limit, out.hasLimit = uint64(binary.LittleEndian.Uint32(d[1:])), true
		case len(d) == 9 && d[0] == 3:
			out.price, out.hasPrice = binary.LittleEndian.Uint64(d[1:]), true
		default:
			t.Errorf("unexpected compute budget instruction data %x", d)
		}
	}
	out.fee = tx.Meta.Fee
	if tx.Meta.ComputeUnitsConsumed != nil {
		out.units = *tx.Meta.ComputeUnitsConsumed
	}
	out.payerDelta = int64(tx.Meta.PostBalances[0]) - int64(tx.Meta.PreBalances[0])
	return out
}

// ceilFee is the published priority-fee rule: ceil(price × limit / 10^6).
func ceilFee(price, limit uint64) uint64 { return (price*limit + 999_999) / 1_000_000 }

// A fee market on the recipient's account: the transfer bids p75 of the
// non-zero fees, asks for no more units than it needs plus the margin, and
// the ledger charges exactly the fee the preview measured.
func TestTransferBidsPercentileAndLedgerChargesIt(t *testing.T) {
	f := newFixture(t, 10*solana.LAMPORTS_PER_SOL, executor.Options{})
	to := freshAddress(t)
	ctx := context.Background()
	// Ten non-zero fees on the recipient (and zeros, which do not count);
	// nearest-rank p75 of 100k..1M is the 8th: 800 000 micro-lamports.
	market := []uint64{0, 300_000, 100_000, 0, 1_000_000, 200_000, 900_000, 400_000, 500_000, 600_000, 700_000, 800_000}
	if err := f.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Accounts: map[string][]uint64{to.String(): market}}); err != nil {
		t.Fatal(err)
	}
	before := f.stats(t).PrioritizationFeeQueries
	const amount = 3_000_000
	p, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: to, Lamports: amount})
	if err != nil {
		t.Fatal(err)
	}
	// Twice: for the accounts and for the global market (the probe for
	// Helius' method is refused before counting, and happens once per
	// executor).
	if n := f.stats(t).PrioritizationFeeQueries - before; n != 2 {
		t.Errorf("asked the fee market %d times, want 2", n)
	}
	b := p.Preview.Budget
	if b.UnitPrice != 800_000 || b.Capped || !strings.Contains(b.Source, "p75 of 10 recent fees") {
		t.Errorf("budget %+v, want price 800000 from p75 of 10 recent fees", b)
	}
	if want := "fee 0.000005 + priority "; !strings.HasPrefix(p.Preview.FeeText(), want) {
		t.Errorf("fee text %q", p.Preview.FeeText())
	}
	res, err := f.ex.Submit(ctx, p, nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("submit: %v %+v", err, res)
	}

	got := readLanded(t, f.chain, res.Signature)
	if !got.hasLimit || !got.hasPrice || got.price != 800_000 {
		t.Fatalf("landed budget %+v, want a limit and price 800000", got)
	}
	// No more than the units it used plus 10% (at least 1 000 units).
	if margin := max((got.units+9)/10, 1000); got.units == 0 || got.limit > got.units+margin {
		t.Errorf("limit %d for %d units used: more than the margin allows", got.limit, got.units)
	}
	wantFee := 5000 + ceilFee(got.price, got.limit)
	if got.fee != wantFee || got.fee != p.Preview.Fee || got.fee != res.Fee {
		t.Errorf("ledger charged %d, want %d; preview said %d, result %d", got.fee, wantFee, p.Preview.Fee, res.Fee)
	}
	// litesvm charged it: the payer lost exactly amount + fee.
	if got.payerDelta != -int64(amount+got.fee) {
		t.Errorf("payer changed by %d, want -%d", got.payerDelta, amount+got.fee)
	}
	if bal := f.balance(t, f.key.PublicKey()); bal != 10*solana.LAMPORTS_PER_SOL-amount-got.fee {
		t.Errorf("wallet holds %d", bal)
	}
}

// Above the cap the cap is used, and the source says so.
func TestPriorityFeeAboveCapIsCapped(t *testing.T) {
	f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{Fees: executor.FeeSettings{Percentile: 50, MaxLamports: 700}})
	to := freshAddress(t)
	ctx := context.Background()
	if err := f.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{50_000_000, 60_000_000}}); err != nil {
		t.Fatal(err)
	}
	res, err := f.ex.ExecuteTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000}, nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("execute: %v %+v", err, res)
	}
	got := readLanded(t, f.chain, res.Signature)
	pf := got.fee - 5000
	if pf > 700 || pf != ceilFee(got.price, got.limit) || got.price >= 50_000_000 {
		t.Errorf("charged priority %d (price %d × limit %d): want the 700-lamport cap", pf, got.price, got.limit)
	}
	// The cap is used, not merely respected: one micro-lamport more per
	// unit would go over it.
	if ceilFee(got.price+1, got.limit) <= 700 {
		t.Errorf("price %d is below the cap's price", got.price)
	}
	p, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Preview.Budget.Capped || !strings.Contains(p.Preview.FeeText(), "CAPPED at the 700-lamport maximum") {
		t.Errorf("preview does not say it was capped: %q", p.Preview.FeeText())
	}
}

// A fixed fee, and off.
func TestFixedAndOffPriorityFee(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fixed uint64
	}{{"fixed 900", 900}, {"off", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{Fees: executor.FeeSettings{Percentile: 75, MaxLamports: 100_000, Fixed: true, FixedLamports: tc.fixed}})
			ctx := context.Background()
			// The market is ignored either way.
			if err := f.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{5_000_000}}); err != nil {
				t.Fatal(err)
			}
			res, err := f.ex.ExecuteTransfer(ctx, executor.Transfer{To: freshAddress(t), Lamports: 1_000_000}, nil)
			if err != nil || res.Outcome != executor.Executed {
				t.Fatalf("execute: %v %+v", err, res)
			}
			got := readLanded(t, f.chain, res.Signature)
			if tc.fixed == 0 {
				if got.hasPrice || got.fee != 5000 {
					t.Errorf("off: price instruction %v, fee %d", got.hasPrice, got.fee)
				}
			} else if pf := got.fee - 5000; pf > tc.fixed || pf < tc.fixed-1 || pf != ceilFee(got.price, got.limit) {
				t.Errorf("fixed %d: charged priority %d (price %d, limit %d)", tc.fixed, pf, got.price, got.limit)
			}
			if s := f.stats(t); s.PrioritizationFeeQueries != 0 {
				t.Errorf("asked the fee market %d times with a fixed fee", s.PrioritizationFeeQueries)
			}
		})
	}
}

// An RPC without the method, or with nothing to say: no priority fee, a
// note, and the transfer goes through.
func TestNoFeeMarketStillTransfers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		market localnet.FeeMarket
		note   string
	}{
		{"method missing", localnet.FeeMarket{Unsupported: true}, "does not serve getRecentPrioritizationFees"},
		{"all zero", localnet.FeeMarket{Fees: []uint64{0, 0, 0}}, "no recent non-zero fees among 3 slots"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{})
			ctx := context.Background()
			if err := f.ledger.SetPrioritizationFees(ctx, tc.market); err != nil {
				t.Fatal(err)
			}
			to := freshAddress(t)
			p, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Preview.FeeText(), tc.note) || p.Preview.Budget.PriorityFee != 0 {
				t.Errorf("fee text %q, priority %d", p.Preview.FeeText(), p.Preview.Budget.PriorityFee)
			}
			res, err := f.ex.Submit(ctx, p, nil)
			if err != nil || res.Outcome != executor.Executed {
				t.Fatalf("submit: %v %+v", err, res)
			}
			if got := readLanded(t, f.chain, res.Signature); got.hasPrice || got.fee != 5000 || !got.hasLimit {
				t.Errorf("landed %+v, want a limit, no price, fee 5000", got)
			}
			if f.balance(t, to) != 1_000_000 {
				t.Error("the recipient did not receive the transfer")
			}
		})
	}
}

// Execution is held to the approval: more units than approved, or a
// higher priority fee, is refused with nothing signed or sent.
func TestApprovedBudgetBindsExecution(t *testing.T) {
	f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{})
	ctx := context.Background()
	to := freshAddress(t)
	if err := f.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{1_000_000}}); err != nil {
		t.Fatal(err)
	}
	p, err := f.ex.PreviewTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	approved := p.Preview.Budget

	// The transaction now needs more units than the approved limit.
	if err := f.ledger.SetExtraComputeUnits(ctx, approved.UnitLimit); err != nil {
		t.Fatal(err)
	}
	_, err = f.ex.PrepareApprovedTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000}, approved)
	if !errors.Is(err, executor.ErrComputeOverApproved) || !strings.Contains(err.Error(), "nothing was signed or sent") {
		t.Errorf("more units than approved: err = %v", err)
	}
	if err := f.ledger.SetExtraComputeUnits(ctx, 0); err != nil {
		t.Fatal(err)
	}

	// The market doubled since the approval.
	if err := f.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{2_000_000}}); err != nil {
		t.Fatal(err)
	}
	_, err = f.ex.PrepareApprovedTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000}, approved)
	if !errors.Is(err, executor.ErrPriorityFeeOverApproved) {
		t.Errorf("higher priority fee than approved: err = %v", err)
	}
	if s := f.stats(t); s.SendsReceived != 0 {
		t.Errorf("%d sends reached the ledger", s.SendsReceived)
	}

	// A cheaper market is fine, and keeps the approved limit.
	if err := f.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{500_000}}); err != nil {
		t.Fatal(err)
	}
	q, err := f.ex.PrepareApprovedTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000}, approved)
	if err != nil {
		t.Fatal(err)
	}
	if q.Preview.Budget.UnitLimit != approved.UnitLimit || q.Preview.Budget.PriorityFee > approved.PriorityFee {
		t.Errorf("execution budget %+v, approved %+v", q.Preview.Budget, approved)
	}
}

// The standard method's per-slot minimums for a transaction's accounts are
// mostly zero on a busy cluster; the global market shows what it takes.
// Twenty slots: the recipient's minimums are 1 000 micro-lamports in each,
// the global market's zero but in four busy slots at 2 000 000. The
// accounts' p75 (over slots with any fee) is 1 000, the global one
// 2 000 000: the transfer bids the larger, and the preview names the source.
// The same table served as Helius' form is used through it when auto finds
// Helius' own method answering; Triton's form only when the operator names
// Triton. A node that takes Triton's percentile option and ignores it (its
// answer is the standard per-slot minimums, in the same shape) is never
// taken for Triton: auto prices by the standard method and says "standard".
func TestFeeEstimateSeesTheBusyGlobalMarket(t *testing.T) {
	t.Parallel()
	global := make([]uint64, 20)
	mine := make([]uint64, 20)
	for i := range mine {
		mine[i] = 1_000
	}
	for _, i := range []int{3, 8, 13, 18} {
		global[i] = 2_000_000
	}
	for _, tc := range []struct {
		name              string
		source            string
		helius, triton    bool
		ignoresPercentile bool
		price             uint64
		names             string
	}{
		{"auto on a stock node", executor.FeeSourceAuto, false, false, false, 2_000_000, "p75 of 4 recent fees of the global market, standard method"},
		{"standard", executor.FeeSourceStandard, true, true, false, 2_000_000, "of the global market, standard method"},
		// Helius' High is p75 of the merged table for the accounts: 16 slots
		// at 1 000 and 4 at 2 000 000, so 1 000 (its own estimate, taken as given).
		{"auto on Helius", executor.FeeSourceAuto, true, false, false, 1_000, "Helius getPriorityFeeEstimate, High"},
		{"auto on a node that ignores percentile", executor.FeeSourceAuto, false, false, true, 2_000_000, "p75 of 4 recent fees of the global market, standard method"},
		{"auto on Triton", executor.FeeSourceAuto, false, true, false, 2_000_000, "of the global market, standard method"},
		{"triton, named", executor.FeeSourceTriton, false, true, false, 1_000, "Triton p75"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fees := executor.DefaultFeeSettings()
			fees.Source = tc.source
			f := newFixture(t, solana.LAMPORTS_PER_SOL, executor.Options{Fees: fees})
			ctx := context.Background()
			to := freshAddress(t)
			if err := f.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: global, Accounts: map[string][]uint64{to.String(): mine}, Helius: tc.helius, Triton: tc.triton, IgnoresPercentile: tc.ignoresPercentile}); err != nil {
				t.Fatal(err)
			}
			p, err := f.ex.PrepareTransfer(ctx, executor.Transfer{To: to, Lamports: 1_000_000})
			if err != nil {
				t.Fatal(err)
			}
			b := p.Preview.Budget
			if b.UnitPrice != tc.price || !strings.Contains(b.Source, tc.names) || !strings.Contains(p.Preview.FeeText(), tc.names) {
				t.Fatalf("unit price %d from %q (fee text %q); want %d from %q", b.UnitPrice, b.Source, p.Preview.FeeText(), tc.price, tc.names)
			}
			res, err := f.ex.Submit(ctx, p, nil)
			if err != nil || res.Outcome != executor.Executed {
				t.Fatalf("submit: %v %+v", err, res)
			}
			if got := readLanded(t, f.chain, res.Signature); !got.hasPrice || got.price != tc.price {
				t.Errorf("landed with price %d, want %d", got.price, tc.price)
			}
		})
	}
}
