// Package reconcile settles, at the start of a console, the spends a
// previous console left in flight: it asks the chain about each one and
// settles it at the landed numbers, releases it, or waits for it. The hub
// uses its verdicts (Fate) to follow its own submissions the same way.
package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// legacyLifetime is used only for reservations recorded before the last
// valid block height was stored (schema 1): a signature unknown to the chain
// this long after its last update is taken as expired. 150 blocks are about
// 60–90 s on public clusters; three minutes leaves margin.
const legacyLifetime = 3 * time.Minute

// Run settles what a previous console left in flight (sent but never
// confirmed) against the chain, before this console accepts new writes: a
// landed signature settles at the chain's numbers, one that can no longer
// land is released, and one still inside its lifetime is waited for.
// progress (may be nil) hears one line per decision.
func Run(ctx context.Context, ex *executor.Executor, spend *policy.Spend, st *store.Store, now func() time.Time, progress func(string)) error {
	if now == nil {
		now = time.Now
	}
	say := func(format string, args ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, args...))
		}
	}
	open, err := st.OpenReservations()
	if err != nil {
		return fmt.Errorf("reconcile: list open reservations: %w", err)
	}
	for _, r := range open {
		// The signature is stored before any send, so a reservation without
		// one was never sent: its budget can be returned.
		if r.Signature == "" {
			if err := spend.Release(r.ID); err != nil {
				return fmt.Errorf("reconcile %s: release unsent: %w", r.ID, err)
			}
			say("%s: reserved but never sent; reservation released", r.ID)
		}
	}
	inflight, err := st.InFlight()
	if err != nil {
		return fmt.Errorf("reconcile: list in-flight reservations: %w", err)
	}
	for _, r := range inflight {
		sig, err := solana.SignatureFromBase58(r.Signature)
		if err != nil {
			return fmt.Errorf("reconcile %s: stored signature %q is not valid: %w", r.ID, r.Signature, err)
		}
		// An x402 payment is looked for by its exact message in the payer
		// token account's history: the stored signature may be the wallet's
		// (not the transaction's id) or whatever the server claimed.
		pay, isX402, err := storedX402(st, r)
		if err != nil {
			return fmt.Errorf("reconcile %s: %w", r.ID, err)
		}
		for {
			var v Verdict
			var landing executor.Landing
			if isX402 {
				v, landing, err = Fate(ctx, ex, ByMessage(ex, pay), pay.LastValid)
			} else {
				v, landing, err = Fate(ctx, ex, BySignature(ex, sig), r.LastValidBlockHeight)
			}
			if err != nil {
				return fmt.Errorf("reconcile %s: %w", r.ID, err)
			}
			if v == Open && !isX402 && r.LastValidBlockHeight == 0 && now().Sub(r.UpdatedAt) > legacyLifetime {
				v = NeverLanded
			}
			if isX402 && landing.Found {
				// Recorded under the signature it landed with; the network
				// fee was the facilitator's, not the wallet's.
				r.Signature, landing.Fee = landing.Signature.String(), 0
			}
			if v == Landed {
				// Settled at what the chain says moved, whatever was approved.
				if err := spend.SettleMeasured(r.ID, landing.Outflow, LandedTokens(landing.Effects)); err != nil {
					return fmt.Errorf("reconcile %s: settle: %w", r.ID, err)
				}
				outcome := store.ExecExecuted
				past := ""
				if isX402 && landing.ChainErr == nil {
					past = pay.PastApproved(landing.Effects)
				}
				switch {
				case landing.ChainErr != nil:
					outcome = store.ExecFailed
				case past != "":
					outcome = store.ExecLosses
					say("%s: the x402 payment found on chain moved more than was approved: %s", r.ID, past)
				}
				if err := st.RecordExecution(store.Execution{ProposalID: r.ID, Signature: r.Signature, Slot: landing.Slot, Fee: landing.Fee, Outcome: outcome, Deltas: DeltasJSON(landing.Changes), At: now()}); err != nil {
					return fmt.Errorf("reconcile %s: record: %w", r.ID, err)
				}
				say("%s: signature %s landed in slot %d; %d lamports settled", r.ID, short(r.Signature), landing.Slot, landing.Outflow)
				break
			}
			if v == NeverLanded {
				if err := spend.Release(r.ID); err != nil {
					return fmt.Errorf("reconcile %s: release: %w", r.ID, err)
				}
				if err := st.RecordExecution(store.Execution{ProposalID: r.ID, Signature: r.Signature, Outcome: store.ExecExpired, At: now()}); err != nil {
					return fmt.Errorf("reconcile %s: record: %w", r.ID, err)
				}
				if isX402 {
					say("%s: x402 payment never landed: the chain is past its last valid block height %d and %s's history holds no transaction with its message; reservation released", r.ID, pay.LastValid, pay.Source)
					break
				}
				say("%s: signature %s can no longer land and is not on chain; reservation released", r.ID, short(r.Signature))
				break
			}
			say("%s: signature %s not on chain yet; waiting until it lands or can no longer land", r.ID, short(r.Signature))
			select {
			case <-ctx.Done():
				return fmt.Errorf("reconcile %s: %w", r.ID, ctx.Err())
			case <-time.After(2 * time.Second):
			}
		}
	}
	return nil
}

