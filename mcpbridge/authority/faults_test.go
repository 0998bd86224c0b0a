package authority_test

// The fault matrix (issue 7): for each fault, N confirmed transfers through a
// real `solgate mcp` bridge into a hub on the localnet ledger, then the books
// are checked from the outside — balances and localnet_stats read with the
// test's own RPC client, and the audit database reopened from disk:
//
//   - no false success: an agent hears "executed" only for a signature the
//     ledger shows confirmed with err=null and the money at the recipient;
//   - nothing lost or double counted: the settled reservations add up to the
//     wallet's real outflow on chain, each proposal landed at most once, and
//     nothing is left reserved once everything is final and reconciled;
//   - every signature accounted for: on chain ⇔ an executed/failed execution
//     row and a settled reservation at the chain's numbers; absent ⇔ recorded
//     as expired and released;
//   - the audit hash chain verifies;
//   - in-flight signatures are reconciled by the next console.
//
// N is SOLGATE_FAULT_N (default 2, so `go test ./...` and CI stay quick;
// `make faults` runs 20). The console killed with kill -9 is a hub in a child
// process: this test binary re-executed with SOLGATE_FAULT_HUB_CHILD set,
// wired like newWorld and approving every proposal it receives, in place of
// the human (test code only). The executor of every hub under test talks to
// the ledger through rpcTap, a pass-through proxy of this test's that lets a
// fault be armed at an exact point (e.g. right after the send reached the
// ledger) using the ledger's own fault controls.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/server"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

const (
	// faultNEnv sets how many transfers each fault runs.
	faultNEnv = "SOLGATE_FAULT_N"
	// faultChildEnv carries a authorityChildConfig (JSON) to a re-executed test
	// binary, which then runs a console hub instead of the tests.
	faultChildEnv = "SOLGATE_FAULT_HUB_CHILD"
	// authorityChildReady is the line a child hub prints once it serves its socket.
	authorityChildReady = "SOLGATE_FAULT_HUB_READY"
)

func faultN(t *testing.T) int {
	t.Helper()
	n := 2
	if s := os.Getenv(faultNEnv); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 1000 {
			t.Fatalf("%s=%q: want a count from 1 to 1000", faultNEnv, s)
		}
		n = v
	}
	return n
}

// ---------------------------------------------------------------- the matrix

// 1. Every send and rebroadcast is dropped: the agent hears failed/expired,
// never executed, and the reservation is released.
func TestFaultDroppedSend(t *testing.T) {
	t.Parallel()
	n, start := faultN(t), time.Now()
	// Fast: each transfer is answered only once its blockhash expired, 150
	// blocks (a minute at the real pace, longer than the agent's wait).
	w := newFaultWorld(t, faultSetup{slotMS: localnet.FastSlotMS})
	w.startHub(nil)
	a := w.startAgent("fault-dropped-send")
	loop := time.Now()
	for i := 0; i < n; i++ {
		lamports := uint64(1_000_000 + i)
		id, token := w.approved(a, lamports)
		before := w.stats()
		w.must(w.ledger.DropNextSends(w.ctx, 1_000_000))
		ans := w.confirm(a, id, lamports, token)
		w.must(w.ledger.DropNextSends(w.ctx, 0))
		after := w.stats()
		if ans.status() != "failed" || ans.str("outcome") != string(executor.Expired) {
			t.Errorf("#%d: dropped sends answered %s/%s, want failed/expired: %s", i, ans.status(), ans.str("outcome"), ans.text)
		}
		recv, dropped := after.SendsReceived-before.SendsReceived, after.SendsDropped-before.SendsDropped
		if recv == 0 || dropped != recv {
			t.Errorf("#%d: %d sends received, %d dropped; the fault must drop every send and rebroadcast", i, recv, dropped)
		}
		w.wantReservation(id, store.StateReleased)
	}
	b := w.finish()
	if b.landed != 0 || b.outcomes[store.ExecExpired] != n || b.released != n {
		t.Errorf("books: %s; want %d expired and released, none landed", b, n)
	}
	t.Logf("fault 1 dropped send: N=%d, %s, %s total, %s", n, b, time.Since(start).Round(time.Millisecond), perTransfer(loop, n))
}

// 2a. A short 503 burst is retried: at the start of the execution (the
// idempotent reads retry) or on the send itself (not retried; the confirm
// loop rebroadcasts the same bytes). Every transfer executes exactly once.
func TestFaultRPC503BurstShort(t *testing.T) {
	t.Parallel()
	n, start := faultN(t), time.Now()
	w := newFaultWorld(t, faultSetup{})
	w.startHub(nil)
	a := w.startAgent("fault-503-short")
	loop := time.Now()
	for i := 0; i < n; i++ {
		lamports := uint64(2_000_000 + i)
		id, token := w.approved(a, lamports)
		before := w.stats()
		var fired <-chan struct{}
		if i%2 == 0 {
			// The execution's first calls (getLatestBlockhash) fail 3 times;
			// the client's 3 retries get through.
			w.must(w.ledger.FailNextCalls(w.ctx, 3))
		} else {
			// The send and the two calls after it fail.
			fired = w.tap.on(tapBefore, "sendTransaction", func() { w.must(w.ledger.FailNextCalls(w.ctx, 3)) })
		}
		ans := w.confirm(a, id, lamports, token)
		if fired != nil {
			w.waitFired(fired, "503 burst at the send")
		}
		after := w.stats()
		if ans.status() != "executed" {
			t.Errorf("#%d: short 503 burst answered %s, want executed after retries: %s", i, ans.status(), ans.text)
		}
		if got := after.FailedCalls - before.FailedCalls; got != 3 {
			t.Errorf("#%d: %d calls failed with 503, want the whole burst of 3", i, got)
		}
		w.wantReservation(id, store.StateSettled)
	}
	b := w.finish()
	if b.landed != n || b.outcomes[store.ExecExecuted] != n {
		t.Errorf("books: %s; want %d executed", b, n)
	}
	t.Logf("fault 2a RPC 503 burst (short): N=%d, %s, %s total, %s", n, b, time.Since(start).Round(time.Millisecond), perTransfer(loop, n))
}

