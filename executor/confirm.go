package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// preflightFailure is the JSON-RPC code a node uses when sendTransaction's
// preflight simulation fails; the transaction was not forwarded.
const preflightFailure = -32002

// Submit signs the prepared transaction, sends it, and follows it until the
// chain gives a final answer or the context ends. It never reports Executed for
// a transaction the chain has not confirmed and the re-fetch has not verified.
//
// The returned error is non-nil only when nothing was sent (signing failed);
// every other situation is described by Result.Outcome.
func (e *Executor) Submit(ctx context.Context, p *Prepared, progress func(Progress)) (*Result, error) {
	ctx, meter := withMeter(ctx)
	start := time.Now()
	res := &Result{Outcome: Unknown, sphere: p.Preview.Effects.sphere}
	res.Timings.Simulate = p.simulateTook
	finish := func() *Result {
		res.Timings.Total = p.simulateTook + time.Since(start)
		res.RPC = meter.stats().plus(p.stats)
		report(progress, Progress{Step: StepDone, Signature: res.Signature, Elapsed: res.Timings.Total, Detail: string(res.Outcome)})
		return res
	}

	report(progress, Progress{Step: StepSigning})
	t0 := time.Now()
	if _, err := p.Tx.Sign(e.key.signer); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	if err := p.Tx.VerifySignatures(); err != nil {
		return nil, fmt.Errorf("sign: signatures do not verify: %w", err)
	}
	raw, err := p.Tx.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("sign: encode transaction: %w", err)
	}
	res.Signature = p.Tx.Signatures[0]
	res.Timings.Sign = time.Since(t0)
	if p.BeforeSend != nil {
		if err := p.BeforeSend(res.Signature); err != nil {
			return nil, fmt.Errorf("before send: %w (nothing was sent)", err)
		}
	}

	if !e.sendAndConfirm(ctx, res, raw, p, "transaction", progress) {
		return finish(), nil
	}
	t0 = time.Now()
	e.verify(ctx, p, res)
	res.Timings.Verify = time.Since(t0)
	return finish(), nil
}

// sendAndConfirm sends the signed bytes and follows them until the chain
// answers or ctx ends (the confirm loop), recording the timings. It reports
// whether the transaction landed (Executed or Failed so far), i.e. whether
// the caller should re-fetch and verify it. noun names it in reasons.
func (e *Executor) sendAndConfirm(ctx context.Context, res *Result, raw []byte, follow *Prepared, noun string, progress func(Progress)) bool {
	report(progress, Progress{Step: StepSending, Signature: res.Signature})
	t0 := time.Now()
	sendErr := e.send(ctx, raw, false)
	res.Timings.Send = time.Since(t0)
	if sendErr != nil {
		var rpcErr *jsonrpc.RPCError
		if errors.As(sendErr, &rpcErr) && rpcErr.Code == preflightFailure {
			// The node simulated it, it failed, and it was not forwarded. This
			// is the first and only copy, so it cannot land.
			res.Outcome = Rejected
			res.ChainErr, res.Logs = preflightDetail(rpcErr)
			res.Reason = "the node refused the " + noun + " in preflight: " + rpcErr.Message + " (nothing was executed)"
			return false
		}
		// Any other send error (503, timeout, reset) says nothing about whether
		// the node got the bytes; the signature is watched until the chain answers.
	}
	t0 = time.Now()
	e.confirm(ctx, follow, res, raw, progress)
	res.Timings.Confirm = time.Since(t0)
	if res.Outcome != Executed && res.Outcome != Failed {
		return false
	}
	report(progress, Progress{Step: StepVerifying, Signature: res.Signature})
	return true
}

func (e *Executor) send(ctx context.Context, raw []byte, skipPreflight bool) error {
	zero := uint(0)
	_, err := e.client.rpc.SendRawTransactionWithOpts(ctx, raw, rpc.TransactionOpts{
		SkipPreflight:       skipPreflight,
		PreflightCommitment: rpc.CommitmentConfirmed,
		MaxRetries:          &zero, // we rebroadcast ourselves, on our schedule
	})
	return err
}

