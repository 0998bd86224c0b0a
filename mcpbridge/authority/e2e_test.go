package authority_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/server"
	"github.com/solgate/solgate/mcpbridge/authority/startup"
	"github.com/solgate/solgate/mcpbridge/demoagent"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

const fee = 5000

// world is a running ledger, a hub serving a socket, and a funded wallet.
type world struct {
	ledger    *localnet.Ledger
	chain     *rpc.Client
	authority *authority.Hub
	store     *store.Store
	socket    string
	ln        *host.SocketListener
	wallet    solana.PublicKey
	key       *executor.Keypair
	// stop closes the socket and the hub, waiting for executions in flight
	// to settle the spend ledger; once (it also runs at cleanup).
	stop func()
	// allowed is on the allowlist; stranger is not.
	allowed, stranger solana.PublicKey
}

func newWorld(t testing.TB, tweak func(*authority.Options)) *world {
	t.Helper()
	return newWorldListen(t, tweak, host.ListenConfig{})
}

// newWorldListen is newWorld with the socket's listener configured.
func newWorldListen(t testing.TB, tweak func(*authority.Options), lc host.ListenConfig) *world {
	t.Helper()
	return newWorldOnListen(t, func(o *authority.Options, _ *localnet.Ledger) {
		if tweak != nil {
			tweak(o)
		}
	}, lc)
}

// newWorldOn is newWorld with a tweak that also sees the ledger (its demo
// mints and programs exist only once it runs).
func newWorldOn(t testing.TB, tweak func(*authority.Options, *localnet.Ledger)) *world {
	t.Helper()
	return newWorldOnListen(t, tweak, host.ListenConfig{})
}

func newWorldOnListen(t testing.TB, tweak func(*authority.Options, *localnet.Ledger), lc host.ListenConfig) *world {
	t.Helper()
	return newWorldSetup(t, tweak, nil, lc)
}

// newWorldSetup is newWorldOn that may also change what the authority is
// built from (e.g. its swap programs); setupTweak may be nil.
func newWorldSetup(t testing.TB, tweak func(*authority.Options, *localnet.Ledger), setupTweak func(*startup.Setup, *localnet.Ledger), lc host.ListenConfig) *world {
	t.Helper()
	return newWorldLedger(t, localnet.Options{}, tweak, setupTweak, lc)
}

