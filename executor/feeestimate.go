package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// Where a transaction's unit price comes from (FeeSettings.Source).
//
// The standard getRecentPrioritizationFees answers, per slot, the *minimum*
// fee that landed for the accounts asked about: often zero, and a percentile
// of it under-bids what transactions actually pay. Providers that serve a
// real estimate are used when the RPC answers them:
//   - Helius' getPriorityFeeEstimate: params [{"accountKeys":[...],
//     "options":{"priorityLevel":"High"}}], answer {"priorityFeeEstimate": N}
//     micro-lamports per unit (levels Low/Medium/High/VeryHigh/UnsafeMax are
//     p25/p50/p75/p95/p100 of fees paid);
//   - Triton's percentile option: getRecentPrioritizationFees params
//     [[...], {"percentile": P}] with P in 1..10000 (5000 = the median),
//     answered per slot as the percentile of the fees paid, in the standard
//     shape.
//
// Otherwise the standard method: the percentile over the slots that had any
// fee for the accounts, and over the global market (no accounts), the larger.
//
// A source is proven, never guessed: auto uses Helius only when the RPC
// answers Helius' own method, and otherwise the standard method. Triton's
// percentile is used only when the operator names Triton: its answer has
// the standard method's shape, so a node that ignores the parameter answers
// as if it were Triton, with the per-slot minimums (mostly zero), and a
// transaction priced on them fails to land under congestion.
const (
	FeeSourceAuto     = "auto"     // Helius when its method answers, else standard
	FeeSourceStandard = "standard" // getRecentPrioritizationFees, accounts and global
	FeeSourceHelius   = "helius"   // getPriorityFeeEstimate
	FeeSourceTriton   = "triton"   // getRecentPrioritizationFees with the percentile option
)

// marketPrice is the unit price (micro-lamports per unit) the market asks
// for transactions writing these accounts, and where it came from. An RPC
// that cannot say means no priority fee, never a failure.
func (e *Executor) marketPrice(ctx context.Context, accounts []solana.PublicKey, p int) (uint64, string) {
	if len(accounts) > 128 {
		accounts = accounts[:128] // the methods take at most 128
	}
	src := e.opts.Fees.Source
	if src == "" || src == FeeSourceAuto {
		if known := e.feeSource.Load(); known != nil {
			src = *known
		} else {
			return e.probeMarket(ctx, accounts, p)
		}
	}
	var (
		price uint64
		text  string
		err   error
	)
	switch src {
	case FeeSourceHelius:
		price, text, err = e.heliusPrice(ctx, accounts, p)
	case FeeSourceTriton:
		price, text, err = e.tritonPrice(ctx, accounts, p)
	default:
		return e.standardPrice(ctx, accounts, p)
	}
	if err != nil {
		return 0, "no priority fee: " + err.Error()
	}
	return price, text
}

// probeMarket asks Helius' own method, and uses and remembers Helius when
// it answers with an estimate, so later transactions ask once. An RPC that
// answers the method with a JSON-RPC error does not serve it: the standard
// method is remembered. Any other failure (transport, timeout, an answer
// without a usable estimate) proves nothing: this transaction is priced by
// the standard method and the next one asks again. Triton is never probed
// (see FeeSourceAuto).
func (e *Executor) probeMarket(ctx context.Context, accounts []solana.PublicKey, p int) (uint64, string) {
	price, text, err := e.heliusPrice(ctx, accounts, p)
	if err == nil {
		src := FeeSourceHelius
		e.feeSource.Store(&src)
		return price, text
	}
	var rpcErr *jsonrpc.RPCError
	if errors.As(err, &rpcErr) {
		src := FeeSourceStandard
		e.feeSource.Store(&src)
	}
	return e.standardPrice(ctx, accounts, p)
}

func keyStrings(keys []solana.PublicKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = KeyString(k)
	}
	return out
}

// heliusLevel is Helius' priority level for a percentile.
func heliusLevel(p int) string {
	switch {
	case p <= 25:
		return "Low"
	case p <= 50:
		return "Medium"
	case p <= 75:
		return "High"
	case p <= 95:
		return "VeryHigh"
	}
	return "UnsafeMax"
}

