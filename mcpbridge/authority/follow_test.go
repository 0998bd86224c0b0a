package authority_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/server"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
	"github.com/solgate/solgate/mcpbridge/wire"
)

func statusCall(t *testing.T, h *authority.Hub, id string, wait int) wire.CallResult {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"proposal_id": id, "wait_seconds": wait})
	return h.Call(context.Background(), wire.CallRequest{Client: wire.ClientInfo{Name: "t"}, Tool: "proposal_status", Arguments: args})
}

// After a restart the proposal is gone from memory, but the database knows
// it executed: the agent must hear "executed", never "propose again".
func TestProposalStatusAfterRestartComesFromTheDatabase(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	args := map[string]any{"to": w.allowed.String(), "lamports": 1_500_000}
	id := a.Call("transfer_sol", args).Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	args["confirm"] = p.Token
	done := a.Call("transfer_sol", args)
	if done.Status() != "executed" {
		t.Fatalf("execute: %+v", done)
	}
	pending := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 1_600_000}).Structured["proposal_id"].(string)

	// A second console on the same database (the first one's memory is gone).
	cfg := w.authority.Policy()
	built, err := startup.Build(context.Background(), startup.Setup{Client: executor.NewClient(w.ledger.RPC(), executor.ClientOptions{}), Key: w.key, Store: w.store},
		authority.Options{Policy: cfg})
	if err != nil {
		t.Fatal(err)
	}
	h2 := built.Hub
	defer h2.Close()
	// Asked by the user that proposed (this test's, whose bridge made
	// them), over the second console's socket; the console itself is no
	// user, and is answered as another user would be.
	path := filepath.Join(testkit.SocketDir(t), "s")
	l, err := host.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	go server.Serve(l, h2, server.Options{})
	defer l.Close()
	ask := func(id string) wire.CallResult {
		res, err := mcpbridge.PostCall(context.Background(), mcpbridge.NewUnixHTTPClient(path, time.Minute), wire.CallRequest{
			Client: wire.ClientInfo{Name: "t"}, Tool: "proposal_status", Arguments: json.RawMessage(fmt.Sprintf(`{"proposal_id":%q}`, id))})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	got := ask(id)
	if got.Structured["status"] != "executed" || got.Structured["signature"] != done.Structured["signature"] || !strings.Contains(got.Text, "do not propose it again") {
		t.Errorf("executed proposal after restart: %+v", got)
	}
	if void := ask(pending); void.Structured["status"] != "expired" || !strings.Contains(void.Text, "nothing was sent") {
		t.Errorf("pending proposal after restart: %+v", void)
	}
	if unknown := ask("p_never"); unknown.Structured["status"] != "unknown" {
		t.Errorf("never-made proposal: %+v", unknown)
	}
	if other := statusCall(t, h2, id, 0); other.Structured["status"] != "unknown" || other.Text != unknownAnswer(id) {
		t.Errorf("another caller asked for the executed proposal after restart: %+v", other)
	}
}

// unknownAnswer is what proposal_status says about an id nobody made.
func unknownAnswer(id string) string {
	return "Proposal " + id + " is unknown to this console (it may have been made before a restart). Propose again."
}

