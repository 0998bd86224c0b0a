package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// SimulationError reports a simulation that the node says would fail. Nothing
// was signed or sent when this is returned.
type SimulationError struct {
	Err  any      // the node's TransactionError, e.g. {"InstructionError":[0,{"Custom":1}]}
	Logs []string // program logs, untrusted text
}

func (e *SimulationError) Error() string {
	msg := "simulation failed: " + errJSON(e.Err) + " (nothing was signed or sent)"
	if len(e.Logs) > 0 {
		tail := e.Logs
		if len(tail) > 4 {
			tail = tail[len(tail)-4:]
		}
		msg += "; last logs: " + strings.Join(tail, " | ")
	}
	return msg
}

// ErrSimulationFailed matches any *SimulationError with errors.Is.
var ErrSimulationFailed = errors.New("simulation failed")

func (e *SimulationError) Is(target error) bool { return target == ErrSimulationFailed }

// errJSON renders a node's error value compactly, as the node sent it.
func errJSON(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Preview describes a transaction in terms a person can check: what each
// instruction does, and how every writable account's balance would change.
type Preview struct {
	From         solana.PublicKey
	Instructions []InstructionSummary
	// Changes lists every writable account's simulated lamport change.
	Changes []BalanceChange
	// Fee is what the fee payer pays on top of the transfers, as simulated.
	Fee uint64
	// SpendLamports is the wallet's total simulated outflow: amounts + fee +
	// rent of accounts it creates. Caps are measured against this number.
	SpendLamports uint64
	// MessageSHA256 identifies the exact message that would be signed.
	MessageSHA256 string
	Logs          []string
	UnitsConsumed uint64
	// Budget is the compute budget the transaction carries: the unit limit,
	// the unit price and the priority fee they cost (part of Fee).
	Budget Budget
}

// FeeText shows the fee in its parts, for the preview and the console:
// "fee 0.000005 + priority 0.00004 SOL (p75 of 12 recent fees)".
func (p Preview) FeeText() string {
	return fmt.Sprintf("fee %s + priority %s SOL (%s)", FormatSOL(p.NetworkFee()), FormatSOL(p.Budget.PriorityFee), p.Budget.Source)
}

// BudgetText shows the compute budget the transaction asks for:
// "1450 CU limit (450 used + margin) · 800000 micro-lamports/CU".
func (p Preview) BudgetText() string {
	s := fmt.Sprintf("%d CU limit (%d used + margin)", p.Budget.UnitLimit, p.Budget.Units)
	if p.Budget.UnitPrice > 0 {
		return s + fmt.Sprintf(" · %d micro-lamports/CU", p.Budget.UnitPrice)
	}
	return s + " · no CU price"
}

// NetworkFee is the fee without the priority fee: the signature fee.
func (p Preview) NetworkFee() uint64 {
	if p.Fee < p.Budget.PriorityFee {
		return 0
	}
	return p.Fee - p.Budget.PriorityFee
}

// BalanceChange is one account's lamports before and after.
type BalanceChange struct {
	Account solana.PublicKey
	Pre     uint64
	Post    uint64
}

// Delta is Post − Pre as a signed number.
func (b BalanceChange) Delta() int64 { return int64(b.Post) - int64(b.Pre) }

// simulate runs the unsigned transaction on the node (sigVerify off, since it
// is not signed yet) and reads the writable accounts' balances before and
// after, so the preview shows measured effects rather than intentions.
func (e *Executor) simulate(ctx context.Context, tx *solana.Transaction) (Preview, error) {
	p, _, err := e.simulateAccounts(ctx, tx)
	return p, err
}

// simulatedAccounts are the writable accounts as read before the simulation
// and as the simulation left them, in writableAccounts order.
type simulatedAccounts struct {
	Keys          []solana.PublicKey
	Before, After []*rpc.Account
}

// simulateAccounts is simulate that also hands back the accounts it read,
// for previews that measure more than lamports (token amounts).
func (e *Executor) simulateAccounts(ctx context.Context, tx *solana.Transaction) (Preview, simulatedAccounts, error) {
	var none simulatedAccounts
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return Preview{}, none, fmt.Errorf("simulate: encode message: %w", err)
	}
	sum := sha256.Sum256(msg)
	writable := writableAccounts(tx)

	// The balances are read before the simulation, never beside it: a
	// transaction of ours landing between the two reads then makes the
	// measured spend larger, never smaller. Read the other way round (or
	// concurrently) it could hide part of this one's outflow from the caps.
	pre, err := e.client.rpc.GetMultipleAccountsWithOpts(ctx, writable, &rpc.GetMultipleAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		return Preview{}, none, fmt.Errorf("simulate: read balances before: %s", rpcErrorText(err))
	}
	sim, err := e.client.rpc.SimulateTransactionWithOpts(ctx, tx, &rpc.SimulateTransactionOpts{
		SigVerify:  false,
		Commitment: rpc.CommitmentConfirmed,
		Accounts:   &rpc.SimulateTransactionAccountsOpts{Encoding: solana.EncodingBase64, Addresses: writable},
	})
	if err != nil {
		return Preview{}, none, fmt.Errorf("simulate: simulateTransaction: %s", rpcErrorText(err))
	}
	if sim.Value == nil {
		return Preview{}, none, errors.New("simulate: node returned an empty simulation result")
	}
	if sim.Value.Err != nil {
		return Preview{}, none, &SimulationError{Err: sim.Value.Err, Logs: sim.Value.Logs}
	}
	if len(sim.Value.Accounts) != len(writable) || len(pre.Value) != len(writable) {
		return Preview{}, none, fmt.Errorf("simulate: node returned %d/%d accounts for %d requested", len(pre.Value), len(sim.Value.Accounts), len(writable))
	}

	p := Preview{
		From:          tx.Message.AccountKeys[0],
		Instructions:  describeInstructions(tx),
		MessageSHA256: hex.EncodeToString(sum[:]),
		Logs:          sim.Value.Logs,
	}
	if sim.Value.UnitsConsumed != nil {
		p.UnitsConsumed = *sim.Value.UnitsConsumed
	}
	var transferredOut uint64
	for i, acct := range writable {
		var before, after uint64
		if pre.Value[i] != nil {
			before = pre.Value[i].Lamports
		}
		if sim.Value.Accounts[i] != nil {
			after = sim.Value.Accounts[i].Lamports
		}
		p.Changes = append(p.Changes, BalanceChange{Account: acct, Pre: before, Post: after})
		if acct.Equals(p.From) && before > after {
			p.SpendLamports = before - after
		}
	}
	for _, ins := range p.Instructions {
		var err error
		if transferredOut, err = AddAmounts(transferredOut, ins.LamportsOut); err != nil {
			return Preview{}, none, fmt.Errorf("preview: the transaction's transfers add up past 2^64-1 lamports: %w", err)
		}
	}
	// The fee is whatever the payer lost beyond the amounts it moved out.
	if p.SpendLamports >= transferredOut {
		p.Fee = p.SpendLamports - transferredOut
	}
	return p, simulatedAccounts{Keys: writable, Before: pre.Value, After: sim.Value.Accounts}, nil
}

