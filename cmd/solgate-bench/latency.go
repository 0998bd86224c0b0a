package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/kinds"
)

// addedWatch stamps the moment a hub subscriber — the seat the console's TUI
// sits in — receives EventProposalAdded, keyed by the proposal's lamports
// (every proposal of the run has its own amount).
type addedWatch struct {
	mu      sync.Mutex
	waiting map[uint64]chan added
	stop    func()
}

// added is a proposal seen at the subscriber: when, and how long its
// preview waited for the ledger's answers (the executor's own meter).
type added struct {
	at      time.Time
	rpcWait time.Duration
}

func watchAdded(h *authority.Hub) *addedWatch {
	ch, cancel := h.Subscribe(1 << 14)
	w := &addedWatch{waiting: map[uint64]chan added{}}
	done := make(chan struct{})
	w.stop = func() { cancel(); close(done) }
	go func() {
		for {
			select {
			case <-done:
				return
			case ev := <-ch:
				if ev.Kind != approval.EventProposalAdded || ev.Proposal == nil {
					continue
				}
				at := time.Now()
				k, ok := ev.Proposal.Kind.(*kinds.TransferProposal)
				if !ok {
					continue
				}
				w.mu.Lock()
				c := w.waiting[k.A.Lamports]
				delete(w.waiting, k.A.Lamports)
				w.mu.Unlock()
				if c != nil {
					c <- added{at: at, rpcWait: ev.Proposal.Preview.RPC.Waiting}
				}
			}
		}
	}()
	return w
}

// expect registers interest before the call that causes the event.
func (w *addedWatch) expect(lamports uint64) <-chan added {
	c := make(chan added, 1)
	w.mu.Lock()
	w.waiting[lamports] = c
	w.mu.Unlock()
	return c
}

// measureProposals runs n proposals one after another through one agent and
// times, for each:
//   - propose → visible: from the agent starting its transfer_sol call to a
//     hub subscriber receiving EventProposalAdded;
//   - propose round trip: the same call until the agent holds the
//     pending_approval answer;
//   - approve → token: the agent is blocked in proposal_status with
//     wait_seconds=30; from the moment the operator's h.Approve is called
//     until the agent's MCP client has returned that call's result carrying
//     the token (Approve records the decision in SQLite, fsynced, before the
//     token exists, so that write is inside the figure).
func measureProposals(ctx context.Context, w *world, n int) ([]row, error) {
	c, err := w.startConsole(ctx)
	if err != nil {
		return nil, err
	}
	defer c.close()
	a, err := startAgent(ctx, w.bin, c.socket, "bench-latency")
	if err != nil {
		return nil, err
	}
	defer a.close()
	watch := watchAdded(c.authority)
	defer watch.stop()

	to := w.recipient.String()
	var visible, share, roundTrip, tokenLat []time.Duration
	var windows []window // each proposal's start and sight, for the share row's GC count
	// Round trips: the executor counts the calls a proposal waits for one
	// after another (its rounds) and its HTTP requests; the ledger counts
	// the requests and JSON-RPC calls it served (a background blockhash
	// refresh included, which no proposal waits for).
	ledger0, err := w.ledger.Stats(ctx)
	if err != nil {
		return nil, err
	}
	client0 := c.exec.Client().Stats()
	gc0 := readGC()
	for i := 0; i < n; i++ {
		lamports := w.nextAmount()
		seen := watch.expect(lamports)
		start := time.Now()
		id, err := a.propose(ctx, to, lamports)
		if err != nil {
			return nil, err
		}
		roundTrip = append(roundTrip, time.Since(start))
		select {
		case ev := <-seen:
			visible = append(visible, ev.at.Sub(start))
			share = append(share, ev.at.Sub(start)-ev.rpcWait)
			windows = append(windows, window{start, ev.at})
		case <-time.After(10 * time.Second):
			return nil, fmt.Errorf("proposal %s (%d lamports) never reached a hub subscriber", id, lamports)
		}

		d, err := approveToWaitingAgent(ctx, c.authority, a, id)
		if err != nil {
			return nil, err
		}
		tokenLat = append(tokenLat, d)
	}
	gc1 := readGC()
	ledger1, err := w.ledger.Stats(ctx)
	if err != nil {
		return nil, err
	}
	client1 := c.exec.Client().Stats()
	alone, ledgerCPU := ledgerCPUAround(w, n, func() row { return previewAloneRow(ctx, c, w, n) }) // after the counts above: its calls are not a proposal's
	per := func(v float64) float64 { return v / float64(n) }
	rounds := per(float64(client1.Rounds - client0.Rounds))
	return append([]row{
		singleRow("RPC round trips per proposal (one after another)", n, "rounds", rounds, &goal{Stat: "value", Op: "<", Limit: 1.05, Text: "≈ 1 (< 1.05)"},
			fmt.Sprintf("counted by the executor: calls a proposal waits for in turn (the fee market's ride in the same batch); %.2f HTTP requests from the executor; the ledger served %.2f requests, %.2f JSON-RPC calls and %.2f simulations a proposal (a background blockhash refresh included)",
				per(float64(client1.Calls-client0.Calls)), per(float64(ledger1.HTTPRequests-ledger0.HTTPRequests)), per(float64(ledger1.RPCCalls-ledger0.RPCCalls)), per(float64(ledger1.Simulations-ledger0.Simulations)))),
		latencyRow("propose → visible at the hub", visible, &goal{Stat: "p99", Op: "<", Limit: 5, Text: "p99 < 5 ms"},
			"agent's transfer_sol call → EventProposalAdded at a hub subscriber; includes the bridge, the socket, policy, one round of RPCs (balances, simulation, balances and the fee market as one batch; the first proposal of a shape also measures its compute units first); the proposal is shown while its fsynced SQLite insert commits, and the pending_approval answer (next row) waits for it"),
		latencyRow("propose round trip (pending_approval answer)", roundTrip, nil, ""),
		latencyRow("approve → token at waiting proposal_status", tokenLat, &goal{Stat: "p99", Op: "<", Limit: 5, Text: "p99 < 5 ms"},
			"h.Approve called → the agent's proposal_status (wait_seconds=30, already blocked in the hub) returns with the token; includes the fsynced decision record"),
		alone, ledgerCPU,
		shareRow(share, windows, gc1.since(gc0)),
	}, tailsRows(ctx, c, a, w, n)...), nil // after the figures above: its proposals are its own
}