func (e *Executor) heliusPrice(ctx context.Context, accounts []solana.PublicKey, p int) (uint64, string, error) {
	q := heliusQuestion(accounts, p)
	return q.read(e.client.askInTurn(ctx, q.calls))
}

func (e *Executor) tritonPrice(ctx context.Context, accounts []solana.PublicKey, p int) (uint64, string, error) {
	q := tritonQuestion(accounts, p)
	return q.read(e.client.askInTurn(ctx, q.calls))
}

// marketCall is one JSON-RPC call of a fee-market question, and
// marketAnswer its answer: the raw result, or why there is none.
type marketCall struct {
	method string
	params []any
}

type marketAnswer struct {
	result json.RawMessage
	err    error
}

// marketQuestion is a fee-market question as calls that need nothing but
// the transaction's accounts, so they can ride in the effects engine's
// batch (besideBatch), and how to read their answers (in order).
type marketQuestion struct {
	calls []marketCall
	read  func([]marketAnswer) (uint64, string, error)
}

// marketQuestion is the question the settings ask of the source already
// known; ok is false when there is none to ask in a batch (a fixed fee, or
// an auto source not probed yet: the probe asks the long way).
func (e *Executor) marketQuestion(accounts []solana.PublicKey) (q marketQuestion, ok bool) {
	s := e.opts.Fees
	if s.Fixed {
		return marketQuestion{}, false
	}
	if len(accounts) > 128 {
		accounts = accounts[:128] // the methods take at most 128
	}
	src := s.Source
	if src == "" || src == FeeSourceAuto {
		known := e.feeSource.Load()
		if known == nil {
			return marketQuestion{}, false
		}
		src = *known
	}
	p := s.Percentile
	switch src {
	case FeeSourceHelius:
		q = heliusQuestion(accounts, p)
	case FeeSourceTriton:
		q = tritonQuestion(accounts, p)
	default:
		q = standardQuestion(accounts, p)
	}
	read := q.read
	// As marketPrice answers: a source that fails means no priority fee.
	q.read = func(a []marketAnswer) (uint64, string, error) {
		price, text, err := read(a)
		if err != nil && src != FeeSourceStandard {
			return 0, "no priority fee: " + err.Error(), nil
		}
		return price, text, err
	}
	return q, true
}

func heliusQuestion(accounts []solana.PublicKey, p int) marketQuestion {
	level := heliusLevel(p)
	params := []any{map[string]any{"accountKeys": keyStrings(accounts), "options": map[string]any{"priorityLevel": level}}}
	return marketQuestion{
		calls: []marketCall{{"getPriorityFeeEstimate", params}},
		read: func(a []marketAnswer) (uint64, string, error) {
			var out struct {
				PriorityFeeEstimate *float64 `json:"priorityFeeEstimate"`
			}
			if err := a[0].decode(&out); err != nil {
				return 0, "", fmt.Errorf("getPriorityFeeEstimate failed (%w)", err)
			}
			f := out.PriorityFeeEstimate
			if f == nil || math.IsNaN(*f) || *f < 0 || *f > float64(math.MaxUint32)*1e3 {
				return 0, "", errors.New("getPriorityFeeEstimate gave no usable priorityFeeEstimate")
			}
			return uint64(math.Ceil(*f)), fmt.Sprintf("Helius getPriorityFeeEstimate, %s", level), nil
		},
	}
}

type slotFee struct {
	Slot              uint64 `json:"slot"`
	PrioritizationFee uint64 `json:"prioritizationFee"`
}

func tritonQuestion(accounts []solana.PublicKey, p int) marketQuestion {
	params := []any{keyStrings(accounts), map[string]any{"percentile": p * 100}}
	return marketQuestion{
		calls: []marketCall{{"getRecentPrioritizationFees", params}},
		read: func(a []marketAnswer) (uint64, string, error) {
			out, err := a[0].slotFees()
			if err != nil {
				return 0, "", fmt.Errorf("getRecentPrioritizationFees with a percentile failed (%w)", err)
			}
			fee, n, ok := percentile(slotFees(out), p)
			if !ok {
				return 0, fmt.Sprintf("no priority fee: Triton's p%d is zero in all %d slots", p, len(out)), nil
			}
			return fee, fmt.Sprintf("Triton p%d of fees paid, p%d over %d slots", p, p, n), nil
		},
	}
}

