package authority_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// A standing grant can cover reclaim_rent: made on one approval, it
// approves the agent's next call at once (never more accounts a call than
// it was granted), and that call closes the account on the ledger.
func TestAGrantCoversReclaimRent(t *testing.T) {
	w := newWorld(t, nil)
	a := testkit.StartAgent(t, w.socket, "reclaim-agent")
	run := func(id string) {
		t.Helper()
		st := a.Call(wire.ToolProposalStatus, map[string]any{"proposal_id": id})
		token, _ := st.Structured["confirm"].(string)
		if st.Status() != "approved" || token == "" {
			t.Fatalf("proposal_status %s: %+v", id, st)
		}
		if done := a.Call(wire.ToolReclaimRent, map[string]any{"confirm": token}); done.Status() != "executed" {
			t.Fatalf("execute %s: %+v", id, done)
		}
	}
	propose := func() (string, string) {
		t.Helper()
		emptyTokenAccount(w)
		ans := a.Call(wire.ToolReclaimRent, map[string]any{})
		id, _ := ans.Structured["proposal_id"].(string)
		accounts, _ := ans.Structured["accounts"].([]any)
		if ans.Status() != "pending_approval" || id == "" || len(accounts) != 1 {
			t.Fatalf("reclaim_rent: %+v", ans)
		}
		return id, accounts[0].(string)
	}

	first, _ := propose()
	g := grantFor(t, w.authority, first, 2)
	if g.Counterparty != "the wallet itself" || g.MaxAmount != 1 {
		t.Fatalf("grant %+v", g)
	}
	run(first)

	second, account := propose()
	got, _ := w.authority.Proposal(second)
	if got.Status != approval.StatusApproved || got.DecidedBy != "grant #1" {
		t.Fatalf("the second call was not covered: %s %s (%s)", got.Status, got.DecidedBy, got.GrantMiss)
	}
	run(second)
	if info, err := w.chain.GetAccountInfo(t.Context(), solana.MustPublicKeyFromBase58(account)); err == nil && info.Value != nil && info.Value.Lamports > 0 {
		t.Errorf("%s still holds %d lamports after the covered call", account, info.Value.Lamports)
	}
}

// More empty accounts than one transaction closes take as many calls as
// needed, and one grant covers them all: the first call closes
// MaxReclaimAccounts and says how many are left, the operator approves it
// with a grant, the next call is approved by the grant and closes the
// rest, and a third finds nothing to reclaim. The ledger shows every
// account closed and the wallet up by exactly their rent less the two
// transactions' fees.
func TestReclaimRentBeyondOneTransactionUnderOneGrant(t *testing.T) {
	const accounts = 23 // 20 in the first transaction, 3 in the second
	w := newWorld(t, nil)
	for range accounts {
		emptyTokenAccount(w)
	}
	a := testkit.StartAgent(t, w.socket, "reclaim-agent")
	ctx := t.Context()
	before, err := w.chain.GetBalance(ctx, w.wallet, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}

	rent := map[string]uint64{} // every account a proposal listed, with its lamports then
	propose := func(want, left int) string {
		t.Helper()
		ans := a.Call(wire.ToolReclaimRent, map[string]any{})
		id, _ := ans.Structured["proposal_id"].(string)
		listed, _ := ans.Structured["accounts"].([]any)
		if ans.Status() != "pending_approval" || id == "" || len(listed) != want || ans.Structured["remaining_accounts"] != float64(left) {
			t.Fatalf("reclaim_rent: want %d accounts with %d left, got %+v", want, left, ans)
		}
		if left > 0 && !strings.Contains(ans.Text, fmt.Sprintf("Left for another call: %d more", left)) {
			t.Errorf("the preview does not say what is left: %s", ans.Text)
		}
		for _, acct := range listed {
			info, err := w.chain.GetAccountInfo(ctx, solana.MustPublicKeyFromBase58(acct.(string)))
			if err != nil || info.Value == nil {
				t.Fatalf("listed account %s is not on the ledger: %v", acct, err)
			}
			rent[acct.(string)] = info.Value.Lamports
		}
		return id
	}
	var fees uint64
	run := func(id string) {
		t.Helper()
		st := a.Call(wire.ToolProposalStatus, map[string]any{"proposal_id": id})
		token, _ := st.Structured["confirm"].(string)
		if st.Status() != "approved" || token == "" {
			t.Fatalf("proposal_status %s: %+v", id, st)
		}
		done := a.Call(wire.ToolReclaimRent, map[string]any{"confirm": token})
		sig, _ := done.Structured["signature"].(string)
		if done.Status() != "executed" || sig == "" {
			t.Fatalf("execute %s: %+v", id, done)
		}
		tx, err := w.chain.GetTransaction(ctx, solana.MustSignatureFromBase58(sig), &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil || tx.Meta == nil {
			t.Fatalf("getTransaction %s: %v", sig, err)
		}
		fees += tx.Meta.Fee
	}

	first := propose(wire.MaxReclaimAccounts, accounts-wire.MaxReclaimAccounts)
	grantFor(t, w.authority, first, 3)
	run(first)
	second := propose(accounts-wire.MaxReclaimAccounts, 0)
	if got, _ := w.authority.Proposal(second); got.Status != approval.StatusApproved || got.DecidedBy != "grant #1" {
		t.Fatalf("the call for the rest was not covered by the grant: %s %s (%s)", got.Status, got.DecidedBy, got.GrantMiss)
	}
	run(second)
	if ans := a.Call(wire.ToolReclaimRent, map[string]any{}); !ans.IsError || !strings.Contains(ans.Text, "nothing to reclaim") {
		t.Errorf("a third call after every account was closed: %+v", ans)
	}

	if len(rent) != accounts {
		t.Fatalf("the proposals listed %d distinct accounts, want %d", len(rent), accounts)
	}
	var returned uint64
	for acct, lamports := range rent {
		if info, err := w.chain.GetAccountInfo(ctx, solana.MustPublicKeyFromBase58(acct)); err == nil && info.Value != nil && info.Value.Lamports > 0 {
			t.Errorf("%s still holds %d lamports", acct, info.Value.Lamports)
		}
		returned += lamports
	}
	after, err := w.chain.GetBalance(ctx, w.wallet, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	if int64(after.Value)-int64(before.Value) != int64(returned)-int64(fees) {
		t.Fatalf("wallet %d → %d (%+d), want the rent %d less the fees %d", before.Value, after.Value, int64(after.Value)-int64(before.Value), returned, fees)
	}
	t.Logf("%d accounts closed in two transactions under one grant: %d lamports of rent back, %d of fees", accounts, returned, fees)
}
