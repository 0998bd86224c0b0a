package writekind

import (
	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/policy"
)

// Payees are read from the effects, for every kind: the accounts outside
// the wallet's control that gain what it lost, by owning wallet for token
// accounts. The skeleton names them in every preview and holds the ones
// that are wallets to the recipient allowlist, whatever the kind itself
// says it pays, so a kind cannot forget them.

// WithPayees adds to f a payee counterparty for every wallet eff pays that
// f does not already name as its recipient (a transfer's recipient, an
// x402 payTo: each judged by its own rule).
//
// declared are payees the kind's purpose names besides its recipient (a
// swap's pools, from the quote the human approves): the trade's other side,
// bounded by the kind's own terms.
func WithPayees(f policy.Proposal, eff executor.Effects, declared []solana.PublicKey) policy.Proposal {
	named := map[string]bool{}
	for _, c := range f.Counterparties {
		if c.Kind == policy.CounterpartyRecipient {
			named[c.ID] = true
		}
	}
	for _, k := range declared {
		named[k.String()] = true
	}
	for _, p := range eff.Payees {
		id := p.Address.String()
		if p.Wallet && !named[id] {
			named[id] = true
			f.Counterparties = append(f.Counterparties, policy.Payee(id))
		}
	}
	return f
}

// payeeDeclarer is a kind whose purpose pays others besides the recipient
// it names (a swap pays the pools of its quote's route).
type payeeDeclarer interface {
	DeclaredPayees() []solana.PublicKey
}

// DeclaredPayees are k's declared payees, if it declares any.
func DeclaredPayees(k Kind) []solana.PublicKey {
	if d, ok := k.(payeeDeclarer); ok {
		return d.DeclaredPayees()
	}
	return nil
}

// ReceivesLines are the preview's "Receives:" lines, one per payee.
func ReceivesLines(eff executor.Effects) []string {
	out := make([]string, 0, len(eff.Payees))
	for _, p := range eff.Payees {
		out = append(out, "Receives: "+p.String())
	}
	return out
}

// DetailLines are the kind's lines for the console, then one line per
// payee the effects name.
func (p *Proposal) DetailLines() []approval.DetailLine {
	out := p.Kind.Detail(p)
	for _, pay := range p.Preview.Effects.Payees {
		out = append(out, approval.DetailLine{Label: "Receives", Value: pay.Short()})
	}
	return out
}
