package authority

import (
	"strings"
	"testing"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
)

// Swap API v2's /build gives no priceImpactPct: the impact is unknown, which
// passes only while max_price_impact_pct is off; with a limit set the quote
// is refused, saying why, never taken as no impact.
func TestUnknownPriceImpactIsHeldToTheLimit(t *testing.T) {
	unknown := &executor.Quote{}
	if bps, err := writekind.PriceImpactBps(unknown, 0); err != nil || bps != 0 {
		t.Fatalf("no limit: %d %v", bps, err)
	}
	if _, err := writekind.PriceImpactBps(unknown, 150); err == nil || !strings.Contains(err.Error(), "no priceImpactPct") || !strings.Contains(err.Error(), "max_price_impact_pct 1.5%") {
		t.Fatalf("a limit of 1.5%%: %v", err)
	}
	if bps, err := writekind.PriceImpactBps(&executor.Quote{PriceImpactPct: "0.0123"}, 150); err != nil || bps != 123 {
		t.Fatalf("a known impact: %d %v", bps, err)
	}
}