// 2b. A 503 outage longer than the execution may follow the chain: the agent
// hears submitted (never executed), the spend stays reserved, and once the RPC
// is back the next console's Reconcile settles what landed and releases what
// provably never can.
func TestFaultRPC503BurstLong(t *testing.T) {
	t.Parallel()
	n, start := faultN(t), time.Now()
	w := newFaultWorld(t, faultSetup{authority: func(o *authority.Options) { o.ExecutionTimeout = 5 * time.Second }})
	w.startHub(nil)
	a := w.startAgent("fault-503-long")
	loop := time.Now()
	landedBeforeOutage := map[string]bool{}
	for i := 0; i < n; i++ {
		lamports := uint64(3_000_000 + i)
		id, token := w.approved(a, lamports)
		var fired <-chan struct{}
		if i%2 == 0 {
			// The send reaches the ledger; every call after it fails.
			fired = w.tap.on(tapAfter, "sendTransaction", func() { w.must(w.ledger.FailNextCalls(w.ctx, 1_000_000)) })
			landedBeforeOutage[id] = true
		} else {
			// The outage starts with the send: it never reaches the ledger.
			fired = w.tap.on(tapBefore, "sendTransaction", func() { w.must(w.ledger.FailNextCalls(w.ctx, 1_000_000)) })
		}
		ans := w.confirm(a, id, lamports, token)
		w.waitFired(fired, "the outage")
		w.must(w.ledger.FailNextCalls(w.ctx, 0)) // the RPC recovers
		if st := ans.status(); st != "submitted" && st != "executing" {
			t.Errorf("#%d: long outage answered %s, want submitted: %s", i, st, ans.text)
		}
		if !strings.Contains(ans.text, "do not assume success") || ans.str("signature") == "" {
			t.Errorf("#%d: submitted answer lacks the warning or the signature: %s", i, ans.text)
		}
		w.wantReservation(id, store.StateUnknown)
	}
	// The live console settles each unknown outcome by itself once the RPC
	// answers again: the landed ones as executed, the never-sent ones as
	// expired once the chain is past their last valid block height.
	w.must(w.ledger.ExpireBlockhash(w.ctx))
	for _, id := range w.ids {
		var st faultAnswer
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			st = a.call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 5})
			if st.status() == "executed" || st.status() == "failed" {
				break
			}
		}
		want, wantRes := "failed", store.StateReleased
		if landedBeforeOutage[id] {
			want, wantRes = "executed", store.StateSettled
		}
		if st.status() != want {
			t.Errorf("%s: the live console settled it as %s, want %s: %s", id, st.status(), want, st.text)
		}
		w.wantReservation(id, wantRes)
	}
	// A restarted console has nothing left to reconcile, and answers from
	// the database: executed with its signature, or ended.
	w.stopHub()
	lines := w.startHub(nil)
	for _, id := range w.ids {
		if containsLine(lines, id) {
			t.Errorf("reconcile acted again on %s, already settled: %q", id, lines)
		}
		st := a.call("proposal_status", map[string]any{"proposal_id": id})
		if landedBeforeOutage[id] != (st.status() == "executed") {
			t.Errorf("%s after restart: %s (landed=%v): %s", id, st.status(), landedBeforeOutage[id], st.text)
		}
	}
	b := w.finish()
	wantLanded := len(landedBeforeOutage)
	if b.landed != wantLanded || b.outcomes[store.ExecExecuted] != wantLanded || b.outcomes[store.ExecExpired] != n-wantLanded {
		t.Errorf("books: %s; want %d landed and settled, %d expired", b, wantLanded, n-wantLanded)
	}
	t.Logf("fault 2b RPC 503 outage (long) + restart reconcile: N=%d, %s, %s total, %s", n, b, time.Since(start).Round(time.Millisecond), perTransfer(loop, n))
}

// 3. The blockhash expires mid-flight: sends are dropped and the block
// height jumps past the transaction's last valid height right after the first
// send (expired); or the expiry lands between signing and the send, which
// the node refuses in preflight (rejected). Both release the reservation.
func TestFaultBlockhashExpiry(t *testing.T) {
	t.Parallel()
	n, start := faultN(t), time.Now()
	w := newFaultWorld(t, faultSetup{})
	w.startHub(nil)
	a := w.startAgent("fault-blockhash-expiry")
	loop := time.Now()
	for i := 0; i < n; i++ {
		lamports := uint64(4_000_000 + i)
		id, token := w.approved(a, lamports)
		before := w.stats()
		var fired <-chan struct{}
		want := executor.Expired
		if i%2 == 0 {
			w.must(w.ledger.DropNextSends(w.ctx, 1_000_000))
			fired = w.tap.on(tapAfter, "sendTransaction", func() { w.must(w.ledger.ExpireBlockhash(w.ctx)) })
		} else {
			want = executor.Rejected
			fired = w.tap.on(tapBefore, "sendTransaction", func() { w.must(w.ledger.ExpireBlockhash(w.ctx)) })
		}
		ans := w.confirm(a, id, lamports, token)
		w.waitFired(fired, "the blockhash expiry")
		w.must(w.ledger.DropNextSends(w.ctx, 0))
		after := w.stats()
		if ans.status() != "failed" || ans.str("outcome") != string(want) {
			t.Errorf("#%d: answered %s/%s, want failed/%s: %s", i, ans.status(), ans.str("outcome"), want, ans.text)
		}
		if got := after.TransactionsExecuted - before.TransactionsExecuted; got != 0 {
			t.Errorf("#%d: %d transactions executed", i, got)
		}
		w.wantReservation(id, store.StateReleased)
	}
	b := w.finish()
	if b.landed != 0 || b.released != n {
		t.Errorf("books: %s; want %d released, none landed", b, n)
	}
	t.Logf("fault 3 blockhash expiry mid-flight: N=%d, %s, %s total, %s", n, b, time.Since(start).Round(time.Millisecond), perTransfer(loop, n))
}

