package executor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPreviewTextsAsFmt: FeeText and BudgetText are the fmt spellings
// they had, on 100,000 random budgets.
func TestPreviewTextsAsFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 7))
	for i := range 100_000 {
		p := Preview{Fee: r.Uint64() >> r.IntN(64), Budget: Budget{
			UnitLimit: r.Uint32() >> r.IntN(32), Units: r.Uint64() >> r.IntN(64),
			UnitPrice: r.Uint64() >> r.IntN(64), PriorityFee: r.Uint64() >> r.IntN(64),
			Source: []string{"", "p75 of 12 recent fees", "fixed by the operator (%d)"}[i%3],
		}}
		if i%4 == 0 {
			p.Budget.UnitPrice = 0
		}
		fee := fmt.Sprintf("fee %s + priority %s SOL (%s)", FormatSOL(p.NetworkFee()), FormatSOL(p.Budget.PriorityFee), p.Budget.Source)
		budget := fmt.Sprintf("%d CU limit (%d used + margin)", p.Budget.UnitLimit, p.Budget.Units)
		if p.Budget.UnitPrice > 0 {
			budget += fmt.Sprintf(" · %d micro-lamports/CU", p.Budget.UnitPrice)
		} else {
			budget += " · no CU price"
		}
		if got := p.FeeText(); got != fee {
			t.Fatalf("FeeText %q, fmt %q", got, fee)
		}
		if got := p.BudgetText(); got != budget {
			t.Fatalf("BudgetText %q, fmt %q", got, budget)
		}
	}
}
