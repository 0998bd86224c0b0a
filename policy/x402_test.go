package policy

import (
	"strings"
	"testing"
)

// An x402 payment: judged by its origin (deny by default), never by the
// recipient allowlist, with no SOL spent; its token needs a per-mint cap.
func TestX402OriginAndCaps(t *testing.T) {
	const mint = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
	p := Proposal{Tool: "x402_fetch", Fingerprint: "f", ClientID: "c", Network: NetworkLocalnet, FeePaidByOther: true,
		Counterparties: []Counterparty{X402Origin("http://127.0.0.1:8402")}, Mints: []string{mint},
		Tokens: []TokenSpend{{Mint: mint, Amount: 1000, Decimals: 6, DecimalsKnown: true}}}
	cfg := DefaultConfig()
	if d := Evaluate(cfg, p, SpendState{}); d.Allowed || d.Rule != RuleX402Origin || !strings.Contains(d.Reason, "--allow-x402-origin http://127.0.0.1:8402") {
		t.Fatalf("no origin allowed: %+v", d)
	}
	cfg.AllowedX402Origins = []string{"https://api.example.com"}
	if d := Evaluate(cfg, p, SpendState{}); d.Allowed || d.Rule != RuleX402Origin {
		t.Fatalf("other origin allowed: %+v", d)
	}
	cfg.AllowedX402Origins = append(cfg.AllowedX402Origins, "http://127.0.0.1:8402")
	if d := Evaluate(cfg, p, SpendState{}); d.Allowed || d.Rule != RuleUncappedTransfer {
		t.Fatalf("uncapped token allowed: %+v", d)
	}
	cfg.MaxTokenPerSession = []TokenCap{{Mint: mint, Amount: TokenAmount{Text: "0.0025"}}}
	if d := Evaluate(cfg, p, SpendState{}); !d.Allowed {
		t.Fatalf("capped, allowed origin: %+v", d)
	}
	s := SpendState{Tokens: map[string]TokenTotals{mint: {SessionSpent: 2000}}}
	if d := Evaluate(cfg, p, s); d.Allowed || d.Rule != RuleTokenPerSession {
		t.Fatalf("past the session cap: %+v", d)
	}
	// Zero SOL is a measure only when another pays the fee.
	p.FeePaidByOther = false
	p.Counterparties = []Counterparty{Recipient("7Us1MTDJ7TraDSPewnz7pJp84eJdC8rqQMuEyFHpKky6")}
	cfg.AllowRecipients = []string{"7Us1MTDJ7TraDSPewnz7pJp84eJdC8rqQMuEyFHpKky6"}
	if d := Evaluate(cfg, p, SpendState{}); d.Allowed || d.Rule != RuleMeasured {
		t.Fatalf("unmeasured transfer allowed: %+v", d)
	}
}

// payTo is a counterparty of every x402 payment. Unpinned it is judged
// through its origin; under X402PinPayTo it must be on the recipient
// allowlist, and the refusal names the flag and the payTo. A recipient
// allowlist alone never pins it, and pinning never admits another origin.
func TestX402PayToPinnedByOptIn(t *testing.T) {
	const mint = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
	const payTo = "7Us1MTDJ7TraDSPewnz7pJp84eJdC8rqQMuEyFHpKky6"
	const other = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	p := Proposal{Tool: "x402_fetch", Fingerprint: "f", ClientID: "c", Network: NetworkLocalnet, FeePaidByOther: true,
		Counterparties: []Counterparty{X402Origin("http://127.0.0.1:8402"), X402PayTo(payTo)}, Mints: []string{mint},
		Tokens: []TokenSpend{{Mint: mint, Amount: 1000, Decimals: 6, DecimalsKnown: true}}}
	cfg := DefaultConfig()
	cfg.AllowedX402Origins = []string{"http://127.0.0.1:8402"}
	cfg.MaxTokenPerTx = []TokenCap{{Mint: mint, Amount: TokenAmount{Text: "0.001"}}}
	if d := Evaluate(cfg, p, SpendState{}); !d.Allowed {
		t.Fatalf("unpinned, the origin and the cap admit it: %+v", d)
	}
	cfg.AllowRecipients = []string{other}
	if d := Evaluate(cfg, p, SpendState{}); !d.Allowed {
		t.Fatalf("a recipient allowlist alone pinned payTo: %+v", d)
	}
	cfg.X402PinPayTo = true
	d := Evaluate(cfg, p, SpendState{})
	if d.Allowed || d.Rule != RuleRecipient || !strings.Contains(d.Reason, "--x402-pin-pay-to") || !strings.Contains(d.Reason, "--allow-recipient "+payTo) {
		t.Fatalf("pinned, payTo not on the list: %+v", d)
	}
	cfg.AllowRecipients = nil
	if d := Evaluate(cfg, p, SpendState{}); d.Allowed || d.Rule != RuleRecipient || !strings.Contains(d.Reason, payTo) {
		t.Fatalf("pinned, empty recipient list: %+v", d)
	}
	cfg.AllowRecipients = []string{other, payTo}
	if d := Evaluate(cfg, p, SpendState{}); !d.Allowed {
		t.Fatalf("pinned and on the list: %+v", d)
	}
	// Pinning payTo never opens an origin.
	cfg.AllowedX402Origins = []string{"https://api.example.com"}
	if d := Evaluate(cfg, p, SpendState{}); d.Allowed || d.Rule != RuleX402Origin {
		t.Fatalf("payTo allowed, origin not: %+v", d)
	}
	// A plain recipient is never waived by the pin being off.
	cfg = DefaultConfig()
	cfg.AllowedX402Origins = []string{"http://127.0.0.1:8402"}
	cfg.MaxTokenPerTx = []TokenCap{{Mint: mint, Amount: TokenAmount{Text: "0.001"}}}
	p.Counterparties = []Counterparty{X402Origin("http://127.0.0.1:8402"), Recipient(payTo)}
	if d := Evaluate(cfg, p, SpendState{}); d.Allowed || d.Rule != RuleRecipient {
		t.Fatalf("a plain recipient passed unpinned: %+v", d)
	}
}
