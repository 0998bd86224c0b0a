package answer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
)

// capsTextFmt and solFmt are Caps and sol as they were spelt with fmt.
func capsTextFmt(v approval.SpendSummary) string {
	s := fmt.Sprintf("Caps: per transfer %s SOL · session %s of %s SOL used (%s SOL reserved, %s SOL remaining)",
		executor.FormatSOL(v.PerTx), executor.FormatSOL(v.Spent+v.Reserved), executor.FormatSOL(v.PerSession),
		executor.FormatSOL(v.Reserved), executor.FormatSOL(v.Remaining))
	if v.PerDay > 0 {
		s += fmt.Sprintf(" · 24 h %s of %s SOL used", executor.FormatSOL(v.DaySpent+v.DayReserved), executor.FormatSOL(v.PerDay))
	}
	for _, t := range v.Tokens {
		s += "\n" + TokenSpendLine(t)
	}
	if v.Paused {
		s += " · WRITES PAUSED by the operator"
	}
	return s
}

func solFmt(l uint64) string {
	return fmt.Sprintf("%s SOL (%d lamports)", executor.FormatSOL(l), l)
}

// TestCapsTextAsFmt: Caps and sol are the fmt spellings they had, on
// 50,000 random spend summaries.
func TestCapsTextAsFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 8))
	u := func() uint64 { return r.Uint64() >> r.IntN(64) }
	for i := range 50_000 {
		v := approval.SpendSummary{PerTx: u(), PerSession: u(), Spent: u(), Reserved: u(), Remaining: u(), DaySpent: u(), DayReserved: u(), Paused: i%3 == 0}
		if i%2 == 0 {
			v.PerDay = u()
		}
		if i%5 == 0 {
			v.Tokens = []approval.TokenSpend{{Mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", PerTx: "100", Spent: u()}}
		}
		if got, want := Caps(v), capsTextFmt(v); got != want {
			t.Fatalf("Caps %q, fmt %q", got, want)
		}
		if l := u(); writekind.SOL(l) != solFmt(l) {
			t.Fatalf("sol(%d) %q, fmt %q", l, writekind.SOL(l), solFmt(l))
		}
	}
}
