package authority_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/kinds"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
)

// aggregatorWorld is a world whose swap API's transactions invoke localnet's
// pool program, configured on the console as an aggregator: the path a
// Jupiter transaction takes, judged by the whole-wallet simulation.
func aggregatorWorld(t *testing.T) *world {
	t.Helper()
	w := newWorldSetup(t, func(*authority.Options, *localnet.Ledger) {}, func(s *startup.Setup, l *localnet.Ledger) {
		s.SwapPrograms = []solana.PublicKey{solana.MustPublicKeyFromBase58(l.DemoMints().AggregatorProgram)}
	}, host.ListenConfig{})
	if err := w.ledger.SetSwapAggregator(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	return w
}

// rawAccount is an account's bytes and lamports on the ledger (nil when it
// does not exist).
func (w *world) rawAccount(t *testing.T, pk solana.PublicKey) *rpc.Account {
	t.Helper()
	out, err := w.chain.GetAccountInfoWithOpts(context.Background(), pk, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed, Encoding: solana.EncodingBase64})
	if err == rpc.ErrNotFound {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Value
}

func sameAccount(a, b *rpc.Account) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Lamports == b.Lamports && a.Owner.Equals(b.Owner) && bytes.Equal(a.Data.GetBinary(), b.Data.GetBinary())
}

// A swap whose transaction invokes a configured aggregator program executes
// on the real SVM and is verified; the console's detail then shows the
// transaction actually signed, whose message hash is the landed one's.
func TestSwapThroughConfiguredAggregatorLandsAndIsVerified(t *testing.T) {
	w := aggregatorWorld(t)
	a := startAgent(t, w.socket)
	mints := w.ledger.DemoMints()
	const amount = 30_000_000
	args := swapArgs(w, mints.USDC.Mint, amount)
	solBefore := w.balance(t, w.wallet)
	prop := a.Call("swap", args)
	if prop.Status() != "pending_approval" {
		t.Fatalf("propose through the aggregator: %+v", prop)
	}
	id := prop.Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	agg := solana.MustPublicKeyFromBase58(mints.AggregatorProgram)
	found := false
	for _, prog := range p.Kind.(*kinds.SwapProposal).Preview.Programs {
		found = found || prog.Equals(agg)
	}
	if !found {
		t.Fatalf("the approved transaction does not invoke the aggregator: %v", p.Kind.(*kinds.SwapProposal).Preview.Programs)
	}
	args["confirm"] = p.Token
	done := a.Call("swap", args)
	if done.Status() != "executed" {
		t.Fatalf("execute through the aggregator: %+v", done)
	}
	minOut, _ := strconv.ParseUint(fmt.Sprint(prop.Structured["min_out"]), 10, 64)
	if got := w.tokenBalance(t, mints.USDC.Mint); got < minOut {
		t.Errorf("ledger: received %d, approved minimum %d", got, minOut)
	}
	if spent := solBefore - w.balance(t, w.wallet); spent < amount || spent > amount+2*fee+executor.TokenAccountRent { // two signatures: the wallet's and the pool's
		t.Errorf("ledger: the wallet spent %d for a %d swap", spent, amount)
	}

	// The landed transaction ran the aggregator, and it is the one the
	// detail shows as signed.
	final, _ := w.authority.Proposal(id)
	if final.Kind.(*kinds.SwapProposal).Signed == nil {
		t.Fatal("the detail does not show the transaction signed at execution")
	}
	v0 := uint64(0)
	tx, err := w.chain.GetTransaction(context.Background(), solana.MustSignatureFromBase58(final.Signature), &rpc.GetTransactionOpts{
		Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v0})
	if err != nil {
		t.Fatal(err)
	}
	landed, err := tx.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := landed.Message.MarshalBinary()
	sum := sha256.Sum256(msg)
	if hex.EncodeToString(sum[:]) != final.Kind.(*kinds.SwapProposal).Signed.MessageSHA256 {
		t.Errorf("the detail's signed hash %s is not the landed message's %x", final.Kind.(*kinds.SwapProposal).Signed.MessageSHA256, sum)
	}
	if !strings.Contains(strings.Join(tx.Meta.LogMessages, "\n"), "Program "+agg.String()+" invoke") {
		t.Errorf("the landed transaction did not run the aggregator:\n%s", strings.Join(tx.Meta.LogMessages, "\n"))
	}
}

