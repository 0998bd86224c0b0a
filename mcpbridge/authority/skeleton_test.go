package authority_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// The skeletons are written once and every kind goes through them: these
// tests drive a fake kind (any kind) through the socket and read back what
// the skeletons did, in what order, and what the store holds.

const fakeTool = "fake_write"

func fakeWorld(t *testing.T, script *authority.FakeScript, tweak func(*authority.Options)) *world {
	t.Helper()
	return newWorld(t, func(o *authority.Options) {
		o.Kinds = authority.FakeRegistry(authority.NewFakeKind(fakeTool, script))
		if tweak != nil {
			tweak(o)
		}
	})
}

// testProcessSecret is this test process's secret, as a bridge has one
// (wire.CallRequest.Process).
var testProcessSecret = fmt.Sprintf("test-process-%d-%d", os.Getpid(), time.Now().UnixNano())

func callSocket(t *testing.T, w *world, tool string, args map[string]any) wire.CallResult {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := mcpbridge.PostCall(context.Background(), mcpbridge.NewUnixHTTPClient(w.socket, time.Minute), wire.CallRequest{
		Client: wire.ClientInfo{Name: "skeleton-test", Version: "1"}, Tool: tool, Arguments: raw,
		Process: testProcessSecret, // as a bridge sends: a grant can bind to this process
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestProposeSkeletonJudgesTheDraftBeforePreparingIt(t *testing.T) {
	s := &authority.FakeScript{Estimate: 200_000_000, Measured: 10_000} // the draft is over the 0.1 SOL per-tx cap
	w := fakeWorld(t, s, nil)
	res := callSocket(t, w, fakeTool, map[string]any{"n": "1"})
	if res.Structured["status"] != "denied" || res.Structured["rule"] != policy.RulePerTx {
		t.Fatalf("a draft over the cap: %+v", res)
	}
	if got := s.Steps(); !slices.Equal(got, []string{"draft", "facts 200000000"}) {
		t.Fatalf("steps %v: the pre-policy must judge the draft's facts and stop before prepare", got)
	}
}

func TestProposeSkeletonJudgesTheMeasuredFacts(t *testing.T) {
	s := &authority.FakeScript{Estimate: 10_000, Measured: 200_000_000} // only the measure is over the cap
	w := fakeWorld(t, s, nil)
	res := callSocket(t, w, fakeTool, map[string]any{"n": "2"})
	if res.Structured["status"] != "denied" || res.Structured["rule"] != policy.RulePerTx {
		t.Fatalf("a measure over the cap: %+v", res)
	}
	if got := s.Steps(); !slices.Equal(got, []string{"draft", "facts 10000", "prepare", "facts 200000000"}) {
		t.Fatalf("steps %v", got)
	}
}

// The run skeleton's order is fixed whatever the kind: prepare the approved
// bytes, reserve on their facts, persist before sending, verify, settle at
// the landed measure.
func TestRunSkeletonOrderAndSettlement(t *testing.T) {
	s := &authority.FakeScript{Estimate: 10_000, Measured: 20_000, AtExecution: 30_000, Outcome: executor.Executed}
	w := fakeWorld(t, s, nil)
	res := callSocket(t, w, fakeTool, map[string]any{"n": "3"})
	id, _ := res.Structured["proposal_id"].(string)
	if res.Structured["status"] != "pending_approval" || id == "" {
		t.Fatalf("propose: %+v", res)
	}
	if p, _ := w.authority.Proposal(id); p.Spend != 20_000 {
		t.Fatalf("the proposal's spend is %d, not the measured 20000", p.Spend)
	}
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	res = callSocket(t, w, fakeTool, map[string]any{"n": "3", "confirm": p.Token})
	if res.Structured["status"] != "executed" {
		t.Fatalf("execute: %+v", res)
	}
	want := []string{"draft", "facts 10000", "prepare", "facts 20000", "admit", "prepare approved", "facts 30000", "persist", "send", "verify"}
	if got := s.Steps(); !slices.Equal(got, want) {
		t.Fatalf("steps\n got %v\nwant %v", got, want)
	}
	// Settled at the landed result (its fee: the fake measured no effects),
	// read back from the store.
	r, err := w.store.GetReservation(id)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != "settled" || r.Lamports != 5000 || r.Signature == "" {
		t.Fatalf("reservation %+v: want settled at 5000 lamports with its signature", r)
	}
}

// A kind's Verify decides whether what landed is what was approved; the
// skeleton reports its verdict, never plain "executed".
func TestRunSkeletonReportsVerifyVerdict(t *testing.T) {
	s := &authority.FakeScript{Estimate: 10_000, Measured: 10_000, AtExecution: 10_000, Outcome: executor.Executed, Downgrade: "more left the wallet than approved"}
	w := fakeWorld(t, s, nil)
	res := callSocket(t, w, fakeTool, map[string]any{"n": "4"})
	id, _ := res.Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	res = callSocket(t, w, fakeTool, map[string]any{"n": "4", "confirm": p.Token})
	if res.Structured["status"] != string(approval.StatusLosses) || !strings.Contains(res.Text, "more left the wallet than approved") {
		t.Fatalf("a downgraded verification: %+v", res)
	}
}

// A kind that sends without persisting first breaks the invariant the
// skeleton holds: it is recorded late, and audited loudly.
func TestRunSkeletonCatchesAKindThatSkipsPersist(t *testing.T) {
	s := &authority.FakeScript{Estimate: 10_000, Measured: 10_000, AtExecution: 10_000, Outcome: executor.Executed, SkipPersist: true}
	w := fakeWorld(t, s, nil)
	res := callSocket(t, w, fakeTool, map[string]any{"n": "5"})
	id, _ := res.Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	callSocket(t, w, fakeTool, map[string]any{"n": "5", "confirm": p.Token})
	entries, err := w.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		found = found || e.Kind == "submitted_without_persist" && e.ProposalID == id
	}
	if !found {
		t.Fatal("no submitted_without_persist audit row for a kind that skipped persist")
	}
	if r, err := w.store.GetReservation(id); err != nil || r.Signature == "" {
		t.Fatalf("the signature was not recorded late: %+v, %v", r, err)
	}
}

// Any kind denied at execution goes through the retry breaker, and the
// breaker's verdict is what the agent reads (swaps once dropped it).
func TestRunSkeletonDenialAtExecutionFeedsTheBreaker(t *testing.T) {
	s := &authority.FakeScript{Estimate: 10_000, Measured: 10_000, AtExecution: 200_000_000, Outcome: executor.Executed}
	w := fakeWorld(t, s, func(o *authority.Options) { o.Policy.BreakerDenials = 1 })
	res := callSocket(t, w, fakeTool, map[string]any{"n": "6"})
	id, _ := res.Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	res = callSocket(t, w, fakeTool, map[string]any{"n": "6", "confirm": p.Token})
	reason, _ := res.Structured["reason"].(string)
	if res.Structured["status"] != "failed" || !strings.Contains(reason, policy.RulePerTx) || !strings.Contains(reason, "paused") {
		t.Fatalf("a denial at execution must carry the breaker's verdict: %+v", res)
	}
}

// A kind that pays the wallet itself but calls a program, or came from an
// origin, off its allowlist is denied: pays-self waives no counterparty.
func TestPaysSelfWaivesNoCounterparty(t *testing.T) {
	for name, c := range map[string]struct {
		cp   policy.Counterparty
		rule string
	}{
		"program":       {policy.Program("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"), policy.RuleProgram},
		"action origin": {policy.ActionOrigin("https://actions.example"), policy.RuleActionOrigin},
		"x402 origin":   {policy.X402Origin("https://pay.example"), policy.RuleX402Origin},
	} {
		t.Run(name, func(t *testing.T) {
			s := &authority.FakeScript{Estimate: 10_000, Measured: 10_000, Counterparties: []policy.Counterparty{c.cp}}
			w := fakeWorld(t, s, nil)
			res := callSocket(t, w, fakeTool, map[string]any{"n": "7"})
			if res.Structured["status"] != "denied" || res.Structured["rule"] != c.rule {
				t.Fatalf("pays self with %s: %+v", c.cp, res)
			}
			if len(w.authority.Proposals()) != 0 {
				t.Fatal("a denied proposal was queued")
			}
		})
	}
	// The default program allowlist admits what solgate's own kinds call.
	s := &authority.FakeScript{Estimate: 10_000, Measured: 10_000, Counterparties: []policy.Counterparty{policy.Program("11111111111111111111111111111111")}}
	w := fakeWorld(t, s, nil)
	if res := callSocket(t, w, fakeTool, map[string]any{"n": "8"}); res.Structured["status"] != "pending_approval" {
		t.Fatalf("pays self calling the System Program: %+v", res)
	}
}

// A kind whose grant terms are known only to the console (its Kind, not its
// arguments, states them; x402's payee and price) can be covered by a
// standing grant, within its terms.
func TestAGrantCanCoverTermsTheKindStates(t *testing.T) {
	s := &authority.FakeScript{Estimate: 10_000, Measured: 10_000, GrantTo: "https://pay.example → payee"}
	w := fakeWorld(t, s, nil)
	first := callSocket(t, w, fakeTool, map[string]any{"n": "100"})
	id, _ := first.Structured["proposal_id"].(string)
	p, _ := w.authority.Proposal(id)
	if !authority.Grantable(p) {
		t.Fatal("a kind stating its grant terms is not grantable")
	}
	if _, g, err := w.authority.ApproveWithGrant(id, "operator", approval.GrantTerms{Count: 2, Ceiling: 100_000, For: time.Minute}); err != nil || g.Counterparty != "https://pay.example → payee" || g.MaxAmount != 100 {
		t.Fatalf("grant: %+v, %v", g, err)
	}
	covered := callSocket(t, w, fakeTool, map[string]any{"n": "90"})
	if q, _ := w.authority.Proposal(covered.Str("proposal_id")); q == nil || q.Status != approval.StatusApproved || q.Grant == 0 {
		t.Fatalf("a call within the grant's terms was not approved by it: %+v", q)
	}
	over := callSocket(t, w, fakeTool, map[string]any{"n": "101"})
	if q, _ := w.authority.Proposal(over.Str("proposal_id")); q == nil || q.Status != approval.StatusPending {
		t.Fatalf("a call above the granted amount was approved: %+v", q)
	}
}

// A kind may persist again when the signature the chain knows the
// transaction by changes (an x402 facilitator signs the settlement): what
// is recorded, and settled, is the last one.
func TestRunSkeletonRecordsTheLastPersistedSignature(t *testing.T) {
	s := &authority.FakeScript{Estimate: 10_000, Measured: 10_000, AtExecution: 10_000, Outcome: executor.Executed, Repersist: true}
	w := fakeWorld(t, s, nil)
	res := callSocket(t, w, fakeTool, map[string]any{"n": "9"})
	id, _ := res.Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	res = callSocket(t, w, fakeTool, map[string]any{"n": "9", "confirm": p.Token})
	r, err := w.store.GetReservation(id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Str("signature") == "" || r.Signature != res.Str("signature") || r.State != "settled" {
		t.Fatalf("recorded %+v, the result says %q", r, res.Str("signature"))
	}
}
