package executor

import (
	"fmt"
	"strings"
	"unicode"

	solana "github.com/gagliardetto/solana-go"
	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
)

// WarnImpostor: the token's symbol or name imitates a ticker whose real mint
// is another one (SOL, WSOL, USDC, USDT).
const WarnImpostor = "impostor"

// imitatedTickers are the tickers impostors copy, with the one mint each
// really is (executor/facts.go). WSOL and SOL are both wrapped SOL.
var imitatedTickers = []struct {
	ticker string
	mint   solana.PublicKey
}{
	{"SOL", WrappedSOL},
	{"WSOL", WrappedSOL},
	{"USDC", USDCMint},
	{"USDT", USDTMint},
}

// realMint is a ticker's real mint on network: devnet has its own USDC;
// every other network (mainnet, and test ledgers, which copy mainnet's
// names) is judged by mainnet's mints.
func realMint(network Network, ticker string, mainnet solana.PublicKey) solana.PublicKey {
	if network == Devnet && ticker == "USDC" {
		return USDCMintDevnet
	}
	return mainnet
}

// ImitatedTicker is ImitatedTickerOn mainnet.
func ImitatedTicker(mint solana.PublicKey, texts ...string) (ticker string, ok bool) {
	return ImitatedTickerOn(Mainnet, mint, texts...)
}

// ImitatedTickerOn reports which well-known ticker one of texts (a token's
// symbol, its name) is a confusable of, when mint is not that ticker's real
// mint on network: "ЅОL" (Cyrillic), "ＵＳＤＣ" (full-width) or "US\u200bDT"
// all imitate. ok is false for the real mints and for texts that imitate
// nothing.
func ImitatedTickerOn(network Network, mint solana.PublicKey, texts ...string) (ticker string, ok bool) {
	for _, text := range texts {
		sk := tickerSkeleton(text)
		if sk == "" {
			continue
		}
		for _, t := range imitatedTickers {
			if sk == tickerSkeleton(t.ticker) && !mint.Equals(realMint(network, t.ticker, t.mint)) {
				return t.ticker, true
			}
		}
	}
	return "", false
}

// tickerSkeleton is the form in which look-alike tickers compare equal: the
// UTS #39 confusable skeleton (Unicode's confusables.txt, through
// github.com/mtibben/confusables), taken after dropping what cannot be seen
// (format characters such as zero-width spaces, variation selectors, other
// default-ignorables, and white space) and after NFKC, which folds
// full-width and other compatibility letters that the skeleton table leaves
// alone. Combining marks are then dropped and case is folded, because
// "ŠOL" or "sol" on a token list reads as SOL just the same.
func tickerSkeleton(s string) string {
	visible := strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
			unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.IsSpace(r) || unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	sk := confusables.Skeleton(norm.NFKC.String(visible))
	sk = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
			return -1
		}
		return r
	}, sk)
	return strings.ToUpper(sk)
}

// ImpostorWarning is the impostor warning for a token whose symbol or name
// (texts, sanitised first: an escape sequence around "SOL" must not hide it)
// imitates a ticker without being its mint. Its text names the ticker and
// the real mint, never the token's own words.
func ImpostorWarning(mint solana.PublicKey, texts ...string) (Warning, bool) {
	return ImpostorWarningOn(Mainnet, mint, texts...)
}

// ImpostorWarningOn is ImpostorWarning with the real mints of network (the
// console's cluster): devnet's USDC is USDC on devnet, and an impostor on
// mainnet.
func ImpostorWarningOn(network Network, mint solana.PublicKey, texts ...string) (Warning, bool) {
	t, ok := ImitatedTickerOn(network, mint, texts...)
	if !ok {
		return Warning{}, false
	}
	for _, it := range imitatedTickers {
		if it.ticker == t {
			where := ""
			if network == Devnet {
				where = " on devnet"
			}
			return Warning{Kind: WarnImpostor, Text: fmt.Sprintf("IMPOSTOR: its symbol or name imitates %s, but it is not %s: the real %s mint%s is %s", t, t, t, where, realMint(network, t, it.mint))}, true
		}
	}
	return Warning{}, false
}
