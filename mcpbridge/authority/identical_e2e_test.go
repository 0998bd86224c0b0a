package authority_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/kinds"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
)

// memoProgram is the SPL Memo program (v2), spelled as published by the
// Solana Program Library, not taken from the code under test.
const memoProgram = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"

// At 3 s slots two approved transfers with identical arguments, executed
// together, are built within one blockhash. Without bytes of their own they
// would be one transaction with one signature, and only one would land. Both
// must execute and land: the ledger shows both amounts arriving, the wallet
// down by both plus both fees, the spend ledger agrees with the chain, and
// each transaction carries the memo naming its own proposal.
func TestIdenticalApprovedTransfersBothLandAtThreeSecondSlots(t *testing.T) {
	// Mostly waiting for 3 s slots: run beside the others.
	t.Parallel()
	w := newWorldLedger(t, localnet.Options{SlotMS: 3000}, func(*authority.Options, *localnet.Ledger) {}, nil, host.ListenConfig{})
	a := startAgent(t, w.socket)
	const amount = 30_000_000
	args := map[string]any{"to": w.allowed.String(), "lamports": amount}
	walletBefore := w.balance(t, w.wallet)

	// Approving the first takes it out of the pending queue, so the same
	// arguments make a second proposal rather than returning the first.
	id1, token1 := w.approved(t, a, args)
	id2, token2 := w.approved(t, a, args)
	if id1 == id2 {
		t.Fatalf("one proposal for two calls: %s", id1)
	}

	var wg sync.WaitGroup
	answers := make([]testkit.Answer, 2)
	for i, token := range []string{token1, token2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ans, err := a.Try("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount, "confirm": token}, 2*time.Minute)
			if err != nil {
				t.Error(err)
			}
			answers[i] = ans
		}()
	}
	wg.Wait()

	sigs := map[string]string{}
	for i, id := range []string{id1, id2} {
		ans := answers[i]
		sig, _ := ans.Structured["signature"].(string)
		if ans.Status() != "executed" || sig == "" {
			t.Fatalf("%s: %s %v", id, ans.Text, ans.Structured)
		}
		sigs[id] = sig
	}
	if sigs[id1] == sigs[id2] {
		t.Fatalf("both executions report one signature %s", sigs[id1])
	}

	// The ledger: both amounts arrived, and the wallet paid both fees.
	if got := w.balance(t, w.allowed); got != 2*amount {
		t.Errorf("recipient holds %d lamports, want %d", got, 2*amount)
	}
	var fees uint64
	for id, sig := range sigs {
		tx, err := w.chain.GetTransaction(context.Background(), solana.MustSignatureFromBase58(sig), &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil || tx.Meta == nil || tx.Meta.Err != nil {
			t.Fatalf("getTransaction %s: %v", sig, err)
		}
		fees += tx.Meta.Fee
		decoded, err := tx.Transaction.GetTransaction()
		if err != nil {
			t.Fatal(err)
		}
		memos := 0
		for _, ix := range decoded.Message.Instructions {
			prog, err := decoded.Message.Program(ix.ProgramIDIndex)
			if err == nil && prog.String() == memoProgram {
				memos++
				if string(ix.Data) != "solgate "+id {
					t.Errorf("%s: memo %q, want %q", sig, ix.Data, "solgate "+id)
				}
			}
		}
		if memos != 1 {
			t.Errorf("%s: %d memo instructions, want 1", sig, memos)
		}
	}
	if got := walletBefore - w.balance(t, w.wallet); got != 2*amount+fees {
		t.Errorf("wallet down %d, want %d (two amounts and %d of fees)", got, 2*amount+fees, fees)
	}
	// The books: the spend ledger settled what the chain charged.
	if s := w.authority.SpendSummary(); s.Spent != 2*amount+fees || s.Reserved != 0 {
		t.Errorf("spend ledger: spent %d reserved %d, want spent %d and nothing reserved", s.Spent, s.Reserved, 2*amount+fees)
	}
}

// Two identical swaps approved together, at 3 s slots: the swap API builds
// both on one blockhash and its bytes are signed as given, so the second is
// built again once the chain has a new blockhash. Both land; the wallet
// holds both outputs, and each transaction is its own. Through Swap API v1
// (/swap's transaction) and v2 (/build's instructions, compiled by the
// console, through localnet's cpswap pool).
func TestIdenticalApprovedSwapsBothLandAtThreeSecondSlots(t *testing.T) {
	t.Parallel()
	for _, version := range []int{executor.SwapAPIv1, executor.SwapAPIv2} {
		t.Run(fmt.Sprintf("Swap API v%d", version), func(t *testing.T) {
			t.Parallel()
			identicalSwapsBothLand(t, version)
		})
	}
}

func identicalSwapsBothLand(t *testing.T, version int) {
	w := newWorldLedger(t, localnet.Options{SlotMS: 3000}, func(*authority.Options, *localnet.Ledger) {}, func(s *startup.Setup, l *localnet.Ledger) {
		if version != executor.SwapAPIv2 {
			return
		}
		api, err := executor.NewSwapClient(l.SwapAPI(), executor.SwapClientOptions{Version: executor.SwapAPIv2, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		s.SwapAPI = api
		s.SwapPrograms = []solana.PublicKey{solana.MustPublicKeyFromBase58(l.DemoMints().SwapV2.Program)}
	}, host.ListenConfig{})
	a := startAgent(t, w.socket)
	usdc := w.ledger.DemoMints().USDC.Mint
	const amount = 20_000_000
	args := swapArgs(w, usdc, amount)
	tokBefore := w.tokenBalance(t, usdc)

	var ids, tokens []string
	var minOut uint64
	for range 2 {
		prop := a.Call("swap", args)
		id, _ := prop.Structured["proposal_id"].(string)
		if prop.Status() != "pending_approval" || id == "" {
			t.Fatalf("propose swap: %s %v", prop.Text, prop.Structured)
		}
		p, err := w.authority.Approve(id, "operator")
		if err != nil {
			t.Fatal(err)
		}
		ids, tokens = append(ids, id), append(tokens, p.Token)
		minOut += p.Kind.(*kinds.SwapProposal).Preview.MinimumOut
	}

	var wg sync.WaitGroup
	answers := make([]testkit.Answer, 2)
	for i, token := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			confirmed := swapArgs(w, usdc, amount)
			confirmed["confirm"] = token
			ans, err := a.Try("swap", confirmed, 2*time.Minute)
			if err != nil {
				t.Error(err)
			}
			answers[i] = ans
		}()
	}
	wg.Wait()
	sigs := map[string]bool{}
	for i, ans := range answers {
		sig, _ := ans.Structured["signature"].(string)
		if ans.Status() != "executed" || sig == "" {
			t.Fatalf("%s: %s %v", ids[i], ans.Text, ans.Structured)
		}
		sigs[sig] = true
	}
	if len(sigs) != 2 {
		t.Fatalf("two swaps, %d signatures", len(sigs))
	}
	if got := w.tokenBalance(t, usdc) - tokBefore; got < minOut {
		t.Errorf("the wallet received %d tokens, the two approvals' minimums are %d together", got, minOut)
	}
}

// The same for transfer_token: two identical approved token transfers,
// executed together at 3 s slots, both land, each with its own memo.
func TestIdenticalApprovedTokenTransfersBothLandAtThreeSecondSlots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var mint string
	w := newWorldLedger(t, localnet.Options{SlotMS: 3000}, func(o *authority.Options, l *localnet.Ledger) {
		var err error
		if mint, err = l.CreateMint(ctx, 6, ""); err != nil {
			t.Fatal(err)
		}
		o.Policy.MaxTokenPerTx = capped(t, mint+"=2.5")
	}, nil, host.ListenConfig{})
	if _, err := w.ledger.MintTo(ctx, mint, w.wallet.String(), 10_000_000); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	args := func() map[string]any {
		return map[string]any{"mint": mint, "to": w.allowed.String(), "amount": "1000000"}
	}

	var ids, tokens []string
	for range 2 {
		ans := a.Call("transfer_token", args())
		id, _ := ans.Structured["proposal_id"].(string)
		if ans.Status() != "pending_approval" || id == "" {
			t.Fatalf("propose: %s %v", ans.Text, ans.Structured)
		}
		p, err := w.authority.Approve(id, "operator")
		if err != nil {
			t.Fatal(err)
		}
		ids, tokens = append(ids, id), append(tokens, p.Token)
	}
	var wg sync.WaitGroup
	answers := make([]testkit.Answer, 2)
	for i, token := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			confirmed := args()
			confirmed["confirm"] = token
			ans, err := a.Try("transfer_token", confirmed, 2*time.Minute)
			if err != nil {
				t.Error(err)
			}
			answers[i] = ans
		}()
	}
	wg.Wait()
	for i, ans := range answers {
		if ans.Status() != "executed" {
			t.Fatalf("%s: %s %v", ids[i], ans.Text, ans.Structured)
		}
	}
	if answers[0].Structured["signature"] == answers[1].Structured["signature"] {
		t.Fatalf("both report one signature %v", answers[0].Structured["signature"])
	}
	if got, _ := w.ownerTokens(t, w.allowed, mint); got != 2_000_000 {
		t.Errorf("the recipient holds %d, want 2000000", got)
	}
}
