package authority_test

import (
	"context"
	"fmt"
	"maps"
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
// must execute and land, each transaction carrying the memo naming its own
// proposal, and the ledger shows both amounts arriving: SOL, with the wallet
// down by both plus both fees and the spend ledger agreeing with the chain;
// a token, in the recipient's accounts.
func TestIdenticalApprovedTransfersBothLandAtThreeSecondSlots(t *testing.T) {
	// Mostly waiting for 3 s slots: run beside the others.
	t.Parallel()
	for _, c := range []struct {
		tool string
		// start makes the world and reads the ledger before the calls; it
		// returns the calls' arguments and what checks the ledger once both
		// landed, given the fees the two transactions paid.
		start func(t *testing.T) (w *world, args map[string]any, landed func(fees uint64))
	}{{
		tool: "transfer_sol",
		start: func(t *testing.T) (*world, map[string]any, func(uint64)) {
			w := newWorldLedger(t, localnet.Options{SlotMS: 3000}, func(*authority.Options, *localnet.Ledger) {}, nil, host.ListenConfig{})
			const amount = 30_000_000
			walletBefore := w.balance(t, w.wallet)
			return w, map[string]any{"to": w.allowed.String(), "lamports": amount}, func(fees uint64) {
				if got := w.balance(t, w.allowed); got != 2*amount {
					t.Errorf("recipient holds %d lamports, want %d", got, 2*amount)
				}
				if got := walletBefore - w.balance(t, w.wallet); got != 2*amount+fees {
					t.Errorf("wallet down %d, want %d (two amounts and %d of fees)", got, 2*amount+fees, fees)
				}
				// The books: the spend ledger settled what the chain charged.
				if s := w.authority.SpendSummary(); s.Spent != 2*amount+fees || s.Reserved != 0 {
					t.Errorf("spend ledger: spent %d reserved %d, want spent %d and nothing reserved", s.Spent, s.Reserved, 2*amount+fees)
				}
			}
		},
	}, {
		tool: "transfer_token",
		start: func(t *testing.T) (*world, map[string]any, func(uint64)) {
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
			return w, map[string]any{"mint": mint, "to": w.allowed.String(), "amount": "1000000"}, func(uint64) {
				if got, _ := w.ownerTokens(t, w.allowed, mint); got != 2_000_000 {
					t.Errorf("the recipient holds %d, want 2000000", got)
				}
			}
		},
	}} {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			w, args, landed := c.start(t)
			a := startAgent(t, w.socket)
			approved, sigs := approveTwiceAndExecuteTogether(t, w, a, c.tool, args)
			var fees uint64
			for i, sig := range sigs {
				id := approved[i].ID
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
							t.Errorf("%s: memo %q, want %q", sig, string(ix.Data), "solgate "+id)
						}
					}
				}
				if memos != 1 {
					t.Errorf("%s: %d memo instructions, want 1", sig, memos)
				}
			}
			landed(fees)
		})
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

	approved, _ := approveTwiceAndExecuteTogether(t, w, a, "swap", args)
	var minOut uint64
	for _, p := range approved {
		minOut += p.Kind.(*kinds.SwapProposal).Preview.MinimumOut
	}
	if got := w.tokenBalance(t, usdc) - tokBefore; got < minOut {
		t.Errorf("the wallet received %d tokens, the two approvals' minimums are %d together", got, minOut)
	}
}

// approveTwiceAndExecuteTogether proposes tool with args twice, approves both
// as the operator, executes both at once, each with its token, and returns
// the approved proposals and their signatures, in order. Approving the first
// takes it out of the pending queue, so the same arguments make a second
// proposal rather than returning the first. The test fails unless there are
// two proposals and both execute, each with a signature of its own.
func approveTwiceAndExecuteTogether(t *testing.T, w *world, a *testkit.Agent, tool string, args map[string]any) (approved []*authority.Proposal, sigs []string) {
	t.Helper()
	for range 2 {
		ans := a.Call(tool, args)
		id, _ := ans.Structured["proposal_id"].(string)
		if ans.Status() != "pending_approval" || id == "" {
			t.Fatalf("propose %s: %s %v", tool, ans.Text, ans.Structured)
		}
		p, err := w.authority.Approve(id, "operator")
		if err != nil {
			t.Fatal(err)
		}
		approved = append(approved, p)
	}
	if approved[0].ID == approved[1].ID {
		t.Fatalf("one proposal for two calls: %s", approved[0].ID)
	}

	var wg sync.WaitGroup
	answers := make([]testkit.Answer, 2)
	for i, p := range approved {
		wg.Add(1)
		go func() {
			defer wg.Done()
			confirmed := maps.Clone(args)
			confirmed["confirm"] = p.Token
			ans, err := a.Try(tool, confirmed, 2*time.Minute)
			if err != nil {
				t.Error(err)
			}
			answers[i] = ans
		}()
	}
	wg.Wait()

	for i, ans := range answers {
		sig, _ := ans.Structured["signature"].(string)
		if ans.Status() != "executed" || sig == "" {
			t.Fatalf("%s: %s %v", approved[i].ID, ans.Text, ans.Structured)
		}
		sigs = append(sigs, sig)
	}
	if sigs[0] == sigs[1] {
		t.Fatalf("both executions report one signature %s", sigs[0])
	}
	return approved, sigs
}
