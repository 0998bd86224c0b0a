package policy

// RuleX402Origin: an x402 payment goes only to an origin the operator allowed.
const RuleX402Origin = "allow_x402_origin"

// checkX402Origin: deny by default; the origin must be listed exactly as
// --allow-x402-origin normalised it (scheme://host[:port], lower case).
func checkX402Origin(cfg Config, p Proposal, _ SpendState) verdict {
	if p.X402Origin == "" {
		return pass
	}
	for _, o := range cfg.AllowX402Origins {
		if o == p.X402Origin {
			return pass
		}
	}
	if len(cfg.AllowX402Origins) == 0 {
		return objection(RuleX402Origin, false, "no x402 origin is allowed yet, so every x402 payment is refused; the operator can allow %s by starting the console with --allow-x402-origin %s.", p.X402Origin, p.X402Origin)
	}
	return objection(RuleX402Origin, false, "origin %s is not on the x402 allowlist; retrying will not help. The operator can allow it with --allow-x402-origin %s.", p.X402Origin, p.X402Origin)
}

// CheckX402Origin is the origin rule alone, for x402_fetch to refuse an
// origin before it makes any request to it.
func CheckX402Origin(cfg Config, origin string) (Decision, bool) {
	if origin == "" {
		return Decision{Rule: RuleX402Origin, Reason: "the URL has no origin, so it cannot be judged."}, false
	}
	v := checkX402Origin(cfg, Proposal{X402Origin: origin}, SpendState{})
	if v.pass {
		return Decision{Allowed: true}, true
	}
	return v.deny, false
}