// 4. A simulation failure signs nothing: the wallet is drained between
// approval and execution (the execution's fresh simulation fails; no
// reservation is ever held), or the transfer is above the balance from the
// start (denied at proposal by the simulation rule; the human never sees it).
func TestFaultSimulationFailure(t *testing.T) {
	t.Parallel()
	n, start := faultN(t), time.Now()
	const funded = 2 * solana.LAMPORTS_PER_SOL
	w := newFaultWorld(t, faultSetup{fund: funded})
	w.startHub(nil)
	a := w.startAgent("fault-simulation")
	loop := time.Now()
	sink, _ := executor.NewRandomKeypair()
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			lamports := uint64(100_000_000 + i)
			id, token := w.approved(a, lamports)
			w.drain(sink.PublicKey(), lamports/2) // leaves half the amount: the transfer cannot succeed
			before := w.stats()
			ans := w.confirm(a, id, lamports, token)
			after := w.stats()
			if ans.status() != "failed" || !strings.Contains(ans.text, "nothing was signed or sent") {
				t.Errorf("#%d: drained wallet answered %s: %s", i, ans.status(), ans.text)
			}
			if after.SendsReceived != before.SendsReceived || after.Simulations == before.Simulations {
				t.Errorf("#%d: sends %d→%d, simulations %d→%d; want a simulation and no send", i, before.SendsReceived, after.SendsReceived, before.Simulations, after.Simulations)
			}
			w.wantNoReservation(id)
			w.fund(funded) // top up for the next round
			continue
		}
		balance := w.balance(w.wallet)
		lamports := balance + solana.LAMPORTS_PER_SOL + uint64(i) // under the 5 SOL cap, above the balance
		before, queued := w.stats(), len(w.ids)
		ans := a.call("transfer_sol", map[string]any{"to": w.to.String(), "lamports": lamports})
		after := w.stats()
		if ans.status() != "denied" || ans.str("rule") != "simulation" {
			t.Errorf("#%d: transfer above the balance answered %s (rule %s): %s", i, ans.status(), ans.str("rule"), ans.text)
		}
		if after.SendsReceived != before.SendsReceived || len(w.ids) != queued {
			t.Errorf("#%d: a transfer above the balance was queued or sent", i)
		}
	}
	b := w.finish()
	if b.landed != 0 || b.signatures != 0 || b.settled != 0 {
		t.Errorf("books: %s; want nothing signed", b)
	}
	t.Logf("fault 4 simulation failure: N=%d, %s, %s total, %s", n, b, time.Since(start).Round(time.Millisecond), perTransfer(loop, n))
}

// 5. The RPC is slower than the execute call may wait: the first answer is
// executing/submitted (never executed before the chain confirmed it), and
// proposal_status later reports executed, which the ledger confirms.
func TestFaultSlowRPC(t *testing.T) {
	t.Parallel()
	n, start := faultN(t), time.Now()
	// At the default pace a blockhash lives 60 s, so slow answers cannot
	// expire it.
	w := newFaultWorld(t, faultSetup{authority: func(o *authority.Options) { o.ExecuteWait = 400 * time.Millisecond }})
	w.startHub(nil)
	a := w.startAgent("fault-slow-rpc")
	loop := time.Now()
	for i := 0; i < n; i++ {
		lamports := uint64(5_000_000 + i)
		id, token := w.approved(a, lamports)
		latency := 250 * time.Millisecond
		if i%2 == 1 {
			latency = 600 * time.Millisecond
		}
		w.must(w.ledger.SetLatency(w.ctx, latency))
		ans := w.confirm(a, id, lamports, token)
		if st := ans.status(); st != "executing" && st != "submitted" {
			t.Errorf("#%d: first answer %s with %s RPC latency, want executing/submitted: %s", i, st, latency, ans.text)
		}
		final := w.await(a, id, func(s string) bool { return s != "executing" && s != "submitted" })
		if final.status() != "executed" {
			t.Errorf("#%d: final status %s: %s", i, final.status(), final.text)
		}
		w.must(w.ledger.SetLatency(w.ctx, 0))
		w.wantReservation(id, store.StateSettled)
	}
	b := w.finish()
	if b.landed != n || b.outcomes[store.ExecExecuted] != n || len(b.told) != n {
		t.Errorf("books: %s; want %d executed, each reported by proposal_status", b, n)
	}
	t.Logf("fault 5 RPC slower than the tool timeout: N=%d, %s, %s total, %s", n, b, time.Since(start).Round(time.Millisecond), perTransfer(loop, n))
}

// 6. The console is killed with kill -9 after the signature was persisted
// and the transaction reached the ledger, before settlement (right after the
// send, or when the confirmed transaction is being re-fetched). The next
// console on the same state dir reconciles it before serving: settled at the
// chain's numbers, exactly once.
func TestFaultConsoleKill9(t *testing.T) {
	t.Parallel()
	n, start := faultN(t), time.Now()
	w := newFaultWorld(t, faultSetup{})
	child := w.startChild()
	a := w.startAgent("fault-kill9")
	loop := time.Now()
	for i := 0; i < n; i++ {
		lamports := uint64(6_000_000 + i)
		id, token := w.approved(a, lamports)
		stage, method := tapAfter, "sendTransaction"
		if i%2 == 1 {
			stage, method = tapBefore, "getTransaction"
		}
		victim := child
		fired := w.tap.on(stage, method, func() { victim.kill9() })
		ans, err := a.try("transfer_sol", map[string]any{"to": w.to.String(), "lamports": lamports, "confirm": token}, 90*time.Second)
		w.waitFired(fired, "kill -9")
		if err == nil && !ans.isError {
			t.Errorf("#%d: the call to a console killed mid-execution answered %s: %s", i, ans.status(), ans.text)
		}
		// The crash window, read from the dead console's database.
		st := w.openStore()
		r, rerr := st.GetReservation(id)
		execs, _ := st.Executions(id)
		st.Close()
		if rerr != nil || r.State != store.StateReserved || r.Signature == "" || len(execs) != 0 {
			t.Errorf("#%d: killed outside the window: reservation %+v (%v), executions %+v", i, r, rerr, execs)
		}
		onChain := w.lookup(r.Signature)
		if !onChain.found {
			t.Errorf("#%d: the killed console's transaction %s is not on chain", i, r.Signature)
		}
		// Restart on the same state dir and socket: Reconcile runs first.
		child = w.startChild()
		if !containsLine(child.reconcileLines(), id) || !strings.Contains(strings.Join(child.reconcileLines(), "\n"), "landed") {
			t.Errorf("#%d: the restarted console did not reconcile %s: %q", i, id, child.reconcileLines())
		}
		st = w.openStore()
		r, _ = st.GetReservation(id)
		execs, _ = st.Executions(id)
		st.Close()
		if r.State != store.StateSettled || r.Lamports != onChain.walletOut || len(execs) != 1 || execs[0].Outcome != store.ExecExecuted ||
			execs[0].Slot != onChain.slot || execs[0].Fee != onChain.fee {
			t.Errorf("#%d: after reconcile: reservation %+v (chain outflow %d), executions %+v", i, r, onChain.walletOut, execs)
		}
		// What the agent hears about it from the new console: the database
		// says executed, with the signature that is on chain (observe checks
		// the ledger), never "unknown, propose again".
		if st := a.call("proposal_status", map[string]any{"proposal_id": id}); st.status() != "executed" || st.str("signature") != r.Signature {
			t.Errorf("#%d: proposal_status after restart: %s", i, st.text)
		}
	}
	child.stop()
	b := w.finish()
	if b.landed != n || b.outcomes[store.ExecExecuted] != n || b.settledCount != n {
		t.Errorf("books: %s; want %d landed, each settled once by reconcile", b, n)
	}
	t.Logf("fault 6 console kill -9 + restart: N=%d, %s, %d console starts, %s total, %s", n, b, n+1, time.Since(start).Round(time.Millisecond), perTransfer(loop, n))
}

