package authority_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// The two agents, each a real process of its own uid on a real
// ledger: research (session cap 0.2 SOL, its own recipient) and trading
// (1.0 SOL, the console's other recipient), under a console at 1.0 SOL a
// session and 0.5 SOL a transfer.
func TestEachAgentItsOwnBudgetWithinTheTotal(t *testing.T) {
	t.Parallel()
	const research, trading = 64301, 64302
	var researchTo, tradingTo solana.PublicKey
	w, helper := worldForUsersWith(t, func(o *authority.Options) {
		r, _ := executor.NewRandomKeypair()
		researchTo = r.PublicKey()
		tradingTo = solana.MustPublicKeyFromBase58(o.Policy.AllowRecipients[0])
		o.Policy.AllowRecipients = append(o.Policy.AllowRecipients, researchTo.String())
		o.Policy.MaxLamportsPerTx = 500_000_000
		o.Policy.MaxLamportsPerSession = 1_000_000_000
		rc, tc := o.Policy, o.Policy
		rc.MaxLamportsPerTx, rc.MaxLamportsPerSession, rc.AllowRecipients = 100_000_000, 200_000_000, []string{researchTo.String()}
		tc.AllowRecipients = []string{tradingTo.String()}
		o.Policy.Agents = []policy.Agent{{UID: research, Label: "research", Config: rc, NoGrants: true}, {UID: trading, Label: "trading", Config: tc}}
	}, research, trading)

	fees := map[uint32]uint64{}
	spend := func(uid uint32, to solana.PublicKey, lamports uint64) wire.CallResult {
		t.Helper()
		args := fmt.Sprintf(`{"to":%q,"lamports":%d}`, to, lamports)
		ans := callAs(t, helper, w.socket, uid, "transfer_sol", args)
		id := ans.Str("proposal_id")
		if ans.Status() != "pending_approval" {
			return ans
		}
		p, err := w.authority.Approve(id, "operator")
		if err != nil {
			t.Fatal(err)
		}
		done := callAs(t, helper, w.socket, uid, "transfer_sol", fmt.Sprintf(`{"to":%q,"lamports":%d,"confirm":%q}`, to, lamports, p.Token))
		testkit.Eventually(t, time.Minute, "proposal "+id+" executed", func() bool {
			q, ok := w.authority.Proposal(id)
			return ok && q.Status == approval.StatusExecuted
		}, func() string {
			q, _ := w.authority.Proposal(id)
			return fmt.Sprintf("%+v; confirmed call: %+v", q.Status, done)
		})
		st := callAs(t, helper, w.socket, uid, "proposal_status", fmt.Sprintf(`{"proposal_id":%q}`, id))
		fee, err := strconv.ParseUint(fmt.Sprint(st.Structured["fee_lamports"]), 10, 64)
		if err != nil {
			t.Fatalf("proposal_status of %s: no fee_lamports: %+v", id, st)
		}
		fees[uid] += fee
		return st
	}
	walletBefore := w.balance(t, w.wallet)

	const step = 80_000_000 // 0.08 SOL
	spend(research, researchTo, step)
	spend(research, researchTo, step)
	third := spend(research, researchTo, step)
	if third.Status() != "denied" || !strings.Contains(third.Text, "research's session cap (uid 64301)") {
		t.Fatalf("research's third 0.08 SOL: %+v", third)
	}
	// The recipient on research's list only is refused for trading.
	other := spend(trading, researchTo, step)
	if other.Status() != "denied" || !strings.Contains(other.Text, "trading's recipient allowlist") {
		t.Fatalf("trading paying research's recipient: %+v", other)
	}
	// Trading still spends, until all together would pass 1.0 SOL.
	// 0.7 SOL of trading's own 1.0 leaves it room for 0.2 more, but not
	// all together: 0.16 + 0.7 + 0.2 is past the console's 1.0.
	const big = 350_000_000
	spend(trading, tradingTo, big)
	spend(trading, tradingTo, big)
	over := spend(trading, tradingTo, 200_000_000)
	if over.Status() != "denied" || !strings.Contains(over.Text, "the console's session cap (all agents together)") {
		t.Fatalf("trading past the total: %+v", over)
	}

	// The ledger and the books agree, per agent: what each agent's
	// recipient received plus the fees of its transfers is its spend.
	sum := w.authority.SpendSummary()
	books := map[uint32]uint64{}
	for _, a := range sum.Agents {
		books[a.UID] = a.Spent
	}
	if got, want := w.balance(t, researchTo), uint64(2*step); got != want {
		t.Fatalf("research's recipient holds %d, want %d", got, want)
	}
	if got, want := w.balance(t, tradingTo), uint64(2*big); got != want {
		t.Fatalf("trading's recipient holds %d, want %d", got, want)
	}
	if books[research] != 2*step+fees[research] {
		t.Fatalf("research's books %d, ledger %d + fees %d", books[research], 2*step, fees[research])
	}
	if books[trading] != 2*big+fees[trading] {
		t.Fatalf("trading's books %d, ledger %d + fees %d", books[trading], 2*big, fees[trading])
	}
	if drop := walletBefore - w.balance(t, w.wallet); drop != sum.Spent || sum.Spent != books[research]+books[trading] || sum.Spent > 1_000_000_000 {
		t.Fatalf("wallet dropped %d, total books %d, agents %d + %d", drop, sum.Spent, books[research], books[trading])
	}

	// get_spend_status answers each with its own budget, and the room all
	// together have left, never the other's spend.
	for uid, want := range map[uint32]struct {
		label string
		spent uint64
		cap   string
	}{research: {"research", books[research], "200000000"}, trading: {"trading", books[trading], "1000000000"}} {
		st := callAs(t, helper, w.socket, uid, "get_spend_status", `{}`)
		agent, _ := st.Structured["agent"].(map[string]any)
		if agent["label"] != want.label || fmt.Sprint(agent["uid"]) != fmt.Sprint(uid) ||
			st.Str("spent_lamports") != fmt.Sprint(want.spent) || st.Str("max_lamports_session") != want.cap ||
			st.Str("total_remaining_lamports") != fmt.Sprint(1_000_000_000-sum.Spent) {
			t.Fatalf("get_spend_status of uid %d: %+v", uid, st.Structured)
		}
		for _, o := range []string{"research", "trading"} {
			if o != want.label && strings.Contains(st.Text, o) {
				t.Fatalf("uid %d's spend status names %s:\n%s", uid, o, st.Text)
			}
		}
	}

	// The audit rows name the agent: each reservation its uid, each
	// denial the label.
	entries, err := w.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]int{}
	for _, e := range entries {
		for _, who := range []string{`"agent":"uid 64301"`, `"agent":"uid 64302"`, `"agent":"research"`, `"agent":"trading"`} {
			if strings.Contains(string(e.Body), who) {
				named[e.Kind+" "+who]++
			}
		}
	}
	if named[`reservation "agent":"uid 64301"`] < 2 || named[`reservation "agent":"uid 64302"`] < 2 ||
		named[`auto_denied "agent":"research"`] != 1 || named[`auto_denied "agent":"trading"`] != 2 {
		t.Fatalf("audit rows naming the agents: %v", named)
	}

	// Research's section turns grants off for it alone.
	ask := callAs(t, helper, w.socket, research, "transfer_sol", fmt.Sprintf(`{"to":%q,"lamports":1000000}`, researchTo))
	if _, _, err := w.authority.ApproveWithGrant(ask.Str("proposal_id"), "operator", approval.GrantTerms{Count: 1, Ceiling: 1_000_000, For: time.Minute}); !errors.Is(err, authority.ErrGrantsOff) {
		t.Fatalf("a grant to research: %v (proposal %+v)", err, ask)
	}

	// After the console stops, a ledger rebuilt from the store (as the
	// next start builds it) holds each agent's day spend as it was.
	w.stop()
	again, err := policy.NewSpend(w.store, nil)
	if err != nil {
		t.Fatal(err)
	}
	for uid, want := range books {
		if got := again.AgentState(policy.OwnerOfUID(uid)).DaySpent; got != want {
			t.Fatalf("uid %d's day spend after the restart: %d, was %d", uid, got, want)
		}
	}
}