// Without the aggregator configured, the same transaction is an unknown
// program and never reaches the human.
func TestSwapThroughUnconfiguredAggregatorRefused(t *testing.T) {
	w := newWorld(t, nil)
	if err := w.ledger.SetSwapAggregator(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	ans := a.Call("swap", swapArgs(w, w.ledger.DemoMints().USDC.Mint, 30_000_000))
	if ans.Status() != "denied" || !strings.Contains(ans.Text, "invokes unknown program "+w.ledger.DemoMints().AggregatorProgram) {
		t.Fatalf("an unconfigured aggregator: %+v", ans)
	}
}

// The swap API answers the preview honestly and turns hostile at execution.
// Each variant is refused before signing: nothing moves on the ledger, the
// token is void, and the audit trail names the difference. The honest path
// still lands afterwards.
func TestHostileSwapAPIRefusedAtExecution(t *testing.T) {
	w := aggregatorWorld(t)
	a := startAgent(t, w.socket)
	ctx := context.Background()
	mints := w.ledger.DemoMints()
	// The wallet holds wrapped SOL and another token, the hostile answers' targets.
	wsolTA, err := w.ledger.MintTo(ctx, mints.WSOL, w.wallet.String(), 200_000_000)
	if err != nil {
		t.Fatal(err)
	}
	baitTA, err := w.ledger.MintTo(ctx, mints.Bait.Mint, w.wallet.String(), 777)
	if err != nil {
		t.Fatal(err)
	}
	watched := []solana.PublicKey{w.wallet, solana.MustPublicKeyFromBase58(wsolTA), solana.MustPublicKeyFromBase58(baitTA), solana.MustPublicKeyFromBase58(mints.Thief)}

	// Hostile from the first answer: the preview's simulation refuses it and
	// the human never sees it.
	if err := w.ledger.SetSwapHostile(ctx, localnet.HostileDrainWSOL, 0); err != nil {
		t.Fatal(err)
	}
	if ans := a.Call("swap", swapArgs(w, mints.USDC.Mint, 19_000_000)); ans.Status() != "denied" || ans.Structured["rule"] != "outflow_budget" ||
		!strings.Contains(ans.Text, "lamports of SOL and wrapped SOL left the wallet") {
		t.Fatalf("hostile at proposal: %+v", ans)
	}
	if len(w.authority.Proposals()) != 0 {
		t.Fatal("a hostile swap reached the human")
	}

	for i, tc := range []struct{ mode, want string }{
		{localnet.HostileDrainWSOL, "lamports of SOL and wrapped SOL left the wallet"},
		{localnet.HostileDrainToken, baitTA},
		{localnet.HostileCloseToAttacker, baitTA},
		{localnet.HostileSetDelegate, "token instruction 4"},
		{localnet.HostileSetOwner, "token instruction 6"},
		{localnet.HostileRaisePriorityFee, "above the approved"},
		{localnet.HostilePayFromWSOL, "it runs programs"}, // no system transfer any more: the programs differ
		{localnet.HostileDurableNonce, "durable nonce"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			// The preview's /swap is honest; the execution's is hostile.
			if err := w.ledger.SetSwapHostile(ctx, tc.mode, 1); err != nil {
				t.Fatal(err)
			}
			defer w.ledger.SetSwapHostile(ctx, "", 0)
			args := swapArgs(w, mints.USDC.Mint, uint64(20_000_000+i))
			prop := a.Call("swap", args)
			if prop.Status() != "pending_approval" {
				t.Fatalf("propose: %+v", prop)
			}
			id := prop.Structured["proposal_id"].(string)
			p, err := w.authority.Approve(id, "operator")
			if err != nil {
				t.Fatal(err)
			}
			before := map[solana.PublicKey]*rpc.Account{}
			for _, k := range watched {
				before[k] = w.rawAccount(t, k)
			}
			usdcBefore := w.tokenBalance(t, mints.USDC.Mint)
			stats, _ := w.ledger.Stats(ctx)

			args["confirm"] = p.Token
			ans := a.Call("swap", args)
			if ans.Status() != "failed" || !strings.Contains(ans.Text, "the swap API returned a different transaction than the one approved") || !strings.Contains(ans.Text, tc.want) {
				t.Fatalf("hostile execution: %+v", ans)
			}
			t.Log(ans.Text)

			// The ledger: nothing sent, nothing moved.
			if after, _ := w.ledger.Stats(ctx); after.SendsReceived != stats.SendsReceived {
				t.Errorf("a send reached the ledger: %d → %d", stats.SendsReceived, after.SendsReceived)
			}
			for _, k := range watched {
				if !sameAccount(before[k], w.rawAccount(t, k)) {
					t.Errorf("account %s changed on the ledger", k)
				}
			}
			if got := w.tokenBalance(t, mints.USDC.Mint); got != usdcBefore {
				t.Errorf("USDC %d → %d", usdcBefore, got)
			}
			// The token is void.
			if again := a.Call("swap", args); again.IsError || again.Status() != "refused" {
				t.Errorf("the token survived: %+v", again)
			}
			// Nothing was shown as signed, and the audit trail names the difference.
			if final, _ := w.authority.Proposal(id); final.Kind.(*kinds.SwapProposal).Signed != nil || final.Signature != "" {
				t.Errorf("something was signed: %+v", final)
			}
			entries, err := w.store.Audit()
			if err != nil {
				t.Fatal(err)
			}
			named := false
			for _, e := range entries {
				named = named || (e.ProposalID == id && e.Kind == "swap_changed_at_execution" && strings.Contains(string(e.Body), tc.want))
			}
			if !named {
				t.Errorf("no audit row for %s names %q", id, tc.want)
			}
		})
	}

	// The honest path still lands.
	args := swapArgs(w, mints.USDC.Mint, 25_000_000)
	prop := a.Call("swap", args)
	p, err := w.authority.Approve(prop.Structured["proposal_id"].(string), "operator")
	if err != nil {
		t.Fatal(err)
	}
	args["confirm"] = p.Token
	if done := a.Call("swap", args); done.Status() != "executed" {
		t.Fatalf("honest swap after the hostile ones: %+v", done)
	}
	if w.tokenBalance(t, mints.USDC.Mint) == 0 {
		t.Error("the honest swap delivered nothing on the ledger")
	}
}

