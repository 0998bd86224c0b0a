package authority_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority"
)

// solAndWSOL is what the ledger says the wallet holds in SOL and wrapped SOL
// together: its lamports plus every wrapped-SOL account it owns, lamports
// included (an account's rent is the wallet's too).
func (w *world) solAndWSOL(t *testing.T) uint64 {
	t.Helper()
	total := w.balance(t, w.wallet)
	wsol := solana.MustPublicKeyFromBase58("So11111111111111111111111111111111111111112")
	program := solana.TokenProgramID
	res, err := w.chain.GetTokenAccountsByOwner(context.Background(), w.wallet, &rpc.GetTokenAccountsConfig{ProgramId: &program},
		&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Value {
		// A token account's mint is its first 32 bytes.
		if d := a.Account.Data.GetBinary(); len(d) >= 32 && solana.PublicKeyFromBytes(d[:32]).Equals(wsol) {
			total += a.Account.Lamports
		}
	}
	return total
}

// With --max-sol-per-session 1.0 and a swap API that pays every SOL swap's
// input from the wallet's wrapped SOL: the SOL and wrapped SOL leaving the
// wallet, as the ledger shows it, never exceeds the session cap, and the
// session spend get_spend_status shows is at least what left.
func TestWSOLPayingSwapAPIStaysWithinTheSessionCap(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) {
		o.Policy.MaxLamportsPerTx = 500_000_000
		o.Policy.MaxLamportsPerSession = 1_000_000_000
	})
	a := startAgent(t, w.socket)
	ctx := context.Background()
	mints := w.ledger.DemoMints()
	if _, err := w.ledger.MintTo(ctx, mints.WSOL, w.wallet.String(), 2_000_000_000); err != nil {
		t.Fatal(err)
	}
	if err := w.ledger.SetSwapHostile(ctx, localnet.HostilePayFromWSOL, 0); err != nil {
		t.Fatal(err)
	}
	start := w.solAndWSOL(t)
	startLamports := w.balance(t, w.wallet)
	executed := 0
	for i := range 3 {
		args := swapArgs(w, mints.USDC.Mint, uint64(400_000_000+i))
		prop := a.Call("swap", args)
		if prop.Status() == "denied" {
			if !strings.Contains(prop.Text, "session") {
				t.Errorf("swap %d denied, but not by the session cap: %s", i, prop.Text)
			}
			continue
		}
		if prop.Status() != "pending_approval" {
			t.Fatalf("swap %d: %+v", i, prop)
		}
		// The preview names the wrapped-SOL account that pays.
		if !strings.Contains(prop.Text, "wrapped-SOL account") {
			t.Errorf("swap %d's preview does not say the wrapped SOL pays: %s", i, prop.Text)
		}
		// The structured result carries the measure the caps use: the input
		// in wrapped SOL counts as SOL out.
		eff, _ := prop.Structured["effects"].(map[string]any)
		if out, _ := strconv.ParseUint(fmt.Sprint(eff["sol_out_lamports"]), 10, 64); out < uint64(400_000_000+i) {
			t.Errorf("swap %d's structured effects: SOL out %v, want at least its input", i, eff["sol_out_lamports"])
		}
		ans := w.execute(t, a, "swap", prop.Structured["proposal_id"].(string), args)
		switch ans.Status() {
		case "executed":
			executed++
		case "failed":
			if !strings.Contains(ans.Text, "session") {
				t.Errorf("swap %d failed, but not by the session cap: %s", i, ans.Text)
			}
		default:
			t.Fatalf("swap %d: %+v", i, ans)
		}
	}
	if executed != 2 {
		t.Errorf("%d swaps of 0.4 SOL executed under a 1 SOL session cap, want 2", executed)
	}
	left := start - w.solAndWSOL(t)
	if lamportsLeft := startLamports - w.balance(t, w.wallet); lamportsLeft >= 100_000_000 {
		t.Fatalf("the wallet's own lamports fell by %d: the swaps did not pay from wrapped SOL, so this test proves nothing", lamportsLeft)
	}
	if left > 1_000_000_000 {
		t.Errorf("the ledger shows %d lamports of SOL and wrapped SOL left the wallet, over the 1 SOL session cap", left)
	}
	spend := a.Call("get_spend_status", nil)
	spent, err := strconv.ParseUint(fmt.Sprint(spend.Structured["spent_lamports"]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if spent < left {
		t.Errorf("get_spend_status says %d lamports spent, less than the %d the ledger shows left the wallet", spent, left)
	}
	if left < 800_000_000 {
		t.Errorf("only %d left the wallet: the two swaps did not land as expected", left)
	}
}

// A swap transaction that advances a durable nonce is never signed, whether
// the API sends it for the preview or only at execution, and the refusal
// names the durable nonce. The ledger received no transaction.
func TestDurableNonceSwapIsNeverSigned(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	ctx := context.Background()
	usdc := w.ledger.DemoMints().USDC.Mint
	before, err := w.ledger.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ledger.SetSwapHostile(ctx, localnet.HostileDurableNonce, 0); err != nil {
		t.Fatal(err)
	}
	ans := a.Call("swap", swapArgs(w, usdc, 20_000_000))
	if ans.Status() != "denied" || !strings.Contains(ans.Text, "durable nonce") {
		t.Fatalf("durable nonce at proposal: %+v", ans)
	}

	// Honest for the preview, a durable nonce at execution.
	if err := w.ledger.SetSwapHostile(ctx, localnet.HostileDurableNonce, 1); err != nil {
		t.Fatal(err)
	}
	args := swapArgs(w, usdc, 20_000_001)
	prop := a.Call("swap", args)
	if prop.Status() != "pending_approval" {
		t.Fatalf("honest preview: %+v", prop)
	}
	done := w.execute(t, a, "swap", prop.Structured["proposal_id"].(string), args)
	if done.Status() != "failed" || !strings.Contains(done.Text, "durable nonce") {
		t.Fatalf("durable nonce at execution: %+v", done)
	}
	after, err := w.ledger.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.SendsReceived != before.SendsReceived {
		t.Errorf("the ledger received %d sends", after.SendsReceived-before.SendsReceived)
	}
}
