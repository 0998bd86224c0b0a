package authority_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/policy"
)

// The rent-exempt minimum of a 165-byte SPL token account, (165 + 128) ×
// 3480 × 2 lamports.
const rentTokenAccount = 2_039_280

// ownerTokens sums what owner holds of mint, read from the ledger (not
// through the hub); n is how many accounts there are.
func (w *world) ownerTokens(t *testing.T, owner solana.PublicKey, mint string) (sum uint64, n int) {
	t.Helper()
	return testkit.OwnerTokens(t, w.chain, owner, mint)
}

func tokenWorld(t *testing.T, tweak func(*policy.Config, string)) (*world, string) {
	t.Helper()
	var mint string
	w := newWorldOn(t, func(o *authority.Options, l *localnet.Ledger) {
		m, err := l.CreateMint(context.Background(), 6, "")
		if err != nil {
			t.Fatal(err)
		}
		mint = m
		if tweak != nil {
			tweak(&o.Policy, mint)
		}
	})
	if _, err := w.ledger.MintTo(context.Background(), mint, w.wallet.String(), 10_000_000); err != nil {
		t.Fatal(err)
	}
	return w, mint
}

func capped(t *testing.T, spec string) []policy.TokenCap {
	c, err := policy.ParseTokenCap(spec)
	if err != nil {
		t.Fatal(err)
	}
	return []policy.TokenCap{c}
}

// Through the real `solgate mcp` bridge: propose, approve, execute; both
// owners' token balances read back from the ledger; the recipient's
// account created once with its rent counted; over the per-mint cap denied.
func TestTransferTokenThroughTheBridge(t *testing.T) {
	w, mint := tokenWorld(t, func(c *policy.Config, mint string) { c.MaxTokenPerTx = capped(t, mint+"=2.5") })
	a := startAgent(t, w.socket)
	args := map[string]any{"mint": mint, "to": w.allowed.String(), "amount": "1500000"}
	solBefore := w.balance(t, w.wallet)

	ans := a.Call("transfer_token", args)
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose: %+v", ans)
	}
	for _, want := range []string{"send 1.5 ", "(1500000 base units, 6 decimals)", "to owner " + w.allowed.String(),
		"Creates the recipient's token account", "rent 0.00203928 SOL (2039280 lamports)"} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("preview lacks %q:\n%s", want, ans.Text)
		}
	}
	if got, _ := w.ownerTokens(t, w.allowed, mint); got != 0 || w.balance(t, w.wallet) != solBefore {
		t.Fatal("a proposal moved funds")
	}
	res := w.execute(t, a, "transfer_token", id, args)
	if res.Status() != "executed" {
		t.Fatalf("execute: %+v", res)
	}
	if got, _ := w.ownerTokens(t, w.wallet, mint); got != 8_500_000 {
		t.Fatalf("wallet holds %d after, want 8500000", got)
	}
	if got, n := w.ownerTokens(t, w.allowed, mint); got != 1_500_000 || n != 1 {
		t.Fatalf("recipient holds %d in %d accounts", got, n)
	}
	sig := res.Structured["signature"].(string)
	fee := w.landed(t, sig).fee
	if spent := solBefore - w.balance(t, w.wallet); spent != fee+rentTokenAccount {
		t.Fatalf("wallet spent %d lamports, want fee %d + rent %d", spent, fee, rentTokenAccount)
	}
	if st := w.authority.SpendSummary(); st.Spent != fee+rentTokenAccount {
		t.Fatalf("session spend %d, want fee + rent %d", st.Spent, fee+rentTokenAccount)
	}

	// Second time: the account exists; no rent, still one account.
	args2 := map[string]any{"mint": mint, "to": w.allowed.String(), "amount": 1000}
	ans = a.Call("transfer_token", args2)
	if strings.Contains(ans.Text, "Creates the recipient's token account") {
		t.Fatalf("second transfer creates the account again:\n%s", ans.Text)
	}
	if res := w.execute(t, a, "transfer_token", ans.Structured["proposal_id"].(string), args2); res.Status() != "executed" {
		t.Fatalf("second execute: %+v", res)
	}
	if got, n := w.ownerTokens(t, w.allowed, mint); got != 1_501_000 || n != 1 {
		t.Fatalf("recipient holds %d in %d accounts", got, n)
	}

	// Over the per-mint cap (2.5 tokens = 2500000 base units): denied.
	over := a.Call("transfer_token", map[string]any{"mint": mint, "to": w.allowed.String(), "amount": 2_500_001})
	if over.Status() != "denied" || over.Structured["rule"] != policy.RuleTokenPerTx {
		t.Fatalf("over the cap: %+v", over)
	}
	// The spend status shows the per-mint figures.
	st := a.Call("get_spend_status", map[string]any{})
	if !strings.Contains(st.Text, mint) || !strings.Contains(st.Text, "1501000") {
		t.Fatalf("spend status lacks the mint's figures:\n%s", st.Text)
	}
}

