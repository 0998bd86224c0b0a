package policy

// An x402 payment (x402_fetch) names the origin of the paid resource as its
// counterparty (X402Origin, held to AllowedX402Origins by the counterparty
// rule) and spends a token; its network fee is paid by the server's
// facilitator, so the SOL it measures leaving the wallet is zero (FeePaidByOther).

// CheckX402Origin is the origin rule alone, for x402_fetch to refuse an
// origin before it makes any request to it.
func CheckX402Origin(cfg Config, origin string) (Decision, bool) {
	if origin == "" {
		return Decision{Rule: RuleX402Origin, Reason: "the URL has no origin, so it cannot be judged."}, false
	}
	v := checkCounterparty(cfg, X402Origin(origin))
	if v.pass {
		return Decision{Allowed: true}, true
	}
	d := v.deny
	if len(cfg.AllowedX402Origins) == 0 {
		d.Reason = "no x402 origin is allowed yet, so every x402 payment is refused; the operator can allow " + origin + " by starting the console with --allow-x402-origin " + origin + "."
	}
	return d, false
}
