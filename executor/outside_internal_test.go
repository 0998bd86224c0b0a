package executor

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

// encodeMessage writes back exactly the message it decoded, legacy and v0
// (a recorded Jupiter swap with lookup tables): the binding and every
// rebuilt transaction stand on it.
func TestEncodeMessageRoundTrips(t *testing.T) {
	var swap struct {
		SwapTransaction string `json:"swapTransaction"`
	}
	if err := json.Unmarshal(fixtureBody(t, "swap.json"), &swap); err != nil {
		t.Fatal(err)
	}
	v0, err := base64.StdEncoding.DecodeString(swap.SwapTransaction)
	if err != nil {
		t.Fatal(err)
	}
	payer, to := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	legacyTx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(5, payer, to).Build()}, solana.Hash{7}, solana.TransactionPayer(payer))
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := legacyTx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string][]byte{"v0": v0, "legacy": legacy} {
		ft, err := DecodeTransaction(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := encodeMessage(ft, ft.blockhash, nil); !bytes.Equal(got, ft.MessageBytes) {
			t.Errorf("%s: re-encoded message differs from the one decoded", name)
		}
		// Another blockhash changes the message, never the binding.
		again, err := rebuildOutside(ft, solana.Hash{9}, nil)
		if err != nil {
			t.Fatalf("%s: rebuild: %v", name, err)
		}
		if again.Blockhash() != (solana.Hash{9}) || outsideBinding(again) != outsideBinding(ft) || bytes.Equal(again.MessageBytes, ft.MessageBytes) {
			t.Errorf("%s: a new blockhash should change the message and keep the binding", name)
		}
		// A compute budget put in front is a different message.
		withBudget, err := rebuildOutside(ft, ft.blockhash, budgetInstructions(Budget{UnitLimit: 1000, UnitPrice: 1}))
		if err != nil {
			t.Fatalf("%s: rebuild with budget: %v", name, err)
		}
		if outsideBinding(withBudget) == outsideBinding(ft) || len(withBudget.ixs) != len(ft.ixs)+2 {
			t.Errorf("%s: the budget was not added", name)
		}
	}
}

// Any transaction the strict decoder accepts is written back byte for byte,
// and one the wallet alone signs can be moved to another blockhash (same
// binding) or given a compute budget without a panic: a rebuild either
// decodes strictly again or is an error.
func FuzzOutsideMessage(f *testing.F) {
	var swap struct {
		SwapTransaction string `json:"swapTransaction"`
	}
	body, err := os.ReadFile("testdata/jupiter/swap.json")
	if err != nil {
		f.Fatal(err)
	}
	if err := json.Unmarshal(body, &swap); err != nil {
		f.Fatal(err)
	}
	v0, err := base64.StdEncoding.DecodeString(swap.SwapTransaction)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v0)
	payer, to := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(5, payer, to).Build()}, solana.Hash{7}, solana.TransactionPayer(payer))
	if err != nil {
		f.Fatal(err)
	}
	legacy, _ := tx.MarshalBinary()
	f.Add(legacy)
	// v0 with the recipient loaded from a table and no compute budget: a
	// budget put in front shifts every loaded index by one.
	table := solana.NewWallet().PublicKey()
	withTable, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(5, payer, to).Build()}, solana.Hash{7},
		solana.TransactionPayer(payer), solana.TransactionAddressTables(map[solana.PublicKey]solana.PublicKeySlice{table: {solana.NewWallet().PublicKey(), to}}))
	if err != nil {
		f.Fatal(err)
	}
	v0Table, _ := withTable.MarshalBinary()
	f.Add(v0Table)
	f.Fuzz(func(t *testing.T, raw []byte) {
		ft, err := DecodeTransaction(raw)
		if err != nil {
			return
		}
		if got := encodeMessage(ft, ft.blockhash, nil); !bytes.Equal(got, ft.MessageBytes) {
			t.Fatal("the message is not written back as decoded")
		}
		if ft.NumSignatures() != 1 {
			if _, err := rebuildOutside(ft, solana.Hash{1}, nil); err == nil {
				t.Fatal("a co-signed message was rebuilt")
			}
			return
		}
		moved, err := rebuildOutside(ft, solana.Hash{1}, nil)
		if err != nil {
			t.Fatalf("moving the blockhash failed: %v", err)
		}
		if outsideBinding(moved) != outsideBinding(ft) {
			t.Fatal("moving the blockhash changed the binding")
		}
		if b, err := rebuildOutside(ft, solana.Hash{1}, budgetInstructions(Budget{UnitLimit: 5000, UnitPrice: 3})); err == nil {
			// The original instructions follow the budget, on the same accounts.
			for i, ix := range ft.ixs {
				a, err := resolveAccountsNoTables(ft, ix)
				if err != nil {
					return
				}
				c, _ := resolveAccountsNoTables(b, b.ixs[i+2])
				if len(a) != len(c) {
					t.Fatalf("instruction %d lost accounts", i)
				}
				for j := range a {
					if a[j] != c[j] {
						t.Fatalf("instruction %d account %d moved from %s to %s", i, j, a[j], c[j])
					}
				}
			}
		}
	})
}

// resolveAccountsNoTables names an instruction's accounts by position:
// static keys by key, loaded ones by (table, index), which a rebuild must
// keep.
func resolveAccountsNoTables(t *ForeignTx, ix wireInstruction) ([]string, error) {
	var loaded []string
	for _, l := range t.lookups {
		for _, i := range l.writable {
			loaded = append(loaded, fmt.Sprintf("%s/w%d", l.table, i))
		}
	}
	for _, l := range t.lookups {
		for _, i := range l.readonly {
			loaded = append(loaded, fmt.Sprintf("%s/r%d", l.table, i))
		}
	}
	out := []string{t.static[ix.program].String()}
	for _, a := range ix.accounts {
		switch {
		case int(a) < len(t.static):
			out = append(out, t.static[a].String())
		case int(a)-len(t.static) < len(loaded):
			out = append(out, loaded[int(a)-len(t.static)])
		default:
			return nil, errors.New("out of range")
		}
	}
	return out, nil
}
