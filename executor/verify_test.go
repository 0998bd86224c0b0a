package executor

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// checkTransferDeltas is the last gate before "executed": a confirmed
// transaction whose balance changes differ from the request must not pass.
func TestCheckTransferDeltas(t *testing.T) {
	payer, to := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	tr := Transfer{To: to, Lamports: 1000}
	ok := []BalanceChange{{Account: payer, Pre: 10_000, Post: 10_000 - 1000 - 5000}, {Account: to, Pre: 0, Post: 1000}}
	if err := checkTransferDeltas(tr, payer, 5000, ok); err != nil {
		t.Fatalf("matching deltas refused: %v", err)
	}
	for name, changes := range map[string][]BalanceChange{
		"recipient short":   {{Account: payer, Pre: 10_000, Post: 4000}, {Account: to, Pre: 0, Post: 999}},
		"payer overcharged": {{Account: payer, Pre: 10_000, Post: 3000}, {Account: to, Pre: 0, Post: 1000}},
		"recipient absent":  {{Account: payer, Pre: 10_000, Post: 4000}},
	} {
		if err := checkTransferDeltas(tr, payer, 5000, changes); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFormatSOL(t *testing.T) {
	for in, want := range map[uint64]string{0: "0", 1: "0.000000001", 50_000_000: "0.05", 1_500_000_000: "1.5", 4_600_000_000: "4.6", 18446744073709551615: "18446744073.709551615"} {
		if got := FormatSOL(in); got != want {
			t.Errorf("FormatSOL(%d) = %s, want %s", in, got, want)
		}
	}
	if strings.Contains(FormatSOL(10), "e") {
		t.Error("scientific notation")
	}
}