// measureUnits simulates the unsigned transaction only to learn the compute
// units it consumes; its balances are not read.
func (e *Executor) measureUnits(ctx context.Context, tx *solana.Transaction) (uint64, error) {
	sim, err := e.client.rpc.SimulateTransactionWithOpts(ctx, tx, &rpc.SimulateTransactionOpts{
		SigVerify:  false,
		Commitment: rpc.CommitmentConfirmed,
	})
	if err != nil {
		return 0, fmt.Errorf("simulate: simulateTransaction (measuring compute units): %s", rpcErrorText(err))
	}
	if sim.Value == nil {
		return 0, errors.New("simulate: node returned an empty simulation result")
	}
	if sim.Value.Err != nil {
		return 0, &SimulationError{Err: sim.Value.Err, Logs: sim.Value.Logs}
	}
	if sim.Value.UnitsConsumed == nil || *sim.Value.UnitsConsumed == 0 {
		return 0, errors.New("simulate: the node did not report the compute units the transaction consumes, so no compute-unit limit can be set")
	}
	return *sim.Value.UnitsConsumed, nil
}

// writableAccounts lists the message's writable keys, fee payer first.
func writableAccounts(tx *solana.Transaction) []solana.PublicKey {
	var out []solana.PublicKey
	for _, k := range tx.Message.AccountKeys {
		if w, err := tx.Message.IsWritable(k); err == nil && w {
			out = append(out, k)
		}
	}
	return out
}
