package localnet_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
)

// getSignaturesForAddress answers from the ledger's landed transactions:
// the ones naming the address, newest first, at confirmed commitment one
// slot after landing; limit and before page through them; an address no
// transaction named has none.
func TestSignaturesForAddressNewestFirstAndPaged(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, 2*sol)
	to := solana.NewWallet().PublicKey()
	var sent []solana.Signature
	for i := uint64(1); i <= 3; i++ {
		sig, err := c.SendTransactionWithOpts(ctxT(t), transferTx(t, c, from, to, i*sol/100, nil), rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed)
		sent = append(sent, sig)
	}
	confirmed := &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed}
	got, err := c.GetSignaturesForAddressWithOpts(ctxT(t), to, confirmed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Signature != sent[2] || got[1].Signature != sent[1] || got[2].Signature != sent[0] || got[0].Err != nil || got[0].Slot < got[2].Slot {
		t.Fatalf("history of the recipient: %+v", got)
	}
	one := 1
	page, err := c.GetSignaturesForAddressWithOpts(ctxT(t), to, &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed, Limit: &one, Before: sent[2]})
	if err != nil || len(page) != 1 || page[0].Signature != sent[1] {
		t.Fatalf("one before the newest: %+v %v", page, err)
	}
	none, err := c.GetSignaturesForAddressWithOpts(ctxT(t), solana.NewWallet().PublicKey(), confirmed)
	if err != nil || len(none) != 0 {
		t.Fatalf("a stranger's history: %+v %v", none, err)
	}
	if _, err := c.GetSignaturesForAddressWithOpts(ctxT(t), to, &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentProcessed}); err == nil {
		t.Fatal("processed commitment was accepted")
	}
}