// newWorldLedger is newWorldSetup on a ledger started with lopts (e.g. one
// reporting a public cluster's genesis hash).
func newWorldLedger(t testing.TB, lopts localnet.Options, tweak func(*authority.Options, *localnet.Ledger), setupTweak func(*startup.Setup, *localnet.Ledger), lc host.ListenConfig) *world {
	t.Helper()
	ctx := context.Background()
	l, chain := testkit.StartLedger(t, lopts)
	key, _ := executor.NewRandomKeypair()
	testkit.Fund(t, l, key.PublicKey(), 10*solana.LAMPORTS_PER_SOL)
	allowed, _ := executor.NewRandomKeypair()
	stranger, _ := executor.NewRandomKeypair()

	cfg := policy.DefaultConfig()
	cfg.AllowRecipients = []string{allowed.PublicKey().String()}
	// The ledger's own actions server (localnet/actions.mjs) is allowed.
	actionOrigin, err := policy.ParseOrigin(l.RPC())
	if err != nil {
		t.Fatal(err)
	}
	cfg.AllowedActionOrigins = []string{actionOrigin}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	client := executor.NewClient(l.RPC(), executor.ClientOptions{})
	swapAPI, err := executor.NewSwapClient(l.SwapAPI(), executor.SwapClientOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	opts := authority.Options{Policy: cfg}
	tweak(&opts, l)
	setup := startup.Setup{Client: client, Key: key, Store: st, SwapAPI: swapAPI}
	if setupTweak != nil {
		setupTweak(&setup, l)
	}
	built, err := startup.Build(ctx, setup, opts)
	if err != nil {
		t.Fatal(err)
	}
	h := built.Hub
	// Short path: Unix socket paths are limited to ~108 bytes.
	dir := testkit.SocketDir(t)
	sock := filepath.Join(dir, "run", "console.sock")
	if lc.Logger == nil {
		lc.Logger = slog.New(slog.DiscardHandler)
	}
	ln, err := lc.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	go server.Serve(ln, h, server.Options{})
	var stopOnce sync.Once
	stop := func() { stopOnce.Do(func() { ln.Close(); h.Close() }) }
	t.Cleanup(stop)
	return &world{ledger: l, chain: chain, authority: h, store: st, socket: sock, ln: ln, key: key, stop: stop,
		wallet: key.PublicKey(), allowed: allowed.PublicKey(), stranger: stranger.PublicKey()}
}

func (w *world) balance(t *testing.T, pk solana.PublicKey) uint64 {
	t.Helper()
	out, err := w.chain.GetBalance(context.Background(), pk, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	return out.Value
}

func (w *world) executed(t *testing.T) uint64 {
	t.Helper()
	s, err := w.ledger.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s.TransactionsExecuted
}

// approved proposes a transfer through the agent and has the operator
// approve it, returning the proposal and its token.
func (w *world) approved(t *testing.T, a *testkit.Agent, args map[string]any) (id, token string) {
	t.Helper()
	ans := a.Call("transfer_sol", args)
	id, _ = ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose %v: %+v", args, ans)
	}
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	return id, p.Token
}

// solgateBinary is the real command under test (built once per process).
func solgateBinary(t *testing.T) string { return testkit.Binary(t) }

// startAgent drives a real `solgate mcp` subprocess, as an assistant would.
func startAgent(t *testing.T, socket string) *testkit.Agent {
	return testkit.StartAgent(t, socket, "e2e-agent")
}

func TestTransferThroughBridgeNeedsHumanAndLandsOnce(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	const amount = 50_000_000
	walletBefore := w.balance(t, w.wallet)
	args := map[string]any{"to": w.allowed.String(), "lamports": amount}

	// 1. The first call is only a proposal: the ledger does not move.
	ans := a.Call("transfer_sol", args)
	if ans.IsError || ans.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", ans)
	}
	if !strings.Contains(ans.Text, "CONFIRMATION REQUIRED — nothing has been signed or sent") {
		t.Errorf("proposal text lacks the warning:\n%s", ans.Text)
	}
	id := ans.Structured["proposal_id"].(string)
	if w.balance(t, w.allowed) != 0 || w.balance(t, w.wallet) != walletBefore || w.executed(t) != 0 {
		t.Fatal("a proposal moved funds")
	}
	// The proposal is visible to the operator, named after its client.
	p, ok := w.authority.Proposal(id)
	if !ok || p.Status != approval.StatusPending || p.Client != "e2e-agent 1.0" {
		t.Fatalf("hub proposal: %+v %v", p, ok)
	}
	// Repeating the call while pending returns the same proposal.
	if again := a.Call("transfer_sol", map[string]any{"lamports": fmt.Sprint(amount), "to": w.allowed.String()}); again.Structured["proposal_id"] != id {
		t.Errorf("repeat created a new proposal: %+v", again)
	}
	// Without the human, a guessed token does nothing.
	if bad := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount, "confirm": "111111111111"}); bad.IsError || bad.Status() != "refused" {
		t.Errorf("guessed token: %+v", bad)
	}

	// 2. The operator approves; the agent learns the token from proposal_status.
	if _, err := w.authority.Approve(id, "operator"); err != nil {
		t.Fatal(err)
	}
	st := a.Call("proposal_status", map[string]any{"proposal_id": id})
	token, _ := st.Structured["confirm"].(string)
	if st.Status() != "approved" || len(token) != 12 {
		t.Fatalf("proposal_status: %+v", st)
	}

	// 3. A token used with other arguments is refused and dies.
	if other := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount + 1, "confirm": token}); other.IsError || other.Status() != "refused" {
		t.Fatalf("token with other amount: %+v", other)
	}
	if again := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount, "confirm": token}); again.IsError || again.Status() != "refused" {
		t.Fatalf("dead token accepted: %+v", again)
	}
	if w.executed(t) != 0 || w.balance(t, w.allowed) != 0 {
		t.Fatal("a refused token moved funds")
	}

	// 4. Propose again, approve, execute with the identical call.
	ans = a.Call("transfer_sol", args)
	id = ans.Structured["proposal_id"].(string)
	if _, err := w.authority.Approve(id, "operator"); err != nil {
		t.Fatal(err)
	}
	token = a.Call("proposal_status", map[string]any{"proposal_id": id}).Structured["confirm"].(string)
	commits := w.store.Commits()
	done := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": fmt.Sprint(amount), "confirm": token})
	if done.IsError || done.Status() != "executed" {
		t.Fatalf("execute: %+v", done)
	}
	// Two fsynced commits, each before what depends on it: the reservation
	// with the signature before the send, the settlement with the
	// execution record before the answer.
	if n := w.store.Commits() - commits; n != 2 {
		t.Errorf("the confirmed call took %d commits, want 2", n)
	}
	sig := done.Structured["signature"].(string)
	// The outside world: balances read back from the ledger.
	if got := w.balance(t, w.allowed); got != amount {
		t.Errorf("recipient %d, want %d", got, amount)
	}
	if got := w.balance(t, w.wallet); got != walletBefore-amount-fee {
		t.Errorf("wallet %d, want %d", got, walletBefore-amount-fee)
	}
	// And the database: proposal executed, execution row with the signature.
	row, err := w.store.GetProposal(id)
	if err != nil || row.Status != "executed" {
		t.Errorf("stored proposal: %+v %v", row, err)
	}
	execs, err := w.store.Executions(id)
	if err != nil || len(execs) != 1 || execs[0].Signature != sig || execs[0].Fee != fee {
		t.Errorf("stored executions: %+v %v", execs, err)
	}
	if bad, err := w.store.VerifyAudit(); err != nil {
		t.Errorf("audit chain broken at %d: %v", bad, err)
	}

	// 5. The same token again: refused, ledger unchanged.
	replay := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": amount, "confirm": token})
	if replay.IsError || replay.Status() != "refused" {
		t.Errorf("replay: %+v", replay)
	}
	if w.executed(t) != 1 || w.balance(t, w.allowed) != amount {
		t.Error("replay moved funds")
	}
	// get_spend_status reflects the settled spend.
	spend := a.Call("get_spend_status", nil)
	if spend.Structured["spent_lamports"] != fmt.Sprint(amount+fee) {
		t.Errorf("spend status: %+v", spend.Structured)
	}
}

