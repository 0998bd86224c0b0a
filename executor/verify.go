package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// verify re-fetches the confirmed transaction and checks it against what was
// asked: meta.err must be null and the balance deltas must be exactly the
// transfer (recipient +amount, payer −(amount + fee)). A confirmed status alone
// is not enough to say "executed".
func (e *Executor) verify(ctx context.Context, p *Prepared, res *Result) {
	tx, err := e.fetchTransaction(ctx, res.Signature)
	if err != nil {
		// The status said confirmed, but we could not read it back: not a
		// success we can stand behind.
		if res.Outcome == Executed {
			res.Outcome = Unknown
			res.Reason = "confirmed by getSignatureStatuses but the re-fetch failed: " + err.Error()
		}
		return
	}
	res.Slot = tx.Slot
	res.Fee = tx.Meta.Fee
	res.ChainErr = tx.Meta.Err
	res.Logs = tx.Meta.LogMessages
	decoded, err := tx.Transaction.GetTransaction()
	if err != nil {
		res.Outcome = Unknown
		res.Reason = "re-fetched transaction could not be decoded: " + err.Error()
		return
	}
	keys := decoded.Message.AccountKeys
	if len(tx.Meta.PreBalances) != len(keys) || len(tx.Meta.PostBalances) != len(keys) {
		res.Outcome = Unknown
		res.Reason = fmt.Sprintf("re-fetched transaction has %d keys but %d/%d balances", len(keys), len(tx.Meta.PreBalances), len(tx.Meta.PostBalances))
		return
	}
	res.Changes = res.Changes[:0]
	for i, k := range keys {
		res.Changes = append(res.Changes, BalanceChange{Account: k, Pre: tx.Meta.PreBalances[i], Post: tx.Meta.PostBalances[i]})
	}
	if tx.Meta.Err != nil {
		res.Outcome = Failed
		res.Reason = "the transaction landed but failed on chain: " + errJSON(tx.Meta.Err)
		return
	}
	if err := checkTransferDeltas(p.Transfer, e.key.PublicKey(), tx.Meta.Fee, res.Changes); err != nil {
		res.Outcome = Failed
		res.Reason = "landed, but the chain's balance changes disagree with the request: " + err.Error()
		return
	}
	res.Outcome = Executed
}

// fetchTransaction reads the transaction back. A node can answer a confirmed
// status before getTransaction has it, so null is retried briefly.
func (e *Executor) fetchTransaction(ctx context.Context, sig solana.Signature) (*rpc.GetTransactionResult, error) {
	v0 := uint64(0)
	var lastErr error
	for i := 0; i < 10; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("getTransaction %s: %w", sig, ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
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
	return nil, lastErr
}

func checkTransferDeltas(t Transfer, payer solana.PublicKey, fee uint64, changes []BalanceChange) error {
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
			if want := -int64(t.Lamports + fee); c.Delta() != want {
				return fmt.Errorf("wallet %s changed by %d lamports, expected %d (amount + fee %d)", payer, c.Delta(), want, fee)
			}
		}
	}
	if !seenTo || !seenFrom {
		return fmt.Errorf("transaction does not touch both the wallet and the recipient")
	}
	return nil
}
