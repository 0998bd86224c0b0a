package localnet_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	ata "github.com/gagliardetto/solana-go/programs/associated-token-account"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/mr-tron/base58"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

const (
	mainnetGenesis = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"
	devnetGenesis  = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"
	testnetGenesis = "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY"
	sol            = 1_000_000_000
)

// start runs a ledger for one test and stops it when the test ends.
func start(t *testing.T, opts localnet.Options) (*localnet.Ledger, *rpc.Client) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("localnet tests requires node (Node.js 20+) on PATH")
	}
	if opts.SlotMS == 0 {
		opts.SlotMS = localnet.FastSlotMS
	}
	if testing.Verbose() {
		opts.Stderr = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := localnet.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return l, rpc.New(l.RPC())
}

// waitSlots waits until the ledger has produced n more slots.
func waitSlots(t *testing.T, c *rpc.Client, n uint64) {
	t.Helper()
	s0, err := c.GetSlot(ctxT(t), rpc.CommitmentProcessed)
	if err != nil {
		t.Fatal(err)
	}
	if !testkit.Poll(30*time.Second, func() bool {
		s, err := c.GetSlot(ctxT(t), rpc.CommitmentProcessed)
		return err == nil && s >= s0+n
	}) {
		t.Fatalf("the ledger did not advance %d slots past %d", n, s0)
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fundedWallet creates a keypair holding lamports.
func fundedWallet(t *testing.T, l *localnet.Ledger, lamports uint64) solana.PrivateKey {
	t.Helper()
	w := solana.NewWallet()
	if err := l.Fund(ctxT(t), w.PublicKey().String(), lamports); err != nil {
		t.Fatal(err)
	}
	return w.PrivateKey
}

func transferTx(t *testing.T, c *rpc.Client, from solana.PrivateKey, to solana.PublicKey, lamports uint64, blockhash *solana.Hash) *solana.Transaction {
	t.Helper()
	var bh solana.Hash
	if blockhash != nil {
		bh = *blockhash
	} else {
		latest, err := c.GetLatestBlockhash(ctxT(t), rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		bh = latest.Value.Blockhash
	}
	tx, err := solana.NewTransaction(
		[]solana.Instruction{system.NewTransferInstruction(lamports, from.PublicKey(), to).Build()},
		bh, solana.TransactionPayer(from.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	signTx(t, tx, from)
	return tx
}

func signTx(t *testing.T, tx *solana.Transaction, keys ...solana.PrivateKey) {
	t.Helper()
	_, err := tx.Sign(func(pk solana.PublicKey) *solana.PrivateKey {
		for i := range keys {
			if keys[i].PublicKey().Equals(pk) {
				return &keys[i]
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func balance(t *testing.T, c *rpc.Client, pk solana.PublicKey) uint64 {
	t.Helper()
	b, err := c.GetBalance(ctxT(t), pk, rpc.CommitmentProcessed)
	if err != nil {
		t.Fatal(err)
	}
	return b.Value
}

// waitStatus polls getSignatureStatuses until the signature reaches want.
func waitStatus(t *testing.T, c *rpc.Client, sig solana.Signature, want rpc.ConfirmationStatusType) *rpc.SignatureStatusesResult {
	t.Helper()
	var got *rpc.SignatureStatusesResult
	reached := testkit.Poll(30*time.Second, func() bool {
		st, err := c.GetSignatureStatuses(ctxT(t), true, sig)
		if err != nil {
			t.Fatal(err)
		}
		s := st.Value[0]
		if s != nil && (s.ConfirmationStatus == want || (want == rpc.ConfirmationStatusConfirmed && s.ConfirmationStatus == rpc.ConfirmationStatusFinalized)) {
			got = s
		}
		return got != nil
	})
	if !reached {
		t.Fatalf("signature %s did not reach %s", sig, want)
	}
	return got
}

func stats(t *testing.T, l *localnet.Ledger) localnet.Stats {
	t.Helper()
	s, err := l.Stats(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func rpcError(t *testing.T, err error) *jsonrpc.RPCError {
	t.Helper()
	var re *jsonrpc.RPCError
	if !errors.As(err, &re) {
		t.Fatalf("want a JSON-RPC error, got %T %v", err, err)
	}
	return re
}

// errData returns the `data` of a JSON-RPC error as a map.
func errData(t *testing.T, re *jsonrpc.RPCError) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(re.Data)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("error data %s: %v", raw, err)
	}
	return m
}

func TestReadyLineAndCleanup(t *testing.T) {
	l, c := start(t, localnet.Options{})
	if !strings.HasPrefix(l.RPC(), "http://127.0.0.1:") {
		t.Fatalf("rpc %q is not on loopback", l.RPC())
	}
	gh, err := c.GetGenesisHash(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if gh.String() != l.GenesisHash() {
		t.Fatalf("getGenesisHash %s, ready line %s", gh, l.GenesisHash())
	}
	for _, public := range []string{mainnetGenesis, devnetGenesis, testnetGenesis} {
		if l.GenesisHash() == public {
			t.Fatalf("localnet reports a public cluster's genesis hash %s", public)
		}
	}
	if h, err := c.GetHealth(ctxT(t)); err != nil || h != "ok" {
		t.Fatalf("getHealth %q %v", h, err)
	}
	if v, err := c.GetVersion(ctxT(t)); err != nil || v.SolanaCore == "" {
		t.Fatalf("getVersion %+v %v", v, err)
	}

	pid := l.Pid()
	began := time.Now()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing stdin alone stops it: no SIGTERM/SIGKILL round needed.
	if d := time.Since(began); d > 1500*time.Millisecond {
		t.Errorf("close took %s; the server should exit as soon as its stdin closes", d)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	select {
	case <-l.Exited():
	default:
		t.Fatal("process not reaped after Close")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process %d still exists after Close (kill 0: %v)", pid, err)
	}
	if _, err := c.GetSlot(ctxT(t), ""); err == nil {
		t.Fatal("RPC still answers after Close")
	}
}

func TestGenesisHashOptions(t *testing.T) {
	for _, tc := range []struct {
		opts localnet.Options
		want string
	}{
		{localnet.Options{Network: "mainnet-beta"}, mainnetGenesis},
		{localnet.Options{Network: "devnet"}, devnetGenesis},
		{localnet.Options{GenesisHash: testnetGenesis}, testnetGenesis},
	} {
		l, c := start(t, tc.opts)
		gh, err := c.GetGenesisHash(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if gh.String() != tc.want || l.GenesisHash() != tc.want {
			t.Errorf("%+v: getGenesisHash %s, ready line %s, want %s", tc.opts, gh, l.GenesisHash(), tc.want)
		}
		l.Close()
	}
	if _, err := localnet.Start(context.Background(), localnet.Options{Network: "nonsense"}); err == nil || !strings.Contains(err.Error(), "unknown --network") {
		t.Fatalf("bad network: %v", err)
	}
}

func TestTransferLandsAndIsFoundAfterwards(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, 2*sol)
	to := solana.NewWallet().PublicKey()
	const amount = sol / 10

	tx := transferTx(t, c, from, to, amount, nil)
	sig, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	if sig != tx.Signatures[0] {
		t.Fatalf("send returned %s, want %s", sig, tx.Signatures[0])
	}
	st := waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed)
	if st.Err != nil {
		t.Fatalf("status err %v", st.Err)
	}

	// The outside world: balances read back from the ledger.
	if got := balance(t, c, to); got != amount {
		t.Fatalf("recipient balance %d, want %d", got, amount)
	}
	if got := balance(t, c, from.PublicKey()); got != 2*sol-amount-5000 {
		t.Fatalf("sender balance %d, want %d", got, 2*sol-amount-5000)
	}

	// getTransaction, json (default) encoding at confirmed commitment.
	got, err := c.GetTransaction(ctxT(t), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta == nil || got.Meta.Err != nil || got.Meta.Fee != 5000 {
		t.Fatalf("meta %+v", got.Meta)
	}
	if got.Slot != st.Slot || got.BlockTime == nil {
		t.Fatalf("slot %d (status %d), blockTime %v", got.Slot, st.Slot, got.BlockTime)
	}
	parsed, err := got.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	keys := parsed.Message.AccountKeys
	if len(keys) != 3 || !keys[0].Equals(from.PublicKey()) || !keys[1].Equals(to) {
		t.Fatalf("account keys %v", keys)
	}
	wantPre := []uint64{2 * sol, 0, 1}
	wantPost := []uint64{2*sol - amount - 5000, amount, 1}
	for i := 0; i < 2; i++ {
		if got.Meta.PreBalances[i] != wantPre[i] || got.Meta.PostBalances[i] != wantPost[i] {
			t.Fatalf("pre %v post %v, want %v %v", got.Meta.PreBalances, got.Meta.PostBalances, wantPre, wantPost)
		}
	}
	if len(got.Meta.LogMessages) == 0 || got.Meta.ComputeUnitsConsumed == nil {
		t.Fatalf("logs %v cu %v", got.Meta.LogMessages, got.Meta.ComputeUnitsConsumed)
	}

	// base64 encoding: the exact bytes that were sent.
	got64, err := c.GetTransaction(ctxT(t), sig, &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	sent, _ := tx.MarshalBinary()
	if !bytes.Equal(got64.Transaction.GetBinary(), sent) {
		t.Fatal("base64 transaction differs from the bytes sent")
	}
	dec, err := got64.Transaction.GetTransaction()
	if err != nil || dec.Signatures[0] != sig {
		t.Fatalf("decode base64 tx: %v", err)
	}

	// Default commitment is finalized, as on real nodes: visible 32 slots later.
	if !testkit.Poll(30*time.Second, func() bool {
		fin, err := c.GetTransaction(ctxT(t), sig, nil)
		if err != nil && !errors.Is(err, rpc.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil && fin.Meta.Err == nil
	}) {
		t.Fatal("transaction never visible at finalized")
	}
	waitStatus(t, c, sig, rpc.ConfirmationStatusFinalized)

	s := stats(t, l)
	if s.TransactionsExecuted != 1 || s.TransactionsFailed != 0 || s.SendsReceived != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestSimulateOverBalanceExecutesNothing(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	to := solana.NewWallet().PublicKey()
	tx := transferTx(t, c, from, to, 5*sol, nil)

	sim, err := c.SimulateTransactionWithOpts(ctxT(t), tx, &rpc.SimulateTransactionOpts{SigVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if sim.Value.Err == nil {
		t.Fatal("simulation of an over-balance transfer succeeded")
	}
	if e, _ := json.Marshal(sim.Value.Err); string(e) != `{"InstructionError":[0,{"Custom":1}]}` {
		t.Fatalf("err %s", e)
	}
	if !strings.Contains(strings.Join(sim.Value.Logs, "\n"), "insufficient lamports") {
		t.Fatalf("logs %v", sim.Value.Logs)
	}
	s := stats(t, l)
	if s.TransactionsExecuted != 0 || s.TransactionsFailed != 0 || s.Simulations != 1 {
		t.Fatalf("stats %+v", s)
	}
	if balance(t, c, from.PublicKey()) != sol {
		t.Fatal("simulation changed the sender's balance")
	}

	// replaceRecentBlockhash with an unknown blockhash, and requested accounts.
	unsigned := transferTx(t, c, from, to, sol/2, &solana.Hash{1, 2, 3})
	sim, err = c.SimulateTransactionWithOpts(ctxT(t), unsigned, &rpc.SimulateTransactionOpts{
		ReplaceRecentBlockhash: true,
		Accounts:               &rpc.SimulateTransactionAccountsOpts{Encoding: solana.EncodingBase64, Addresses: []solana.PublicKey{to}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sim.Value.Err != nil || len(sim.Value.Accounts) != 1 || sim.Value.Accounts[0].Lamports != sol/2 {
		t.Fatalf("replace simulation %+v", sim.Value)
	}
	// Without replacement the unknown blockhash is refused.
	sim, err = c.SimulateTransaction(ctxT(t), unsigned)
	if err != nil {
		t.Fatal(err)
	}
	if sim.Value.Err != "BlockhashNotFound" {
		t.Fatalf("err %v, want BlockhashNotFound", sim.Value.Err)
	}
	if s := stats(t, l); s.TransactionsExecuted != 0 || s.TransactionsFailed != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// As Agave, simulateTransaction returns at most as many accounts as the
// message has (a transfer has three: payer, recipient, system program).
func TestSimulateRefusesMoreAddressesThanTheMessageHas(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	to := solana.NewWallet().PublicKey()
	tx := transferTx(t, c, from, to, sol/2, nil)
	four := []solana.PublicKey{from.PublicKey(), to, solana.SystemProgramID, solana.NewWallet().PublicKey()}
	_, err := c.SimulateTransactionWithOpts(ctxT(t), tx, &rpc.SimulateTransactionOpts{
		Accounts: &rpc.SimulateTransactionAccountsOpts{Encoding: solana.EncodingBase64, Addresses: four},
	})
	if err == nil || !strings.Contains(err.Error(), "Too many accounts provided; max 3") {
		t.Fatalf("four addresses for a three-account message: %v", err)
	}
	sim, err := c.SimulateTransactionWithOpts(ctxT(t), tx, &rpc.SimulateTransactionOpts{
		Accounts: &rpc.SimulateTransactionAccountsOpts{Encoding: solana.EncodingBase64, Addresses: four[:3]},
	})
	if err != nil || len(sim.Value.Accounts) != 3 {
		t.Fatalf("three addresses: %v", err)
	}
}

func TestPreflightFailureIsRPCError(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	tx := transferTx(t, c, from, solana.NewWallet().PublicKey(), 5*sol, nil)
	_, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
	re := rpcError(t, err)
	if re.Code != -32002 || !strings.HasPrefix(re.Message, "Transaction simulation failed: ") {
		t.Fatalf("error %d %q", re.Code, re.Message)
	}
	data := errData(t, re)
	if data["err"] == nil || data["logs"] == nil {
		t.Fatalf("data %v", data)
	}
	if s := stats(t, l); s.TransactionsExecuted != 0 || s.TransactionsFailed != 0 || s.SendsRejected != 1 {
		t.Fatalf("stats %+v", s)
	}
	st, err := c.GetSignatureStatuses(ctxT(t), true, tx.Signatures[0])
	if err != nil || st.Value[0] != nil {
		t.Fatalf("status of a refused send: %+v %v", st, err)
	}

	// skipPreflight: the same transaction lands and fails, fee charged (as on a real cluster).
	sig, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{SkipPreflight: true})
	if err != nil {
		t.Fatal(err)
	}
	stx := waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed)
	if e, _ := json.Marshal(stx.Err); string(e) != `{"InstructionError":[0,{"Custom":1}]}` {
		t.Fatalf("landed err %s", e)
	}
	if b := balance(t, c, from.PublicKey()); b != sol-5000 {
		t.Fatalf("balance %d, want %d", b, sol-5000)
	}
	if s := stats(t, l); s.TransactionsFailed != 1 || s.TransactionsExecuted != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestDropNextSendsNeverExecutes(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	to := solana.NewWallet().PublicKey()
	if err := l.DropNextSends(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	tx := transferTx(t, c, from, to, sol/10, nil)
	sig, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if sig != tx.Signatures[0] {
		t.Fatalf("dropped send answered %s, want the signature %s", sig, tx.Signatures[0])
	}
	waitSlots(t, c, 15) // long enough for a sent transaction to have landed
	st, err := c.GetSignatureStatuses(ctxT(t), true, sig)
	if err != nil || st.Value[0] != nil {
		t.Fatalf("dropped transaction has a status: %+v %v", st.Value[0], err)
	}
	if _, err := c.GetTransaction(ctxT(t), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed}); !errors.Is(err, rpc.ErrNotFound) {
		t.Fatalf("getTransaction of a dropped send: %v", err)
	}
	if balance(t, c, to) != 0 || balance(t, c, from.PublicKey()) != sol {
		t.Fatal("balances changed after a dropped send")
	}
	s := stats(t, l)
	if s.SendsDropped != 1 || s.SendsReceived != 1 || s.TransactionsExecuted != 0 {
		t.Fatalf("stats %+v", s)
	}

	// Only the next one was dropped: a rebroadcast of the same bytes lands.
	if _, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed)
	if balance(t, c, to) != sol/10 {
		t.Fatal("rebroadcast did not land")
	}
}

func TestFailNextCallsGives503ThenRecovers(t *testing.T) {
	l, c := start(t, localnet.Options{})
	if err := l.FailNextCalls(ctxT(t), 2); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		_, err := c.GetSlot(ctxT(t), "")
		var he *jsonrpc.HTTPError
		if !errors.As(err, &he) || he.Code != http.StatusServiceUnavailable {
			t.Fatalf("call %d: want HTTP 503, got %T %v", i, err, err)
		}
	}
	if _, err := c.GetSlot(ctxT(t), ""); err != nil {
		t.Fatalf("did not recover: %v", err)
	}
	if s := stats(t, l); s.FailedCalls != 2 {
		t.Fatalf("stats %+v", s)
	}
}

func TestExpiredBlockhashIsRefused(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	to := solana.NewWallet().PublicKey()
	latest, err := c.GetLatestBlockhash(ctxT(t), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.ExpireBlockhash(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	h, err := c.GetBlockHeight(ctxT(t), "")
	if err != nil || h <= latest.Value.LastValidBlockHeight {
		t.Fatalf("block height %d not past lastValidBlockHeight %d (%v)", h, latest.Value.LastValidBlockHeight, err)
	}
	valid, err := c.IsBlockhashValid(ctxT(t), latest.Value.Blockhash, "")
	if err != nil || valid.Value {
		t.Fatalf("isBlockhashValid %v %v", valid, err)
	}
	tx := transferTx(t, c, from, to, sol/10, &latest.Value.Blockhash)
	_, err = c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
	re := rpcError(t, err)
	if re.Code != -32002 || errData(t, re)["err"] != "BlockhashNotFound" {
		t.Fatalf("error %d %q %v", re.Code, re.Message, re.Data)
	}
	// skipPreflight: accepted, never executed.
	sig, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{SkipPreflight: true})
	if err != nil {
		t.Fatal(err)
	}
	waitSlots(t, c, 5)
	if st, _ := c.GetSignatureStatuses(ctxT(t), true, sig); st.Value[0] != nil {
		t.Fatal("expired transaction landed")
	}
	if balance(t, c, to) != 0 {
		t.Fatal("expired transaction moved lamports")
	}
	if s := stats(t, l); s.TransactionsExecuted != 0 || s.SendsRejected != 2 {
		t.Fatalf("stats %+v", s)
	}
}

func TestBlockhashExpiresAfter150Blocks(t *testing.T) {
	l, c := start(t, localnet.Options{SlotMS: 10})
	from := fundedWallet(t, l, sol)
	latest, err := c.GetLatestBlockhash(ctxT(t), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	tx := transferTx(t, c, from, solana.NewWallet().PublicKey(), sol/10, &latest.Value.Blockhash)
	began := time.Now()
	if !testkit.Poll(60*time.Second, func() bool {
		h, err := c.GetBlockHeight(ctxT(t), "")
		if err != nil {
			t.Fatal(err)
		}
		return h > latest.Value.LastValidBlockHeight
	}) {
		t.Fatal("block height does not advance")
	}
	_, err = c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
	if re := rpcError(t, err); errData(t, re)["err"] != "BlockhashNotFound" {
		t.Fatalf("error %v", re)
	}
	t.Logf("150 blocks passed in %s", time.Since(began).Round(time.Millisecond))
}

func TestSecondIdenticalSendIsAlreadyProcessed(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	to := solana.NewWallet().PublicKey()
	tx := transferTx(t, c, from, to, sol/10, nil)
	// First send base58-encoded (the JSON-RPC default encoding), then base64.
	raw, _ := tx.MarshalBinary()
	sig, err := c.SendEncodedTransactionWithOpts(ctxT(t), base58.Encode(raw), rpc.TransactionOpts{Encoding: solana.EncodingBase58})
	if err != nil {
		t.Fatal(err)
	}
	if sig != tx.Signatures[0] {
		t.Fatalf("signature %s", sig)
	}
	waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed)
	_, err = c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
	re := rpcError(t, err)
	if re.Code != -32002 || errData(t, re)["err"] != "AlreadyProcessed" {
		t.Fatalf("error %d %q %v", re.Code, re.Message, re.Data)
	}
	// skipPreflight: the duplicate is silently ignored; the transfer happened once.
	if _, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{SkipPreflight: true}); err != nil {
		t.Fatal(err)
	}
	if b := balance(t, c, to); b != sol/10 {
		t.Fatalf("recipient %d, want %d", b, sol/10)
	}
	if s := stats(t, l); s.TransactionsExecuted != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestBadSignatureIsRefused(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	tx := transferTx(t, c, from, solana.NewWallet().PublicKey(), sol/10, nil)
	tx.Signatures[0][0] ^= 0xff
	_, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{SkipPreflight: true})
	if re := rpcError(t, err); re.Code != -32003 {
		t.Fatalf("error %d %q", re.Code, re.Message)
	}
	if s := stats(t, l); s.TransactionsExecuted != 0 || s.TransactionsFailed != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestAirdropFeeAndAccounts(t *testing.T) {
	l, c := start(t, localnet.Options{})
	w := solana.NewWallet().PublicKey()
	sig, err := c.RequestAirdrop(ctxT(t), w, 3*sol, "")
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed)
	got, err := c.GetTransaction(ctxT(t), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil || got.Meta.Err != nil {
		t.Fatalf("airdrop transaction: %v %+v", err, got)
	}
	acct, err := c.GetAccountInfoWithOpts(ctxT(t), w, &rpc.GetAccountInfoOpts{Encoding: solana.EncodingBase64})
	if err != nil || acct.Value.Lamports != 3*sol || !acct.Value.Owner.Equals(solana.SystemProgramID) {
		t.Fatalf("account %+v %v", acct, err)
	}
	if _, err := c.GetAccountInfo(ctxT(t), solana.NewWallet().PublicKey()); !errors.Is(err, rpc.ErrNotFound) {
		t.Fatalf("missing account: %v", err)
	}
	multi, err := c.GetMultipleAccounts(ctxT(t), w, solana.NewWallet().PublicKey())
	if err != nil || len(multi.Value) != 2 || multi.Value[0] == nil || multi.Value[1] != nil {
		t.Fatalf("getMultipleAccounts %+v %v", multi, err)
	}
	rent, err := c.GetMinimumBalanceForRentExemption(ctxT(t), 0, "")
	if err != nil || rent != 890880 {
		t.Fatalf("rent %d %v", rent, err)
	}

	tx := transferTx(t, c, solana.NewWallet().PrivateKey, w, 1, nil)
	msg, _ := tx.Message.MarshalBinary()
	fee, err := c.GetFeeForMessage(ctxT(t), encodeB64(msg), "")
	if err != nil || fee.Value == nil || *fee.Value != 5000 {
		t.Fatalf("fee %+v %v", fee, err)
	}
	if s := stats(t, l); s.Airdrops != 1 || s.TransactionsExecuted != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestTokens(t *testing.T) {
	l, c := start(t, localnet.Options{})
	owner := fundedWallet(t, l, sol)
	mintStr, err := l.CreateMint(ctxT(t), 6, "")
	if err != nil {
		t.Fatal(err)
	}
	mint := solana.MustPublicKeyFromBase58(mintStr)
	acctStr, err := l.MintTo(ctxT(t), mintStr, owner.PublicKey().String(), 1_500_000)
	if err != nil {
		t.Fatal(err)
	}
	wantATA, _, _ := solana.FindAssociatedTokenAddress(owner.PublicKey(), mint)
	if acctStr != wantATA.String() {
		t.Fatalf("mintTo credited %s, want the associated token account %s", acctStr, wantATA)
	}

	bal, err := c.GetTokenAccountBalance(ctxT(t), wantATA, "")
	if err != nil || bal.Value.Amount != "1500000" || bal.Value.Decimals != 6 || bal.Value.UiAmountString != "1.5" {
		t.Fatalf("getTokenAccountBalance %+v %v", bal, err)
	}
	supply, err := c.GetTokenSupply(ctxT(t), mint, "")
	if err != nil || supply.Value.Amount != "1500000" {
		t.Fatalf("getTokenSupply %+v %v", supply, err)
	}

	parsed, err := c.GetTokenAccountsByOwner(ctxT(t), owner.PublicKey(), &rpc.GetTokenAccountsConfig{Mint: &mint}, &rpc.GetTokenAccountsOpts{Encoding: solana.EncodingJSONParsed})
	if err != nil || len(parsed.Value) != 1 {
		t.Fatalf("jsonParsed %+v %v", parsed, err)
	}
	var p struct {
		Program string `json:"program"`
		Parsed  struct {
			Type string `json:"type"`
			Info struct {
				Mint        string `json:"mint"`
				Owner       string `json:"owner"`
				State       string `json:"state"`
				TokenAmount struct {
					Amount         string `json:"amount"`
					UIAmountString string `json:"uiAmountString"`
				} `json:"tokenAmount"`
			} `json:"info"`
		} `json:"parsed"`
	}
	if err := json.Unmarshal(parsed.Value[0].Account.Data.GetRawJSON(), &p); err != nil {
		t.Fatal(err)
	}
	if p.Program != "spl-token" || p.Parsed.Type != "account" || p.Parsed.Info.Mint != mintStr ||
		p.Parsed.Info.Owner != owner.PublicKey().String() || p.Parsed.Info.TokenAmount.Amount != "1500000" ||
		p.Parsed.Info.State != "initialized" {
		t.Fatalf("parsed %+v", p)
	}
	raw, err := c.GetTokenAccountsByOwner(ctxT(t), owner.PublicKey(), &rpc.GetTokenAccountsConfig{ProgramId: &solana.TokenProgramID}, &rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64})
	if err != nil || len(raw.Value) != 1 || len(raw.Value[0].Account.Data.GetBinary()) != 165 {
		t.Fatalf("base64 %+v %v", raw, err)
	}

	// A real token transfer through the real ATA and token programs.
	dest := solana.NewWallet().PublicKey()
	destATA, _, _ := solana.FindAssociatedTokenAddress(dest, mint)
	latest, err := c.GetLatestBlockhash(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := solana.NewTransaction([]solana.Instruction{
		ata.NewCreateInstruction(owner.PublicKey(), dest, mint).Build(),
		token.NewTransferInstruction(500_000, wantATA, destATA, owner.PublicKey(), nil).Build(),
	}, latest.Value.Blockhash, solana.TransactionPayer(owner.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	signTx(t, tx, owner)
	sig, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed)
	db, err := c.GetTokenAccountBalance(ctxT(t), destATA, "")
	if err != nil || db.Value.Amount != "500000" {
		t.Fatalf("destination %+v %v", db, err)
	}
	got, err := c.GetTransaction(ctxT(t), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Meta.PreTokenBalances) != 1 || len(got.Meta.PostTokenBalances) != 2 {
		t.Fatalf("token balances pre %+v post %+v", got.Meta.PreTokenBalances, got.Meta.PostTokenBalances)
	}
	gotTx, err := got.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	keys := gotTx.Message.AccountKeys
	want := map[string]string{wantATA.String(): "1000000", destATA.String(): "500000"}
	for _, tb := range got.Meta.PostTokenBalances {
		if tb.UiTokenAmount.Amount != want[keys[tb.AccountIndex].String()] || !tb.Mint.Equals(mint) {
			t.Fatalf("post token balance %+v", tb)
		}
	}
	if len(got.Meta.InnerInstructions) == 0 {
		t.Fatal("ATA creation should record inner instructions")
	}
}

func TestVersionedTransaction(t *testing.T) {
	l, c := start(t, localnet.Options{})
	from := fundedWallet(t, l, sol)
	to := solana.NewWallet().PublicKey()
	latest, err := c.GetLatestBlockhash(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(sol/4, from.PublicKey(), to).Build()},
		latest.Value.Blockhash, solana.TransactionPayer(from.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	tx.Message.SetVersion(solana.MessageVersionV0)
	signTx(t, tx, from)
	sig, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed)
	if balance(t, c, to) != sol/4 {
		t.Fatal("v0 transfer did not land")
	}
	// Like real nodes: v0 needs maxSupportedTransactionVersion.
	_, err = c.GetTransaction(ctxT(t), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	if re := rpcError(t, err); re.Code != -32015 {
		t.Fatalf("error %d %q", re.Code, re.Message)
	}
	zero := uint64(0)
	got, err := c.GetTransaction(ctxT(t), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &zero})
	if err != nil || got.Version != 0 || got.Meta.Err != nil {
		t.Fatalf("v0 getTransaction %+v %v", got, err)
	}
}

func TestLatency(t *testing.T) {
	l, c := start(t, localnet.Options{})
	if err := l.SetLatency(ctxT(t), 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if _, err := c.GetSlot(ctxT(t), ""); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d < 300*time.Millisecond {
		t.Fatalf("call took %s with 300ms latency", d)
	}
	began = time.Now()
	if _, err := l.Stats(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 250*time.Millisecond {
		t.Fatalf("control call delayed by latency: %s", d)
	}
	if err := l.SetLatency(ctxT(t), 0); err != nil {
		t.Fatal(err)
	}
}

// TestMalformedRequests speaks raw HTTP: malformed input gets JSON-RPC
// errors and the server keeps serving.
func TestMalformedRequests(t *testing.T) {
	l, c := start(t, localnet.Options{})
	post := func(body string) (int, string) {
		resp, err := http.Post(l.RPC(), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct{ body, want string }{
		{`{not json`, `"code":-32700`},
		{`{"jsonrpc":"1.0","id":1,"method":"getSlot"}`, `"code":-32600`},
		{`[]`, `"code":-32600`},
		{`{"jsonrpc":"2.0","id":1,"method":"noSuchMethod"}`, `"code":-32601`},
		{`{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["not-a-key"]}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":1,"method":"getBalance","params":{"x":1}}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["!!!"]}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["AAAA",{"encoding":"base64"}]}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":1,"method":"simulateTransaction","params":[42]}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":1,"method":"getTransaction","params":["abc"]}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":1,"method":"localnet_fund","params":["x", "y"]}`, `"code":-32602`},
		{`[{"jsonrpc":"2.0","id":1,"method":"getSlot"},{"jsonrpc":"2.0","id":2,"method":"getHealth"}]`, `"result":"ok","id":2}]`},
	} {
		code, body := post(tc.body)
		if code != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("%s -> %d %s (want %s)", tc.body, code, body, tc.want)
		}
	}
	if _, err := c.GetSlot(ctxT(t), ""); err != nil {
		t.Fatalf("server unhealthy after malformed input: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("localnet tests requires node (Node.js 20+) on PATH")
	}
	// node missing from PATH.
	t.Run("no node", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := localnet.Start(context.Background(), localnet.Options{})
		if !errors.Is(err, localnet.ErrNodeMissing) {
			t.Fatalf("want ErrNodeMissing, got %v", err)
		}
	})
	// An installed binary run outside any checkout: no ledger sources, and
	// an error that says what the ledger needs, never a build machine's path.
	t.Run("outside a checkout", func(t *testing.T) {
		t.Setenv(localnet.DirEnv, "")
		t.Chdir(t.TempDir())
		_, err := localnet.Start(context.Background(), localnet.Options{})
		if !errors.Is(err, localnet.ErrNoSources) {
			t.Fatalf("want ErrNoSources, got %v", err)
		}
		for _, want := range []string{"solgate checkout", "SOLGATE_LOCALNET_DIR", "Node.js"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		}
	})
	// npm dependencies not installed.
	t.Run("no node_modules", func(t *testing.T) {
		dir := t.TempDir()
		src, err := os.ReadFile("server.mjs") // go test runs in the package's folder
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "server.mjs"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = localnet.Start(context.Background(), localnet.Options{Dir: dir})
		if !errors.Is(err, localnet.ErrDepsMissing) || !strings.Contains(err.Error(), "npm ci --prefix localnet") {
			t.Fatalf("want ErrDepsMissing naming npm ci, got %v", err)
		}
	})
	// A server that dies on startup: the error carries its stderr.
	t.Run("crash on start", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "node_modules"), 0o755)
		os.Mkdir(filepath.Join(dir, "node_modules", "litesvm"), 0o755)
		os.WriteFile(filepath.Join(dir, "server.mjs"), []byte(`console.error("boom: simulated failure"); process.exit(3);`), 0o644)
		_, err := localnet.Start(context.Background(), localnet.Options{Dir: dir})
		if err == nil || !strings.Contains(err.Error(), "boom: simulated failure") {
			t.Fatalf("want an error with the stderr tail, got %v", err)
		}
	})
}

func encodeB64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestSIGTERMStopsServer: the server exits cleanly on SIGTERM.
func TestSIGTERMStopsServer(t *testing.T) {
	l, _ := start(t, localnet.Options{})
	if err := syscall.Kill(l.Pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("server still running 30s after SIGTERM")
	}
}

// TestCrashedParentLeavesNoServer runs a child test process that starts a
// ledger and is then SIGKILLed without calling Close: the server must notice
// its stdin closing and exit on its own.
func TestCrashedParentLeavesNoServer(t *testing.T) {
	if os.Getenv("LOCALNET_TEST_CHILD") == "1" {
		l, err := localnet.Start(context.Background(), localnet.Options{})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Printf("PID %d\n", l.Pid())
		select {} // until the parent kills this process
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("localnet tests requires node (Node.js 20+) on PATH")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashedParentLeavesNoServer$", "-test.v")
	cmd.Env = append(os.Environ(), "LOCALNET_TEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	buf := make([]byte, 0, 256)
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 && time.Now().Before(deadline) {
		chunk := make([]byte, 64)
		n, err := out.Read(chunk)
		buf = append(buf, chunk[:n]...)
		for _, line := range strings.Split(string(buf), "\n") {
			fmt.Sscanf(line, "PID %d", &pid)
		}
		if err != nil {
			break
		}
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child did not start a ledger: %s", buf)
	}
	cmd.Process.Kill() // the parent "crashes": no Close, no SIGTERM to node
	cmd.Wait()
	gone := testkit.Poll(20*time.Second, func() bool {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		// A zombie (exited, parent gone, not yet reaped by init) also counts as gone.
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err == nil && strings.Contains(string(st), ") Z ")
	})
	if !gone {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("server %d still running 20s after its parent died", pid)
	}
}

// TestVersionedTransactionWithLookupTable creates an address lookup table
// through the real ALT program, then sends a v0 transfer whose recipient is
// loaded from the table.
func TestVersionedTransactionWithLookupTable(t *testing.T) {
	l, c := start(t, localnet.Options{})
	payer := fundedWallet(t, l, sol)
	to := solana.NewWallet().PublicKey()
	altProgram := solana.MustPublicKeyFromBase58("AddressLookupTab1e1111111111111111111111111")

	send := func(tx *solana.Transaction) {
		t.Helper()
		signTx(t, tx, payer)
		sig, err := c.SendTransactionWithOpts(ctxT(t), tx, rpc.TransactionOpts{})
		if err != nil {
			t.Fatal(err)
		}
		if st := waitStatus(t, c, sig, rpc.ConfirmationStatusConfirmed); st.Err != nil {
			t.Fatalf("status err %v", st.Err)
		}
	}
	blockhash := func() solana.Hash {
		latest, err := c.GetLatestBlockhash(ctxT(t), rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		return latest.Value.Blockhash
	}

	recentSlot, err := c.GetSlot(ctxT(t), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	slotLE := make([]byte, 8)
	for i := range slotLE {
		slotLE[i] = byte(recentSlot >> (8 * i))
	}
	table, bump, err := solana.FindProgramAddress([][]byte{payer.PublicKey().Bytes(), slotLE}, altProgram)
	if err != nil {
		t.Fatal(err)
	}
	create := solana.NewInstruction(altProgram, solana.AccountMetaSlice{
		solana.Meta(table).WRITE(), solana.Meta(payer.PublicKey()).SIGNER(),
		solana.Meta(payer.PublicKey()).WRITE().SIGNER(), solana.Meta(solana.SystemProgramID),
	}, append(append([]byte{0, 0, 0, 0}, slotLE...), bump))
	extendData := []byte{2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
	extendData = append(extendData, to.Bytes()...)
	extend := solana.NewInstruction(altProgram, solana.AccountMetaSlice{
		solana.Meta(table).WRITE(), solana.Meta(payer.PublicKey()).SIGNER(),
		solana.Meta(payer.PublicKey()).WRITE().SIGNER(), solana.Meta(solana.SystemProgramID),
	}, extendData)
	tx, err := solana.NewTransaction([]solana.Instruction{create, extend}, blockhash(), solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	send(tx)
	waitSlots(t, c, 1) // a table's new entries are usable from the next slot

	tx, err = solana.NewTransaction(
		[]solana.Instruction{system.NewTransferInstruction(sol/5, payer.PublicKey(), to).Build()},
		blockhash(), solana.TransactionPayer(payer.PublicKey()),
		solana.TransactionAddressTables(map[solana.PublicKey]solana.PublicKeySlice{table: {to}}))
	if err != nil {
		t.Fatal(err)
	}
	if tx.Message.GetVersion() != solana.MessageVersionV0 || len(tx.Message.AddressTableLookups) != 1 {
		t.Fatal("expected a v0 message using the lookup table")
	}
	send(tx)
	if balance(t, c, to) != sol/5 {
		t.Fatal("v0 transfer through the lookup table did not land")
	}
	zero := uint64(0)
	got, err := c.GetTransaction(ctxT(t), tx.Signatures[0], &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Meta.LoadedAddresses.Writable) != 1 || !got.Meta.LoadedAddresses.Writable[0].Equals(to) {
		t.Fatalf("loadedAddresses %+v", got.Meta.LoadedAddresses)
	}
	n := len(got.Meta.PostBalances)
	if got.Meta.PostBalances[n-1] != sol/5 || got.Meta.PreBalances[n-1] != 0 {
		t.Fatalf("loaded account balances pre %v post %v", got.Meta.PreBalances, got.Meta.PostBalances)
	}
}

// localnet_buildOutside fails closed on what it does not know: one clear
// error naming the parameter.
func TestBuildOutsideRefusesBadParams(t *testing.T) {
	l, _ := start(t, localnet.Options{})
	ctx := context.Background()
	wallet := "9MuwVpMuYQCEGcCt7KfciNQZyfPmchHYrbTXrNDaYYpQ"
	for _, tc := range []struct {
		kind, wallet, want string
		opts               localnet.OutsideOptions
	}{
		{"launch-rocket", wallet, "kind must be one of", localnet.OutsideOptions{}},
		{"memo-transfer", "not-a-key", "wallet must be a base58 public key", localnet.OutsideOptions{}},
		{"memo-transfer", wallet, "to must be a base58 public key", localnet.OutsideOptions{To: "friend"}},
		{"mint-to", wallet, "mint must be a base58 public key", localnet.OutsideOptions{Mint: "0xdead"}},
	} {
		if _, err := l.BuildOutside(ctx, tc.kind, tc.wallet, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s/%s: %v, want %q", tc.kind, tc.wallet, err, tc.want)
		}
	}
	out, err := l.BuildOutside(ctx, "memo-transfer", wallet, localnet.OutsideOptions{})
	if err != nil || out.Transaction == "" || out.Accounts["recipient"] == "" {
		t.Fatalf("memo-transfer: %+v %v", out, err)
	}
}
