package executor

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// The effects engine reads the watched accounts, simulates the exact bytes
// and reads the accounts again. Those three calls go to the node as one
// JSON-RPC batch: one round trip instead of three, which is most of a
// proposal's latency on a node a millisecond away.
//
// A batch must not weaken what the three calls prove together (the
// simulation's pre-state is the state read before it). Two cases:
//   - a node that runs a batch's calls in order (localnet does, and so do
//     nodes whose methods are synchronous) gives the same guarantee as three
//     calls in a row: the reads agree, so nothing landed in between;
//   - a node that runs them side by side (Agave joins a batch's futures)
//     may not keep the order, so every answer must also come from the same
//     slot: at one commitment, one slot is one frozen bank, whose state the
//     simulation started from and both reads saw.
//
// Both checks apply to every batch, so the guarantee holds whichever kind of
// node answers. A node that refuses batches (some paid RPCs do) gets the
// three calls one after another, as before, and is remembered as such.

// batchState remembers that a client's node refused a batch once.
type batchState struct{ refused atomic.Bool }

// aroundSimulation is the effects engine's one round: the watched accounts,
// the simulation of raw with their post-state, and the accounts again.
// sameSlot reports whether all answers came from one slot (always true
// when the calls went one after another, where order is the guarantee).
// beside, when not nil, are calls that ride in the same batch (see
// besideBatch); their answers are in beside.answers afterwards.
func (c *Client) aroundSimulation(ctx context.Context, watch []solana.PublicKey, simParams []any, beside *besideBatch) (before []*rpc.Account, out *simulateValue, again []*rpc.Account, sameSlot bool, err error) {
	if c.batch.refused.Load() {
		return c.aroundSimulationInTurn(ctx, watch, simParams, beside)
	}
	chunks := accountChunks(watch)
	reqs := make(jsonrpc.RPCRequests, 0, 2*len(chunks)+1)
	// Base58 once: the same addresses are asked before and after.
	names := make([][]string, len(chunks))
	for i, ch := range chunks {
		names[i] = keyStrings(ch)
		reqs = append(reqs, &jsonrpc.RPCRequest{Method: "getMultipleAccounts", Params: []any{names[i], accountsOpts}})
	}
	reqs = append(reqs, &jsonrpc.RPCRequest{Method: "simulateTransaction", Params: simParams})
	for i := range chunks {
		reqs = append(reqs, &jsonrpc.RPCRequest{Method: "getMultipleAccounts", Params: []any{names[i], accountsOpts}})
	}
	besideFrom := len(reqs)
	for _, call := range beside.list() {
		reqs = append(reqs, &jsonrpc.RPCRequest{Method: call.method, Params: call.params})
	}
	res, err := c.rpc.RPCCallBatch(ctx, reqs)
	if err != nil {
		if batchUnsupported(err) {
			c.batch.refused.Store(true)
			return c.aroundSimulationInTurn(ctx, watch, simParams, beside)
		}
		return nil, nil, nil, false, fmt.Errorf("effects: batch of reads and simulation: %s", rpcErrorText(err))
	}
	byID := make(map[int]*jsonrpc.RPCResponse, len(res))
	for _, r := range res {
		if r == nil {
			continue
		}
		var id int
		switch v := r.ID.(type) {
		case json.Number:
			n, err := v.Int64()
			if err != nil {
				continue
			}
			id = int(n)
		case float64:
			id = int(v)
		default:
			continue
		}
		byID[id] = r
	}
	if len(byID) != len(reqs) {
		// Not an answer to our batch: take the node for one that does not
		// do batches, and ask in turn.
		c.batch.refused.Store(true)
		return c.aroundSimulationInTurn(ctx, watch, simParams, beside)
	}
	if beside != nil {
		beside.answers = make([]marketAnswer, len(beside.calls))
		for i := range beside.calls {
			r := byID[besideFrom+i]
			if r.Error != nil {
				beside.answers[i].err = r.Error
			} else {
				beside.answers[i].result = r.Result
			}
		}
	}
	slots := map[uint64]bool{}
	read := func(from int, what string) ([]*rpc.Account, error) {
		var accts []*rpc.Account
		for i, ch := range chunks {
			var v accountsAnswer
			if err := batchAnswer(byID[from+i], &v); err != nil {
				return nil, fmt.Errorf("effects: read accounts %s: getMultipleAccounts: %s", what, rpcErrorText(err))
			}
			if len(v.Value) != len(ch) {
				return nil, fmt.Errorf("effects: read accounts %s: getMultipleAccounts: node returned the wrong number of accounts", what)
			}
			read, err := v.Value.accounts()
			if err != nil {
				return nil, fmt.Errorf("effects: read accounts %s: getMultipleAccounts: %v", what, err)
			}
			slots[v.Context.Slot] = true
			accts = append(accts, read...)
		}
		return accts, nil
	}
	if before, err = read(0, "before"); err != nil {
		return nil, nil, nil, false, err
	}
	var sim simulationAnswer
	if err := batchAnswer(byID[len(chunks)], &sim); err != nil {
		return nil, nil, nil, false, fmt.Errorf("effects: simulateTransaction: %s", rpcErrorText(err))
	}
	slots[sim.Context.Slot] = true
	if again, err = read(len(chunks)+1, "after the simulation"); err != nil {
		return nil, nil, nil, false, err
	}
	return before, sim.Value, again, len(slots) == 1, nil
}

