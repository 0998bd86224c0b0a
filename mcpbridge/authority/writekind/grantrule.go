package writekind

// GrantRule is what a kind states of standing grants (Kind.Grant): the
// terms a grant binds to (GrantOn), or that none ever can (NeverGranted).
// Every kind states one; a zero GrantRule covers nothing.
type GrantRule struct {
	ok           bool
	counterparty string
	Amount       uint64
	never        string
}

// GrantOn: a grant binds to counterparty (what must match exactly) and
// covers calls of at most amount each, in the kind's own units
// (transfer_sol: the recipient, and lamports).
func GrantOn(counterparty string, amount uint64) GrantRule {
	return GrantRule{ok: true, counterparty: counterparty, Amount: amount}
}

// NeverGranted: no grant can ever cover the kind (a raw transaction, an
// action: their effects differ per call); why says so to the operator.
func NeverGranted(why string) GrantRule { return GrantRule{never: why} }

// Grantable reports whether a grant can cover the kind.
func (r GrantRule) Grantable() bool { return r.ok }

// Counterparty is what a grant binds to ("" when none can be granted).
func (r GrantRule) Counterparty() string { return r.counterparty }

// Never is why no grant can cover the kind ("" when one can).
func (r GrantRule) Never() string { return r.never }
