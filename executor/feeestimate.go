package executor

import (
	"context"
	"errors"
	"fmt"
	"math"

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
const (
	FeeSourceAuto     = "auto"     // Helius, else Triton, else standard: the first the RPC answers
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

// probeMarket tries Helius, then Triton, then the standard method, and
// remembers the first the RPC answered, so later transactions ask once. A
// provider that answers with a JSON-RPC error does not serve that form; any
// other failure (transport, timeout) proves nothing and is not remembered.
func (e *Executor) probeMarket(ctx context.Context, accounts []solana.PublicKey, p int) (uint64, string) {
	refused := 0
	for _, try := range []struct {
		source string
		ask    func(context.Context, []solana.PublicKey, int) (uint64, string, error)
	}{{FeeSourceHelius, e.heliusPrice}, {FeeSourceTriton, e.tritonPrice}} {
		price, text, err := try.ask(ctx, accounts, p)
		if err == nil {
			src := try.source
			e.feeSource.Store(&src)
			return price, text
		}
		var rpcErr *jsonrpc.RPCError
		if errors.As(err, &rpcErr) {
			refused++
		}
	}
	if refused == 2 {
		src := FeeSourceStandard
		e.feeSource.Store(&src)
	}
	return e.standardPrice(ctx, accounts, p)
}

func keyStrings(keys []solana.PublicKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String()
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
	level := heliusLevel(p)
	var out struct {
		PriorityFeeEstimate *float64 `json:"priorityFeeEstimate"`
	}
	params := []any{map[string]any{"accountKeys": keyStrings(accounts), "options": map[string]any{"priorityLevel": level}}}
	if err := e.client.rpc.RPCCallForInto(ctx, &out, "getPriorityFeeEstimate", params); err != nil {
		return 0, "", fmt.Errorf("getPriorityFeeEstimate failed (%w)", err)
	}
	f := out.PriorityFeeEstimate
	if f == nil || math.IsNaN(*f) || *f < 0 || *f > float64(math.MaxUint32)*1e3 {
		return 0, "", errors.New("getPriorityFeeEstimate gave no usable priorityFeeEstimate")
	}
	return uint64(math.Ceil(*f)), fmt.Sprintf("Helius getPriorityFeeEstimate, %s", level), nil
}

type slotFee struct {
	Slot              uint64 `json:"slot"`
	PrioritizationFee uint64 `json:"prioritizationFee"`
}

func (e *Executor) tritonPrice(ctx context.Context, accounts []solana.PublicKey, p int) (uint64, string, error) {
	var out []slotFee
	params := []any{keyStrings(accounts), map[string]any{"percentile": p * 100}}
	if err := e.client.rpc.RPCCallForInto(ctx, &out, "getRecentPrioritizationFees", params); err != nil {
		return 0, "", fmt.Errorf("getRecentPrioritizationFees with a percentile failed (%w)", err)
	}
	fee, n, ok := percentile(slotFees(out), p)
	if !ok {
		return 0, fmt.Sprintf("no priority fee: Triton's p%d is zero in all %d slots", p, len(out)), nil
	}
	return fee, fmt.Sprintf("Triton p%d of fees paid, p%d over %d slots", p, p, n), nil
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
	ask := func(keys []solana.PublicKey) ([]uint64, error) {
		var out []slotFee
		params := []any{}
		if len(keys) > 0 {
			params = append(params, keyStrings(keys))
		}
		if err := e.client.rpc.RPCCallForInto(ctx, &out, "getRecentPrioritizationFees", params); err != nil {
			return nil, err
		}
		return slotFees(out), nil
	}
	fail := func(err error) (uint64, string) {
		var rpcErr *jsonrpc.RPCError
		if errors.As(err, &rpcErr) && rpcErr.Code == -32601 {
			return 0, "no priority fee: the RPC does not serve getRecentPrioritizationFees"
		}
		return 0, "no priority fee: getRecentPrioritizationFees failed (" + rpcErrorText(err) + ")"
	}
	// Both questions at once: the second costs no extra round trip of wait.
	var (
		global    []uint64
		globalErr error
		asked     = make(chan struct{})
	)
	go func() {
		defer close(asked)
		if len(accounts) > 0 {
			global, globalErr = ask(nil)
		}
	}()
	mine, err := ask(accounts)
	<-asked
	if err != nil {
		return fail(err)
	}
	if len(accounts) == 0 {
		global = mine
	} else if globalErr != nil {
		return fail(globalErr)
	}
	if len(mine) == 0 && len(global) == 0 {
		return 0, "no priority fee: the node reported no recent fees"
	}
	a, na, okA := percentile(mine, p)
	g, ng, okG := percentile(global, p)
	switch {
	case !okA && !okG:
		return 0, fmt.Sprintf("no priority fee: no recent non-zero fees among %d slots", max(len(mine), len(global)))
	case okA && (!okG || a >= g):
		return a, fmt.Sprintf("p%d of %d recent fees for its accounts, standard method", p, na)
	}
	return g, fmt.Sprintf("p%d of %d recent fees of the global market, standard method", p, ng)
}
