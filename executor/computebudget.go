package executor

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sort"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
)

// Compute budget and priority fee for the transactions solgate builds.
//
// The compute-unit limit comes from a simulation (units consumed plus a
// margin), so a transaction never asks for, nor pays priority on, the
// default 200 000 units per instruction. The unit price comes from the fee
// market (a percentile of getRecentPrioritizationFees for the accounts the
// transaction write-locks), or is fixed, or off; price × limit is capped.
// Units: the price is in micro-lamports per compute unit, so the priority
// fee in lamports is ceil(price × limit / 1 000 000), as validators charge it.

const (
	// DefaultPriorityFeePercentile is the percentile of recent non-zero
	// fees a transaction bids.
	DefaultPriorityFeePercentile = 75
	// DefaultPriorityFeeCapLamports caps price × limit (0.0001 SOL).
	DefaultPriorityFeeCapLamports = 100_000

	// MaxComputeUnitLimit is the most a transaction may ask for.
	MaxComputeUnitLimit = 1_400_000
	// computeUnitMarginFloor is the least headroom above the measured units:
	// 10% of a few hundred units would leave almost none.
	computeUnitMarginFloor  = 1_000
	microLamportsPerLamport = 1_000_000
)

// FeeSettings say how the priority fee is chosen. The zero value is not
// valid; start from DefaultFeeSettings.
type FeeSettings struct {
	// Percentile of the recent non-zero fees to bid, 1..100.
	Percentile int
	// MaxLamports caps the total priority fee (price × limit).
	MaxLamports uint64
	// Fixed uses FixedLamports instead of the fee market; FixedLamports 0
	// means no priority fee at all.
	Fixed         bool
	FixedLamports uint64
	// Source is where the market's price comes from (FeeSource*; ""
	// means FeeSourceAuto).
	Source string
}

// DefaultFeeSettings: p75 of the market, capped at 100 000 lamports.
func DefaultFeeSettings() FeeSettings {
	return FeeSettings{Percentile: DefaultPriorityFeePercentile, MaxLamports: DefaultPriorityFeeCapLamports, Source: FeeSourceAuto}
}

// Validate names the setting at fault.
func (s FeeSettings) Validate() error {
	if s.Percentile < 1 || s.Percentile > 100 {
		return fmt.Errorf("priority fee percentile %d: must be 1..100", s.Percentile)
	}
	switch s.Source {
	case "", FeeSourceAuto, FeeSourceStandard, FeeSourceHelius, FeeSourceTriton:
	default:
		return fmt.Errorf("priority fee source %q: must be auto, standard, helius or triton", s.Source)
	}
	if s.Fixed && s.FixedLamports > s.MaxLamports {
		return fmt.Errorf("fixed priority fee %d lamports is above the %d-lamport cap (--max-priority-fee-lamports)", s.FixedLamports, s.MaxLamports)
	}
	return nil
}

// Budget is the compute budget of one transaction: what it asks for and
// pays for priority, and where the price came from.
type Budget struct {
	// UnitLimit is the SetComputeUnitLimit value: Units plus the margin.
	UnitLimit uint32
	// Units is what the measuring simulation consumed.
	Units uint64
	// UnitPrice is the SetComputeUnitPrice value in micro-lamports per
	// unit (0: no price instruction, no priority fee).
	UnitPrice uint64
	// PriorityFee is ceil(UnitPrice × UnitLimit / 1e6) lamports: what the
	// payer is charged for priority, on top of the signature fee.
	PriorityFee uint64
	// Source says where the fee came from, for people: "p75 of 12 recent
	// fees", "fixed", "off", or why there is none.
	Source string
	// Capped is set when the market asked for more than the cap and the
	// cap was used instead.
	Capped bool
}

// priorityFee is what a validator charges for price × limit, rounded up.
func priorityFee(price uint64, limit uint32) uint64 {
	hi, lo := bits.Mul64(price, uint64(limit))
	if hi >= microLamportsPerLamport {
		return ^uint64(0) // cannot happen for prices that fit a fee cap
	}
	q, r := bits.Div64(hi, lo, microLamportsPerLamport)
	if r > 0 {
		q++
	}
	return q
}