// aroundSimulationInTurn makes the same three reads one after another, for
// a node that does not take batches: their order is the guarantee.
func (c *Client) aroundSimulationInTurn(ctx context.Context, watch []solana.PublicKey, simParams []any, beside *besideBatch) (before []*rpc.Account, out *simulateValue, again []*rpc.Account, sameSlot bool, err error) {
	if beside != nil {
		// Asked beside the three, as they would be without a batch.
		done := make(chan struct{})
		go func() {
			defer close(done)
			beside.answers = c.askInTurn(besideCalls(ctx), beside.calls)
		}()
		defer func() { <-done }()
	}
	before, err = c.multipleAccounts(ctx, watch)
	if err != nil {
		return nil, nil, nil, false, fmt.Errorf("effects: read accounts before: %w", err)
	}
	var sim struct {
		Value *simulateValue `json:"value"`
	}
	if err := c.rpc.RPCCallForInto(ctx, &sim, "simulateTransaction", simParams); err != nil {
		return nil, nil, nil, false, fmt.Errorf("effects: simulateTransaction: %s", rpcErrorText(err))
	}
	again, err = c.multipleAccounts(ctx, watch)
	if err != nil {
		return nil, nil, nil, false, fmt.Errorf("effects: read accounts after the simulation: %w", err)
	}
	return before, sim.Value, again, true, nil
}

// besideBatch are calls that need none of the effects engine's answers
// (the fee market's), sent in its batch so they cost no request of their
// own. They are not part of what the batch proves: their answers carry no
// slot and are not compared.
type besideBatch struct {
	calls   []marketCall
	answers []marketAnswer // in the order of calls, once asked
}

func (b *besideBatch) list() []marketCall {
	if b == nil {
		return nil
	}
	return b.calls
}

// simulationParams are simulateTransaction's parameters for the effects
// engine: the exact bytes, unsigned, with the post-state of addrs. The
// options are structs, not maps: the RPC client's encoder sorts a map's
// keys by reflection on every request (about four times the cost of the
// whole batch's encoding with structs), and it parses a json.RawMessage
// again to check it.
func simulationParams(raw []byte, addrs []string) []any {
	return []any{base64.StdEncoding.EncodeToString(raw), simulationOpts{
		Encoding: "base64", SigVerify: false, Commitment: "confirmed", InnerInstructions: true,
		Accounts: simulatedAccounts{Encoding: "base64", Addresses: addrs},
	}}
}

type simulationOpts struct {
	Encoding          string            `json:"encoding"`
	SigVerify         bool              `json:"sigVerify"`
	Commitment        string            `json:"commitment"`
	InnerInstructions bool              `json:"innerInstructions"`
	Accounts          simulatedAccounts `json:"accounts"`
}

