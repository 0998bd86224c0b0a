package policy

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	solana "github.com/gagliardetto/solana-go"
)

// A counterparty is whoever, besides the wallet, a proposal deals with: the
// recipient of a payment, a program a transaction calls, the origin of an
// action or of a paid API. Each kind has its own allowlist and every
// counterparty a proposal names must be on its kind's list: deny by default.
// "Pays self" only says that no payee is named; it never waives a program or
// an origin (a swap that pays the wallet but called an unknown program is
// still a call to an unknown program).

// CounterpartyKind is what sort of third party a counterparty is.
type CounterpartyKind string

const (
	// CounterpartyRecipient receives value: an owner's address
	// (allow_recipient).
	CounterpartyRecipient CounterpartyKind = "recipient"
	// CounterpartyProgram is a program the transaction calls at top level
	// (allow_program).
	CounterpartyProgram CounterpartyKind = "program"
	// CounterpartyActionOrigin is the origin ("https://host[:port]") of a
	// Solana Action whose transaction is proposed (allow_action_origin).
	CounterpartyActionOrigin CounterpartyKind = "action_origin"
	// CounterpartyX402Origin is the origin of an HTTP resource paid with an
	// x402 payment (allow_x402_origin).
	CounterpartyX402Origin CounterpartyKind = "x402_origin"
	// CounterpartyPayee is a wallet the effects engine found gaining what
	// the wallet lost, whatever the kind said: held to allow_recipient
	// once the operator has set it (an empty list leaves payees of kinds
	// that name no recipient to the human and the programs' allowlist).
	CounterpartyPayee CounterpartyKind = "payee"
)

// Rules of the counterparty kinds, named after their settings.
const (
	RuleProgram      = "allow_program"
	RuleActionOrigin = "allow_action_origin"
	RuleX402Origin   = "allow_x402_origin"
)

// Counterparty is one third party a proposal names.
type Counterparty struct {
	Kind CounterpartyKind
	// ID is a base58 address (recipient, program) or an origin
	// ("scheme://host[:port]", lower case, no path).
	ID string
	// X402PayTo marks a recipient that is an x402 payment's payTo. The
	// paid API's origin is that payment's gate (the operator cannot know
	// every merchant's address in advance), so the recipient allowlist
	// holds a payTo only when the operator pinned payTo
	// (Config.X402PinPayTo, --x402-pin-pay-to).
	X402PayTo bool
}

// Recipient, Program, ActionOrigin and X402Origin build counterparties.
func Recipient(address string) Counterparty {
	return Counterparty{Kind: CounterpartyRecipient, ID: address}
}
func Program(id string) Counterparty    { return Counterparty{Kind: CounterpartyProgram, ID: id} }
func Payee(address string) Counterparty { return Counterparty{Kind: CounterpartyPayee, ID: address} }
func ActionOrigin(origin string) Counterparty {
	return Counterparty{Kind: CounterpartyActionOrigin, ID: origin}
}
func X402Origin(origin string) Counterparty {
	return Counterparty{Kind: CounterpartyX402Origin, ID: origin}
}

// X402PayTo is an x402 payment's payTo: a recipient, pinned to the
// recipient allowlist only under Config.X402PinPayTo.
func X402PayTo(address string) Counterparty {
	return Counterparty{Kind: CounterpartyRecipient, ID: address, X402PayTo: true}
}

func (c Counterparty) String() string { return string(c.Kind) + " " + c.ID }

// DefaultPrograms are the programs allowed without --allow-program: the
// ones solgate's own transactions use, whose instructions the effects engine
// and the inspection decode. Values from solana-go (executor/facts.go says
// why); policy/counterparty_test.go spells each published id.
func DefaultPrograms() map[string]string {
	return map[string]string{
		solana.SystemProgramID.String():                    "System Program",
		solana.TokenProgramID.String():                     "SPL Token",
		solana.Token2022ProgramID.String():                 "Token-2022",
		solana.SPLAssociatedTokenAccountProgramID.String(): "Associated Token Account",
		solana.ComputeBudget.String():                      "Compute Budget",
		solana.MemoProgramID.String():                      "Memo",
	}
}

