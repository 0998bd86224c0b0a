package authority_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
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
	// Each proposal finds the one empty account made for it.
	propose := func() (string, map[string]uint64) {
		t.Helper()
		ans, rent := reclaimRentProposal(t, w, a, 1, 1)
		return ans.Structured["proposal_id"].(string), rent
	}

	first, _ := propose()
	g := grantFor(t, w.authority, first, 2)
	if g.Counterparty != "the wallet itself" || g.MaxAmount != 1 {
		t.Fatalf("grant %+v", g)
	}
	collectAndReclaim(t, a, first)

	second, rent := propose()
	got, _ := w.authority.Proposal(second)
	if got.Status != approval.StatusApproved || got.DecidedBy != "grant #1" {
		t.Fatalf("the second call was not covered: %s %s (%s)", got.Status, got.DecidedBy, got.GrantMiss)
	}
	collectAndReclaim(t, a, second)
	closedRent(t, w, rent)
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
	before := w.balance(t, w.wallet)

	rent := map[string]uint64{} // every account a proposal listed, with its lamports then
	propose := func(want, left int) string {
		t.Helper()
		ans, listed := reclaimRentProposal(t, w, a, 0, want)
		if ans.Structured["remaining_accounts"] != float64(left) {
			t.Fatalf("reclaim_rent: want %d accounts left, got %+v", left, ans)
		}
		if left > 0 && !strings.Contains(ans.Text, fmt.Sprintf("Left for another call: %d more", left)) {
			t.Errorf("the preview does not say what is left: %s", ans.Text)
		}
		maps.Copy(rent, listed)
		return ans.Structured["proposal_id"].(string)
	}
	var fees uint64
	first := propose(wire.MaxReclaimAccounts, accounts-wire.MaxReclaimAccounts)
	grantFor(t, w.authority, first, 3)
	fees += w.landed(t, collectAndReclaim(t, a, first)).fee
	second := propose(accounts-wire.MaxReclaimAccounts, 0)
	if got, _ := w.authority.Proposal(second); got.Status != approval.StatusApproved || got.DecidedBy != "grant #1" {
		t.Fatalf("the call for the rest was not covered by the grant: %s %s (%s)", got.Status, got.DecidedBy, got.GrantMiss)
	}
	fees += w.landed(t, collectAndReclaim(t, a, second)).fee
	if ans := a.Call(wire.ToolReclaimRent, map[string]any{}); !ans.IsError || !strings.Contains(ans.Text, "nothing to reclaim") {
		t.Errorf("a third call after every account was closed: %+v", ans)
	}

	if len(rent) != accounts {
		t.Fatalf("the proposals listed %d distinct accounts, want %d", len(rent), accounts)
	}
	returned := closedRent(t, w, rent)
	if after := w.balance(t, w.wallet); int64(after)-int64(before) != int64(returned)-int64(fees) {
		t.Fatalf("wallet %d → %d (%+d), want the rent %d less the fees %d", before, after, int64(after)-int64(before), returned, fees)
	}
	t.Logf("%d accounts closed in two transactions under one grant: %d lamports of rent back, %d of fees", accounts, returned, fees)
}

// collectAndReclaim collects an approved proposal's token as the agent
// does (proposal_status) and makes the confirmed call; it returns the
// executed transaction's signature.
func collectAndReclaim(t *testing.T, a *testkit.Agent, id string) string {
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
	return sig
}

// closedRent reads each account back from the ledger, reports any that
// still holds lamports, and returns the rent they held before (rent's
// values) together.
func closedRent(t *testing.T, w *world, rent map[string]uint64) uint64 {
	t.Helper()
	var returned uint64
	for acct, lamports := range rent {
		if info, err := w.chain.GetAccountInfo(t.Context(), solana.MustPublicKeyFromBase58(acct)); err == nil && info.Value != nil && info.Value.Lamports > 0 {
			t.Errorf("%s still holds %d lamports", acct, info.Value.Lamports)
		}
		returned += lamports
	}
	return returned
}

