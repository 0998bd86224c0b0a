package executor

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// A preview needs the compute budget before its bytes exist (the limit and
// the price are instructions in them), and the budget comes from a
// measuring simulation and the fee market: a round trip before the round
// that simulates the exact bytes. Transactions of one shape (a SOL
// transfer, a token transfer to an existing account) consume the same
// units every time, so a preview may build on the budget the last preview
// of that shape measured, ask the fee market beside the exact simulation,
// and keep the result only when it is exactly what measuring first would
// have built:
//   - the exact simulation consumed the units that budget was measured
//     against, and
//   - the fresh market price gives the same limit and price.
//
// Otherwise (or on any error) the forecast is forgotten and the preview is
// measured the long way. Execution never forecasts: it measures, then holds
// the result to the approved budget.

// forecast is what the last measured preview of a shape was built with.
type forecast struct {
	budget Budget // Source is refreshed from each market answer
	units  uint64 // what the exact simulation of those bytes consumed
}

type forecasts struct {
	mu sync.Mutex
	m  map[string]forecast
}

// maxForecasts bounds the table; previews of many shapes start over.
const maxForecasts = 256

func (f *forecasts) get(key string) (forecast, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.m[key]
	return v, ok
}

func (f *forecasts) put(key string, v forecast) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil || len(f.m) >= maxForecasts {
		f.m = map[string]forecast{}
	}
	f.m[key] = v
}

func (f *forecasts) forget(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m, key)
}

// shapeKey names what decides a transaction's compute: each instruction's
// program, account count, data length and leading data bytes (the
// instruction's tag: four bytes for the System program, one for the token
// programs and the others solgate builds), never its amounts or addresses.
// A wrong guess costs a forecast miss, not a wrong budget: the exact
// simulation checks it.
func shapeKey(ixs []solana.Instruction) string {
	var b []byte
	for _, ix := range ixs {
		program := ix.ProgramID()
		b = append(b, program.Bytes()...)
		data, _ := ix.Data()
		b = binary.LittleEndian.AppendUint32(b, uint32(len(ix.Accounts())))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
		tag := 1
		if program.Equals(solana.SystemProgramID) {
			tag = 4
		}
		b = append(b, data[:min(len(data), tag)]...)
	}
	return string(b)
}

// budgetedSimulation builds ixs behind their compute budget and simulates
// the exact bytes through the effects engine: budgeted then simulate, in
// one round when a preview's forecast holds. preview.Budget is set.
//
// extra, when not nil, are reads asked in the round that simulates the
// exact bytes (besideBatch); its answers are set once that round is done.
func (e *Executor) budgetedSimulation(ctx context.Context, what string, ixs []solana.Instruction, maxAge time.Duration, approved *Budget, extra *besideBatch) (*solana.Transaction, Budget, rpc.LatestBlockhashResult, Preview, simulation, error) {
	forecastable := maxAge > 0 && approved == nil
	key := ""
	if forecastable {
		key = shapeKey(ixs)
		if f, ok := e.forecasts.get(key); ok {
			tx, b, bh, preview, sim, err := e.forecastSimulation(ctx, what, ixs, maxAge, f, extra)
			if err == nil {
				return tx, b, bh, preview, sim, nil
			}
			// A miss, or an error that the long way will report with its
			// own measure: nothing of the forecast's attempt is used.
			e.forecasts.forget(key)
		}
	}
	tx, budget, bh, err := e.budgeted(ctx, what, ixs, maxAge, approved)
	if err != nil {
		return nil, Budget{}, bh, Preview{}, simulation{}, err
	}
	preview, sim, err := e.simulate(ctx, tx, budget.PriorityFee, extra)
	if err != nil {
		return nil, Budget{}, bh, Preview{}, sim, err
	}
	preview.Budget = budget
	if forecastable {
		e.forecasts.put(key, forecast{budget: budget, units: sim.UnitsConsumed})
	}
	return tx, budget, bh, preview, sim, nil
}

// forecastMiss: the forecast budget is not what measuring would build.
type forecastMiss struct{}

func (forecastMiss) Error() string { return "forecast budget does not hold" }

// forecastSimulation builds on f's budget and simulates the exact bytes
// while the fee market is asked; the result stands only when f holds.
func (e *Executor) forecastSimulation(ctx context.Context, what string, ixs []solana.Instruction, maxAge time.Duration, f forecast, extra *besideBatch) (*solana.Transaction, Budget, rpc.LatestBlockhashResult, Preview, simulation, error) {
	bh, err := e.recent.get(ctx, e.client, maxAge)
	if err != nil {
		return nil, Budget{}, bh, Preview{}, simulation{}, err
	}
	tx, err := solana.NewTransaction(append(budgetInstructions(f.budget), ixs...), bh.Blockhash, solana.TransactionPayer(e.key.PublicKey()))
	if err != nil {
		return nil, Budget{}, bh, Preview{}, simulation{}, fmt.Errorf("prepare %s: build transaction: %w", what, err)
	}
	// The fee market rides in the simulation's batch when its source is
	// known: one request to the node, not three.
	beside := extra
	var market func() (uint64, string)
	if q, ok := e.marketQuestion(writableAccounts(tx)); ok {
		// The market's calls first, then the extra ones.
		beside = &besideBatch{calls: append(slices.Clone(q.calls), extra.list()...)}
		n := len(q.calls)
		market = func() (uint64, string) {
			if len(beside.answers) != len(beside.calls) {
				return 0, "no priority fee: the fee market was not asked"
			}
			if extra != nil {
				extra.answers = beside.answers[n:]
			}
			price, source, _ := q.read(beside.answers[:n])
			return price, source
		}
	} else {
		market = e.startMarket(ctx, writableAccounts(tx))
	}
	preview, sim, err := e.simulate(ctx, tx, f.budget.PriorityFee, beside)
	price, source := market()
	if err != nil {
		return nil, Budget{}, bh, Preview{}, sim, err
	}
	b := e.priced(f.budget.Units, f.budget.UnitLimit, price, source)
	if sim.UnitsConsumed != f.units || b.UnitLimit != f.budget.UnitLimit || b.UnitPrice != f.budget.UnitPrice || b.PriorityFee != f.budget.PriorityFee {
		return nil, Budget{}, bh, Preview{}, sim, forecastMiss{}
	}
	preview.Budget = b
	return tx, b, bh, preview, sim, nil
}