// An execution whose outcome is unknown (the RPC went dark after the send)
// must not wait for a restart: once the RPC answers again the console settles
// it by itself, and what it says agrees with the ledger.
func TestUnknownOutcomeIsSettledInTheBackground(t *testing.T) {
	t.Parallel()
	// The console reaches the ledger through a tap, so the RPC goes dark
	// the moment the send has reached the ledger, before its answer returns:
	// however slow the machine, the console cannot see the outcome first.
	var tap *rpcTap
	w := newWorldSetup(t, func(o *authority.Options, _ *localnet.Ledger) {
		o.ExecutionTimeout = 1500 * time.Millisecond
		o.FollowInterval = 200 * time.Millisecond
	}, func(s *startup.Setup, l *localnet.Ledger) {
		tap = newRPCTap(t, l.RPC())
		s.Client = executor.NewClient(tap.URL(), executor.ClientOptions{})
	}, host.ListenConfig{})
	ctx := context.Background()
	const amount = 2_500_000
	args, _ := json.Marshal(map[string]any{"to": w.allowed.String(), "lamports": amount})
	call := func(raw []byte) wire.CallResult {
		return w.authority.Call(ctx, wire.CallRequest{Client: wire.ClientInfo{Name: "t"}, Tool: "transfer_sol", Arguments: raw})
	}
	id := call(args).Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	confirmed, _ := json.Marshal(map[string]any{"to": w.allowed.String(), "lamports": amount, "confirm": p.Token})
	dark := tap.on(tapAfter, "sendTransaction", func() {
		if err := w.ledger.FailNextCalls(ctx, 1_000_000); err != nil {
			t.Error(err)
		}
	})
	answered := make(chan wire.CallResult, 1)
	go func() { answered <- call(confirmed) }()
	select {
	case <-dark:
	case <-time.After(60 * time.Second):
		t.Fatal("the execution never sent its transaction")
	}
	first := <-answered
	if first.Structured["status"] == "executed" {
		t.Fatalf("executed reported while the RPC was dark: %+v", first)
	}
	time.Sleep(2 * time.Second) // behaviour under test: while the RPC stays dark, longer than the execution timeout, nothing settles
	if q, _ := w.authority.Proposal(id); q.Status != approval.StatusSubmitted {
		t.Fatalf("status while dark: %s (%s)", q.Status, q.Reason)
	}
	if err := w.ledger.FailNextCalls(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var final wire.CallResult
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		final = statusCall(t, w.authority, id, 5)
		if s := final.Structured["status"]; s == "executed" || s == "failed" {
			break
		}
	}
	landed := w.balance(t, w.allowed) == amount
	switch final.Structured["status"] {
	case "executed":
		if !landed {
			t.Fatalf("executed, but the ledger shows no transfer: %+v", final)
		}
		// Settled in the background, the row still records what moved.
		execs, err := w.store.Executions(id)
		var deltas map[string]int64
		if err != nil || len(execs) == 0 || json.Unmarshal(execs[len(execs)-1].Deltas, &deltas) != nil ||
			deltas[w.allowed.String()] != amount || deltas[w.wallet.String()] != -(amount+fee) {
			t.Errorf("execution rows %+v (%v): want deltas recipient +%d, wallet -%d", execs, err, amount, amount+fee)
		}
	case "failed":
		if landed {
			t.Fatalf("failed, but the transfer is on the ledger: %+v", final)
		}
	default:
		t.Fatalf("never settled without a restart: %+v", final)
	}
	s := w.authority.SpendSummary()
	if s.Reserved != 0 {
		t.Errorf("still reserved after settling: %+v", s)
	}
	if landed != (s.Spent == amount+fee) {
		t.Errorf("spend %+v disagrees with the ledger (landed=%v)", s, landed)
	}
	t.Logf("outcome %v (landed=%v)", final.Structured["status"], landed)
}

// A long-running console keeps only recent finished proposals in memory; an
// older one is still answered, from the database.
func TestFinishedProposalsArePrunedButStillAnswered(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) { o.KeepFinished = 2 })
	ctx := context.Background()
	var ids []string
	for i := 0; i < 4; i++ {
		args, _ := json.Marshal(map[string]any{"to": w.allowed.String(), "lamports": 1_000_000 + i})
		res := w.authority.Call(ctx, wire.CallRequest{Client: wire.ClientInfo{Name: "t"}, Tool: "transfer_sol", Arguments: args})
		id := res.Structured["proposal_id"].(string)
		if _, err := w.authority.Deny(id, "operator", "not today"); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if n := len(w.authority.Proposals()); n > 3 {
		t.Errorf("%d proposals in memory, want at most KeepFinished (2) plus the newest", n)
	}
	if _, ok := w.authority.Proposal(ids[0]); ok {
		t.Errorf("the oldest finished proposal is still in memory")
	}
	got := statusCall(t, w.authority, ids[0], 0)
	if got.Structured["status"] != "denied" || got.Structured["lamports"] != "1000000" {
		t.Errorf("pruned proposal: %+v", got)
	}
}
