package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
	// SpendLamports is the wallet's total simulated outflow, SOL and wrapped
	// SOL: amounts + fee + rent of accounts it creates (Effects.SOLOut).
	// Caps are measured against this number.
	SpendLamports uint64
	// MessageSHA256 identifies the exact message that would be signed.
	MessageSHA256 string
	Logs          []string
	UnitsConsumed uint64
	// Budget is the compute budget the transaction carries: the unit limit,
	// the unit price and the priority fee they cost (part of Fee).
	Budget Budget
	// Effects is the effects engine's measure of the exact bytes: the one
	// measure of value the preview, the caps and the verification read.
	Effects Effects
	// RPC counts the round trips preparing this preview took and the wall
	// time spent waiting for the node's answers, so that a proposal's
	// latency can be split into the ledger's part and solgate's own. Set
	// by the SOL and token transfer previews; zero for the other kinds.
	// A preview retried on a fresh blockhash counts the retry only.
	RPC CallStats
}

// FeeText shows the fee in its parts, for the preview and the console:
// "fee 0.000005 + priority 0.00004 SOL (p75 of 12 recent fees)".
//
// FeeText and BudgetText are written without fmt, as every preview writes
// them (TestPreviewTextsAsFmt holds them to the fmt spelling).
func (p Preview) FeeText() string {
	return "fee " + FormatSOL(p.NetworkFee()) + " + priority " + FormatSOL(p.Budget.PriorityFee) + " SOL (" + p.Budget.Source + ")"
}

// BudgetText shows the compute budget the transaction asks for:
// "1450 CU limit (450 used + margin) · 800000 micro-lamports/CU".
func (p Preview) BudgetText() string {
	s := strconv.FormatUint(uint64(p.Budget.UnitLimit), 10) + " CU limit (" + strconv.FormatUint(p.Budget.Units, 10) + " used + margin)"
	if p.Budget.UnitPrice > 0 {
		return s + " · " + strconv.FormatUint(p.Budget.UnitPrice, 10) + " micro-lamports/CU"
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

// simulate runs the unsigned transaction through the effects engine
// (sigVerify off, since it is not signed yet), so the preview shows measured
// effects rather than intentions. priorityFee is the compute budget's;
// beside, when not nil, are calls asked in the same round (besideBatch).
func (e *Executor) simulate(ctx context.Context, tx *solana.Transaction, priorityFee uint64, beside *besideBatch) (Preview, simulation, error) {
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return Preview{}, simulation{}, fmt.Errorf("simulate: encode message: %w", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return Preview{}, simulation{}, fmt.Errorf("simulate: encode transaction: %w", err)
	}
	sum := sha256.Sum256(msg)
	wallet := tx.Message.AccountKeys[0]
	eff, sim, err := e.client.simulateEffects(ctx, raw, viewOfTransaction(tx, priorityFee), wallet, false, beside)
	if err != nil {
		return Preview{}, sim, err
	}
	p := Preview{
		From:          wallet,
		Instructions:  describeInstructions(tx),
		MessageSHA256: hex.EncodeToString(sum[:]),
		Logs:          sim.Logs,
		UnitsConsumed: sim.UnitsConsumed,
		Effects:       eff,
		// Caps are measured against everything that leaves: amounts, wrapped
		// SOL, fees and rent.
		SpendLamports: eff.SOLOut(),
		Fee:           eff.Fee(),
	}
	for i, k := range sim.Keys {
		p.Changes = append(p.Changes, BalanceChange{Account: k, Pre: readAccount(sim.Before[i]).lamports, Post: readAccount(sim.After[i]).lamports})
	}
	if err := eff.Refusal(); err != nil {
		return Preview{}, sim, err
	}
	return p, sim, nil
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