// A grant is bounded by the agent's own room as well as the console's: the
// test's own user, given a section of 0.2 SOL a session under the console's
// 1 SOL, cannot be granted a ceiling past what its own cap leaves, though
// the console's would allow it; within it, the grant is made.
func TestGrantBoundedByTheAgentsCap(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) {
		own := o.Policy
		own.MaxLamportsPerSession = 200_000_000
		o.Policy.Agents = []policy.Agent{{UID: uint32(os.Getuid()), Label: "self", Config: own}}
	})
	a := startAgent(t, w.socket)
	const amount = 50_000_000
	id := propose(t, a, w.allowed, amount)
	// The agent's own cap leaves 0.2 − 0.05 SOL (less the fee) after this
	// proposal; the console's would leave about 0.95.
	if _, _, err := w.authority.ApproveWithGrant(id, "operator", approval.GrantTerms{Count: 2, Ceiling: 300_000_000, For: time.Minute}); err == nil || !strings.Contains(err.Error(), "what the session cap leaves") {
		t.Fatalf("a ceiling past the agent's own room: %v", err)
	}
	if _, g, err := w.authority.ApproveWithGrant(id, "operator", approval.GrantTerms{Count: 2, Ceiling: 100_000_000, For: time.Minute}); err != nil || g.Ceiling != 100_000_000 {
		t.Fatalf("a ceiling within the agent's room: %+v %v", g, err)
	}
}