// approveToWaitingAgent is the time from the Approve call to the agent
// holding the token (approvePhased's two parts together).
func approveToWaitingAgent(ctx context.Context, h *authority.Hub, a *agent, id string) (time.Duration, error) {
	p, err := approvePhased(ctx, h, a, id, func(string) {})
	return p.decide + p.answer, err
}

// approvePhased starts a long-polling proposal_status, waits until the hub
// has received it, approves, and returns the Approve call's own time
// (decide) and from its return to the agent holding the token (answer);
// mark, for the tails rows' trace, names each step as it happens.
func approvePhased(ctx context.Context, h *authority.Hub, a *agent, id string, mark func(string)) (approvePhases, error) {
	type got struct {
		ans answer
		at  time.Time
		err error
	}
	res := make(chan got, 1)
	sent := time.Now()
	go func() {
		ans, err := a.call(ctx, "proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
		mark("answered")
		res <- got{ans, time.Now(), err}
	}()
	// The hub stamps a client's last-seen time on entering Call; once it is
	// newer than our send, the call is in the hub and a moment later blocked
	// on the proposal. (Had Approve won that race, the call would answer
	// at once with the token: the figure stays Approve → token.)
	deadline := time.Now().Add(10 * time.Second)
	for !h.Clients()[a.client].After(sent) {
		if time.Now().After(deadline) {
			return approvePhases{}, fmt.Errorf("proposal_status for %s never reached the hub", id)
		}
		time.Sleep(100 * time.Microsecond)
	}
	time.Sleep(2 * time.Millisecond) // let the call block in the hub
	mark("approve")
	start := time.Now()
	p, err := h.Approve(id, "bench-operator")
	if err != nil {
		return approvePhases{}, err
	}
	approved := time.Now()
	mark("approved")
	r := <-res
	mark("token")
	if r.err != nil {
		return approvePhases{}, r.err
	}
	if r.ans.status() != "approved" || r.ans.str("confirm") != p.Token {
		return approvePhases{}, fmt.Errorf("proposal_status for %s: want approved with the issued token, got %q: %s", id, r.ans.status(), r.ans.text)
	}
	return approvePhases{decide: approved.Sub(start), answer: r.at.Sub(approved)}, nil
}

// measureReads times get_balance through the bridge, the hub and the ledger.
func measureReads(ctx context.Context, w *world, n int) ([]row, error) {
	c, err := w.startConsole(ctx)
	if err != nil {
		return nil, err
	}
	defer c.close()
	a, err := startAgent(ctx, w.bin, c.socket, "bench-reader")
	if err != nil {
		return nil, err
	}
	defer a.close()
	wallet := w.key.PublicKey().String()
	var rt []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		ans, err := a.call(ctx, "get_balance", nil)
		if err != nil {
			return nil, err
		}
		rt = append(rt, time.Since(start))
		if ans.isError || ans.str("address") != wallet || ans.str("lamports") == "" {
			return nil, fmt.Errorf("get_balance: %s", ans.text)
		}
	}
	return []row{latencyRow("read round trip (get_balance)", rt, nil,
		"agent → solgate mcp → socket → hub → getBalance on localnet → back to the agent")}, nil
}