// 7. `solgate mcp` is killed while its confirmed transfer_sol call executes:
// the hub finishes anyway, the ledger moves exactly once, the spend settles,
// and a new bridge's proposal_status reports executed.
func TestFaultBridgeKilledMidCall(t *testing.T) {
	t.Parallel()
	n, start := faultN(t), time.Now()
	w := newFaultWorld(t, faultSetup{})
	w.startHub(nil)
	solgateBinary(t) // built before the clock starts
	loop := time.Now()
	for i := 0; i < n; i++ {
		lamports := uint64(7_000_000 + i)
		a := w.startAgent(fmt.Sprintf("fault-bridge-%d", i))
		id, token := w.approved(a, lamports)
		fired := w.tap.on(tapAfter, "sendTransaction", func() { a.kill9() })
		ans, err := a.try("transfer_sol", map[string]any{"to": w.to.String(), "lamports": lamports, "confirm": token}, 90*time.Second)
		w.waitFired(fired, "killing the bridge")
		if err == nil {
			t.Errorf("#%d: a killed bridge answered %s: %s", i, ans.status(), ans.text)
		}
		b := w.startAgent(fmt.Sprintf("fault-bridge-%d-again", i))
		final := w.await(b, id, func(s string) bool { return s != "executing" && s != "submitted" })
		if final.status() != "executed" {
			t.Errorf("#%d: the new bridge's proposal_status: %s", i, final.text)
		}
		w.wantReservation(id, store.StateSettled)
	}
	b := w.finish()
	if b.landed != n || b.outcomes[store.ExecExecuted] != n || len(b.told) != n {
		t.Errorf("books: %s; want %d executed, each reported to a new bridge", b, n)
	}
	t.Logf("fault 7 bridge killed mid-call: N=%d, %s, %s total, %s", n, b, time.Since(start).Round(time.Millisecond), perTransfer(loop, n))
}

// ---------------------------------------------------------------- the world

type faultSetup struct {
	fund      uint64                   // wallet funding (default 10 SOL)
	slotMS    int                      // ledger slot time (0: the default, mainnet's pace)
	authority func(*authority.Options) // tweaks to the hub under test
}

// faultWorld is a ledger, an RPC tap in front of it, a funded wallet, a state
// dir and a socket, with at most one console (in-process or child) at a time.
type faultWorld struct {
	t      *testing.T
	ctx    context.Context
	setup  faultSetup
	ledger *localnet.Ledger
	chain  *rpc.Client // the test's own reader, straight to the ledger
	tap    *rpcTap
	key    *executor.Keypair
	wallet solana.PublicKey
	to     solana.PublicKey // the one allowlisted recipient, fresh
	cfg    policy.Config
	dir    string // state dir
	socket string

	// The in-process console, while running.
	h           *authority.Hub
	st          *store.Store
	spend       *policy.Spend
	client      *executor.Client
	ln          *host.SocketListener
	stopApprove func()

	// What the test did to the wallet itself, for the balance equation.
	startBalance uint64
	startStats   localnet.Stats
	funded       uint64 // added by the test after the start
	drained      uint64 // taken by the test's own transactions
	ownTx        uint64 // transactions the test itself landed

	mu   sync.Mutex
	ids  []string          // every queued proposal
	told map[string]string // proposal → signature an agent was told "executed"
}

func newFaultWorld(t *testing.T, s faultSetup) *faultWorld {
	t.Helper()
	if s.fund == 0 {
		s.fund = 10 * solana.LAMPORTS_PER_SOL
	}
	ctx := context.Background()
	l, _ := testkit.StartLedger(t, localnet.Options{SlotMS: s.slotMS})
	key, _ := executor.NewRandomKeypair()
	to, _ := executor.NewRandomKeypair()
	testkit.Fund(t, l, key.PublicKey(), s.fund)
	cfg := policy.DefaultConfig()
	cfg.AllowRecipients = []string{to.PublicKey().String()}
	cfg.MaxLamportsPerTx = 5 * solana.LAMPORTS_PER_SOL
	cfg.MaxLamportsPerSession = 1000 * solana.LAMPORTS_PER_SOL
	cfg.BreakerDenials = 1000 // fault 4 is denied on purpose, repeatedly
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	sockDir := testkit.SocketDir(t)
	w := &faultWorld{
		t: t, ctx: ctx, setup: s, ledger: l,
		chain:  executor.NewClient(l.RPC(), executor.ClientOptions{}).RPC(),
		tap:    newRPCTap(t, l.RPC()),
		key:    key,
		wallet: key.PublicKey(), to: to.PublicKey(), cfg: cfg,
		dir:    t.TempDir(),
		socket: filepath.Join(sockDir, "run", "console.sock"),
		told:   map[string]string{},
	}
	w.startBalance = w.balance(w.wallet)
	w.startStats = w.stats()
	t.Cleanup(w.stopHub)
	return w
}

func (w *faultWorld) must(err error) {
	if err != nil {
		w.t.Helper()
		w.t.Error(err) // Error, not Fatal: may run on a tap goroutine
	}
}

// startHub wires a console hub in this process exactly like newWorld, after
// reconciling what a previous console on the same state dir left in flight
// (with reconcileNow as Reconcile's clock; nil: time.Now). It returns
// Reconcile's progress lines.
func (w *faultWorld) startHub(reconcileNow func() time.Time) []string {
	t := w.t
	t.Helper()
	st, err := store.Open(w.dir)
	if err != nil {
		t.Fatal(err)
	}
	client := executor.NewClient(w.tap.URL(), executor.ClientOptions{})
	var lines []string
	opts := authority.Options{Policy: w.cfg}
	if w.setup.authority != nil {
		w.setup.authority(&opts)
	}
	built, err := startup.Build(w.ctx, startup.Setup{Client: client, Key: w.key, Store: st, ReconcileNow: reconcileNow,
		Progress: func(s string) { lines = append(lines, s) }}, opts)
	if err != nil {
		t.Fatalf("build the authority: %v (reconcile: %q)", err, lines)
	}
	h, spend := built.Hub, built.Spend
	ln, err := host.Listen(w.socket)
	if err != nil {
		t.Fatal(err)
	}
	go server.Serve(ln, h, server.Options{})
	w.h, w.st, w.spend, w.client, w.ln = h, st, spend, client, ln
	w.stopApprove = autoApprove(h, t.Logf)
	return lines
}

