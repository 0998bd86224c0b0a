package authority_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// 12 approved transfers of 0.09 SOL, each under the 0.1 SOL per-transaction
// cap and together (1.08 SOL + fees) under a 1.2 SOL session cap, confirmed
// at the same moment: all execute, and each is measured by its own outflow.
// The spend ledger in the database, the hub's session total and the wallet's
// loss read back from the chain all agree.
func TestConcurrentApprovedTransfersAllExecute(t *testing.T) {
	const n = 12
	w, results, recipients, lost := concurrentTransfers(t, 1_200_000_000)
	for i, res := range results {
		if res.Status() != "executed" {
			t.Errorf("transfer %d: %s: %s", i, res.Status(), res.Text)
		}
	}
	for i, to := range recipients {
		if got := w.balance(t, to); got != amount {
			t.Errorf("recipient %d holds %d lamports on chain, want %d", i, got, amount)
		}
	}
	if lost != n*(amount+fee) {
		t.Errorf("the wallet lost %d lamports, want %d (12 × (0.09 SOL + fee))", lost, n*(amount+fee))
	}
}

// The caps still hold exactly: with room in the session for 11 of the 12
// to the lamport, 11 execute and one is refused before signing.
func TestConcurrentApprovedTransfersStopAtTheSessionCap(t *testing.T) {
	_, results, _, lost := concurrentTransfers(t, 11*(amount+fee))
	executed := 0
	for _, res := range results {
		if res.Status() == "executed" {
			executed++
		} else if !strings.Contains(res.Text, "session") {
			t.Errorf("refused for another reason: %s", res.Text)
		}
	}
	if executed != 11 || lost != 11*(amount+fee) {
		t.Fatalf("%d executed, the wallet lost %d lamports; want 11 and %d", executed, lost, 11*(amount+fee))
	}
}

const amount = 90_000_000

// concurrentTransfers approves 12 transfers of 0.09 SOL to 12 allowlisted
// recipients and confirms them all at once under the given session cap. It
// checks that the spend ledger in the database, the hub's session total and
// the wallet's loss on chain agree, and returns the answers and that loss.
func concurrentTransfers(t *testing.T, sessionCap uint64) (*world, []wire.CallResult, []solana.PublicKey, uint64) {
	t.Helper()
	const n = 12
	var recipients []solana.PublicKey
	w := newWorldListen(t, func(o *authority.Options) {
		o.Policy.MaxLamportsPerTx = 100_000_000
		o.Policy.MaxLamportsPerSession = sessionCap
		o.ProposalsPerMinute, o.MaxPendingPerUID = 100, 100 // one process proposes all twelve
		for i := 0; i < n; i++ {
			k, _ := executor.NewRandomKeypair()
			recipients = append(recipients, k.PublicKey())
			o.Policy.AllowRecipients = append(o.Policy.AllowRecipients, k.PublicKey().String())
		}
	}, host.ListenConfig{MaxConnsPerUID: 64})
	start := time.Now()
	walletBefore := w.balance(t, w.wallet)

	httpc := mcpbridge.NewUnixHTTPClient(w.socket, 2*time.Minute)
	post := func(args string) (wire.CallResult, error) {
		return mcpbridge.PostCall(context.Background(), httpc, wire.CallRequest{
			Client: wire.ClientInfo{Name: "concurrent"}, Tool: "transfer_sol", Arguments: json.RawMessage(args)})
	}
	confirmed := make([]string, n)
	for i, to := range recipients {
		res, err := post(fmt.Sprintf(`{"to":%q,"lamports":%d}`, to, amount))
		if err != nil || res.Status() != "pending_approval" {
			t.Fatalf("propose %d: %v %+v", i, err, res)
		}
		p, err := w.authority.Approve(res.Str("proposal_id"), "operator")
		if err != nil {
			t.Fatal(err)
		}
		confirmed[i] = fmt.Sprintf(`{"to":%q,"lamports":%d,"confirm":%q}`, to, amount, p.Token)
	}

	results := make([]wire.CallResult, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range confirmed {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-gate
			res, err := post(confirmed[i])
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}(i)
	}
	close(gate)
	wg.Wait()
	lost := walletBefore - w.balance(t, w.wallet)
	settled, err := w.store.SettledSince(start.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var ledger uint64
	for _, r := range settled {
		ledger += r.Lamports
	}
	if spent := w.authority.SpendSummary().Spent; ledger != lost || spent != lost {
		t.Fatalf("the wallet lost %d lamports on chain; the spend ledger in the database settled %d (%d rows), the session total says %d",
			lost, ledger, len(settled), spent)
	}
	return w, results, recipients, lost
}