// Denials by capability: an uncapped mint, a recipient off the allowlist, a
// mint on the deny list or off the mint allowlist.
func TestTransferTokenDenials(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tweak func(*policy.Config, string)
		to    func(*world) string
		rule  string
	}{
		{"uncapped mint", nil, func(w *world) string { return w.allowed.String() }, policy.RuleUncappedTransfer},
		{"recipient off the allowlist", func(c *policy.Config, m string) { c.AllowUncappedTokenTransfers = true },
			func(w *world) string { return w.stranger.String() }, policy.RuleRecipient},
		{"mint on the deny list", func(c *policy.Config, m string) { c.AllowUncappedTokenTransfers = true; c.DenyMints = []string{m} },
			func(w *world) string { return w.allowed.String() }, policy.RuleMints},
		{"mint off the allowlist", func(c *policy.Config, m string) {
			c.AllowUncappedTokenTransfers = true
			c.AllowMints = []string{"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"}
		}, func(w *world) string { return w.allowed.String() }, policy.RuleMints},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, mint := tokenWorld(t, tc.tweak)
			a := startAgent(t, w.socket)
			ans := a.Call("transfer_token", map[string]any{"mint": mint, "to": tc.to(w), "amount": 5})
			if ans.IsError || ans.Status() != "denied" || ans.Structured["rule"] != tc.rule {
				t.Fatalf("want denied by %s: %+v", tc.rule, ans)
			}
			if len(w.authority.Proposals()) != 0 {
				t.Fatal("a denied transfer reached the queue")
			}
		})
	}
}

// A Token-2022 mint with a 1% transfer fee: the preview shows the fee and
// the net the recipient receives, and execution verifies that net.
func TestTransferToken2022FeeShowsNetAndVerifies(t *testing.T) {
	var mint string
	w := newWorldOn(t, func(o *authority.Options, l *localnet.Ledger) {
		m, err := l.CreateMint2022(context.Background(), localnet.Mint2022{Decimals: 6, TransferFee: true, TransferFeeBps: 100, TransferFeeMax: 1_000_000})
		if err != nil {
			t.Fatal(err)
		}
		mint = m
		o.Policy.MaxTokenPerTx = capped(t, mint+"=5.0")
	})
	if _, err := w.ledger.MintTo(context.Background(), mint, w.wallet.String(), 10_000_000); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	args := map[string]any{"mint": mint, "to": w.allowed.String(), "amount": 2_000_000}
	ans := a.Call("transfer_token", args)
	if ans.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", ans)
	}
	for _, want := range []string{"SPL Token-2022", "Transfer fee: the mint withholds 0.02 ", "(20000 base units); the recipient receives 1.98 ", "(1980000 base units)"} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("preview lacks %q:\n%s", want, ans.Text)
		}
	}
	if ans.Structured["received"] != "1980000" || ans.Structured["transfer_fee"] != "20000" {
		t.Fatalf("structured: %+v", ans.Structured)
	}
	res := w.execute(t, a, "transfer_token", ans.Structured["proposal_id"].(string), args)
	if res.Status() != "executed" {
		t.Fatalf("execute: %+v", res)
	}
	if got, _ := w.ownerTokens(t, w.allowed, mint); got != 1_980_000 {
		t.Fatalf("recipient holds %d, want the net 1980000", got)
	}
	if got, _ := w.ownerTokens(t, w.wallet, mint); got != 8_000_000 {
		t.Fatalf("wallet holds %d, want 8000000", got)
	}
}

// A swap that spends a token is bounded by that mint's cap like a transfer
// (capability, not tool): a cap in display units applies with the mint's
// decimals, and within it no uncapped opt-in is needed.
func TestSwapFromTokenMeetsThePerMintCap(t *testing.T) {
	var usdc string
	w := newWorldOn(t, func(o *authority.Options, l *localnet.Ledger) {
		usdc = l.DemoMints().USDC.Mint
		o.Policy.MaxTokenPerTx = capped(t, usdc+"=1.0")
	})
	if _, err := w.ledger.MintTo(context.Background(), usdc, w.wallet.String(), 5_000_000); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, w.socket)
	swap := func(amount int) testkit.Answer {
		return a.Call("swap", map[string]any{"input_mint": usdc, "output_mint": w.ledger.DemoMints().WSOL, "amount": amount, "slippage_bps": 100})
	}
	over := swap(1_000_001)
	if over.Status() != "denied" || over.Structured["rule"] != policy.RuleTokenPerTx || !strings.Contains(over.Text, "1000000 base units (1.0)") {
		t.Fatalf("over the per-mint cap: %+v", over)
	}
	if within := swap(1_000_000); within.Status() != "pending_approval" {
		t.Fatalf("within the per-mint cap, no opt-in: %+v", within)
	}
}