// decode reads the answer into out, or returns why there is none.
func (a marketAnswer) decode(out any) error {
	if a.err != nil {
		return a.err
	}
	if len(a.result) == 0 {
		return errors.New("no answer")
	}
	if err := json.Unmarshal(a.result, out); err != nil {
		return fmt.Errorf("could not decode the answer: %w", err)
	}
	return nil
}

// askInTurn makes calls one after another, outside any batch.
func (c *Client) askInTurn(ctx context.Context, calls []marketCall) []marketAnswer {
	out := make([]marketAnswer, len(calls))
	for i, call := range calls {
		out[i].err = c.rpc.RPCCallForInto(ctx, &out[i].result, call.method, call.params)
	}
	return out
}

func slotFees(in []slotFee) []uint64 {
	out := make([]uint64, len(in))
	for i, f := range in {
		out[i] = f.PrioritizationFee
	}
	return out
}

// standardPrice takes the percentile of the non-zero per-slot minimums for
// the accounts and for the global market, and bids the larger: the
// accounts' minimums alone are mostly zero on a busy cluster.
func (e *Executor) standardPrice(ctx context.Context, accounts []solana.PublicKey, p int) (uint64, string) {
	q := standardQuestion(accounts, p)
	// Both questions at once: the second costs no extra round trip of wait.
	answers := make([]marketAnswer, len(q.calls))
	var asked sync.WaitGroup
	for i := 1; i < len(q.calls); i++ {
		asked.Go(func() { answers[i] = e.client.askInTurn(ctx, q.calls[i:i+1])[0] })
	}
	answers[0] = e.client.askInTurn(ctx, q.calls[:1])[0]
	asked.Wait()
	price, text, _ := q.read(answers)
	return price, text
}

// standardQuestion asks getRecentPrioritizationFees for the accounts and,
// when there are any, for the global market. Its reader never fails: an
// RPC that cannot say means no priority fee.
func standardQuestion(accounts []solana.PublicKey, p int) marketQuestion {
	calls := []marketCall{{"getRecentPrioritizationFees", []any{}}}
	if len(accounts) > 0 {
		calls = []marketCall{{"getRecentPrioritizationFees", []any{keyStrings(accounts)}}, calls[0]}
	}
	return marketQuestion{calls: calls, read: func(a []marketAnswer) (uint64, string, error) {
		price, text := standardFrom(a, p)
		return price, text, nil
	}}
}

func standardFrom(a []marketAnswer, p int) (uint64, string) {
	fees := func(a marketAnswer) ([]uint64, error) {
		out, err := a.slotFees()
		if err != nil {
			return nil, err
		}
		return slotFees(out), nil
	}
	fail := func(err error) (uint64, string) {
		var rpcErr *jsonrpc.RPCError
		if errors.As(err, &rpcErr) && rpcErr.Code == -32601 {
			return 0, "no priority fee: the RPC does not serve getRecentPrioritizationFees, standard method"
		}
		return 0, "no priority fee: getRecentPrioritizationFees failed (" + rpcErrorText(err) + "), standard method"
	}
	mine, err := fees(a[0])
	if err != nil {
		return fail(err)
	}
	global := mine
	if len(a) > 1 {
		if global, err = fees(a[1]); err != nil {
			return fail(err)
		}
	}
	if len(mine) == 0 && len(global) == 0 {
		return 0, "no priority fee: the node reported no recent fees, standard method"
	}
	am, na, okA := percentile(mine, p)
	g, ng, okG := percentile(global, p)
	switch {
	case !okA && !okG:
		return 0, fmt.Sprintf("no priority fee: no recent non-zero fees among %d slots, standard method", max(len(mine), len(global)))
	case okA && (!okG || am >= g):
		return am, fmt.Sprintf("p%d of %d recent fees for its accounts, standard method", p, na)
	}
	return g, fmt.Sprintf("p%d of %d recent fees of the global market, standard method", p, ng)
}
