package authority_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
)

// Tokens whose on-chain metadata imitates SOL, USDC or USDT with look-alike
// characters are flagged IMPOSTOR when an agent asks get_token_info through
// the real bridge; an honest token is not. The metadata is written to the
// ledger and read back from it, as on a real cluster.
func TestGetTokenInfoFlagsImpostorTickers(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	ctx := context.Background()
	for _, tc := range []struct {
		name, symbol string
		imitates     string // "" = honest
	}{
		{"Solana", "\u0405\u041eL", "SOL"},           // Cyrillic ЅОL
		{"\uff35\uff33\uff24\uff23", "FUSD", "USDC"}, // full-width name ＵＳＤＣ
		{"Tether", "US\u200bDT", "USDT"},             // zero-width space
		{"Bonk", "BONK", ""},
	} {
		mint, err := w.ledger.CreateToken(ctx, 6, tc.name, tc.symbol, "https://example.invalid/t.json")
		if err != nil {
			t.Fatal(err)
		}
		ans := a.Call("get_token_info", map[string]any{"mint": mint})
		if ans.IsError {
			t.Fatalf("%q: %+v", tc.symbol, ans)
		}
		warnings := fmt.Sprint(ans.Structured["warnings"])
		flagged := strings.Contains(warnings, "IMPOSTOR")
		if tc.imitates == "" {
			if flagged {
				t.Errorf("honest %q flagged: %s", tc.symbol, warnings)
			}
			continue
		}
		want := fmt.Sprintf("imitates %s, but it is not %s", tc.imitates, tc.imitates)
		if !strings.Contains(warnings, want) || !strings.Contains(ans.Text, want) {
			t.Errorf("%q (name %q): want %q in warnings %s\ntext: %s", tc.symbol, tc.name, want, warnings, ans.Text)
		}
	}
	// The demo's USDC-like token says USDC but is not Circle's mint.
	ans := a.Call("get_token_info", map[string]any{"mint": w.ledger.DemoMints().USDC.Mint})
	if !strings.Contains(fmt.Sprint(ans.Structured["warnings"]), "imitates USDC") {
		t.Errorf("demo USDC-like token not flagged: %+v", ans.Structured)
	}
}

// On devnet a swap API that is not on this machine is Jupiter's (or a copy
// of it), which routes mainnet only: the proposal is refused with that
// reason before any request is made.
func TestSwapOnDevnetWithARemoteSwapAPIIsRefusedAtProposal(t *testing.T) {
	w := newWorldLedger(t, localnet.Options{Network: "devnet"}, func(*authority.Options, *localnet.Ledger) {}, func(s *startup.Setup, _ *localnet.Ledger) {
		// Never dialled: the refusal comes first. .invalid never resolves.
		api, err := executor.NewSwapClient("https://swap.example.invalid", executor.SwapClientOptions{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		s.SwapAPI = api
	}, host.ListenConfig{})
	if got := w.authority.Network(); got != executor.Devnet {
		t.Fatalf("the console is on %s, want devnet", got)
	}
	a := startAgent(t, w.socket)
	ans := a.Call("swap", swapArgs(w, w.ledger.DemoMints().USDC.Mint, 10_000_000))
	if ans.Status() != "denied" || !strings.Contains(ans.Text, "Jupiter routes mainnet only") {
		t.Fatalf("swap on devnet with a remote swap API: %+v", ans)
	}
	if len(w.authority.Proposals()) != 0 {
		t.Error("a proposal was queued")
	}
}
