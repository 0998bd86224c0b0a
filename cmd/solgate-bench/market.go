package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The market section: how many swap approvals a moving market wastes. Each
// trial proposes a SOL→USDC swap at 1% slippage; the human approves after a
// delay drawn uniformly from 1–30 s, during which the pool's price walks
// randomly by 0.1% a second (each second ±10 bps, either way with equal
// odds); then the swap executes. The walk's net move is applied to the pool
// as one tick just before execution: between approval and execution nothing
// else reads the pool, so only the net move matters, and the bench does not
// wait the delay in real time. A delay past the approval token's lifetime
// would expire; 30 s is well inside the swap token's 2 minutes.
const (
	marketSlippageBps = 100 // the 1% slippage setting of the goal
	marketStepBps     = 10  // 0.1% per second
	marketMaxDelayS   = 30
	marketWasteGoal   = 5 // % of approvals wasted, at most
)

type marketTally struct {
	executed, priceRefused, expired, other int
	others                                 []string
}

func measureMarket(ctx context.Context, w *world, n int, seed uint64) ([]row, error) {
	con, err := w.startConsole(ctx)
	if err != nil {
		return nil, err
	}
	defer con.close()
	a, err := startAgent(ctx, w.bin, con.socket, "bench-market")
	if err != nil {
		return nil, err
	}
	defer a.close()
	usdc, wsol := w.ledger.DemoMints().USDC.Mint, w.ledger.DemoMints().WSOL
	rng := rand.New(rand.NewPCG(seed, 23))
	var t marketTally
	for i := 0; i < n; i++ {
		args := map[string]any{"input_mint": wsol, "output_mint": usdc, "amount": 10_000_000 + i, "slippage_bps": marketSlippageBps}
		prop, err := a.call(ctx, "swap", args)
		if err != nil {
			return nil, err
		}
		if prop.status() != "pending_approval" {
			return nil, fmt.Errorf("swap proposal %d: %s", i, prop.text)
		}
		delay := 1 + rng.IntN(marketMaxDelayS)
		drift := 0
		for s := 0; s < delay; s++ {
			if rng.IntN(2) == 0 {
				drift += marketStepBps
			} else {
				drift -= marketStepBps
			}
		}
		p, err := con.authority.Approve(prop.str("proposal_id"), "bench")
		if err != nil {
			return nil, err
		}
		if drift != 0 {
			if _, err := w.ledger.TickPool(ctx, usdc, drift); err != nil {
				return nil, err
			}
		}
		args["confirm"] = p.Token
		done, err := a.call(ctx, "swap", args)
		if err != nil {
			return nil, err
		}
		switch {
		case done.status() == "executed":
			t.executed++
		case strings.Contains(done.text, "price moved beyond the approved minimum"):
			t.priceRefused++
		case done.status() == "expired" || strings.Contains(done.text, "expired"):
			t.expired++
		default:
			t.other++
			if len(t.others) < 3 {
				t.others = append(t.others, done.status()+": "+done.text)
			}
		}
		// Undo the walk, so every trial starts from the same price.
		if drift != 0 {
			if _, err := w.ledger.TickPool(ctx, usdc, -drift); err != nil {
				return nil, err
			}
		}
	}
	wasted := float64(n-t.executed) * 100 / float64(n)
	note := fmt.Sprintf("%d executed, %d refused for price, %d expired, %d other; delay 1–%d s, walk ±%d bps/s, slippage %d bps",
		t.executed, t.priceRefused, t.expired, t.other, marketMaxDelayS, marketStepBps, marketSlippageBps)
	if len(t.others) > 0 {
		note += "; other: " + strings.Join(t.others, " | ")
	}
	return []row{singleRow("swap approvals wasted by a moving market", n, "%", wasted,
		&goal{Stat: "value", Op: "<", Limit: marketWasteGoal, Text: fmt.Sprintf("< %d %%", marketWasteGoal)}, note)}, nil
}