func TestDenialsAndBadArgumentsAreResults(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	// Off the allowlist: an ordinary result naming the rule.
	d := a.Call("transfer_sol", map[string]any{"to": w.stranger.String(), "lamports": 1_000_000})
	if d.IsError || d.Status() != "denied" || d.Structured["rule"] == "" || d.Structured["reason"] == "" {
		t.Fatalf("denial: %+v", d)
	}
	if _, ok := d.Structured["retryable"].(bool); !ok {
		t.Errorf("denial lacks retryable: %+v", d.Structured)
	}
	// Over the per-transfer cap (4.6 SOL): denied, not retryable.
	big := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": "4600000000"})
	if big.Status() != "denied" || big.Structured["retryable"] != false {
		t.Errorf("4.6 SOL: %+v", big)
	}
	// A look-alike of an allowlisted address is denied, and the reason says why it is suspicious.
	fake := demoagent.LookAlike(w.allowed)
	poisoned := a.Call("transfer_sol", map[string]any{"to": fake.String(), "lamports": 1_000_000})
	if poisoned.Status() != "denied" || !strings.Contains(poisoned.Text, "possible address poisoning") || !strings.Contains(poisoned.Text, w.allowed.String()) {
		t.Errorf("look-alike: %+v", poisoned)
	}
	if len(w.authority.Proposals()) != 0 {
		t.Error("a denial reached the human's queue")
	}
	// Malformed arguments: tool errors naming the argument.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"to": w.allowed.String(), "lamports": -5}, "lamports"},
		{map[string]any{"to": w.allowed.String(), "lamports": 0.5}, "lamports"},
		{map[string]any{"to": "not-an-address", "lamports": 5}, "to"},
		{map[string]any{"lamports": 5}, "to"},
		{map[string]any{"to": w.allowed.String(), "lamports": 5, "memo": "hi"}, "memo"},
	} {
		ans := a.Call("transfer_sol", tc.args)
		if !ans.IsError || !strings.Contains(ans.Text, tc.want) {
			t.Errorf("%v: %+v, want a tool error naming %q", tc.args, ans, tc.want)
		}
	}
	if w.executed(t) != 0 {
		t.Error("ledger moved")
	}
}

