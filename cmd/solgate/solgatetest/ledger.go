package solgatetest

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// OwnerTokens reads every token account owner holds of mint straight from the
// ledger (never through solgate) and sums their amounts; n is how many
// accounts there are. The amount is bytes 64..72 of an SPL token account, the
// same in Token-2022's base layout.
func OwnerTokens(t testing.TB, chain *rpc.Client, owner solana.PublicKey, mint string) (sum uint64, n int) {
	t.Helper()
	m := solana.MustPublicKeyFromBase58(mint)
	out, err := chain.GetTokenAccountsByOwner(context.Background(), owner, &rpc.GetTokenAccountsConfig{Mint: &m},
		&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatalf("getTokenAccountsByOwner: %v", err)
	}
	for _, a := range out.Value {
		sum += binary.LittleEndian.Uint64(a.Account.Data.GetBinary()[64:72])
	}
	return sum, len(out.Value)
}