// storedX402 is the x402 payment recorded for a reservation, if any, with
// the amount approved (the reservation's one asset).
func storedX402(st *store.Store, r store.Reservation) (executor.X402Record, bool, error) {
	p, ok, err := st.X402PaymentFor(r.ID)
	if err != nil || !ok {
		return executor.X402Record{}, false, err
	}
	src, err := solana.PublicKeyFromBase58(p.Source)
	if err != nil {
		return executor.X402Record{}, false, fmt.Errorf("stored x402 payer account %q: %w", p.Source, err)
	}
	rec := executor.X402Record{Message: p.Message, Source: src, LastValid: p.LastValidBlockHeight, FromSlot: p.FromSlot}
	if len(r.Tokens) != 1 {
		return rec, true, fmt.Errorf("the x402 reservation holds %d assets, not its one", len(r.Tokens))
	}
	if rec.Mint, err = solana.PublicKeyFromBase58(r.Tokens[0].Mint); err != nil {
		return rec, true, fmt.Errorf("stored x402 asset %q: %w", r.Tokens[0].Mint, err)
	}
	rec.Amount = r.Tokens[0].Amount
	return rec, true, nil
}

func short(s string) string {
	if len(s) <= 12 {
		return s
	}
	return s[:6] + "…" + s[len(s)-4:]
}

// Verdict is what the chain says about a signature whose outcome was open.
type Verdict int

const (
	Open        Verdict = iota // not on chain yet, and it still could land
	Landed                     // on chain (landing says how it went)
	NeverLanded                // not on chain and past its last valid block height
)

// BySignature looks a spend up by the signature the console sent it under.
func BySignature(ex *executor.Executor, sig solana.Signature) func(context.Context) (executor.Landing, error) {
	return func(ctx context.Context) (executor.Landing, error) { return ex.Lookup(ctx, sig) }
}

// ByMessage looks an x402 payment up by its exact message in the payer token
// account's history, never by a signature the server gave.
func ByMessage(ex *executor.Executor, pay executor.X402Record) func(context.Context) (executor.Landing, error) {
	return func(ctx context.Context) (executor.Landing, error) { return ex.FindX402(ctx, pay) }
}

// Fate asks the chain once, through look (by signature, or an x402 payment by
// its message). A spend is declared never landed only with a known last valid
// block height that the chain has passed, checked by a second look after
// reading the height (it may have landed between the two reads); any RPC
// failure leaves it open.
func Fate(ctx context.Context, ex *executor.Executor, look func(context.Context) (executor.Landing, error), lastValid uint64) (Verdict, executor.Landing, error) {
	landing, err := look(ctx)
	if err != nil {
		return Open, landing, err
	}
	if landing.Found {
		return Landed, landing, nil
	}
	if lastValid == 0 {
		return Open, landing, nil
	}
	height, err := ex.BlockHeight(ctx)
	if err != nil || height <= lastValid {
		return Open, landing, err
	}
	landing, err = look(ctx)
	switch {
	case err != nil:
		return Open, landing, err
	case landing.Found:
		return Landed, landing, nil
	}
	return NeverLanded, landing, nil
}

// LandedTokens is each mint's landed outflow, by mint address, for the
// per-mint caps (nil when the effects could not be measured).
func LandedTokens(eff *executor.Effects) map[string]uint64 {
	if eff == nil {
		return nil
	}
	out := make(map[string]uint64, len(eff.TokensOut))
	for m, n := range eff.TokensOut {
		out[m.String()] = n
	}
	return out
}

// DeltasJSON is how an execution row records the chain's balance changes:
// account → lamports gained (negative: lost).
func DeltasJSON(changes []executor.BalanceChange) json.RawMessage {
	deltas := make(map[string]int64, len(changes))
	for _, c := range changes {
		deltas[c.Account.String()] = c.Delta()
	}
	raw, _ := json.Marshal(deltas)
	return raw
}