type simulatedAccounts struct {
	Encoding  string   `json:"encoding"`
	Addresses []string `json:"addresses"`
}

// accountsOpts are getMultipleAccounts' options for the effects engine.
var accountsOpts = accountsOptions{Encoding: "base64", Commitment: "confirmed"}

type accountsOptions struct {
	Encoding   string `json:"encoding"`
	Commitment string `json:"commitment"`
}

// accountChunks splits keys into getMultipleAccounts-sized pieces (nodes
// answer at most 100 accounts a call).
func accountChunks(keys []solana.PublicKey) [][]solana.PublicKey {
	var out [][]solana.PublicKey
	for len(keys) > 0 {
		n := min(len(keys), 100)
		out = append(out, keys[:n])
		keys = keys[n:]
	}
	return out
}

// batchAnswer decodes one answer of a batch into out, or returns the node's
// error for that call.
func batchAnswer(r *jsonrpc.RPCResponse, out any) error {
	if r == nil {
		return errors.New("no answer in the batch")
	}
	if r.Error != nil {
		return r.Error
	}
	if len(r.Result) == 0 || string(r.Result) == "null" {
		return errors.New("the node returned an empty answer")
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("could not decode the answer: %w", err)
	}
	return nil
}

// accountsAnswer is getMultipleAccounts' answer as the engine reads it.
type accountsAnswer struct {
	Context rpc.Context  `json:"context"`
	Value   wireAccounts `json:"value"`
}

// simulationAnswer is simulateTransaction's answer as the engine reads it.
type simulationAnswer struct {
	Context rpc.Context    `json:"context"`
	Value   *simulateValue `json:"value"`
}

// wireAccounts is a node's list of accounts (null: no such account), as
// the engine reads them: lamports, owner and data. Not solana-go's
// rpc.Account, which takes whatever encoding the node chose: it inflates
// base64+zstd data of any size (a hostile node's bomb, in the process
// that holds the key) and reads jsonParsed data as no bytes. accounts()
// turns them into rpc.Account strictly: data must be base64, as the
// engine asks, and anything unreadable is an error, never an empty
// account.
type wireAccounts []*wireAccount

type wireAccount struct {
	Lamports uint64   `json:"lamports"`
	Owner    string   `json:"owner"`
	Data     []string `json:"data"` // [base64, "base64"]
}

func (l wireAccounts) accounts() ([]*rpc.Account, error) {
	out := make([]*rpc.Account, len(l))
	for i, w := range l {
		if w == nil {
			continue
		}
		a, err := w.account()
		if err != nil {
			return nil, fmt.Errorf("account %d: %w", i, err)
		}
		out[i] = a
	}
	return out, nil
}

func (w *wireAccount) account() (*rpc.Account, error) {
	owner, err := solana.PublicKeyFromBase58(w.Owner)
	if err != nil {
		return nil, fmt.Errorf("owner %q: %w", w.Owner, err)
	}
	if len(w.Data) != 2 || w.Data[1] != "base64" {
		return nil, fmt.Errorf("data is not [base64, \"base64\"] (%d parts)", len(w.Data))
	}
	data, err := base64.StdEncoding.DecodeString(w.Data[0])
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	return &rpc.Account{Lamports: w.Lamports, Owner: owner, Data: rpc.DataBytesOrJSONFromBytes(data)}, nil
}

// batchUnsupported: the node answered, but not with a batch (an HTTP 4xx
// other than 429, or a body that is not a JSON-RPC batch answer). Transport
// failures, 429 and 5xx say nothing about batches.
func batchUnsupported(err error) bool {
	var httpErr *jsonrpc.HTTPError
	if errors.As(err, &httpErr) {
		return httpErr.Code >= 400 && httpErr.Code < 500 && httpErr.Code != 429
	}
	if retryable(err) {
		return false
	}
	var rpcErr *jsonrpc.RPCError
	return !errors.As(err, &rpcErr) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