// confirm polls getSignatureStatuses, rebroadcasting the same bytes while the
// signature is unknown, until it is confirmed, fails on chain, or the blockhash
// provably expired. It sets res.Outcome to Executed (pending verification),
// Failed, Expired or Unknown.
func (e *Executor) confirm(ctx context.Context, p *Prepared, res *Result, raw []byte, progress func(Progress)) {
	sig := res.Signature
	poll := e.opts.FirstPoll
	lastSend := time.Now()
	var lastErr error
	started := time.Now()
	for attempt := 1; ; attempt++ {
		slept := time.Now()
		select {
		case <-ctx.Done():
			res.Timings.PollSleep += time.Since(slept)
			res.Outcome = Unknown
			res.Reason = fmt.Sprintf("gave up waiting after %s (%v); the transaction may still land: check signature %s", time.Since(started).Round(time.Millisecond), ctx.Err(), sig)
			if lastErr != nil {
				res.Reason += "; last RPC error: " + rpcErrorText(lastErr)
			}
			return
		case <-time.After(poll):
		}
		res.Timings.PollSleep += time.Since(slept)
		poll = min(poll*2, e.opts.PollInterval)
		report(progress, Progress{Step: StepConfirming, Signature: sig, Attempt: attempt, Elapsed: time.Since(started)})

		st, err := e.status(ctx, sig, false)
		if err != nil {
			lastErr = err
		} else if st != nil {
			res.Slot = st.Slot
			if st.Err != nil {
				// Landed with an error: final once confirmed, and the fee was paid.
				if committed(st) {
					res.Outcome, res.ChainErr = Failed, st.Err
					res.Reason = "the transaction landed but failed on chain: " + errJSON(st.Err)
					return
				}
			} else if committed(st) {
				res.Outcome = Executed
				return
			}
			continue // processed but not yet confirmed: keep polling, no rebroadcast needed
		}

		if time.Since(lastSend) < e.opts.Rebroadcast {
			continue
		}
		// Unknown signature for a while: is the blockhash still valid?
		height, err := e.client.rpc.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
		if err != nil {
			lastErr = err
			continue
		}
		if height > p.LastValidBlockHeight {
			// Past the last valid height the transaction can never be processed.
			// One last look, searching history, settles whether it landed before.
			st, err := e.status(ctx, sig, true)
			if err != nil {
				lastErr = err
				continue
			}
			if st == nil {
				res.Outcome = Expired
				res.Reason = fmt.Sprintf("blockhash expired (block height %d > last valid %d) and signature %s is not on chain: it never landed and never can; nothing was spent", height, p.LastValidBlockHeight, sig)
				return
			}
			continue // it did land: the next poll reads its status
		}
		report(progress, Progress{Step: StepRebroadcast, Signature: sig, Attempt: res.Rebroadcasts + 1, Elapsed: time.Since(started)})
		// Errors here are expected (e.g. "already processed") and carry no news.
		_ = e.send(ctx, raw, true)
		res.Rebroadcasts++
		lastSend = time.Now()
	}
}

func committed(st *rpc.SignatureStatusesResult) bool {
	return st.ConfirmationStatus == rpc.ConfirmationStatusConfirmed || st.ConfirmationStatus == rpc.ConfirmationStatusFinalized
}

func (e *Executor) status(ctx context.Context, sig solana.Signature, searchHistory bool) (*rpc.SignatureStatusesResult, error) {
	out, err := e.client.rpc.GetSignatureStatuses(ctx, searchHistory, sig)
	if err != nil {
		return nil, err
	}
	if out == nil || len(out.Value) != 1 {
		return nil, errors.New("getSignatureStatuses: malformed answer")
	}
	return out.Value[0], nil
}

// preflightDetail extracts err and logs from a -32002 error's data.
func preflightDetail(e *jsonrpc.RPCError) (any, []string) {
	data, ok := e.Data.(map[string]any)
	if !ok {
		return nil, nil
	}
	var logs []string
	if l, ok := data["logs"].([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				logs = append(logs, s)
			}
		}
	}
	return data["err"], logs
}