// priceFor is the highest unit price whose fee over limit stays within
// lamports: floor(lamports × 1e6 / limit).
func priceFor(lamports uint64, limit uint32) uint64 {
	if limit == 0 {
		return 0
	}
	hi, lo := bits.Mul64(lamports, microLamportsPerLamport)
	if hi >= uint64(limit) {
		return ^uint64(0)
	}
	q, _ := bits.Div64(hi, lo, uint64(limit))
	return q
}

// unitLimitFor adds the margin to measured units: 10%, at least
// computeUnitMarginFloor, never above MaxComputeUnitLimit.
func unitLimitFor(units uint64) uint32 {
	margin := max((units+9)/10, computeUnitMarginFloor)
	return uint32(min(units+margin, MaxComputeUnitLimit))
}

// percentile is the nearest-rank percentile of the non-zero fees (the
// smallest fee at least p% of them do not exceed); ok is false when there
// are none.
func percentile(fees []uint64, p int) (fee uint64, n int, ok bool) {
	var nz []uint64
	for _, f := range fees {
		if f > 0 {
			nz = append(nz, f)
		}
	}
	if len(nz) == 0 {
		return 0, 0, false
	}
	sort.Slice(nz, func(i, j int) bool { return nz[i] < nz[j] })
	rank := (p*len(nz) + 99) / 100 // ceil(p/100 × n), 1-based
	return nz[max(rank, 1)-1], len(nz), true
}

// startMarket asks the fee market in the background when the settings use
// it; the returned func waits for the answer: a unit price in micro-lamports
// (0: none) and where it came from. A node that does not serve
// getRecentPrioritizationFees, or has no recent non-zero fee, means no
// priority fee, never a failure.
func (e *Executor) startMarket(ctx context.Context, accounts []solana.PublicKey) func() (uint64, string) {
	s := e.opts.Fees
	switch {
	case s.Fixed && s.FixedLamports == 0:
		return func() (uint64, string) { return 0, "priority fee off" }
	case s.Fixed:
		return func() (uint64, string) { return 0, "fixed" }
	}
	type answer struct {
		price  uint64
		source string
	}
	ch := make(chan answer, 1)
	ctx = besideCalls(ctx)
	go func() {
		price, source := e.marketPrice(ctx, accounts, s.Percentile)
		ch <- answer{price, source}
	}()
	return func() (uint64, string) { a := <-ch; return a.price, a.source }
}

// priced is the budget for units measured, limit asked, and the market's
// unit price (ignored for a fixed fee), held under the cap.
func (e *Executor) priced(units uint64, limit uint32, market uint64, source string) Budget {
	b := Budget{UnitLimit: limit, Units: units, Source: source}
	s := e.opts.Fees
	want := market
	if s.Fixed {
		want = priceFor(s.FixedLamports, limit)
	}
	if want == 0 {
		return b
	}
	b.UnitPrice, b.PriorityFee = want, priorityFee(want, limit)
	if b.PriorityFee > s.MaxLamports {
		b.UnitPrice = priceFor(s.MaxLamports, limit)
		b.PriorityFee = priorityFee(b.UnitPrice, limit)
		b.Capped = true
		b.Source += fmt.Sprintf(", CAPPED at the %d-lamport maximum (the market asked %d)", s.MaxLamports, priorityFee(want, limit))
	}
	return b
}

// budgetInstructions are the compute-budget instructions for b, placed
// before the transaction's own.
func budgetInstructions(b Budget) []solana.Instruction {
	out := []solana.Instruction{computebudget.NewSetComputeUnitLimitInstruction(b.UnitLimit).Build()}
	if b.UnitPrice > 0 {
		out = append(out, computebudget.NewSetComputeUnitPriceInstruction(b.UnitPrice).Build())
	}
	return out
}

// ErrComputeOverApproved: the fresh simulation at execution needs more
// compute units than the approved limit. Nothing was signed.
var ErrComputeOverApproved = errors.New("needs more compute units than approved")

// ErrPriorityFeeOverApproved: the fee market at execution asks a higher
// priority fee than the approval allowed. Nothing was signed.
var ErrPriorityFeeOverApproved = errors.New("priority fee above the approved bound")
