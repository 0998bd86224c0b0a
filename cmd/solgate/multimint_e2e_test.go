package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// A transaction built elsewhere that spends two mints: each mint's out is
// held to its own per-mint caps, the ledger counts both, and a mint with no
// cap is refused unless the operator opted in.

// newMintAddress is an address for a mint that does not exist yet, so the
// console's caps can name it before the ledger creates it there.
func newMintAddress(t *testing.T) string {
	t.Helper()
	k, err := executor.NewRandomKeypair()
	if err != nil {
		t.Fatal(err)
	}
	return k.PublicKey().String()
}

// spendOf reads one mint's row of get_spend_status: what the console's
// spend ledger holds, not what any call returned.
func spendOf(t *testing.T, a *testkit.Agent, mint string) (spent, reserved string) {
	t.Helper()
	st := a.Call("get_spend_status", map[string]any{})
	rows, _ := st.Structured["tokens"].([]any)
	for _, r := range rows {
		if m, _ := r.(map[string]any); m["mint"] == mint {
			s, _ := m["spent"].(string)
			res, _ := m["reserved"].(string)
			return s, res
		}
	}
	return "absent", "absent"
}

// proposeApproveExecute runs a sign_and_send_transaction through the human's
// approval and returns the proposal's answer and the executed one.
func (w *outsideWorld) proposeApproveExecute(t *testing.T, o localnet.Outside) (proposed, done testkit.Answer) {
	t.Helper()
	const tool = "sign_and_send_transaction"
	args := map[string]any{"transaction": o.Transaction}
	ans := w.agent.Call(tool, args)
	id := ans.Str("proposal_id")
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose: %s %v", ans.Text, ans.Structured)
	}
	w.pane.WaitApprovable(t, 30*time.Second, id)
	w.pane.Keys(t, "a")
	st := w.agent.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	if st.Status() != "approved" || st.Str("confirm") == "" {
		t.Fatalf("proposal_status: %s %v", st.Text, st.Structured)
	}
	args["confirm"] = st.Str("confirm")
	done = w.agent.Call(tool, args)
	if done.Status() != "executed" {
		t.Fatalf("execute: %s %v", done.Text, done.Structured)
	}
	return ans, done
}