func TestExpiredTokenRefused(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) { o.TokenTTL = 300 * time.Millisecond })
	a := startAgent(t, w.socket)
	args := map[string]any{"to": w.allowed.String(), "lamports": 2_000_000}
	_, token := w.approved(t, a, args)
	time.Sleep(400 * time.Millisecond) // behaviour under test: the token's 300 ms lifetime passes
	args["confirm"] = token
	ans := a.Call("transfer_sol", args)
	if ans.IsError || ans.Status() != "refused" || !strings.Contains(strings.ToLower(ans.Text), "expired") {
		t.Fatalf("expired token: %+v", ans)
	}
	if w.executed(t) != 0 || w.balance(t, w.allowed) != 0 {
		t.Fatal("expired token moved funds")
	}
}

// 100 concurrent confirmed calls with one token through the socket API:
// exactly one transaction reaches the ledger.
func TestConcurrentUseOfOneTokenExecutesOnce(t *testing.T) {
	// One test process stands in for 100 racing callers: lift the
	// per-process connection limit, which is not what this test is about.
	w := newWorldListen(t, nil, host.ListenConfig{MaxConnsPerUID: 200})
	const amount = 3_000_000
	args := fmt.Sprintf(`{"to":%q,"lamports":%d}`, w.allowed, amount)
	httpc := mcpbridge.NewUnixHTTPClient(w.socket, time.Minute)
	post := func(arguments string) wire.CallResult {
		res, err := mcpbridge.PostCall(context.Background(), httpc,
			wire.CallRequest{Client: wire.ClientInfo{Name: "racer"}, Tool: "transfer_sol", Arguments: json.RawMessage(arguments)})
		if err != nil {
			t.Error(err)
		}
		return res
	}
	id := post(args).Structured["proposal_id"].(string)
	p, err := w.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	confirmed := fmt.Sprintf(`{"to":%q,"lamports":%d,"confirm":%q}`, w.allowed, amount, p.Token)
	var wg sync.WaitGroup
	var executed, refused atomic.Int32
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch post(confirmed).Structured["status"] {
			case "executed":
				executed.Add(1)
			case "refused":
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	if executed.Load() != 1 || refused.Load() != 99 {
		t.Errorf("executed %d, refused %d; want 1 and 99", executed.Load(), refused.Load())
	}
	if got := w.executed(t); got != 1 {
		t.Errorf("ledger executed %d transactions, want exactly 1", got)
	}
	if got := w.balance(t, w.allowed); got != amount {
		t.Errorf("recipient %d, want %d", got, amount)
	}
}

func TestNoConsoleFailsClosed(t *testing.T) {
	dir, _ := os.MkdirTemp("", "sg")
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "nothing.sock")
	a := startAgent(t, sock)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_balance", nil},
		{"get_spend_status", nil},
		{"transfer_sol", map[string]any{"to": solana.SystemProgramID.String(), "lamports": 5}},
		{"proposal_status", map[string]any{"proposal_id": "p_x"}},
	} {
		start := time.Now()
		ans := a.Call(tc.tool, tc.args)
		if !ans.IsError || !strings.Contains(ans.Text, "no approval console is running at "+sock) || !strings.Contains(ans.Text, "solgate console") {
			t.Errorf("%s: %+v", tc.tool, ans)
		}
		if time.Since(start) > 20*time.Second { // no hang: the dial gives up after 3 s
			t.Errorf("%s took %s without a console", tc.tool, time.Since(start))
		}
	}
}

