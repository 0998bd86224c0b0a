package authority_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
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
	l, _ := testkit.StartLedger(t, localnet.Options{SlotMS: localnet.FastSlotMS})
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
	if err := authority.Reconcile(ctx, ex, spend, st, nil, func(s string) { lines = append(lines, s) }); err != nil {
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