// stopHub closes the in-process console as `solgate console` does on exit:
// no new calls, executions in flight settle, then the store closes.
func (w *faultWorld) stopHub() {
	if w.h == nil {
		return
	}
	w.stopApprove()
	w.ln.Close()
	w.h.Close()
	w.st.Close()
	w.client.Close()
	w.h, w.st, w.spend, w.client, w.ln = nil, nil, nil, nil, nil
}

// autoApprove plays the operator: every proposal that reaches the queue is
// approved (test code only; in the product only a key press approves).
func autoApprove(h *authority.Hub, logf func(string, ...any)) (stop func()) {
	events, cancel := h.Subscribe(256)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case ev := <-events:
				if ev.Kind == approval.EventProposalAdded && ev.Proposal != nil {
					if _, err := h.Approve(ev.Proposal.ID, "fault-matrix-operator"); err != nil {
						logf("auto-approve %s: %v", ev.Proposal.ID, err)
					}
				}
			}
		}
	}()
	return func() { close(quit); <-done; cancel() }
}

func (w *faultWorld) stats() localnet.Stats {
	w.t.Helper()
	s, err := w.ledger.Stats(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

func (w *faultWorld) balance(pk solana.PublicKey) uint64 {
	w.t.Helper()
	out, err := w.chain.GetBalance(w.ctx, pk, rpc.CommitmentConfirmed)
	if err != nil {
		w.t.Fatal(err)
	}
	return out.Value
}

func (w *faultWorld) fund(lamports uint64) {
	w.t.Helper()
	if err := w.ledger.Fund(w.ctx, w.wallet.String(), lamports); err != nil {
		w.t.Fatal(err)
	}
	w.funded += lamports
}

// drain moves the wallet's balance, but leave lamports, to sink with a
// transaction of the test's own (outside solgate).
func (w *faultWorld) drain(sink solana.PublicKey, leave uint64) {
	t := w.t
	t.Helper()
	before := w.balance(w.wallet)
	if before < leave+fee {
		return
	}
	ex := executor.New(executor.NewClient(w.ledger.RPC(), executor.ClientOptions{}), w.key, executor.Options{})
	res, err := ex.ExecuteTransfer(w.ctx, executor.Transfer{To: sink, Lamports: before - leave - fee}, nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("drain: %v %+v", err, res)
	}
	w.drained += before - w.balance(w.wallet)
	w.ownTx++
}

func (w *faultWorld) openStore() *store.Store {
	w.t.Helper()
	st, err := store.OpenExisting(w.dir)
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

// wantReservation checks a reservation's state in the running in-process
// console's database.
func (w *faultWorld) wantReservation(id, state string) {
	w.t.Helper()
	st := w.st
	if st == nil {
		w.t.Fatal("wantReservation needs the in-process console")
	}
	r, err := st.GetReservation(id)
	if err != nil || r.State != state {
		w.t.Errorf("%s: reservation %+v (%v), want %s", id, r, err, state)
	}
}

func (w *faultWorld) wantNoReservation(id string) {
	w.t.Helper()
	if r, err := w.st.GetReservation(id); !errors.Is(err, store.ErrNotFound) {
		w.t.Errorf("%s: a reservation was held: %+v %v", id, r, err)
	}
	if state, _, ok := w.spend.Lookup(id); ok {
		w.t.Errorf("%s: the spend ledger holds it as %s", id, state)
	}
}

func (w *faultWorld) waitFired(fired <-chan struct{}, what string) {
	w.t.Helper()
	select {
	case <-fired:
	case <-time.After(30 * time.Second): // generous: the send may come late on a busy machine
		w.t.Errorf("%s was armed but never fired", what)
	}
}

// perTransfer is the matrix loop's time per transfer (setup excluded).
func perTransfer(loop time.Time, n int) string {
	return fmt.Sprintf("%s per transfer", (time.Since(loop) / time.Duration(n)).Round(time.Millisecond))
}

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------- the agent

// faultAgent drives a real `solgate mcp` subprocess with mcp-go's stdio
// client, keeping the process so a test can kill it.
type faultAgent struct {
	w   *faultWorld
	c   *mcpclient.Client
	cmd *exec.Cmd
}

type faultAnswer struct {
	isError bool
	text    string
	st      map[string]any
}

func (a faultAnswer) status() string { return a.str("status") }

func (a faultAnswer) str(k string) string {
	switch v := a.st[k].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

func (w *faultWorld) startAgent(name string) *faultAgent {
	t := w.t
	t.Helper()
	var cmd *exec.Cmd
	c, err := mcpclient.NewStdioMCPClientWithOptions(solgateBinary(t), nil, []string{"mcp", "--socket", w.socket},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(w.ctx, 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return &faultAgent{w: w, c: c, cmd: cmd}
}

// kill9 kills the bridge process with SIGKILL.
func (a *faultAgent) kill9() {
	if a.cmd != nil && a.cmd.Process != nil {
		_ = a.cmd.Process.Kill()
	}
}

// try makes one tool call; err is a protocol or transport failure. Every
// "executed" answer is checked against the ledger on the spot.
func (a *faultAgent) try(tool string, args map[string]any, timeout time.Duration) (faultAnswer, error) {
	ctx, cancel := context.WithTimeout(a.w.ctx, timeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := a.c.CallTool(ctx, req)
	if err != nil {
		return faultAnswer{}, err
	}
	r := mcpbridge.ResultFromMCP(res)
	ans := faultAnswer{isError: r.IsError, text: r.Text, st: r.Structured}
	a.w.observe(ans)
	return ans, nil
}

func (a *faultAgent) call(tool string, args map[string]any) faultAnswer {
	a.w.t.Helper()
	ans, err := a.try(tool, args, 90*time.Second)
	if err != nil {
		a.w.t.Fatalf("%s: protocol error: %v", tool, err)
	}
	return ans
}

// observe is the false-success detector: "executed" must already be true on
// the ledger when the agent hears it.
func (w *faultWorld) observe(ans faultAnswer) {
	t := w.t
	switch ans.status() {
	case "pending_approval":
		id := ans.str("proposal_id")
		w.mu.Lock()
		if !contains(w.ids, id) {
			w.ids = append(w.ids, id)
		}
		w.mu.Unlock()
	case "executed":
		id, sig := ans.str("proposal_id"), ans.str("signature")
		got := w.lookup(sig)
		if !got.found || got.chainErr != nil || got.toIn == 0 || got.toIn != parseU64(ans.str("lamports")) {
			t.Errorf("FALSE SUCCESS: %s was reported executed with signature %q, but the ledger shows %+v", id, sig, got)
		}
		w.mu.Lock()
		if prev, ok := w.told[id]; ok && prev != sig {
			t.Errorf("%s reported executed with two signatures: %s and %s", id, prev, sig)
		}
		w.told[id] = sig
		w.mu.Unlock()
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func parseU64(s string) uint64 {
	v, _ := strconv.ParseUint(s, 10, 64)
	return v
}

// approved proposes a transfer, waits for the operator's approval and
// returns the proposal id and its token.
func (w *faultWorld) approved(a *faultAgent, lamports uint64) (id, token string) {
	t := w.t
	t.Helper()
	ans := a.call("transfer_sol", map[string]any{"to": w.to.String(), "lamports": lamports})
	if ans.status() != "pending_approval" {
		t.Fatalf("propose %d lamports: %s: %s", lamports, ans.status(), ans.text)
	}
	id = ans.str("proposal_id")
	st := w.await(a, id, func(s string) bool { return s != "pending" })
	if st.status() != "approved" || st.str("confirm") == "" {
		t.Fatalf("%s: not approved: %s", id, st.text)
	}
	return id, st.str("confirm")
}

func (w *faultWorld) confirm(a *faultAgent, id string, lamports uint64, token string) faultAnswer {
	w.t.Helper()
	ans := a.call("transfer_sol", map[string]any{"to": w.to.String(), "lamports": lamports, "confirm": token})
	if got := ans.str("proposal_id"); got != id && ans.status() != "refused" {
		w.t.Errorf("confirmed call answered for %q, want %s: %s", got, id, ans.text)
	}
	return ans
}

// await long-polls proposal_status until done(status) holds.
func (w *faultWorld) await(a *faultAgent, id string, done func(string) bool) faultAnswer {
	w.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st := a.call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 10})
		if done(st.status()) || time.Now().After(deadline) {
			return st
		}
	}
}

// ---------------------------------------------------------------- the chain

type chainTx struct {
	found     bool
	chainErr  any
	slot, fee uint64
	walletOut uint64 // what the wallet lost in it (amount + fee)
	toIn      uint64 // what the recipient gained
}

// lookup reads a signature back from the ledger, history included.
func (w *faultWorld) lookup(sig string) chainTx {
	t := w.t
	s, err := solana.SignatureFromBase58(sig)
	if err != nil {
		t.Errorf("signature %q: %v", sig, err)
		return chainTx{}
	}
	v0 := uint64(0)
	{
		out, err := w.chain.GetSignatureStatuses(w.ctx, true, s)
		if err != nil || out == nil || len(out.Value) != 1 {
			t.Errorf("getSignatureStatuses %s: %v", sig, err)
			return chainTx{}
		}
		if out.Value[0] == nil {
			return chainTx{}
		}
		// Processed but perhaps not yet confirmed: wait for the slot that
		// confirms it.
		var tx *rpc.GetTransactionResult
		testkit.Poll(30*time.Second, func() bool {
			tx, err = w.chain.GetTransaction(w.ctx, s, &rpc.GetTransactionOpts{
				Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v0,
			})
			return err == nil && tx != nil && tx.Meta != nil
		})
		if err != nil || tx == nil || tx.Meta == nil {
			t.Errorf("getTransaction %s: %v", sig, err)
			return chainTx{found: true}
		}
		c := chainTx{found: true, chainErr: tx.Meta.Err, slot: tx.Slot, fee: tx.Meta.Fee}
		decoded, err := tx.Transaction.GetTransaction()
		if err != nil {
			t.Errorf("decode %s: %v", sig, err)
			return c
		}
		for i, k := range decoded.Message.AccountKeys {
			if i >= len(tx.Meta.PreBalances) || i >= len(tx.Meta.PostBalances) {
				break
			}
			pre, post := tx.Meta.PreBalances[i], tx.Meta.PostBalances[i]
			switch {
			case k.Equals(w.wallet) && pre > post:
				c.walletOut = pre - post
			case k.Equals(w.to) && post > pre:
				c.toIn = post - pre
			}
		}
		return c
	}
}

// ---------------------------------------------------------------- the books

type faultBooks struct {
	proposals    int
	outcomes     map[string]int // final execution outcome per proposal
	signatures   int            // distinct signatures recorded
	landed       int            // of which on chain
	rejected     int            // not on chain, recorded "failed" (refused in preflight)
	released     int
	settledCount int
	settled      uint64 // lamports
	told         map[string]string
	sends        localnet.Stats // deltas since the start
}

func (b faultBooks) String() string {
	return fmt.Sprintf("%d proposals, outcomes %v, %d signatures (%d on chain, %d refused in preflight), %d settled (%d lamports) %d released, 0 open; agent told executed %d; ledger: %d sends (%d dropped), %d executed, %d failed, %d HTTP 503s",
		b.proposals, b.outcomes, b.signatures, b.landed, b.rejected, b.settledCount, b.settled, b.released, len(b.told),
		b.sends.SendsReceived, b.sends.SendsDropped, b.sends.TransactionsExecuted, b.sends.TransactionsFailed, b.sends.FailedCalls)
}

// finish stops the console and checks the books from the ledger and the
// reopened audit database.
func (w *faultWorld) finish() faultBooks {
	t := w.t
	t.Helper()
	w.stopHub()
	// Faults off: the checks read the ledger as it is.
	w.must(w.ledger.FailNextCalls(w.ctx, 0))
	w.must(w.ledger.DropNextSends(w.ctx, 0))
	w.must(w.ledger.SetLatency(w.ctx, 0))

	st := w.openStore()
	defer st.Close()
	if bad, err := st.VerifyAudit(); err != nil {
		t.Errorf("audit chain broken at entry %d: %v", bad, err)
	}
	db := st.DB()

	type resv struct {
		lamports   uint64
		state, sig string
	}
	reservations := map[string]resv{}
	rows, err := db.Query(`SELECT id, lamports, state, signature FROM reservations`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var r resv
		var l int64
		if err := rows.Scan(&id, &l, &r.state, &r.sig); err != nil {
			t.Fatal(err)
		}
		r.lamports = uint64(l)
		reservations[id] = r
	}
	rows.Close()

	type execRow struct {
		sig, outcome string
		slot, fee    int64
	}
	execs := map[string][]execRow{}
	rows, err = db.Query(`SELECT proposal_id, signature, outcome, slot, fee FROM executions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var e execRow
		if err := rows.Scan(&id, &e.sig, &e.outcome, &e.slot, &e.fee); err != nil {
			t.Fatal(err)
		}
		execs[id] = append(execs[id], e)
	}
	rows.Close()

	statuses := map[string]string{}
	rows, err = db.Query(`SELECT id, status FROM proposals`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, s string
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		statuses[id] = s
	}
	rows.Close()

	b := faultBooks{proposals: len(w.ids), outcomes: map[string]int{}, told: w.told}
	for _, id := range w.ids {
		if _, ok := statuses[id]; !ok {
			t.Errorf("%s: the agent got a proposal id the database does not have", id)
		}
	}

	// Every signature, from the executions and the reservations.
	owner := map[string]string{}
	for id, es := range execs {
		for _, e := range es {
			if e.sig != "" {
				owner[e.sig] = id
			}
		}
	}
	for id, r := range reservations {
		if r.sig != "" {
			if o, ok := owner[r.sig]; ok && o != id {
				t.Errorf("signature %s recorded for %s and %s", r.sig, o, id)
			}
			owner[r.sig] = id
		}
	}
	b.signatures = len(owner)
	landedBy := map[string]int{}
	var chainOut, chainIn uint64
	var landedOK, landedFailed uint64
	for sig, id := range owner {
		c := w.lookup(sig)
		es := execs[id]
		var last execRow
		if len(es) > 0 {
			last = es[len(es)-1]
		}
		r, hasR := reservations[id]
		if c.found {
			b.landed++
			landedBy[id]++
			chainOut += c.walletOut
			chainIn += c.toIn
			want := store.ExecExecuted
			if c.chainErr != nil {
				want = store.ExecFailed
				landedFailed++
			} else {
				landedOK++
			}
			if last.sig != sig || last.outcome != want {
				t.Errorf("%s: %s is on chain (err %v) but its last execution row is %+v, want %s", id, sig, c.chainErr, last, want)
			}
			if !hasR || r.state != store.StateSettled || r.lamports != c.walletOut {
				t.Errorf("%s: %s landed costing the wallet %d, but the reservation is %+v", id, sig, c.walletOut, r)
			}
		} else {
			// Never landed: recorded as expired. A transaction the node refused
			// in preflight is recorded as "failed" with no slot and no fee (see
			// the report: it never landed either); accepted, and counted.
			rejected := last.outcome == store.ExecFailed && last.slot == 0 && last.fee == 0
			if rejected {
				b.rejected++
			}
			if last.sig != sig || (last.outcome != store.ExecExpired && !rejected) {
				t.Errorf("%s: %s is not on chain, but its last execution row is %+v, want expired", id, sig, last)
			}
			if hasR && r.state != store.StateReleased {
				t.Errorf("%s: %s never landed, but the reservation is %+v, want released", id, sig, r)
			}
		}
	}
	for id, k := range landedBy {
		if k > 1 {
			t.Errorf("%s: %d of its transactions landed: double spend", id, k)
		}
	}
	for id, es := range execs {
		b.outcomes[es[len(es)-1].outcome]++
		if s := statuses[id]; s != es[len(es)-1].outcome {
			t.Errorf("%s: proposal status %q, but its last execution is %q", id, s, es[len(es)-1].outcome)
		}
	}
	for id, r := range reservations {
		switch r.state {
		case store.StateSettled:
			b.settledCount++
			b.settled += r.lamports
		case store.StateReleased:
			b.released++
		default:
			t.Errorf("%s: reservation still %s (%d lamports) after everything was final and reconciled", id, r.state, r.lamports)
		}
	}
	for id, sig := range w.told {
		es := execs[id]
		if len(es) == 0 || es[len(es)-1].sig != sig || es[len(es)-1].outcome != store.ExecExecuted {
			t.Errorf("%s: the agent was told executed (%s), the database says %+v", id, sig, es)
		}
	}

	// The spend ledger against the chain, and the chain against itself.
	if b.settled != chainOut {
		t.Errorf("settled %d lamports, but the wallet lost %d in solgate's transactions", b.settled, chainOut)
	}
	wallet := w.balance(w.wallet)
	if want := int64(w.startBalance) + int64(w.funded) - int64(w.drained) - int64(chainOut); int64(wallet) != want {
		t.Errorf("wallet holds %d, want %d (start %d + funded %d − drained by the test %d − solgate's outflow %d)",
			wallet, want, w.startBalance, w.funded, w.drained, chainOut)
	}
	if got := w.balance(w.to); got != chainIn {
		t.Errorf("recipient holds %d, but solgate's landed transactions paid it %d", got, chainIn)
	}
	now := w.stats()
	b.sends = localnet.Stats{
		SendsReceived:        now.SendsReceived - w.startStats.SendsReceived,
		SendsDropped:         now.SendsDropped - w.startStats.SendsDropped,
		TransactionsExecuted: now.TransactionsExecuted - w.startStats.TransactionsExecuted,
		TransactionsFailed:   now.TransactionsFailed - w.startStats.TransactionsFailed,
		FailedCalls:          now.FailedCalls - w.startStats.FailedCalls,
	}
	if b.sends.TransactionsExecuted != landedOK+w.ownTx || b.sends.TransactionsFailed != landedFailed {
		t.Errorf("ledger executed %d and failed %d transactions; the books account for %d+%d of the test's own and %d failed",
			b.sends.TransactionsExecuted, b.sends.TransactionsFailed, landedOK, w.ownTx, landedFailed)
	}
	return b
}

// ---------------------------------------------------------------- RPC tap

type tapStage int

const (
	tapBefore tapStage = iota // before the request is forwarded to the ledger
	tapAfter                  // after the ledger answered, before the answer is returned
)

type tapHook struct {
	stage  tapStage
	method string
	fn     func()
	fired  chan struct{}
}

// rpcTap forwards JSON-RPC to the ledger unchanged and runs one-shot hooks at
// chosen requests, so a fault can be armed at an exact point of an execution.
type rpcTap struct {
	upstream string
	srv      *httptest.Server
	client   *http.Client
	mu       sync.Mutex
	hooks    []*tapHook
}

func newRPCTap(t *testing.T, upstream string) *rpcTap {
	tp := &rpcTap{upstream: upstream, client: &http.Client{Timeout: 2 * time.Minute}}
	tp.srv = httptest.NewServer(http.HandlerFunc(tp.serve))
	t.Cleanup(tp.srv.Close)
	return tp
}

func (tp *rpcTap) URL() string { return tp.srv.URL }

// on arms fn for the next request of method at stage; the returned channel
// closes once fn has run.
func (tp *rpcTap) on(stage tapStage, method string, fn func()) <-chan struct{} {
	h := &tapHook{stage: stage, method: method, fn: fn, fired: make(chan struct{})}
	tp.mu.Lock()
	tp.hooks = append(tp.hooks, h)
	tp.mu.Unlock()
	return h.fired
}

func (tp *rpcTap) fire(stage tapStage, method string) {
	tp.mu.Lock()
	var due []*tapHook
	kept := tp.hooks[:0]
	for _, h := range tp.hooks {
		if h.stage == stage && h.method == method {
			due = append(due, h)
		} else {
			kept = append(kept, h)
		}
	}
	tp.hooks = kept
	tp.mu.Unlock()
	for _, h := range due {
		h.fn()
		close(h.fired)
	}
}

func (tp *rpcTap) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	method := rpcMethod(body)
	tp.fire(tapBefore, method)
	resp, err := tp.client.Post(tp.upstream, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	tp.fire(tapAfter, method)
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

func rpcMethod(body []byte) string {
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) == nil && len(batch) > 0 {
		return batch[0].Method
	}
	return ""
}

// ---------------------------------------------------------------- child console

// authorityChildConfig is what a child console needs; it travels in faultChildEnv.
type authorityChildConfig struct {
	State, Socket, RPC, Keypair string
	Policy                      policy.Config
}

// authorityChild is a console hub running in a re-executed test binary.
type authorityChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	mu     sync.Mutex
	stderr bytes.Buffer
}

// TestHubChildProcessForFaults is not a test: re-executed by
// TestFaultConsoleKill9 with faultChildEnv set, it runs a console hub until
// its stdin closes (or it is killed).
func TestHubChildProcessForFaults(t *testing.T) {
	raw := os.Getenv(faultChildEnv)
	if raw == "" {
		t.Skip("requires " + faultChildEnv + ": a helper process that TestFaultConsoleKill9 starts")
	}
	os.Exit(runHubChild(raw))
}

// runHubChild wires a hub like newWorld and startAuthority: open the state,
// reconcile what a previous console left in flight, then serve the socket and
// approve every proposal (the operator's part, test code only).
func runHubChild(raw string) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "hub child: "+format+"\n", args...)
		return 2
	}
	var c authorityChildConfig
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return fail("config: %v", err)
	}
	ctx := context.Background()
	key, err := executor.LoadKeypair(c.Keypair)
	if err != nil {
		return fail("%v", err)
	}
	st, err := store.Open(c.State)
	if err != nil {
		return fail("%v", err)
	}
	defer st.Close()
	client := executor.NewClient(c.RPC, executor.ClientOptions{})
	defer client.Close()
	built, err := startup.Build(ctx, startup.Setup{Client: client, Key: key, Store: st,
		Progress: func(line string) { fmt.Fprintln(os.Stderr, "reconcile:", line) }}, authority.Options{Policy: c.Policy})
	if err != nil {
		return fail("%v", err)
	}
	h := built.Hub
	ln, err := host.Listen(c.Socket)
	if err != nil {
		return fail("%v", err)
	}
	go server.Serve(ln, h, server.Options{})
	stop := autoApprove(h, func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) })
	fmt.Println(authorityChildReady)
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
	stop()
	ln.Close()
	h.Close()
	return 0
}

// startChild starts a console in a child process on the world's state dir,
// socket and tap, and waits until it serves (after its Reconcile).
func (w *faultWorld) startChild() *authorityChild {
	t := w.t
	t.Helper()
	keyFile := filepath.Join(w.dir, "..", "fault-wallet.json")
	if _, err := os.Stat(keyFile); err != nil {
		if err := w.key.WriteFile(keyFile); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := json.Marshal(authorityChildConfig{State: w.dir, Socket: w.socket, RPC: w.tap.URL(), Keypair: keyFile, Policy: w.cfg})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHubChildProcessForFaults$", "-test.count=1")
	cmd.Env = append(os.Environ(), faultChildEnv+"="+string(cfg))
	c := &authorityChild{cmd: cmd, exited: make(chan struct{})}
	cmd.Stderr = &lockedBuffer{mu: &c.mu, b: &c.stderr}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		once := sync.Once{}
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == authorityChildReady {
				once.Do(func() { close(ready) })
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(c.exited) }()
	t.Cleanup(c.kill9)
	select {
	case <-ready:
	case <-c.exited:
		t.Fatalf("child console exited before serving:\n%s", c.stderrText())
	case <-time.After(2 * time.Minute):
		c.kill9()
		t.Fatalf("child console not ready after 2 minutes:\n%s", c.stderrText())
	}
	return c
}

// kill9 sends SIGKILL and waits until the process is gone.
func (c *authorityChild) kill9() {
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// stop closes the child's stdin: a clean shutdown, executions settled.
func (c *authorityChild) stop() {
	c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		c.kill9()
	}
}

func (c *authorityChild) stderrText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// reconcileLines returns the child's "reconcile:" lines. They arrive on
// stderr, which is copied separately from the stdout ready line, so wait for
// the first of them rather than race the copy.
func (c *authorityChild) reconcileLines() []string {
	var lines []string
	testkit.Poll(30*time.Second, func() bool { lines = c.reconcileLinesNow(); return len(lines) > 0 })
	return lines
}

func (c *authorityChild) reconcileLinesNow() []string {
	var out []string
	for _, l := range strings.Split(c.stderrText(), "\n") {
		if strings.HasPrefix(l, "reconcile:") {
			out = append(out, l)
		}
	}
	return out
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
