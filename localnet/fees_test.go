package localnet_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
)

// getRecentPrioritizationFees in the shape Solana's RPC documentation
// publishes: a bare array of objects with the fields "slot" and
// "prioritizationFee" (micro-lamports per compute unit), read here as raw
// JSON so a renamed field fails. Per slot, the highest fee that applies to
// the accounts asked about.
func TestRecentPrioritizationFeesShapeAndTable(t *testing.T) {
	l, _ := start(t, localnet.Options{})
	hot, cold := solana.NewWallet().PublicKey().String(), solana.NewWallet().PublicKey().String()
	var raw json.RawMessage
	if err := l.Call(ctxT(t), "getRecentPrioritizationFees", []any{[]string{hot}}, &raw); err != nil || string(raw) != "[]" {
		t.Fatalf("idle cluster: %s %v, want []", raw, err)
	}
	if err := l.SetPrioritizationFees(ctxT(t), localnet.FeeMarket{Fees: []uint64{5, 0, 7}, Accounts: map[string][]uint64{hot: {100, 0, 300}}}); err != nil {
		t.Fatal(err)
	}
	fees := func(accounts ...string) []uint64 {
		t.Helper()
		var entries []map[string]json.Number
		if err := l.Call(ctxT(t), "getRecentPrioritizationFees", []any{accounts}, &entries); err != nil {
			t.Fatal(err)
		}
		var out []uint64
		var last int64 = -1
		for _, e := range entries {
			if len(e) != 2 || e["slot"] == "" || e["prioritizationFee"] == "" {
				t.Fatalf("entry %v: want exactly slot and prioritizationFee", e)
			}
			slot, _ := e["slot"].Int64()
			if slot <= last {
				t.Errorf("slots not ascending: %v", entries)
			}
			last = slot
			f, _ := e["prioritizationFee"].Int64()
			out = append(out, uint64(f))
		}
		return out
	}
	for _, tc := range []struct {
		accounts []string
		want     string
	}{
		{nil, "[5 0 7]"},
		{[]string{cold}, "[5 0 7]"},
		{[]string{hot}, "[100 0 300]"},
		{[]string{cold, hot}, "[100 0 300]"},
	} {
		if got := fmt.Sprint(fees(tc.accounts...)); got != tc.want {
			t.Errorf("accounts %v: fees %s, want %s", tc.accounts, got, tc.want)
		}
	}

	// More than 128 accounts is refused, as on real nodes.
	many := make([]string, 129)
	for i := range many {
		many[i] = hot
	}
	if err := l.Call(ctxT(t), "getRecentPrioritizationFees", []any{many}, nil); err == nil || !strings.Contains(err.Error(), "max 128") {
		t.Errorf("129 accounts: %v", err)
	}
	// An RPC without the method.
	if err := l.SetPrioritizationFees(ctxT(t), localnet.FeeMarket{Unsupported: true}); err != nil {
		t.Fatal(err)
	}
	var re *localnet.RPCError
	if err := l.Call(ctxT(t), "getRecentPrioritizationFees", []any{}, nil); !errors.As(err, &re) || re.Code != -32601 {
		t.Errorf("unsupported: %v, want -32601", err)
	}
	if s := stats(t, l); s.PrioritizationFeeQueries != 6 { // the 129-account call is refused before counting
		t.Errorf("counted %d queries, want 6", s.PrioritizationFeeQueries)
	}
}

// Extra compute units: the simulation reports them, and past the
// transaction's limit fails as a node does, ComputationalBudgetExceeded.
func TestExtraComputeUnitsInSimulation(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	tx := transferTx(t, c, from, solana.NewWallet().PublicKey(), sol/10, nil)
	units := func() (uint64, any) {
		t.Helper()
		sim, err := c.SimulateTransactionWithOpts(ctxT(t), tx, &rpc.SimulateTransactionOpts{})
		if err != nil || sim.Value.UnitsConsumed == nil {
			t.Fatal(err)
		}
		return *sim.Value.UnitsConsumed, sim.Value.Err
	}
	base, err := units()
	if err != nil || base != 150 {
		t.Fatalf("a system transfer used %d units (err %v), want 150", base, err)
	}
	if err := l.SetExtraComputeUnits(ctxT(t), 1000); err != nil {
		t.Fatal(err)
	}
	if got, err := units(); err != nil || got != 1150 {
		t.Errorf("with 1000 extra: %d units, err %v", got, err)
	}
	// No SetComputeUnitLimit: the limit is 200 000 for the one instruction.
	if err := l.SetExtraComputeUnits(ctxT(t), 200_000); err != nil {
		t.Fatal(err)
	}
	got, simErr := units()
	if e, _ := json.Marshal(simErr); got != 200_000 || string(e) != `{"InstructionError":[0,"ComputationalBudgetExceeded"]}` {
		t.Errorf("past the limit: %d units, err %s", got, e)
	}
}
