package executor

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

// A transfer with a memo: the memo is the SPL Memo program (v2, the id as
// the Solana Program Library publishes it), named in the preview with its
// text, and it moves nothing.
func TestTransferMemoIsDescribedAndMovesNothing(t *testing.T) {
	payer, to := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	ixs := withMemo([]solana.Instruction{system.NewTransferInstruction(7, payer, to).Build()}, "solgate p_abc")
	tx, err := solana.NewTransaction(ixs, solana.Hash{1}, solana.TransactionPayer(payer))
	if err != nil {
		t.Fatal(err)
	}
	got := describeInstructions(tx)
	if len(got) != 2 {
		t.Fatalf("%d instructions described, want 2: %+v", len(got), got)
	}
	m := got[1]
	if m.Program.String() != "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" || m.Name != "Memo" || m.LamportsOut != 0 {
		t.Errorf("memo instruction: %+v", m)
	}
	if !strings.Contains(m.Summary, `memo "solgate p_abc"`) || !strings.Contains(m.Summary, "moves nothing") {
		t.Errorf("memo summary %q", m.Summary)
	}
	if got[0].LamportsOut != 7 {
		t.Errorf("the transfer's outflow %d, want 7", got[0].LamportsOut)
	}
	// No memo, no instruction.
	if n := len(withMemo([]solana.Instruction{system.NewTransferInstruction(7, payer, to).Build()}, "")); n != 1 {
		t.Errorf("an empty memo added an instruction (%d)", n)
	}
}

// A memo someone else wrote is quoted only when it is short printable
// ASCII; anything else is described by its size.
func TestMemoTextIsShownOnlyWhenPlain(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"order 42", `memo "order 42"`},
		{"\x1b[31mMAINNET", "memo of 12 bytes, text not shown"},
		{strings.Repeat("a", MaxMemoBytes+1), "memo of 65 bytes, text not shown"},
		{"\u202eevil", "memo of 7 bytes, text not shown"},
	} {
		if got := describeMemo(nil, []byte(c.data)); !strings.HasPrefix(got, c.want) {
			t.Errorf("describeMemo(%q) = %q, want prefix %q", c.data, got, c.want)
		}
	}
}

// solgate never builds a memo it would not show as it is.
func TestTransferRefusesAnUnwritableMemo(t *testing.T) {
	key, _ := NewRandomKeypair()
	e := &Executor{key: key}
	to := solana.NewWallet().PublicKey()
	for _, memo := range []string{strings.Repeat("x", 65), "line\nbreak", "\xff"} {
		if err := e.checkTransfer(Transfer{To: to, Lamports: 1, Memo: memo}); err == nil {
			t.Errorf("memo %q accepted", memo)
		}
		if err := e.checkTokenTransfer(TokenTransfer{Mint: solana.NewWallet().PublicKey(), To: to, Amount: 1, Memo: memo}); err == nil {
			t.Errorf("token transfer memo %q accepted", memo)
		}
	}
	if err := e.checkTransfer(Transfer{To: to, Lamports: 1, Memo: "solgate p_1234567890"}); err != nil {
		t.Errorf("a proposal memo refused: %v", err)
	}
}
