package tui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// ownerTokens sums what owner holds of mint, read from the ledger.
func (w *consoleWorld) ownerTokens(t *testing.T, owner solana.PublicKey, mint string) (sum uint64, n int) {
	t.Helper()
	return testkit.OwnerTokens(t, w.chain, owner, mint)
}

// transfer_token through the real binaries: `solgate console` in tmux with
// per-mint caps from flags and the mint lists from SOLGATE_* variables, an
// agent through `solgate mcp`. Approvals are key presses; balances are read
// back from the ledger.
func TestTmuxTransferToken(t *testing.T) {
	var spl, fee2022, uncapped, offList, denied string
	w := startConsoleWith(t, consoleSetup{prepare: func(t *testing.T, l *localnet.Ledger, wallet solana.PublicKey) ([]string, []string) {
		ctx := context.Background()
		mint := func() string {
			m, err := l.CreateMint(ctx, 6, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.MintTo(ctx, m, wallet.String(), 10_000_000); err != nil {
				t.Fatal(err)
			}
			return m
		}
		spl, uncapped, offList, denied = mint(), mint(), mint(), mint()
		m, err := l.CreateMint2022(ctx, localnet.Mint2022{Decimals: 6, TransferFee: true, TransferFeeBps: 100, TransferFeeMax: 1_000_000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.MintTo(ctx, m, wallet.String(), 10_000_000); err != nil {
			t.Fatal(err)
		}
		fee2022 = m
		return []string{"--max-token-per-tx", spl + "=2.5", "--max-token-per-tx", fee2022 + "=5000000"},
			[]string{"SOLGATE_ALLOW_MINT=" + strings.Join([]string{spl, fee2022, uncapped}, ","), "SOLGATE_DENY_MINT=" + denied}
	}})
	a := startAgent(t, w.socket, "token-agent")
	approve := func(id string) string {
		t.Helper()
		w.term.approvable(id)
		w.term.keys("a")
		st, text := a.call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
		token, _ := st["confirm"].(string)
		if st["status"] != "approved" || token == "" {
			t.Fatalf("after a: %v\n%s\nscreen:\n%s", st, text, w.term.screen())
		}
		return token
	}

	// An SPL Token transfer: proposed, shown, approved by key, executed.
	args := map[string]any{"mint": spl, "to": w.recipient.String(), "amount": 1_500_000}
	st, text := a.call("transfer_token", args)
	id, _ := st["proposal_id"].(string)
	if st["status"] != "pending_approval" {
		t.Fatalf("propose: %v\n%s", st, text)
	}
	w.term.waitFor(30*time.Second, id, "1.5 ", "their token account", "Creates", "rent 0.00203928 SOL")
	if got, _ := w.ownerTokens(t, w.recipient, spl); got != 0 {
		t.Fatal("a proposal moved tokens")
	}
	args["confirm"] = approve(id)
	st, text = a.call("transfer_token", args)
	if st["status"] != "executed" {
		t.Fatalf("execute: %v\n%s", st, text)
	}
	if got, n := w.ownerTokens(t, w.recipient, spl); got != 1_500_000 || n != 1 {
		t.Fatalf("recipient holds %d in %d accounts, want 1500000 in 1", got, n)
	}
	if got, _ := w.ownerTokens(t, w.wallet, spl); got != 8_500_000 {
		t.Fatalf("wallet holds %d, want 8500000", got)
	}
	w.term.waitFor(30*time.Second, "EXECUTED", "verified", "spent 1500000")

	// Denials, each an ordinary result naming its rule, shown in the log.
	// Four: a fifth denial within a minute would trip the retry breaker.
	for _, c := range []struct {
		name, mint string
		amount     int
		rule, says string
	}{
		{"over the per-mint cap", spl, 2_500_001, "max_token_per_tx", "per-transaction cap of 2500000 base units (2.5)"},
		{"uncapped mint", uncapped, 5, "allow_uncapped_token_transfers", "--allow-uncapped-token-transfers"},
		{"mint off SOLGATE_ALLOW_MINT", offList, 5, "mints", "not on the operator's mint allowlist"},
		{"mint on SOLGATE_DENY_MINT", denied, 5, "mints", "deny list"},
	} {
		st, text := a.call("transfer_token", map[string]any{"mint": c.mint, "to": w.recipient.String(), "amount": c.amount})
		reason, _ := st["reason"].(string)
		if st["status"] != "denied" || st["rule"] != c.rule || !strings.Contains(reason, c.says) {
			t.Errorf("%s: want denied by %s saying %q, got %v\n%s", c.name, c.rule, c.says, st, text)
		}
		w.term.waitFor(30*time.Second, c.rule+":") // "denied by RULE: reason", wrapped anywhere but inside a word
	}
	if got, _ := w.ownerTokens(t, w.recipient, spl); got != 1_500_000 {
		t.Fatalf("a denial moved tokens: recipient holds %d", got)
	}

	// Token-2022 with a 1% transfer fee: the console shows fee and net; the
	// recipient's balance read back is the net.
	args = map[string]any{"mint": fee2022, "to": w.recipient.String(), "amount": 2_000_000}
	st, text = a.call("transfer_token", args)
	id, _ = st["proposal_id"].(string)
	if st["status"] != "pending_approval" || st["received"] != "1980000" {
		t.Fatalf("propose 2022: %v\n%s", st, text)
	}
	w.term.waitFor(30*time.Second, id, "Xfer fee", "withheld", "1.98")
	args["confirm"] = approve(id)
	st, text = a.call("transfer_token", args)
	if st["status"] != "executed" {
		t.Fatalf("execute 2022: %v\n%s", st, text)
	}
	if got, _ := w.ownerTokens(t, w.recipient, fee2022); got != 1_980_000 {
		t.Fatalf("recipient holds %d of the fee mint, want the net 1980000", got)
	}
	t.Logf("screen:\n%s", w.term.screen())
}
