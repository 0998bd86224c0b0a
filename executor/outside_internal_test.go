package executor

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
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