// reclaimRentProposal gives the world's wallet add more empty token
// accounts and proposes reclaiming them, want in all; it returns the
// proposal's answer and the lamports each listed account holds.
func reclaimRentProposal(t *testing.T, w *world, a *testkit.Agent, add, want int) (testkit.Answer, map[string]uint64) {
	t.Helper()
	for range add {
		emptyTokenAccount(w)
	}
	ans := a.Call(wire.ToolReclaimRent, map[string]any{})
	listed, _ := ans.Structured["accounts"].([]any)
	if ans.Status() != "pending_approval" || len(listed) != want {
		t.Fatalf("reclaim_rent: want %d accounts pending approval, got %+v", want, ans)
	}
	rent := map[string]uint64{}
	for _, acct := range listed {
		info, err := w.chain.GetAccountInfoWithOpts(t.Context(), solana.MustPublicKeyFromBase58(acct.(string)), &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil || info.Value == nil || info.Value.Lamports == 0 {
			t.Fatalf("listed account %s is not on the ledger: %v", acct, err)
		}
		rent[acct.(string)] = info.Value.Lamports
	}
	return ans, rent
}

// reclaim_rent carries a transfer's compute budget: the landed transaction
// (read back from the ledger) holds SetComputeUnitLimit and
// SetComputeUnitPrice at the market's p75, the preview showed that budget
// and fee, the ledger charged exactly the previewed fee, and the wallet is
// up by exactly the rent less that fee, which the session spend counts.
func TestReclaimRentLandsBehindAComputeBudgetAndPriorityFee(t *testing.T) {
	w := newWorld(t, nil)
	w.calmMarket(t)
	a := startAgent(t, w.socket)
	ans, rent := reclaimRentProposal(t, w, a, 2, 2)
	before := w.balance(t, w.wallet)

	done := w.execute(t, a, wire.ToolReclaimRent, ans.Structured["proposal_id"].(string), nil)
	sig, _ := done.Structured["signature"].(string)
	if done.Status() != "executed" || sig == "" {
		t.Fatalf("execute: %+v", done)
	}
	got := w.landed(t, sig)
	if margin := max((got.units+9)/10, 1000); got.units == 0 || got.limit > got.units+margin {
		t.Errorf("limit %d for %d units used: above units + margin", got.limit, got.units)
	}
	if !got.hasPrice || got.price != 1_000_000 {
		t.Errorf("price on chain %d (set: %v), want the market's p75, 1000000", got.price, got.hasPrice)
	}
	priority := (got.price*got.limit + 999_999) / 1_000_000
	if got.fee != 5000+priority || priority == 0 {
		t.Errorf("ledger charged %d, want 5000 + %d priority", got.fee, priority)
	}
	// What the human saw is what landed, and the caps counted it.
	for _, want := range []string{
		fmt.Sprintf("Compute budget: %d CU limit (", got.limit),
		fmt.Sprintf("%d micro-lamports/CU; approval allows at most this limit and a %d-lamport priority fee", got.price, priority),
		"(p75 of 1 recent fees for its accounts, standard method)",
	} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("preview lacks %q:\n%s", want, ans.Text)
		}
	}
	if ans.Structured["spend_lamports"] != fmt.Sprint(got.fee) {
		t.Errorf("the caps saw a spend of %v, the ledger charged %d", ans.Structured["spend_lamports"], got.fee)
	}

	returned := closedRent(t, w, rent)
	want := int64(returned) - int64(got.fee)
	if after := w.balance(t, w.wallet); got.walletDelta != want || int64(after)-int64(before) != want {
		t.Errorf("wallet %d → %d (landed %+d), want the rent %d less the fee %d", before, after, got.walletDelta, returned, got.fee)
	}
	if s := w.authority.SpendSummary(); s.Spent != got.fee || s.Reserved != 0 {
		t.Errorf("session spend %d reserved %d, want the fee %d", s.Spent, s.Reserved, got.fee)
	}
}

// The approval binds reclaim_rent's budget as a transfer's: a fee market
// that rose, or closes that now need more units, between approval and
// execution are refused with the executor's reason and nothing signed,
// and the accounts stay open.
func TestReclaimRentOverApprovedBudgetIsRefused(t *testing.T) {
	w := newWorld(t, nil)
	ctx := t.Context()
	w.calmMarket(t)
	a := startAgent(t, w.socket)
	open := 0 // a refused proposal's accounts stay open for the next one
	for _, tc := range []struct {
		name   string
		arm    func() error
		reason string
	}{
		{"higher priority fee", func() error {
			return w.ledger.SetPrioritizationFees(ctx, localnet.FeeMarket{Fees: []uint64{3_000_000}})
		}, "priority fee above the approved bound: the priority fee at execution would be "},
		{"more compute units", func() error { return w.ledger.SetExtraComputeUnits(ctx, 5_000) },
			"needs more compute units than approved: the fresh simulation at execution needs "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open++
			ans, rent := reclaimRentProposal(t, w, a, 1, open)
			before := w.balance(t, w.wallet)
			if err := tc.arm(); err != nil {
				t.Fatal(err)
			}
			done := w.execute(t, a, wire.ToolReclaimRent, ans.Structured["proposal_id"].(string), nil)
			if done.Status() != "failed" || !strings.Contains(done.Text, tc.reason) || !strings.Contains(done.Text, "nothing was signed or sent") {
				t.Errorf("execute: want failed with %q:\n%s", tc.reason, done.Text)
			}
			for acct, lamports := range rent {
				info, err := w.chain.GetAccountInfoWithOpts(ctx, solana.MustPublicKeyFromBase58(acct), &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
				if err != nil || info.Value == nil || info.Value.Lamports != lamports {
					t.Errorf("%s no longer holds its %d lamports: %+v %v", acct, lamports, info, err)
				}
			}
			if after := w.balance(t, w.wallet); after != before {
				t.Errorf("the wallet moved: %d → %d", before, after)
			}
			w.calmMarket(t)
		})
	}
	st, err := w.ledger.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.SendsReceived != 0 {
		t.Errorf("a refused execution reached the ledger: %+v", st)
	}
	if s := w.authority.SpendSummary(); s.Spent != 0 || s.Reserved != 0 {
		t.Errorf("refused executions left spend %d reserved %d", s.Spent, s.Reserved)
	}
}