func TestReadToolsAnswerFromTheLedger(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	bal := a.Call("get_balance", nil)
	if bal.IsError || bal.Structured["lamports"] != fmt.Sprint(10*solana.LAMPORTS_PER_SOL) || bal.Structured["address"] != w.wallet.String() {
		t.Errorf("get_balance: %+v", bal)
	}
	other := a.Call("get_balance", map[string]any{"address": w.allowed.String()})
	if other.Structured["lamports"] != "0" {
		t.Errorf("get_balance other: %+v", other)
	}
	missing := a.Call("get_transaction", map[string]any{"signature": solana.Signature{1}.String()})
	if missing.IsError || missing.Structured["found"] != false {
		t.Errorf("get_transaction unknown: %+v", missing)
	}
	unknown := a.Call("proposal_status", map[string]any{"proposal_id": "p_nope"})
	if unknown.Status() != "unknown" {
		t.Errorf("proposal_status unknown: %+v", unknown)
	}
}

func TestUndecidedProposalExpiresAsDeniedByTimeout(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) { o.ProposalTTL = 300 * time.Millisecond })
	a := startAgent(t, w.socket)
	id := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 1_000_000}).Structured["proposal_id"].(string)
	// The long-poll wakes when the expiry fires.
	st := a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 5})
	if st.Status() != "expired" || !strings.Contains(fmt.Sprint(st.Structured["reason"]), "denied by timeout") {
		t.Fatalf("status after TTL: %+v", st)
	}
	if _, err := w.authority.Approve(id, "operator"); err == nil {
		t.Fatal("an expired proposal was approved")
	}
	if d, err := w.store.GetDecision(id); err != nil || d.Outcome != store.OutcomeExpired {
		t.Errorf("stored decision: %+v %v", d, err)
	}
}

// An execution slower than the execute wait answers "submitted" with the
// signature; proposal_status later carries the verified outcome. On the
// ledger's default pace (mainnet's 400 ms slots), so the follower confirms at
// the speed a real cluster gives.
func TestSlowExecutionAnswersSubmittedThenExecuted(t *testing.T) {
	w := newWorldLedger(t, localnet.Options{}, func(o *authority.Options, _ *localnet.Ledger) { o.ExecuteWait = time.Millisecond }, nil, host.ListenConfig{})
	a := startAgent(t, w.socket)
	const amount = 4_000_000
	args := map[string]any{"to": w.allowed.String(), "lamports": amount}
	id, token := w.approved(t, a, args)
	args["confirm"] = token
	first := a.Call("transfer_sol", args)
	if first.IsError || (first.Status() != "executing" && first.Status() != "submitted") || !strings.Contains(first.Text, "do not assume success") {
		t.Fatalf("slow execute: %+v", first)
	}
	deadline := time.Now().Add(30 * time.Second)
	var final testkit.Answer
	for time.Now().Before(deadline) {
		final = a.Call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 10})
		if final.Status() == "executed" || final.Status() == "failed" {
			break
		}
	}
	if final.Status() != "executed" || final.Structured["signature"] == nil {
		t.Fatalf("final status: %+v", final)
	}
	if got := w.balance(t, w.allowed); got != amount {
		t.Errorf("recipient %d, want %d", got, amount)
	}
}

