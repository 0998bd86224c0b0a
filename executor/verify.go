package executor

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// verify re-fetches the confirmed transaction and checks it against what was
// asked: meta.err must be null, the landed effects within the prepared
// limits, and the prepared transaction's own check must hold (a SOL
// transfer: recipient +amount, payer −(amount + fee)). A confirmed status
// alone is not enough to say "executed".
func (e *Executor) verify(ctx context.Context, p *Prepared, res *Result) {
	tx, ok := e.readBack(ctx, res, "transaction", func(tx *rpc.GetTransactionResult) ([]solana.PublicKey, error) {
		decoded, err := tx.Transaction.GetTransaction()
		if err != nil {
			return nil, err
		}
		return decoded.Message.AccountKeys, nil
	})
	if !ok {
		return
	}
	if p.checkLanded == nil {
		res.Outcome = Unknown
		res.Reason = "landed, but nothing states how to judge this transaction's landed effects, so it is not reported executed"
		return
	}
	check := func() error { return p.checkLanded(tx, res) }
	if p.limits != nil {
		if diff := res.Effects.Exceeds(*p.limits); diff != "" {
			res.Outcome, res.Reason = ExecutedWithUnexpectedEffects, "executed with unexpected effects: "+diff
			return
		}
	}
	if err := check(); err != nil {
		res.Outcome = Failed
		res.Reason = "landed, but the chain's balance changes disagree with the request: " + err.Error()
		return
	}
	res.Outcome = Executed
}

// readBack re-fetches a confirmed transaction into res: slot, fee, error,
// logs and every account's balance change, keyed by keys (the message's
// accounts in order, lookup-table ones included). ok is false when res is
// already final: the re-fetch failed or disagreed (Unknown), or it landed
// with an error (Failed). A confirmed status alone never makes "executed".
func (e *Executor) readBack(ctx context.Context, res *Result, noun string, keys func(*rpc.GetTransactionResult) ([]solana.PublicKey, error)) (*rpc.GetTransactionResult, bool) {
	tx, err := e.fetchTransaction(ctx, res.Signature)
	if err != nil {
		if res.Outcome == Executed {
			res.Outcome = Unknown
			res.Reason = "confirmed by getSignatureStatuses but the re-fetch failed: " + err.Error()
		}
		return nil, false
	}
	res.Slot, res.Fee, res.ChainErr, res.Logs = tx.Slot, tx.Meta.Fee, tx.Meta.Err, tx.Meta.LogMessages
	ks, err := keys(tx)
	if err != nil {
		res.Outcome = Unknown
		res.Reason = "re-fetched " + noun + " could not be decoded: " + err.Error()
		return nil, false
	}
	if len(tx.Meta.PreBalances) != len(ks) || len(tx.Meta.PostBalances) != len(ks) {
		res.Outcome = Unknown
		res.Reason = fmt.Sprintf("re-fetched %s has %d keys but %d/%d balances", noun, len(ks), len(tx.Meta.PreBalances), len(tx.Meta.PostBalances))
		return nil, false
	}
	res.Changes = res.Changes[:0]
	for i, k := range ks {
		res.Changes = append(res.Changes, BalanceChange{Account: k, Pre: tx.Meta.PreBalances[i], Post: tx.Meta.PostBalances[i]})
	}
	// The landed effects, measured from the transaction's own meta, landed
	// with an error or not (a failed one still charged its fee): what the
	// settlement counts.
	v, err := landedView(tx, 0)
	if err == nil {
		var eff Effects
		if eff, err = landedEffects(e.key.PublicKey(), v, tx, res.sphere); err == nil {
			res.Effects = &eff
		}
	}
	if err != nil {
		res.Outcome = Unknown
		res.Reason = "re-fetched " + noun + ": its effects could not be measured: " + err.Error()
		return nil, false
	}
	if tx.Meta.Err != nil {
		res.Outcome = Failed
		res.Reason = "the " + noun + " landed but failed on chain: " + errJSON(tx.Meta.Err)
		return nil, false
	}
	return tx, true
}

// fetchTransaction reads the transaction back. A node can answer a confirmed
// status before getTransaction has it (load-balanced mainnet RPCs lag by
// seconds), so a missing answer is retried with backoff, for up to
// Options.VerifyWindow, before the caller says "unknown".
func (e *Executor) fetchTransaction(ctx context.Context, sig solana.Signature) (*rpc.GetTransactionResult, error) {
	v0 := uint64(0)
	var lastErr error
	deadline := time.Now().Add(e.opts.VerifyWindow)
	wait := 200 * time.Millisecond
	for i := 0; ; i++ {
		if i > 0 {
			left := time.Until(deadline)
			if left <= 0 {
				return nil, fmt.Errorf("%w (for %s, %d tries)", lastErr, e.opts.VerifyWindow, i)
			}
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("getTransaction %s: %w", sig, ctx.Err())
			case <-time.After(min(wait, left)):
			}
			wait = min(wait*2, 2*time.Second)
		}
		tx, err := e.client.rpc.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{
			Encoding:                       solana.EncodingBase64,
			Commitment:                     rpc.CommitmentConfirmed,
			MaxSupportedTransactionVersion: &v0,
		})
		if err == rpc.ErrNotFound || (err == nil && (tx == nil || tx.Meta == nil)) {
			lastErr = fmt.Errorf("getTransaction %s: not found yet", sig)
			continue
		}
		if err != nil {
			lastErr = fmt.Errorf("getTransaction %s: %s", sig, rpcErrorText(err))
			continue
		}
		return tx, nil
	}
}

func checkTransferDeltas(t Transfer, payer solana.PublicKey, fee uint64, changes []BalanceChange) error {
	if t.Lamports > math.MaxInt64 {
		return fmt.Errorf("transfer of %d lamports: %w", t.Lamports, ErrAmountTooLarge)
	}
	var seenTo, seenFrom bool
	for _, c := range changes {
		switch {
		case c.Account.Equals(t.To):
			seenTo = true
			if c.Delta() != int64(t.Lamports) {
				return fmt.Errorf("recipient %s changed by %d lamports, expected +%d", t.To, c.Delta(), t.Lamports)
			}
		case c.Account.Equals(payer):
			seenFrom = true
			total, err := AddAmounts(t.Lamports, fee)
			if err != nil || total > math.MaxInt64 {
				return fmt.Errorf("wallet %s: amount %d + fee %d: %w", payer, t.Lamports, fee, ErrAmountTooLarge)
			}
			if want := -int64(total); c.Delta() != want {
				return fmt.Errorf("wallet %s changed by %d lamports, expected %d (amount + fee %d)", payer, c.Delta(), want, fee)
			}
		}
	}
	if !seenTo || !seenFrom {
		return fmt.Errorf("transaction does not touch both the wallet and the recipient")
	}
	return nil
}
