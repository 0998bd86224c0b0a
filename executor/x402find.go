package executor

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// x402SearchPages bounds one search of a payer token account's history
// (1,000 signatures a page). A history longer than that inside the window
// leaves the payment's outcome unknown rather than guessed.
const x402SearchPages = 20

// X402Record identifies a signed x402 payment on chain without trusting
// anything the server said: its exact message (any transaction that lands
// with it is this payment, whatever signature the facilitator used), the
// wallet's token account it pays from (every transaction that can carry it
// writes that account), the block height past which it cannot land, and the
// slot its search may stop at (it cannot have landed before it was signed).
//
// Mint and Amount are what the human approved: a payment found late is
// checked against them, never settled at them.
type X402Record struct {
	Message   []byte
	Source    solana.PublicKey
	LastValid uint64
	FromSlot  uint64
	Mint      solana.PublicKey
	Amount    uint64
}

// PastApproved names how a landed payment's effects (its fee the
// facilitator's) went past what was approved: more of the asset, another
// mint, or any SOL out of the wallet; "" when it did not.
func (r X402Record) PastApproved(eff *Effects) string {
	if eff == nil {
		return "its effects could not be measured"
	}
	var past []string
	for _, m := range sortedMints(eff.TokensOut) {
		switch out := eff.TokensOut[m]; {
		case !m.Equals(r.Mint):
			past = append(past, fmt.Sprintf("%d base units of %s left the wallet, a mint the payment was not approved in", out, m))
		case out > r.Amount:
			past = append(past, fmt.Sprintf("%d base units of %s left the wallet, %d more than the %d approved", out, m, out-r.Amount, r.Amount))
		}
	}
	if out := eff.SOLOut(); out > 0 {
		past = append(past, fmt.Sprintf("%d lamports left the wallet, and the payment was approved to move none", out))
	}
	return strings.Join(past, "; ")
}

// X402Record is the prepared payment's record, fromSlot being the
// cluster's slot before it was signed.
func (p *PreparedX402) X402Record(fromSlot uint64) (X402Record, error) {
	msg, err := p.Tx.Message.MarshalBinary()
	if err != nil {
		return X402Record{}, fmt.Errorf("x402: encode the message: %w", err)
	}
	return X402Record{Message: msg, Source: p.Source, LastValid: p.LastValidBlockHeight, FromSlot: fromSlot, Mint: p.Payment.Mint, Amount: p.Payment.Amount}, nil
}

// Slot is the node's current slot at confirmed commitment.
func (e *Executor) Slot(ctx context.Context) (uint64, error) {
	s, err := e.client.rpc.GetSlot(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return 0, fmt.Errorf("getSlot: %s", rpcErrorText(err))
	}
	return s, nil
}

// FindX402 searches the payer token account's signatures, newest first
// back to the record's slot, for a landed transaction whose message is
// exactly the record's. Found, it is measured from the chain like any
// landed transaction (the facilitator's fee is not the wallet's). Not
// found means not landed as of this search; an RPC failure is an error,
// never a "not found".
func (e *Executor) FindX402(ctx context.Context, r X402Record) (Landing, error) {
	limit := 1000
	opts := &rpc.GetSignaturesForAddressOpts{Limit: &limit, Commitment: rpc.CommitmentConfirmed}
	for page := 0; page < x402SearchPages; page++ {
		sigs, err := e.client.rpc.GetSignaturesForAddressWithOpts(ctx, r.Source, opts)
		if err != nil {
			return Landing{}, fmt.Errorf("x402 search of %s: getSignaturesForAddress: %s", r.Source, rpcErrorText(err))
		}
		for _, s := range sigs {
			if s.Slot < r.FromSlot {
				return Landing{}, nil
			}
			tx, err := e.fetchTransaction(ctx, s.Signature)
			if err != nil {
				return Landing{}, fmt.Errorf("x402 search of %s: %w", r.Source, err)
			}
			landed, err := tx.Transaction.GetTransaction()
			if err != nil {
				return Landing{}, fmt.Errorf("x402 search of %s: decode %s: %w", r.Source, s.Signature, err)
			}
			got, err := landed.Message.MarshalBinary()
			if err != nil || !bytes.Equal(got, r.Message) {
				continue
			}
			l, err := e.Lookup(ctx, s.Signature)
			if err != nil {
				return Landing{}, err
			}
			l.Signature = s.Signature
			return l, nil
		}
		if len(sigs) < limit {
			return Landing{}, nil
		}
		opts.Before = sigs[len(sigs)-1].Signature
	}
	return Landing{}, fmt.Errorf("x402 search of %s: more than %d transactions since slot %d; the payment's outcome stays unknown", r.Source, x402SearchPages*limit, r.FromSlot)
}