func TestTokenWithOtherRecipientIsRefusedAndDies(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	args := map[string]any{"to": w.allowed.String(), "lamports": 1_000_000}
	id, token := w.approved(t, a, args)
	other := a.Call("transfer_sol", map[string]any{"to": w.stranger.String(), "lamports": 1_000_000, "confirm": token})
	if other.IsError || other.Status() != "refused" {
		t.Fatalf("token with other recipient: %+v", other)
	}
	args["confirm"] = token
	if again := a.Call("transfer_sol", args); again.IsError || again.Status() != "refused" {
		t.Fatalf("token survived misuse: %+v", again)
	}
	if st := a.Call("proposal_status", map[string]any{"proposal_id": id}); st.Status() != "failed" {
		t.Errorf("proposal after its token was burned: %+v", st)
	}
	if w.executed(t) != 0 || w.balance(t, w.stranger) != 0 || w.balance(t, w.allowed) != 0 {
		t.Fatal("funds moved")
	}
}

// A token sent with arguments that do not parse is spent too: the model is
// told so, the identical correct call is refused, and nothing moves.
func TestMalformedConfirmedCallVoidsToken(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	args := map[string]any{"to": w.allowed.String(), "lamports": 1_000_000}
	id, token := w.approved(t, a, args)
	bad := a.Call("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 1_000_000, "memo": "thanks", "confirm": token})
	if !bad.IsError || !strings.Contains(bad.Text, "memo") || !strings.Contains(bad.Text, "now void") {
		t.Fatalf("malformed confirmed call: %+v", bad)
	}
	args["confirm"] = token
	if again := a.Call("transfer_sol", args); again.IsError || again.Status() != "refused" {
		t.Fatalf("the token survived a malformed call: %+v", again)
	}
	if st := a.Call("proposal_status", map[string]any{"proposal_id": id}); st.Status() != "failed" {
		t.Errorf("proposal after its token was voided: %+v", st)
	}
	if w.executed(t) != 0 || w.balance(t, w.allowed) != 0 {
		t.Fatal("funds moved")
	}
}

// The operator's panic button: every approved proposal's token dies, the
// console hears of each proposal, the agent reads "expired", and a confirmed
// call with a revoked token moves nothing.
func TestRevokeAllVoidsApprovedTokens(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	events, cancel := w.authority.Subscribe(64)
	defer cancel()

	args := map[string]any{"to": w.allowed.String(), "lamports": 2_000_000}
	id, token := w.approved(t, a, args)
	if n := w.authority.RevokeAll("operator"); n != 1 {
		t.Fatalf("RevokeAll = %d, want 1", n)
	}

	// The subscriber sees this proposal turn expired, then the summary.
	deadline := time.After(30 * time.Second)
	sawExpired := false
	for done := false; !done; {
		select {
		case ev := <-events:
			if ev.Kind == approval.EventProposalExpired && ev.Proposal != nil && ev.Proposal.ID == id {
				if ev.Proposal.Status != approval.StatusExpired || ev.Proposal.Token != "" {
					t.Errorf("revoked proposal's event: status %s, token %q", ev.Proposal.Status, ev.Proposal.Token)
				}
				sawExpired = true
			}
			done = ev.Kind == approval.EventTokensRevoked
		case <-deadline:
			t.Fatal("no EventTokensRevoked within 30 s")
		}
	}
	if !sawExpired {
		t.Error("the revoked proposal got no event of its own before the summary")
	}

	st := a.Call("proposal_status", map[string]any{"proposal_id": id})
	if st.Status() != "expired" || st.Str("confirm") != "" {
		t.Errorf("proposal_status after revoke: %s %q", st.Status(), st.Text)
	}
	args["confirm"] = token
	if ans := a.Call("transfer_sol", args); ans.IsError || ans.Status() != "refused" || !strings.Contains(ans.Text, "revoked") {
		t.Errorf("confirmed call with a revoked token: %+v", ans)
	}
	if w.executed(t) != 0 || w.balance(t, w.allowed) != 0 {
		t.Fatal("a revoked token moved funds")
	}
	var status string
	if err := w.store.DB().QueryRow(`SELECT status FROM proposals WHERE id = ?`, id).Scan(&status); err != nil || status == "approved" {
		t.Errorf("database status of the revoked proposal: %q, %v", status, err)
	}
}
