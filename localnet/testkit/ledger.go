package testkit

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
)

// StartLedger starts a local ledger for one test (at mainnet's pace unless
// opts asks for another, localnet.FastSlotMS by name), stops it when the
// test ends, and returns it with an RPC client. Without node on PATH the
// test is skipped, saying so.
func StartLedger(t testing.TB, opts localnet.Options) (*localnet.Ledger, *rpc.Client) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("requires node (Node.js 20+) on PATH for the local ledger")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l, err := localnet.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l, rpc.New(l.RPC())
}

// Wallet is a fresh key and its keypair file.
type Wallet struct {
	Key  solana.PrivateKey
	Pub  solana.PublicKey
	File string // the key in the Solana CLI's format (a JSON array of 64 bytes), mode 0600
}

// NewWallet makes a key and writes its keypair file into a directory of the
// test's own.
func NewWallet(t testing.TB) Wallet {
	t.Helper()
	key, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	w := Wallet{Key: key, Pub: key.PublicKey(), File: filepath.Join(t.TempDir(), "id.json")}
	WriteKeyfile(t, key, w.File)
	return w
}

// FundedWallet is NewWallet with lamports airdropped to it on l.
func FundedWallet(t testing.TB, l *localnet.Ledger, lamports uint64) Wallet {
	t.Helper()
	w := NewWallet(t)
	Fund(t, l, w.Pub, lamports)
	return w
}

// Fund airdrops lamports to pub on l.
func Fund(t testing.TB, l *localnet.Ledger, pub solana.PublicKey, lamports uint64) {
	t.Helper()
	if err := l.Fund(context.Background(), pub.String(), lamports); err != nil {
		t.Fatalf("fund %s with %d lamports: %v", pub, lamports, err)
	}
}

// WriteKeyfile writes key to path as the Solana CLI does (solana-keygen):
// a JSON array of the 64 secret-key bytes, readable by its owner only.
func WriteKeyfile(t testing.TB, key solana.PrivateKey, path string) {
	t.Helper()
	nums := make([]int, len(key))
	for i, b := range key {
		nums[i] = int(b)
	}
	raw, _ := json.Marshal(nums)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Balance reads pub's lamports straight from the ledger at confirmed.
func Balance(t testing.TB, chain *rpc.Client, pub solana.PublicKey) uint64 {
	t.Helper()
	out, err := chain.GetBalance(context.Background(), pub, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("getBalance %s: %v", pub, err)
	}
	return out.Value
}

// Sends is how many transactions l has received (sendTransaction calls),
// whether or not they landed: a refusal that sent nothing leaves it as it was.
func Sends(t testing.TB, l *localnet.Ledger) uint64 {
	t.Helper()
	s, err := l.Stats(context.Background())
	if err != nil {
		t.Fatalf("ledger stats: %v", err)
	}
	return s.SendsReceived
}

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
