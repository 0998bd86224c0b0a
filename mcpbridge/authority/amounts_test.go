package authority_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/authority"
)

// Amounts near 2^64, sent by an agent through the real bridge: an amount
// whose sum with the fee does not fit in 64 bits is denied plainly ("amount
// too large", rule amount) and never wraps into a small number that another
// rule judges; the others meet the per-transfer cap. Nothing reaches the
// ledger or the proposal table. The amounts are the edges plus random ones
// from the top 10000 lamports (seeded, so a failure can be replayed).
func TestAmountsNear2To64AreDeniedPlainly(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) {
		o.Policy.BreakerDenials = 1 << 20
		// Many attempts from one process; flood control has tests of its own.
		o.ProposalsPerMinute, o.MaxPendingPerUID = 1<<20, 1<<20
	})
	a := startAgent(t, w.socket)
	walletBefore, executedBefore := w.balance(t, w.wallet), w.executed(t)

	const fee = 5000 // the pre-check's per-signature fee
	amounts := []uint64{math.MaxUint64, math.MaxUint64 - fee, math.MaxUint64 - fee + 1, 18446744073709546616, math.MaxUint64 - fee - 1, 1 << 63}
	seed := uint64(rand.Int64())
	r := rand.New(rand.NewPCG(seed, 0))
	for range 20 {
		amounts = append(amounts, math.MaxUint64-r.Uint64N(10_000))
	}
	for _, n := range amounts {
		overflows := n > math.MaxUint64-fee
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": strconv.FormatUint(n, 10)}},
			{"swap", map[string]any{"input_mint": "So11111111111111111111111111111111111111112", "output_mint": w.ledger.DemoMints().USDC.Mint,
				"amount": strconv.FormatUint(n, 10), "slippage_bps": 50}},
		} {
			ans := a.Call(call.tool, call.args)
			rule, _ := ans.Structured["rule"].(string)
			reason, _ := ans.Structured["reason"].(string)
			if ans.Status() != "denied" || ans.IsError {
				t.Fatalf("seed %d: %s %d: %+v", seed, call.tool, n, ans)
			}
			switch {
			case overflows && (rule != "amount" || !strings.HasPrefix(reason, "amount too large")):
				t.Errorf("seed %d: %s %d overflows with the fee but was denied by %s: %s", seed, call.tool, n, rule, reason)
			case !overflows && rule != "max_sol_per_tx":
				t.Errorf("seed %d: %s %d fits with the fee but was denied by %s: %s", seed, call.tool, n, rule, reason)
			}
			if ans.Structured["retryable"] != false {
				t.Errorf("%s %d: retryable %v", call.tool, n, ans.Structured["retryable"])
			}
		}
	}
	var proposals int
	if err := w.store.DB().QueryRow(`SELECT COUNT(*) FROM proposals`).Scan(&proposals); err != nil || proposals != 0 {
		t.Errorf("proposals stored: %d (%v)", proposals, err)
	}
	var denied int
	if err := w.store.DB().QueryRow(`SELECT COUNT(*) FROM audit WHERE kind = 'auto_denied' AND body LIKE '%amount too large%'`).Scan(&denied); err != nil || denied == 0 {
		t.Errorf("audited amount denials: %d (%v)", denied, err)
	}
	if w.balance(t, w.wallet) != walletBefore || w.executed(t) != executedBefore {
		t.Error("a denied amount moved funds")
	}
}