// A loss that lands beside a swap (here the ledger moves 0.1 SOL out of the
// wallet between the send's preflight and its execution, outside the swap's
// transaction) is not the swap's: the swap settles at its own landed
// effects, read from the landed transaction's meta, never from a re-read of
// the wallet that would count the theft as the swap's spend (or, the other
// way round, hide a loss behind a concurrent credit).
func TestLossBesideASwapIsNotSettledAsTheSwaps(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	ctx := context.Background()
	usdc := w.ledger.DemoMints().USDC.Mint
	args := swapArgs(w, usdc, 20_000_000)
	prop := a.Call("swap", args)
	id, _ := prop.Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	thief, _ := executor.NewRandomKeypair()
	if err := w.ledger.StealOnNextSend(ctx, w.wallet.String(), thief.PublicKey().String(), 100_000_000); err != nil {
		t.Fatal(err)
	}
	before := w.balance(t, w.wallet)
	args["confirm"] = p.Token
	ans := a.Call("swap", args)
	if ans.Status() != "executed" {
		t.Fatalf("the swap: %+v", ans)
	}
	// The ledger: the swap landed, the thief has the 0.1 SOL, and the
	// wallet lost the theft plus the swap's own cost.
	if w.tokenBalance(t, usdc) == 0 || w.balance(t, thief.PublicKey()) != 100_000_000 {
		t.Fatalf("ledger: tokens %d, thief %d", w.tokenBalance(t, usdc), w.balance(t, thief.PublicKey()))
	}
	lost := before - w.balance(t, w.wallet)
	v0 := uint64(0)
	tx, err := w.chain.GetTransaction(ctx, solana.MustSignatureFromBase58(ans.Structured["signature"].(string)),
		&rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v0})
	if err != nil || tx.Meta == nil {
		t.Fatalf("getTransaction: %v", err)
	}
	// The wallet is the fee payer, account 0.
	if own := tx.Meta.PreBalances[0] - tx.Meta.PostBalances[0]; own != lost-100_000_000 {
		t.Fatalf("the swap's own transaction took %d, the wallet lost %d with the theft", own, lost)
	}
	spend := a.Call("get_spend_status", nil)
	if got := spend.Structured["spent_lamports"]; got != fmt.Sprint(lost-100_000_000) {
		t.Errorf("settled %v, want the swap's own %d (the wallet lost %d, 100000000 of it to the theft beside it)", got, lost-100_000_000, lost)
	}
}
