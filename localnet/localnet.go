// Package localnet starts and controls solgate's test and demo ledger: a
// Node process (server.mjs in this folder) that serves the standard Solana
// JSON-RPC on 127.0.0.1, backed by the real SVM (litesvm), with fault
// injection and funding helpers exposed as localnet_* JSON-RPC methods.
//
// Typical use in a test:
//
//	l, err := localnet.Start(ctx, localnet.Options{}) // mainnet's pace
//	// or localnet.Options{SlotMS: localnet.FastSlotMS}, asked for by name
//	if err != nil { t.Fatal(err) }
//	t.Cleanup(func() { l.Close() })
//	client := rpc.New(l.RPC())
package localnet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DirEnv names the environment variable that overrides where server.mjs lives.
const DirEnv = "SOLGATE_LOCALNET_DIR"

// NodeFlagsEnv names an environment variable whose words are passed to
// node before server.mjs, for profiling the ledger under a real workload
// (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" or "--trace-gc"): node refuses
// --cpu-prof in NODE_OPTIONS. A debugging aid of the test ledger only, so
// it is not one of solgate's SOLGATE_* settings.
const NodeFlagsEnv = "LOCALNET_NODE_FLAGS"

// DefaultStartTimeout bounds startup when ctx has no deadline.
const DefaultStartTimeout = 30 * time.Second

// The ledger's paces. The default is mainnet's: a slot, a block and a fresh
// blockhash every 400 ms, and statuses that reach `confirmed` a slot after
// landing. That is the pace at which two identical transactions built
// within one blockhash collide, so every test of execution, grants and
// confirmation runs at it at least once. A test or benchmark that needs
// blocks to pass quickly (150 of them expire a blockhash) asks for
// FastSlotMS by name.
const (
	MainnetSlotMS = 400
	FastSlotMS    = 20
)

// Options configures Start. The zero value starts a localnet that reports
// its own genesis hash and produces a block every MainnetSlotMS.
type Options struct {
	// Dir is the localnet folder (holding server.mjs and node_modules).
	// Default: DefaultDir ($SOLGATE_LOCALNET_DIR, else the checkout holding the working directory).
	Dir string
	// Network makes the ledger report a public cluster's genesis hash:
	// "localnet" (default), "mainnet-beta", "devnet" or "testnet".
	Network string
	// GenesisHash makes the ledger report this genesis hash instead
	// (mutually exclusive with Network).
	GenesisHash string
	// SlotMS is the slot time in milliseconds (default MainnetSlotMS).
	// A test that needs 150 blocks (blockhash expiry) to pass in a few
	// seconds asks for FastSlotMS.
	SlotMS int
	// Stderr, if set, receives the server's log output.
	Stderr io.Writer
	// PaidAPI also serves the x402 paid API (x402.mjs) on a loopback port
	// of its own (Ledger.PaidAPI); off by default, since its packages
	// slow every start.
	PaidAPI bool
}

// Ledger is a running localnet process.
type Ledger struct {
	rpcURL      string
	genesisHash string
	swapAPI     string
	demo        DemoMints
	x402        PaidAPI

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	tail   *tailBuffer
	exited chan struct{} // closed when the process has been waited for
	exitMu sync.Mutex
	exitEr error

	closeOnce sync.Once
	closeErr  error
	nextID    atomic.Int64
	http      *http.Client
}

// Stats are the ledger's counters since start (localnet_stats).
type Stats struct {
	SendsReceived        uint64 `json:"sendsReceived"`
	SendsDropped         uint64 `json:"sendsDropped"`
	SendsRejected        uint64 `json:"sendsRejected"` // refused before execution (preflight, expired blockhash, duplicate, ...)
	TransactionsExecuted uint64 `json:"transactionsExecuted"`
	TransactionsFailed   uint64 `json:"transactionsFailed"` // landed with an error (fee charged)
	Airdrops             uint64 `json:"airdrops"`
	Simulations          uint64 `json:"simulations"`
	RPCCalls             uint64 `json:"rpcCalls"`
	// HTTPRequests counts RPC round trips: a batch of calls is one.
	HTTPRequests uint64 `json:"httpRequests"`
	FailedCalls  uint64 `json:"failedCalls"` // HTTP 503s injected by FailNextCalls
	// PrioritizationFeeQueries counts getRecentPrioritizationFees calls.
	PrioritizationFeeQueries uint64 `json:"prioritizationFeeQueries"`
	Slot                     uint64 `json:"slot"`
	BlockHeight              uint64 `json:"blockHeight"`
	// Swap API counters (swap.mjs): quotes answered, swap transactions
	// built, and requests answered by an injected swap fault.
	SwapQuotes       uint64 `json:"swapQuotes"`
	SwapTransactions uint64 `json:"swapTransactions"`
	SwapFaults       uint64 `json:"swapFaults"`
	// Actions server counters (actions.mjs): metadata GETs and transaction
	// POSTs answered.
	ActionGets  uint64 `json:"actionGets"`
	ActionPosts uint64 `json:"actionPosts"`
	// ActionCallbacks counts POSTs to a links.next callback.
	ActionCallbacks uint64 `json:"actionCallbacks"`
	// x402 paid API (x402.mjs): payments its facilitators refused for their
	// transaction version, and payments refused for not echoing the
	// offer's extensions.
	X402VersionRefused    uint64 `json:"x402VersionRefused"`
	X402ExtensionsDropped uint64 `json:"x402ExtensionsDropped"`
}