// CanonicalOrigin turns "https://Example.com:443/path" into
// "https://example.com": scheme and host only, lower case, the default port
// dropped. Only http and https are origins here.
func CanonicalOrigin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return "", fmt.Errorf("%q: an origin is https://host[:port] (or http:// on this machine); got scheme %q", raw, u.Scheme)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" || u.User != nil {
		return "", fmt.Errorf("%q: an origin needs a host and no user info", raw)
	}
	port := u.Port()
	if port == "443" && scheme == "https" || port == "80" && scheme == "http" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// checkCounterparties holds every counterparty to its kind's allowlist.
func checkCounterparties(cfg Config, p Proposal, _ SpendState) verdict {
	for _, c := range p.Counterparties {
		if v := checkCounterparty(cfg, c); !v.pass {
			return v
		}
	}
	return pass
}

func checkCounterparty(cfg Config, c Counterparty) verdict {
	switch c.Kind {
	case CounterpartyRecipient:
		if c.X402PayTo {
			return checkX402PayTo(cfg, c)
		}
		if len(cfg.AllowRecipients) == 0 {
			return objection(RuleRecipient, false, "no recipient is allowed yet, so every transfer is refused; the operator can allow %s by starting the console with --allow-recipient %s (or allow_recipient in the config file, or SOLGATE_ALLOW_RECIPIENT).", c.ID, c.ID)
		}
		for _, a := range cfg.AllowRecipients {
			if a == c.ID {
				return pass
			}
		}
		// A look-alike of an allowed address is how address poisoning
		// works: the denial must not hand the operator the line that
		// would allow it.
		if known := lookAlikeOf(cfg.AllowRecipients, c.ID); known != "" {
			v := objection(RuleRecipient, false, "recipient %s is not on the allowlist and looks like the allowed %s: possible address poisoning. Do not allowlist it; check where it came from.", c.ID, known)
			v.deny.Imitates = known
			return v
		}
		return objection(RuleRecipient, false, "recipient %s is not on the allowlist; retrying will not help. The operator can allow it with --allow-recipient %s.", c.ID, c.ID)
	case CounterpartyPayee:
		if len(cfg.AllowRecipients) == 0 || slices.Contains(cfg.AllowRecipients, c.ID) {
			return pass
		}
		return objection(RuleRecipient, false, "the transaction pays %s, a wallet that is not on the recipient allowlist; retrying will not help. The operator can allow it with --allow-recipient %s.", c.ID, c.ID)
	case CounterpartyProgram:
		if _, ok := cfg.AllowedPrograms[c.ID]; ok {
			return pass
		}
		return objection(RuleProgram, false, "the transaction calls program %s, which is not on the program allowlist; retrying will not help. The operator can allow it with --allow-program %s=LABEL.", c.ID, c.ID)
	case CounterpartyActionOrigin:
		if originAllowed(cfg.AllowedActionOrigins, c.ID) {
			return pass
		}
		return objection(RuleActionOrigin, false, "the action's origin %s is not on the action origin allowlist; retrying will not help. The operator can allow it with --allow-action-origin %s.", c.ID, c.ID)
	case CounterpartyX402Origin:
		if originAllowed(cfg.AllowedX402Origins, c.ID) {
			return pass
		}
		return objection(RuleX402Origin, false, "the paid resource's origin %s is not on the x402 origin allowlist; retrying will not help. The operator can allow it with --allow-x402-origin %s.", c.ID, c.ID)
	}
	return objection(RuleTool, false, "the proposal names a counterparty of unknown kind %q, so the policy cannot judge it.", c.Kind)
}

// checkX402PayTo: unpinned, a payTo is judged through its origin (and the
// per-mint caps); pinned, it must be on the recipient allowlist too.
func checkX402PayTo(cfg Config, c Counterparty) verdict {
	if !cfg.X402PinPayTo || slices.Contains(cfg.AllowRecipients, c.ID) {
		return pass
	}
	return objection(RuleRecipient, false, "the x402 payment's payTo %s is not on the recipient allowlist, and --x402-pin-pay-to holds every payTo to it; retrying will not help. The operator can allow it with --allow-recipient %s.", c.ID, c.ID)
}

// originAllowed compares canonical forms, so "https://A.example:443" on the
// list admits "https://a.example".
func originAllowed(list []string, origin string) bool {
	want, err := CanonicalOrigin(origin)
	if err != nil {
		return false
	}
	for _, o := range list {
		if got, err := CanonicalOrigin(o); err == nil && got == want {
			return true
		}
	}
	return false
}
