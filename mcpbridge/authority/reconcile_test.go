package authority_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority/reconcile"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// A console died with three spends open: one whose transaction landed, one
// reserved but never sent, one sent but never landed. The next console's
// Reconcile must settle the first at the chain's numbers and release the
// others — the lost one only once the chain passed its last valid block
// height — all read back from the reopened database.
func TestReconcileSettlesWhatACrashedConsoleLeft(t *testing.T) {
	ctx := context.Background()
	l, _ := testkit.StartLedger(t, localnet.Options{})
	key, _ := executor.NewRandomKeypair()
	testkit.Fund(t, l, key.PublicKey(), solana.LAMPORTS_PER_SOL)
	friend, _ := executor.NewRandomKeypair()
	ex := executor.New(executor.NewClient(l.RPC(), executor.ClientOptions{}), key, executor.Options{})
	cfg := policy.DefaultConfig()
	cfg.AllowRecipients = []string{friend.PublicKey().String()}
	dir := t.TempDir()

	// First console: reserve three spends, send one for real, then "crash".
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	spend, err := policy.NewSpend(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	prop := policy.Proposal{Tool: wire.ToolTransferSOL, Network: "localnet", Counterparties: []policy.Counterparty{policy.Recipient(friend.PublicKey().String())}, Lamports: 2_005_000}
	for _, id := range []string{"landed", "unsent", "lost"} {
		if err := st.InsertProposal(store.Proposal{ID: id, Client: "test", Tool: wire.ToolTransferSOL, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if d, err := spend.Reserve(id, cfg, prop); err != nil || !d.Allowed {
			t.Fatalf("reserve %s: %+v %v", id, d, err)
		}
	}
	res, err := ex.ExecuteTransfer(ctx, executor.Transfer{To: friend.PublicKey(), Lamports: 2_000_000}, nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("transfer: %v %+v", err, res)
	}
	height, err := ex.BlockHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := spend.Sent("landed", res.Signature.String(), height+150); err != nil {
		t.Fatal(err)
	}
	if err := spend.Sent("lost", solana.Signature{7, 7, 7}.String(), height+150); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// The lost one's blockhash lifetime passes on the chain (no clock games).
	if err := l.ExpireBlockhash(ctx); err != nil {
		t.Fatal(err)
	}

	// Next console, some minutes later.
	st, err = store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spend, err = policy.NewSpend(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := spend.State(); s.SessionReserved != 3*2_005_000 {
		t.Fatalf("restored reservations hold %d, want %d", s.SessionReserved, 3*2_005_000)
	}
	if r, err := st.GetReservation("lost"); err != nil || r.LastValidBlockHeight != height+150 {
		t.Fatalf("stored last valid block height: %+v %v", r, err)
	}
	var lines []string
	if err := reconcile.Run(ctx, ex, spend, st, nil, func(s string) { lines = append(lines, s) }); err != nil {
		t.Fatal(err)
	}

	for id, want := range map[string]string{"landed": store.StateSettled, "unsent": store.StateReleased, "lost": store.StateReleased} {
		r, err := st.GetReservation(id)
		if err != nil || r.State != want {
			t.Errorf("%s: stored reservation %+v %v, want %s", id, r, err, want)
		}
	}
	if r, _ := st.GetReservation("landed"); r.Lamports != 2_000_000+5000 {
		t.Errorf("landed settled at %d, want the chain's 2005000", r.Lamports)
	}
	if s := spend.State(); s.SessionReserved != 0 {
		t.Errorf("still reserved after reconcile: %+v", s)
	}
	execs, err := st.Executions("landed")
	if err != nil || len(execs) != 1 || execs[0].Signature != res.Signature.String() || execs[0].Outcome != store.ExecExecuted {
		t.Fatalf("landed execution row: %+v %v", execs, err)
	}
	// The row carries the chain's balance changes, as a live execution's does.
	var deltas map[string]int64
	if err := json.Unmarshal(execs[0].Deltas, &deltas); err != nil ||
		deltas[friend.PublicKey().String()] != 2_000_000 || deltas[key.PublicKey().String()] != -2_005_000 {
		t.Errorf("reconciled deltas %s (%v), want recipient +2000000 and wallet -2005000", execs[0].Deltas, err)
	}
	if bad, err := st.VerifyAudit(); err != nil {
		t.Errorf("audit chain broken at %d: %v", bad, err)
	}
	if len(lines) != 3 {
		t.Errorf("progress lines: %q", lines)
	}
}

// A raw transaction in flight when the console died is settled by the next
// one at what left the wallet's whole sphere, not only its own accounts: a
// withdrawal from a nonce account the wallet is authority of counts its
// lamports, and a multisig's transfer its tokens. The transactions are
// @solana/kit's (localnet's outside.mjs), signed and sent by the wallet;
// the books are read back from the reopened database and held to the
// ledger.
func TestReconcileCountsWhatTheWalletControls(t *testing.T) {
	ctx := context.Background()
	l, _ := testkit.StartLedger(t, localnet.Options{})
	key, _ := executor.NewRandomKeypair()
	testkit.Fund(t, l, key.PublicKey(), solana.LAMPORTS_PER_SOL)
	payee, _ := executor.NewRandomKeypair()
	to := payee.PublicKey()
	ex := executor.New(executor.NewClient(l.RPC(), executor.ClientOptions{}), key, executor.Options{})
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	spend, err := policy.NewSpend(st, nil)
	if err != nil {
		t.Fatal(err)
	}

	// send builds kind with kit, reserves what the fee alone would cost
	// (as if the measure before had seen only the wallet), signs and sends
	// it, and records the signature as sent.
	send := func(id, kind string, o localnet.OutsideOptions) localnet.Outside {
		t.Helper()
		o.To = to.String()
		out, err := l.BuildOutside(ctx, kind, key.PublicKey().String(), o)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.StdEncoding.DecodeString(out.Transaction)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := solana.TransactionFromBytes(raw)
		if err != nil {
			t.Fatal(err)
		}
		cfg := policy.DefaultConfig()
		cfg.AllowRecipients = []string{to.String()}
		prop := policy.Proposal{Tool: wire.ToolTransferSOL, Network: "localnet", Counterparties: []policy.Counterparty{policy.Recipient(to.String())}, Lamports: 5000}
		if err := st.InsertProposal(store.Proposal{ID: id, Client: "test", Tool: wire.ToolTransferSOL, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if d, err := spend.Reserve(id, cfg, prop); err != nil || !d.Allowed {
			t.Fatalf("reserve %s: %+v %v", id, d, err)
		}
		measured, err := ex.MeasureEffects(ctx, tx, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ex.SubmitMeasured(ctx, tx, measured, *out.LastValidBlockHeight, executor.Limits{SOLOut: ^uint64(0), TokensOut: map[solana.PublicKey]uint64{}}, nil, nil)
		if err != nil || !res.Outcome.Landed() || res.ChainErr != nil {
			t.Fatalf("%s: %v %+v", kind, err, res)
		}
		if err := spend.Sent(id, res.Signature.String(), *out.LastValidBlockHeight); err != nil {
			t.Fatal(err)
		}
		return out
	}
	paid := testkit.Balance(t, rpc.New(l.RPC()), to)
	send("nonce", "nonce-withdraw", localnet.OutsideOptions{Lamports: 300_000_000})
	ms := send("multisig", "multisig-transfer", localnet.OutsideOptions{Amount: 700_000})
	st.Close()

	st, err = store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spend, err = policy.NewSpend(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh := executor.New(executor.NewClient(l.RPC(), executor.ClientOptions{}), key, executor.Options{})
	if err := reconcile.Run(ctx, fresh, spend, st, nil, nil); err != nil {
		t.Fatal(err)
	}
	got := testkit.Balance(t, rpc.New(l.RPC()), to) - paid
	if got != 300_000_000 {
		t.Fatalf("the payee gained %d lamports, want 300000000", got)
	}
	if r, err := st.GetReservation("nonce"); err != nil || r.State != store.StateSettled || r.Lamports != got+5000 {
		t.Fatalf("the nonce withdrawal settled as %+v %v; want %d (what left the nonce account, and the fee)", r, err, got+5000)
	}
	held, _ := testkit.OwnerTokens(t, rpc.New(l.RPC()), to, ms.Accounts["mint"])
	r, err := st.GetReservation("multisig")
	if err != nil || r.State != store.StateSettled || len(r.Tokens) != 1 || r.Tokens[0].Mint != ms.Accounts["mint"] || r.Tokens[0].Amount != held || held != 700_000 {
		t.Fatalf("the multisig's transfer settled as %+v %v; the payee holds %d of %s", r, err, held, ms.Accounts["mint"])
	}
}