// ErrNodeMissing is returned (wrapped) by Start when `node` is not on PATH.
var ErrNodeMissing = errors.New("localnet requires node (Node.js 20+) on PATH")

// ErrDepsMissing is returned (wrapped) by Start when node_modules is not installed.
var ErrDepsMissing = errors.New("localnet npm dependencies are not installed")

// ErrNoSources is returned (wrapped) by Start when no localnet folder was
// given and none was found: an installed solgate carries no ledger.
var ErrNoSources = errors.New("the test ledger (localnet) is not part of an installed solgate")

// modulePath is solgate's module, which marks the checkout DefaultDir looks for.
const modulePath = "github.com/solgate/solgate"

// DefaultDir is the localnet folder used when Options.Dir is empty:
// $SOLGATE_LOCALNET_DIR, else the localnet folder of the solgate checkout
// that holds the working directory. It never uses the path the binary was
// built from: an installed binary must not depend on the build machine's
// checkout (SECURITY.md, "Releases and verifying them"). ok is false when neither is found.
func DefaultDir() (dir string, ok bool) {
	if d := os.Getenv(DirEnv); d != "" {
		return d, true
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if isCheckout(d) {
			return filepath.Join(d, "localnet"), true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// isCheckout reports whether d is the root of a solgate checkout with the
// ledger's sources in it.
func isCheckout(d string) bool {
	mod, err := os.ReadFile(filepath.Join(d, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	if strings.TrimSpace(first) != "module "+modulePath {
		return false
	}
	_, err = os.Stat(filepath.Join(d, "localnet", "server.mjs"))
	return err == nil
}

// Start launches the ledger and waits until it is serving. ctx bounds only
// the startup; the ledger runs until Close (or until this process exits:
// the server stops when its stdin pipe closes).
func Start(ctx context.Context, opts Options) (*Ledger, error) {
	dir := opts.Dir
	if dir == "" {
		var ok bool
		if dir, ok = DefaultDir(); !ok {
			return nil, fmt.Errorf("%w: it runs from a solgate checkout (`make demo` there, after `make localnet-deps`), or set %s to a checkout's localnet folder; it also needs Node.js 20.18+ on PATH", ErrNoSources, DirEnv)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNodeMissing, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "server.mjs")); err != nil {
		return nil, fmt.Errorf("localnet: server.mjs not found in %s (set Options.Dir or %s): %w", dir, DirEnv, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "litesvm")); err != nil {
		return nil, fmt.Errorf("%w in %s: run `npm ci --prefix localnet` (from the repository root)", ErrDepsMissing, dir)
	}

	// Node runs with V8's defaults. Tried under the proposal batch at load
	// 5-12 on 2 cores: --min-semi-space-size=16 cut scavenges ~3x (total
	// pause 90-100 -> 20-40 ms a bench run) and --no-parallel-scavenge
	// shortened each under load, but neither moved the ledger's CPU or its
	// p99: the slowest requests did not coincide with a collection (they
	// waited for a core), so they are not set.
	args := append(strings.Fields(os.Getenv(NodeFlagsEnv)), "server.mjs", "--port", "0")
	if opts.Network != "" && opts.GenesisHash != "" {
		return nil, errors.New("localnet: set Options.Network or Options.GenesisHash, not both")
	}
	if opts.Network != "" {
		args = append(args, "--network", opts.Network)
	}
	if opts.GenesisHash != "" {
		args = append(args, "--genesis-hash", opts.GenesisHash)
	}
	if opts.SlotMS > 0 {
		args = append(args, "--slot-ms", strconv.Itoa(opts.SlotMS))
	}
	if opts.PaidAPI {
		args = append(args, "--paid-api")
	}

	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("localnet: %w", err)
	}
	tail := &tailBuffer{max: 8 << 10}
	var errOut io.Writer = tail
	if opts.Stderr != nil {
		errOut = io.MultiWriter(tail, &lockedWriter{w: opts.Stderr})
	}
	cmd.Stderr = errOut
	stdout := &readyWriter{ch: make(chan string, 1)}
	cmd.Stdout = stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("localnet: starting node: %w", err)
	}

	l := &Ledger{
		cmd:    cmd,
		stdin:  stdin,
		tail:   tail,
		exited: make(chan struct{}),
		http:   &http.Client{Timeout: 30 * time.Second},
	}

	go func() {
		err := cmd.Wait()
		l.exitMu.Lock()
		l.exitEr = err
		l.exitMu.Unlock()
		close(l.exited)
	}()

	timeout := DefaultStartTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	type ready struct {
		RPC         string    `json:"rpc"`
		GenesisHash string    `json:"genesisHash"`
		SwapAPI     string    `json:"swapApi"`
		Swap        DemoMints `json:"swap"`
		X402        PaidAPI   `json:"x402"`
	}
	fail := func(reason string) (*Ledger, error) {
		l.Close()
		return nil, fmt.Errorf("localnet: %s; server stderr:\n%s", reason, l.tail.String())
	}
	select {
	case line := <-stdout.ch:
		var r ready
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.RPC == "" || r.GenesisHash == "" {
			return fail(fmt.Sprintf("unexpected ready line %q", line))
		}
		l.rpcURL = r.RPC
		l.genesisHash = r.GenesisHash
		l.swapAPI = r.SwapAPI
		l.demo = r.Swap
		l.x402 = r.X402
		return l, nil
	case <-l.exited:
		return fail(fmt.Sprintf("server exited before it was ready (%v)", l.exitError()))
	case <-ctx.Done():
		return fail(fmt.Sprintf("startup cancelled: %v", ctx.Err()))
	case <-timer.C:
		return fail(fmt.Sprintf("server not ready after %s", timeout))
	}
}

func (l *Ledger) exitError() error {
	l.exitMu.Lock()
	defer l.exitMu.Unlock()
	return l.exitEr
}

// RPC is the JSON-RPC endpoint, e.g. "http://127.0.0.1:41234".
func (l *Ledger) RPC() string { return l.rpcURL }

// GenesisHash is the genesis hash the ledger reports via getGenesisHash.
func (l *Ledger) GenesisHash() string { return l.genesisHash }

// Close stops the server and waits for it to exit. It is idempotent and
// safe to call from several goroutines.
func (l *Ledger) Close() error {
	l.closeOnce.Do(func() {
		// Closing stdin is the polite request (the server exits on EOF);
		// SIGTERM follows, then SIGKILL if it still has not gone.
		l.stdin.Close()
		select {
		case <-l.exited:
			return
		case <-time.After(2 * time.Second):
		}
		if l.cmd.Process != nil {
			_ = l.cmd.Process.Signal(syscall.SIGTERM)
		}
		select {
		case <-l.exited:
			return
		case <-time.After(3 * time.Second):
		}
		if l.cmd.Process != nil {
			_ = l.cmd.Process.Kill()
		}
		<-l.exited
		l.closeErr = errors.New("localnet: server did not stop on stdin close or SIGTERM; killed")
	})
	return l.closeErr
}

// Pid is the server's process id (for tests that check cleanup).
func (l *Ledger) Pid() int {
	if l.cmd.Process == nil {
		return 0
	}
	return l.cmd.Process.Pid
}

// Exited is closed once the server process has exited.
func (l *Ledger) Exited() <-chan struct{} { return l.exited }

// ---------------------------------------------------------------- controls

// RPCError is a JSON-RPC error answered by the ledger.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("localnet: rpc error %d: %s", e.Code, e.Message)
}

// Call makes one JSON-RPC call to the ledger and decodes its result into
// out (if non-nil). It is meant for localnet_* controls, which are never
// subject to injected faults or latency.
func (l *Ledger) Call(ctx context.Context, method string, params []any, out any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": l.nextID.Add(1), "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.rpcURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.http.Do(req)
	if err != nil {
		return fmt.Errorf("localnet: %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("localnet: %s: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("localnet: %s: HTTP %d: %s", method, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("localnet: %s: bad response %q: %w", method, raw, err)
	}
	if r.Error != nil {
		return r.Error
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			return fmt.Errorf("localnet: %s: decoding result: %w", method, err)
		}
	}
	return nil
}

// Fund adds lamports to an account (creating it as a system account if missing).
func (l *Ledger) Fund(ctx context.Context, pubkey string, lamports uint64) error {
	return l.Call(ctx, "localnet_fund", []any{pubkey, strconv.FormatUint(lamports, 10)}, nil)
}

// DropNextSends makes the next n sendTransaction calls answer with the
// transaction's signature without ever executing it.
func (l *Ledger) DropNextSends(ctx context.Context, n int) error {
	return l.Call(ctx, "localnet_dropNextSends", []any{n}, nil)
}

// StealOnNextSend moves lamports from one account to another between the
// next sent transaction's preflight and its execution: a loss the simulation
// did not show.
func (l *Ledger) StealOnNextSend(ctx context.Context, from, to string, lamports uint64) error {
	return l.Call(ctx, "localnet_stealOnNextSend", []any{map[string]any{"from": from, "to": to, "lamports": strconv.FormatUint(lamports, 10)}}, nil)
}

// FailNextCalls makes the next n non-control HTTP requests fail with HTTP 503.
func (l *Ledger) FailNextCalls(ctx context.Context, n int) error {
	return l.Call(ctx, "localnet_failNextCalls", []any{n}, nil)
}

// AdvanceSlots produces n slots one by one (1..1024), each entered in the
// SlotHashes sysvar, as a cluster would over n slots: a lookup table
// deactivated before them can then be closed once n passes 512.
func (l *Ledger) AdvanceSlots(ctx context.Context, n int) error {
	return l.Call(ctx, "localnet_advanceSlots", []any{n}, nil)
}

// ExpireBlockhash advances the block height by 151 at once, so every
// blockhash handed out so far is expired.
func (l *Ledger) ExpireBlockhash(ctx context.Context) error {
	return l.Call(ctx, "localnet_expireBlockhash", nil, nil)
}

// LagGetTransaction makes getTransaction answer null until d after a
// transaction landed, as a load-balanced RPC whose history lags the status
// it confirmed (0 turns it off).
func (l *Ledger) LagGetTransaction(ctx context.Context, d time.Duration) error {
	return l.Call(ctx, "localnet_lagGetTransaction", []any{d.Milliseconds()}, nil)
}

// RefuseBatches makes the ledger answer every JSON-RPC batch with HTTP 400,
// as RPCs that do not serve batches do (false serves them again).
func (l *Ledger) RefuseBatches(ctx context.Context, on bool) error {
	return l.Call(ctx, "localnet_refuseBatches", []any{on}, nil)
}

// SplitBatchSlots makes the next n JSON-RPC batches span slots: a slot
// passes between each of their calls.
func (l *Ledger) SplitBatchSlots(ctx context.Context, n int) error {
	return l.Call(ctx, "localnet_splitBatchSlots", []any{n}, nil)
}

// SetLatency delays every non-control answer by d (0 turns it off).
func (l *Ledger) SetLatency(ctx context.Context, d time.Duration) error {
	return l.Call(ctx, "localnet_setLatency", []any{d.Milliseconds()}, nil)
}

// FeeMarket is what getRecentPrioritizationFees answers: recent fees in
// micro-lamports per compute unit, oldest slot first.
type FeeMarket struct {
	// Fees apply to every transaction.
	Fees []uint64
	// Accounts adds fees paid by transactions that write-lock an address;
	// a query for several accounts gets, per slot, the highest that applies.
	Accounts map[string][]uint64
	// Unsupported makes the method answer -32601 "Method not found", as an
	// RPC that does not serve it.
	Unsupported bool
	// Helius serves getPriorityFeeEstimate, Triton the percentile option of
	// getRecentPrioritizationFees, both from the same table; off, the
	// ledger refuses them as a stock node does.
	Helius, Triton bool
	// IgnoresPercentile (without Triton) makes the ledger accept Triton's
	// percentile option and ignore it, answering the standard per-slot
	// minimums: what many nodes do with a parameter they do not know.
	IgnoresPercentile bool
}

// SetPrioritizationFees sets the fee market; the zero FeeMarket restores the
// empty answer of an idle cluster.
func (l *Ledger) SetPrioritizationFees(ctx context.Context, m FeeMarket) error {
	str := func(fees []uint64) []string {
		out := make([]string, len(fees))
		for i, f := range fees {
			out[i] = strconv.FormatUint(f, 10)
		}
		return out
	}
	p := map[string]any{"fees": str(m.Fees), "unsupported": m.Unsupported, "helius": m.Helius, "triton": m.Triton, "ignoresPercentile": m.IgnoresPercentile}
	if len(m.Accounts) > 0 {
		acc := map[string]any{}
		for a, fees := range m.Accounts {
			acc[a] = str(fees)
		}
		p["accounts"] = acc
	}
	return l.Call(ctx, "localnet_setPrioritizationFees", []any{p}, nil)
}

// SetExtraComputeUnits makes every simulation report n more compute units
// than the SVM measured, failing with ComputationalBudgetExceeded past the
// transaction's limit (0 turns it off). Sent transactions still execute
// with their real cost, but their preflight simulation sees the extra units.
func (l *Ledger) SetExtraComputeUnits(ctx context.Context, n uint32) error {
	return l.Call(ctx, "localnet_setExtraComputeUnits", []any{n}, nil)
}

// CreateMint creates an SPL Token mint with the given decimals and mint
// authority (empty: a key held by the ledger) and returns its address.
func (l *Ledger) CreateMint(ctx context.Context, decimals uint8, authority string) (string, error) {
	return l.CreateFreezableMint(ctx, decimals, authority, "")
}

// CreateFreezableMint is CreateMint with a freeze authority (empty: none).
func (l *Ledger) CreateFreezableMint(ctx context.Context, decimals uint8, authority, freezeAuthority string) (string, error) {
	p := map[string]any{"decimals": decimals}
	if authority != "" {
		p["authority"] = authority
	}
	if freezeAuthority != "" {
		p["freezeAuthority"] = freezeAuthority
	}
	var r struct {
		Mint string `json:"mint"`
	}
	if err := l.Call(ctx, "localnet_createMint", []any{p}, &r); err != nil {
		return "", err
	}
	return r.Mint, nil
}

// Mint2022 describes a Token-2022 mint for CreateMint2022: its decimals
// and the extensions written on it. Zero values leave an extension out.
type Mint2022 struct {
	Decimals uint8
	// TransferFeeBps (with TransferFeeMax base units at most, 0: no maximum)
	// is withheld from every transfer; set TransferFee to write the extension.
	TransferFee       bool
	TransferFeeBps    uint16
	TransferFeeMax    uint64
	NonTransferable   bool
	Confidential      bool
	PermanentDelegate string
	TransferHook      string
	// FreezeAuthority is the mint's freeze authority (none when empty);
	// CloseAuthority its mint close authority (the extension, when set);
	// DefaultFrozen: new token accounts of it open frozen.
	FreezeAuthority string
	CloseAuthority  string
	DefaultFrozen   bool
}

// CreateMint2022 creates a Token-2022 mint (mint authority held by the
// ledger) with the extensions m asks for and returns its address.
func (l *Ledger) CreateMint2022(ctx context.Context, m Mint2022) (string, error) {
	p := map[string]any{"decimals": m.Decimals, "program": "token-2022"}
	if m.TransferFee {
		p["transferFeeBps"] = m.TransferFeeBps
		if m.TransferFeeMax > 0 {
			p["transferFeeMax"] = strconv.FormatUint(m.TransferFeeMax, 10)
		}
	}
	if m.NonTransferable {
		p["nonTransferable"] = true
	}
	if m.Confidential {
		p["confidential"] = true
	}
	if m.PermanentDelegate != "" {
		p["permanentDelegate"] = m.PermanentDelegate
	}
	if m.TransferHook != "" {
		p["transferHook"] = m.TransferHook
	}
	if m.FreezeAuthority != "" {
		p["freezeAuthority"] = m.FreezeAuthority
	}
	if m.CloseAuthority != "" {
		p["closeAuthority"] = m.CloseAuthority
	}
	if m.DefaultFrozen {
		p["defaultFrozen"] = true
	}
	var r struct {
		Mint string `json:"mint"`
	}
	if err := l.Call(ctx, "localnet_createMint", []any{p}, &r); err != nil {
		return "", err
	}
	return r.Mint, nil
}

// CreateToken creates an SPL Token mint (authority held by the ledger) with
// a Metaplex metadata account holding name, symbol and uri verbatim, and
// returns the mint's address.
func (l *Ledger) CreateToken(ctx context.Context, decimals uint8, name, symbol, uri string) (string, error) {
	var r struct {
		Mint string `json:"mint"`
	}
	p := map[string]any{"decimals": decimals, "name": name, "symbol": symbol, "uri": uri}
	if err := l.Call(ctx, "localnet_createToken", []any{p}, &r); err != nil {
		return "", err
	}
	return r.Mint, nil
}

// MintTo credits amount base units of mint to owner's associated token
// account (created if missing) and returns that account's address.
func (l *Ledger) MintTo(ctx context.Context, mint, owner string, amount uint64) (string, error) {
	p := map[string]any{"mint": mint, "owner": owner, "amount": strconv.FormatUint(amount, 10)}
	var r struct {
		TokenAccount string `json:"tokenAccount"`
	}
	if err := l.Call(ctx, "localnet_mintTo", []any{p}, &r); err != nil {
		return "", err
	}
	return r.TokenAccount, nil
}

// Stats returns the ledger's counters since start.
func (l *Ledger) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := l.Call(ctx, "localnet_stats", nil, &s)
	return s, err
}

// ---------------------------------------------------------------- plumbing

// readyWriter receives the server's stdout and hands over its first line
// (the ready line); the rest is discarded so the server never blocks.
type readyWriter struct {
	mu   sync.Mutex
	buf  []byte
	done bool
	ch   chan string
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if i := bytes.IndexByte(w.buf, '\n'); i >= 0 {
		w.done = true
		w.ch <- strings.TrimSpace(string(w.buf[:i]))
		w.buf = nil
	} else if len(w.buf) > 64<<10 {
		w.done = true
		w.ch <- strings.TrimSpace(string(w.buf))
		w.buf = nil
	}
	return len(p), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimRight(string(t.buf), "\n")
	if s == "" {
		return "(empty)"
	}
	return s
}

// lockedWriter serialises writes to a caller's writer (e.g. a bytes.Buffer
// the caller also reads).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// ---------------------------------------------------------------- swaps

// DemoToken is one demo SPL mint and the constant-product pool that trades it
// against SOL.
type DemoToken struct {
	Mint string `json:"mint"`
	// Pool is the pool authority: a system account holding the pool's SOL
	// reserve and owning PoolTokenAccount. Quotes name it as routePlan[].swapInfo.ammKey.
	Pool             string `json:"pool"`
	PoolTokenAccount string `json:"poolTokenAccount"`
	Decimals         uint8  `json:"decimals"`
}

// DemoMints are the demo tokens and pools the ledger creates at startup.
type DemoMints struct {
	// WSOL is the wrapped-SOL mint, which stands for SOL in quotes.
	WSOL string `json:"wsol"`
	// USDC is a USDC-like token (6 decimals) with Metaplex metadata.
	USDC DemoToken `json:"usdc"`
	// Bait is a hostile token: its metadata name is an instruction to the
	// model, its symbol carries an ANSI escape, and it has a freeze authority.
	Bait DemoToken `json:"bait"`
	// LookupTable is the address lookup table the swap transactions use.
	LookupTable string `json:"lookupTable"`
	// Thief is an address in the lookup table that tamper-destination-alt
	// sends the user's SOL to.
	Thief  string `json:"thief"`
	FeeBps int    `json:"feeBps"`
	// AggregatorProgram is the pool program: a copy of the SPL Memo program
	// at an address of its own, which SetSwapAggregator makes every /swap
	// transaction invoke with the wallet as signer. Tests configure it as an
	// aggregator (executor.SwapOptions.SwapPrograms).
	AggregatorProgram string `json:"aggregatorProgram"`
	// SwapV2 is what GET /swap/v2/build routes through: cpswap
	// (programs/cpswap.s), a pool program whose constant product and
	// minimum out the chain enforces, with only the taker signing.
	SwapV2 SwapV2Pools `json:"swapV2"`
}

// SwapV2Pools are the cpswap program and the USDC pool it runs (both
// directions, SOL and the token).
type SwapV2Pools struct {
	Program string `json:"program"`
	USDC    struct {
		// Pool is the pool's state account (owned by Program, holding the
		// SOL reserve): routePlan[].swapInfo.ammKey in /build's answers.
		Pool             string `json:"pool"`
		PoolTokenAccount string `json:"poolTokenAccount"`
	} `json:"usdc"`
	LookupTable string `json:"lookupTable"`
}

// SwapAPI is the base URL of the Jupiter-compatible Swap API, on the RPC's
// port: v1 (GET {base}/swap/v1/quote, POST {base}/swap/v1/swap) and v2
// (GET {base}/swap/v2/build, tokens to SOL through cpswap).
func (l *Ledger) SwapAPI() string { return l.swapAPI }

// DemoMints are the demo tokens and pools (from the ready line).
func (l *Ledger) DemoMints() DemoMints { return l.demo }

// PoolMove is another trader's swap through a pool: exactly one of Lamports
// (SOL in, tokens out: SOL→token quotes get worse) or Tokens (tokens in, SOL
// out). Mint selects the pool (default the USDC-like pool).
type PoolMove struct {
	Mint     string
	Lamports uint64
	Tokens   uint64
}

// PoolState is a pool's reserves after a move.
type PoolState struct {
	Pool         string `json:"pool"`
	Mint         string `json:"mint"`
	SOLReserve   uint64 `json:"solReserve,string"`
	TokenReserve uint64 `json:"tokenReserve,string"`
}

// MovePool moves a pool's price, as a trade by someone else would. The
// reserves are written directly; the ledger's transaction counters do not move.
func (l *Ledger) MovePool(ctx context.Context, m PoolMove) (PoolState, error) {
	p := map[string]any{}
	if m.Mint != "" {
		p["mint"] = m.Mint
	}
	switch {
	case m.Lamports > 0 && m.Tokens == 0:
		p["lamports"] = strconv.FormatUint(m.Lamports, 10)
	case m.Tokens > 0 && m.Lamports == 0:
		p["tokens"] = strconv.FormatUint(m.Tokens, 10)
	default:
		return PoolState{}, errors.New("localnet: MovePool needs exactly one of Lamports or Tokens")
	}
	var st PoolState
	err := l.Call(ctx, "localnet_movePool", []any{p}, &st)
	return st, err
}

// TickPool moves a pool's price by bps basis points, as a drifting market
// does between a swap's approval and its execution: a positive bps makes
// SOL→token quotes give bps fewer tokens, a negative one more. Mint selects
// the pool ("" the USDC-like one).
func (l *Ledger) TickPool(ctx context.Context, mint string, bps int) (PoolState, error) {
	p := map[string]any{"bps": bps}
	if mint != "" {
		p["mint"] = mint
	}
	var st PoolState
	err := l.Call(ctx, "localnet_tickPool", []any{p}, &st)
	return st, err
}

// Swap API fault modes for SwapFault.
const (
	SwapDown                 = "down"                   // connection closed without an answer
	SwapSlow                 = "slow"                   // answer after SwapFault.Delay (default 15 s)
	Swap500                  = "500"                    // HTTP 500, plain text
	Swap429                  = "429"                    // HTTP 429 with Retry-After: 7, as a rate limiter
	SwapGarbage              = "garbage"                // HTTP 200, a body that is not JSON
	SwapHuge                 = "huge"                   // HTTP 200, a 50 MB body
	SwapTamperPayer          = "tamper-payer"           // /swap: fee payer is not the user
	SwapTamperProgram        = "tamper-program"         // /swap: an extra instruction for an unknown program
	SwapTamperDestination    = "tamper-destination"     // /swap: the user's SOL goes to a fresh address, not the pool
	SwapTamperDestinationALT = "tamper-destination-alt" // /swap: ... to DemoMints().Thief, loaded from the lookup table
)

// SwapFault arms a fault for the next Count swap-API requests (default 1).
// Tamper modes count only /swap requests; the others count quotes too.
type SwapFault struct {
	Mode  string
	Count int
	Delay time.Duration // for SwapSlow
}

// SetSwapFault arms f; SetSwapFault(ctx, SwapFault{}) clears any fault.
func (l *Ledger) SetSwapFault(ctx context.Context, f SwapFault) error {
	if f.Mode == "" {
		return l.Call(ctx, "localnet_swapFault", []any{map[string]any{"mode": "off"}}, nil)
	}
	p := map[string]any{"mode": f.Mode}
	if f.Count > 0 {
		p["count"] = f.Count
	}
	if f.Delay > 0 {
		p["ms"] = f.Delay.Milliseconds()
	}
	return l.Call(ctx, "localnet_swapFault", []any{p}, nil)
}

// SetSwapAggregator makes every /swap transaction invoke
// DemoMints().AggregatorProgram with the wallet as signer (or stop doing so).
func (l *Ledger) SetSwapAggregator(ctx context.Context, enabled bool) error {
	return l.Call(ctx, "localnet_swapAggregator", []any{map[string]any{"enabled": enabled}}, nil)
}

// Hostile swap API modes for SetSwapHostile: each adds its instructions to an
// otherwise honest /swap transaction. "The other token account" is the
// wallet's first SPL token account of a mint the swap does not involve.
const (
	HostileDrainWSOL        = "drain-wsol"         // inAmount of the wallet's wrapped SOL to the pool's wrapped-SOL account
	HostileDrainToken       = "drain-token"        // the other token account emptied into the thief's
	HostileCloseToAttacker  = "close-to-attacker"  // the other token account closed, its rent to the thief
	HostileSetDelegate      = "set-delegate"       // the thief approved as delegate of the other token account
	HostileSetOwner         = "set-owner"          // the other token account's owner set to the thief
	HostileRaisePriorityFee = "raise-priority-fee" // priority fee raised by 100000 lamports
	HostilePayFromWSOL      = "pay-from-wsol"      // a SOL input paid from the wallet's wrapped SOL, not its lamports
	HostileDurableNonce     = "durable-nonce"      // AdvanceNonceAccount first (authority: the pool), the nonce as blockhash
	// HostileMarketMove (/swap/v2/build only, once): another trader takes 0.5 %
	// of the cpswap pool's output side just before the answer, an honest
	// build at a worse price than the quote before it.
	HostileMarketMove = "market-move"
)

// SetSwapHostile makes /swap answers hostile (mode) after the next `after`
// honest ones, until cleared with mode "".
func (l *Ledger) SetSwapHostile(ctx context.Context, mode string, after int) error {
	if mode == "" {
		return l.Call(ctx, "localnet_swapHostile", []any{map[string]any{"mode": "off"}}, nil)
	}
	return l.Call(ctx, "localnet_swapHostile", []any{map[string]any{"mode": mode, "after": after}}, nil)
}

// Outside is a transaction built outside solgate by localnet_buildOutside
// (outside.mjs, with @solana/kit as an SDK builds it): base64 wire bytes
// with the wallet's signature slot empty, and the accounts it names.
type Outside struct {
	Kind                 string            `json:"kind"`
	Transaction          string            `json:"transaction"`
	Version              string            `json:"version"`
	Blockhash            string            `json:"blockhash"`
	LastValidBlockHeight *uint64           `json:"lastValidBlockHeight"`
	Accounts             map[string]string `json:"accounts"`
}

// OutsideOptions tune a built transaction; zero values are the builder's
// defaults (1 000 000 lamports, no compute budget).
type OutsideOptions struct {
	Lamports uint64 // SOL moved by transfers
	Amount   uint64 // tokens minted by the launch kinds
	CUPrice  *uint64
	CULimit  *uint32
	// Precreate: token-transfer's recipient account exists beforehand.
	Precreate bool
	// Mints and Amounts: two-token-transfer's two mints (created at these
	// addresses if absent; empty: new random mints) and how many base
	// units of each leave.
	Mints   []string
	Amounts []uint64
	// To is the payee of the kinds that pay someone (a fresh stranger
	// when empty).
	To string
	// Mint is where multisig-transfer's and mint-to's mint is created
	// (random when empty), so a console's caps can name it beforehand.
	Mint string
}

// BuildOutside asks the ledger for a transaction of kind (see OUTSIDE_KINDS
// in outside.mjs) for wallet, setting up on the ledger what it needs.
func (l *Ledger) BuildOutside(ctx context.Context, kind, wallet string, o OutsideOptions) (Outside, error) {
	p := map[string]any{"kind": kind, "wallet": wallet}
	if o.Lamports > 0 {
		p["lamports"] = o.Lamports
	}
	if o.Amount > 0 {
		p["amount"] = o.Amount
	}
	if o.To != "" {
		p["to"] = o.To
	}
	if o.Mint != "" {
		p["mint"] = o.Mint
	}
	if o.CUPrice != nil {
		p["cuPrice"] = *o.CUPrice
	}
	if o.CULimit != nil {
		p["cuLimit"] = *o.CULimit
	}
	if o.Precreate {
		p["precreate"] = true
	}
	if len(o.Mints) > 0 {
		p["mints"] = o.Mints
	}
	if len(o.Amounts) > 0 {
		p["amounts"] = o.Amounts
	}
	var out Outside
	err := l.Call(ctx, "localnet_buildOutside", []any{p}, &out)
	return out, err
}

// RemoveAccount deletes an account from the ledger, as if its owner had
// closed it elsewhere.
func (l *Ledger) RemoveAccount(ctx context.Context, address string) error {
	return l.Call(ctx, "localnet_removeAccount", []any{address}, nil)
}