func TestSignAndSendTwoMintsEachHeldToItsOwnCaps(t *testing.T) {
	usdc, bonk, uncapped := newMintAddress(t), newMintAddress(t), newMintAddress(t)
	w := startOutsideWorld(t, "--max-token-per-tx", usdc+"=500000", "--max-token-per-tx", bonk+"=300000")
	const tool = "sign_and_send_transaction"
	holdings := func(o localnet.Outside) (a, b uint64) {
		a, _ = testkit.OwnerTokens(t, w.chain, w.wallet, o.Accounts["mint0"])
		b, _ = testkit.OwnerTokens(t, w.chain, w.wallet, o.Accounts["mint1"])
		return a, b
	}

	t.Run("both capped, both within", func(t *testing.T) {
		o := w.build(t, "two-token-transfer", localnet.OutsideOptions{Mints: []string{usdc, bonk}, Amounts: []uint64{250_000, 200_000}})
		w.proposeApproveExecute(t, o)
		to := solana.MustPublicKeyFromBase58(o.Accounts["recipient"])
		if got, _ := testkit.OwnerTokens(t, w.chain, to, usdc); got != 250_000 {
			t.Errorf("the recipient holds %d of the first mint, want 250000", got)
		}
		if got, _ := testkit.OwnerTokens(t, w.chain, to, bonk); got != 200_000 {
			t.Errorf("the recipient holds %d of the second mint, want 200000", got)
		}
		// Settled from the landed effects, per mint, in the spend ledger.
		if s, r := spendOf(t, w.agent, usdc); s != "250000" || r != "0" {
			t.Errorf("the ledger holds the first mint as spent %s, reserved %s; want 250000, 0", s, r)
		}
		if s, r := spendOf(t, w.agent, bonk); s != "200000" || r != "0" {
			t.Errorf("the ledger holds the second mint as spent %s, reserved %s; want 200000, 0", s, r)
		}
	})

	t.Run("second mint over its cap", func(t *testing.T) {
		o := w.build(t, "two-token-transfer", localnet.OutsideOptions{Mints: []string{usdc, bonk}, Amounts: []uint64{100_000, 300_001}})
		a, b := holdings(o)
		ans := testkit.StartAgent(t, w.socket, "sdk-agent-over").Call(tool, map[string]any{"transaction": o.Transaction})
		if ans.Status() != "denied" || !strings.Contains(ans.Text, "300001 base units of "+bonk) || !strings.Contains(ans.Text, "per-transaction cap of 300000") {
			t.Fatalf("got %s %v, want denied naming %s over its cap", ans.Text, ans.Structured, bonk)
		}
		if a2, b2 := holdings(o); a2 != a || b2 != b {
			t.Errorf("the wallet's tokens moved: %d→%d, %d→%d", a, a2, b, b2)
		}
		if s, r := spendOf(t, w.agent, usdc); s != "250000" || r != "0" {
			t.Errorf("a denial changed the first mint's ledger: spent %s, reserved %s", s, r)
		}
		if s, r := spendOf(t, w.agent, bonk); s != "200000" || r != "0" {
			t.Errorf("a denial changed the second mint's ledger: spent %s, reserved %s", s, r)
		}
	})

	t.Run("second mint uncapped", func(t *testing.T) {
		o := w.build(t, "two-token-transfer", localnet.OutsideOptions{Mints: []string{usdc, uncapped}, Amounts: []uint64{100_000, 1}})
		a, b := holdings(o)
		ans := testkit.StartAgent(t, w.socket, "sdk-agent-uncapped").Call(tool, map[string]any{"transaction": o.Transaction})
		if ans.Status() != "denied" || !strings.Contains(ans.Text, uncapped+", which no per-mint cap bounds") || !strings.Contains(ans.Text, "--allow-uncapped-token-transfers") {
			t.Fatalf("got %s %v, want denied naming %s as uncapped", ans.Text, ans.Structured, uncapped)
		}
		if a2, b2 := holdings(o); a2 != a || b2 != b {
			t.Errorf("the wallet's tokens moved: %d→%d, %d→%d", a, a2, b, b2)
		}
		if s, r := spendOf(t, w.agent, uncapped); s != "absent" {
			t.Errorf("a denial put the uncapped mint in the ledger: spent %s, reserved %s", s, r)
		}
	})
}

// With the opt-in, the uncapped second mint passes, and the ledger still
// counts it beside the capped one.
func TestSignAndSendUncappedSecondMintWithOptIn(t *testing.T) {
	usdc, uncapped := newMintAddress(t), newMintAddress(t)
	w := startOutsideWorld(t, "--max-token-per-tx", usdc+"=500000", "--allow-uncapped-token-transfers")
	o := w.build(t, "two-token-transfer", localnet.OutsideOptions{Mints: []string{usdc, uncapped}, Amounts: []uint64{100_000, 7}})
	// The human is told which of the two mints no cap bounds.
	proposed, _ := w.proposeApproveExecute(t, o)
	if !strings.Contains(proposed.Text, "no per-mint cap ("+uncapped+")") {
		t.Errorf("the proposal does not name the uncapped mint %s:\n%s", uncapped, proposed.Text)
	}
	if got, _ := testkit.OwnerTokens(t, w.chain, solana.MustPublicKeyFromBase58(o.Accounts["recipient"]), uncapped); got != 7 {
		t.Errorf("the recipient holds %d of the uncapped mint, want 7", got)
	}
	if s, _ := spendOf(t, w.agent, usdc); s != "100000" {
		t.Errorf("the ledger holds the capped mint as spent %s, want 100000", s)
	}
	if s, _ := spendOf(t, w.agent, uncapped); s != "7" {
		t.Errorf("the ledger holds the uncapped mint as spent %s, want 7", s)
	}
}
