package executor_test

import (
	"testing"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
)

// Look-alike tickers, judged against the real mints spelled out from their
// published values (Circle's and Tether's lists; the SPL native mint).
func TestImitatedTicker(t *testing.T) {
	var (
		realUSDC = solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
		realUSDT = solana.MustPublicKeyFromBase58("Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB")
		wsol     = solana.MustPublicKeyFromBase58("So11111111111111111111111111111111111111112")
		other    = solana.MustPublicKeyFromBase58("GH7ome3EiwEr7tu9JuTh2dpYWBJK3z69Xm1ZE3MEE6JC")
	)
	for _, tc := range []struct {
		mint  solana.PublicKey
		texts []string
		want  string // "" = not an impostor
	}{
		{other, []string{"SOL"}, "SOL"},
		{other, []string{"sol"}, "SOL"},
		{other, []string{"\u0405\u041eL"}, "SOL"},                  // Cyrillic DZE and O: ЅОL
		{other, []string{"\uff33\uff2f\uff2c"}, "SOL"},             // full-width ＳＯＬ
		{other, []string{"S\u200bO\u200dL"}, "SOL"},                // zero-width space and joiner
		{other, []string{"\U0001d412\U0001d40e\U0001d40b"}, "SOL"}, // mathematical bold 𝐒𝐎𝐋
		{other, []string{"S0L"}, "SOL"},                            // digit zero
		{other, []string{"S O L"}, "SOL"},
		{other, []string{"ws\u043el"}, "WSOL"},      // Cyrillic o
		{other, []string{"U\u0405D\u0421"}, "USDC"}, // UЅDС, two Cyrillic letters
		{other, []string{"\uff35\uff33\uff24\uff23"}, "USDC"},
		{other, []string{"US\u2060DT"}, "USDT"}, // word joiner
		{other, []string{"", "USDT"}, "USDT"},   // a name can imitate too
		{other, []string{"USDC", "USD Coin"}, "USDC"},
		{realUSDT, []string{"USDC"}, "USDC"}, // the real USDT is still not USDC
		{realUSDC, []string{"USDC", "USD Coin"}, ""},
		{realUSDC, []string{"U\u0405DC"}, ""}, // the real mint may spell its ticker as it likes
		{realUSDT, []string{"USDT"}, ""},
		{wsol, []string{"SOL", "Wrapped SOL"}, ""},
		{wsol, []string{"WSOL"}, ""},
		{other, []string{"BONK", "Bonk"}, ""},
		{other, []string{"USDCX", "SOLANA", "mSOL", "USD Coin"}, ""},
		{other, []string{"", ""}, ""},
	} {
		got, ok := executor.ImitatedTicker(tc.mint, tc.texts...)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("ImitatedTicker(%s, %q) = %q, %v; want %q", tc.mint, tc.texts, got, ok, tc.want)
		}
	}
	w, ok := executor.ImpostorWarning(other, "\u0405\u041eL")
	if !ok || w.Kind != "impostor" || w.Text != "IMPOSTOR: its symbol or name imitates SOL, but it is not SOL: the real SOL mint is So11111111111111111111111111111111111111112" {
		t.Errorf("warning: %+v %v", w, ok)
	}
}

// The impostor check uses the console's cluster: devnet's USDC (Circle's
// devnet mint, spelled from its published value) is USDC on devnet, and an
// impostor of USDC on mainnet; mainnet's USDC is not USDC on devnet.
func TestImpostorCheckIsPerCluster(t *testing.T) {
	devnetUSDC := solana.MustPublicKeyFromBase58("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU")
	mainnetUSDC := solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
	if w, ok := executor.ImpostorWarningOn(executor.Devnet, devnetUSDC, "USDC", "USD Coin"); ok {
		t.Errorf("devnet's USDC flagged on devnet: %s", w.Text)
	}
	if _, ok := executor.ImpostorWarningOn(executor.Mainnet, devnetUSDC, "USDC", "USD Coin"); !ok {
		t.Error("devnet's USDC not flagged on mainnet")
	}
	w, ok := executor.ImpostorWarningOn(executor.Devnet, mainnetUSDC, "USDC")
	if !ok || w.Text != "IMPOSTOR: its symbol or name imitates USDC, but it is not USDC: the real USDC mint on devnet is 4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" {
		t.Errorf("mainnet's USDC on devnet: %q, %v", w.Text, ok)
	}
}
