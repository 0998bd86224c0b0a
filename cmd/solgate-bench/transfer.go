package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// measureTransfers pushes n confirmed, verified transfers through the hub one
// after another (propose, approve, token from proposal_status, confirmed
// call) and times the confirmed call as the agent sees it.
//
// Overhead is that wall time minus executor.Result.RPC.Waiting, the time the
// executor spent waiting for RPC answers (the execution-time preparation:
// blockhash, getRecentPrioritizationFees and the measuring simulation side by
// side, balances, simulation; then submit/confirm/verify). What remains is solgate's own
// work — bridge, socket, token gate, spend reservation, fsynced audit writes,
// signing — plus the confirm loop's sleeps between status polls, which are
// neither RPC nor work; they are reported on their own row.
func measureTransfers(ctx context.Context, w *world, n int) ([]row, []string, error) {
	c, err := w.startConsole(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer c.close()
	a, err := startAgent(ctx, w.bin, c.socket, "bench-transfer")
	if err != nil {
		return nil, nil, err
	}
	defer a.close()

	to := w.recipient.String()
	walletBefore, err := w.balance(ctx, w.key.PublicKey().String())
	if err != nil {
		return nil, nil, err
	}
	rcptBefore, err := w.balance(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	var wall, overhead, idle, net, outside []time.Duration
	var sent, fees uint64
	for i := 0; i < n; i++ {
		lamports := w.nextAmount()
		id, err := a.propose(ctx, to, lamports)
		if err != nil {
			return nil, nil, err
		}
		if _, err := c.authority.Approve(id, "bench-operator"); err != nil {
			return nil, nil, err
		}
		st, err := a.call(ctx, "proposal_status", map[string]any{"proposal_id": id})
		if err != nil {
			return nil, nil, err
		}
		token := st.str("confirm")
		if token == "" {
			return nil, nil, fmt.Errorf("proposal_status %s: no token: %s", id, st.text)
		}

		start := time.Now()
		ans, err := a.call(ctx, "transfer_sol", map[string]any{"to": to, "lamports": lamports, "confirm": token})
		took := time.Since(start)
		if err != nil {
			return nil, nil, err
		}
		if ans.isError || ans.status() != "executed" {
			return nil, nil, fmt.Errorf("transfer %d of %d (%s): want executed, got %q: %s", i+1, n, id, ans.status(), ans.text)
		}
		p, ok := c.authority.Proposal(id)
		if !ok || p.Result == nil {
			return nil, nil, fmt.Errorf("transfer %s: the hub holds no executor result", id)
		}
		res := p.Result
		wall = append(wall, took)
		over := took - res.RPC.Waiting
		overhead = append(overhead, over)
		outside = append(outside, took-res.Timings.Total)

		// The confirm loop's sleeps between status polls: waiting on the
		// chain to confirm, measured by the executor itself.
		sleep := res.Timings.PollSleep
		idle = append(idle, sleep)
		net = append(net, over-sleep)
		sent += lamports
		fees += res.Fee
	}

	// The chain, not the hub's word: balances read back from the ledger.
	var integrity []string
	walletAfter, err := w.balance(ctx, w.key.PublicKey().String())
	if err != nil {
		return nil, nil, err
	}
	rcptAfter, err := w.balance(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	if rcptAfter-rcptBefore != sent {
		integrity = append(integrity, fmt.Sprintf("transfers: recipient gained %d lamports on chain, the %d executed transfers sent %d", rcptAfter-rcptBefore, n, sent))
	}
	if walletBefore-walletAfter != sent+fees {
		integrity = append(integrity, fmt.Sprintf("transfers: wallet lost %d lamports on chain, want %d (amounts %d + fees %d)", walletBefore-walletAfter, sent+fees, sent, fees))
	}
	if s := c.authority.SpendSummary(); s.Spent != walletBefore-walletAfter || s.Reserved != 0 {
		integrity = append(integrity, fmt.Sprintf("transfers: hub spend ledger says spent %d reserved %d, the chain says %d", s.Spent, s.Reserved, walletBefore-walletAfter))
	}

	slot := fmt.Sprintf("localnet slot time %d ms", w.slotMS)
	idleNote := "executor Result.Timings.PollSleep: sleeps between getSignatureStatuses polls while the chain confirms"
	return []row{
		latencyRow("transfer: confirmed call, wall", wall, nil,
			"agent's confirmed transfer_sol → executed answer: fee market + re-simulate, reserve, sign, send, confirm, verify by getTransaction; "+slot),
		latencyRow("transfer: wall − RPC wait", overhead, nil,
			"wall − executor Result.RPC.Waiting; still includes the confirm loop's sleeps while the chain confirms (next row)"),
		latencyRow("transfer: of which confirm-poll sleep", idle, nil, idleNote),
		latencyRow("transfer: solgate overhead (wall − RPC wait − poll sleep)", net, &goal{Stat: "p50", Op: "<", Limit: 5, Text: "p50 < 5 ms"},
			"solgate's own work: bridge, socket, token gate, spend reservation, fsynced audit/spend writes, signing"),
		latencyRow("transfer: outside the executor", outside, nil,
			"wall − executor Result.Timings.Total: bridge, socket, token gate, reservation and audit writes"),
	}, integrity, nil
}

func (w *world) balance(ctx context.Context, addr string) (uint64, error) {
	pk, err := solana.PublicKeyFromBase58(addr)
	if err != nil {
		return 0, err
	}
	out, err := w.chain.GetBalance(ctx, pk, rpc.CommitmentConfirmed)
	if err != nil {
		return 0, fmt.Errorf("read back balance of %s: %w", addr, err)
	}
	return out.Value, nil
}
