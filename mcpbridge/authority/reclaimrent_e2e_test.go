package authority_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"

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
