package authority_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/tokens"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy/store"
)

// The adversarial token suite (issue 7). Thousands of confirmed calls try to
// get more out of the operator's approvals than the one execution each
// grants: mutated arguments, replays, expired tokens, tokens of another
// proposal, random and near-miss tokens, and one token fired concurrently.
// Each attempt's answer is checked against the outcome it must have; then the
// ledger (executed-transaction counter, balances read back) and the audit
// database must show exactly the legitimate executions, the spend ledger must
// equal what the chain paid out, and the audit chain must verify.

// advAttemptsEnv raises the attempt count; the default keeps CI well under a
// minute. The full suite: SOLGATE_ADVERSARIAL_ATTEMPTS=10000.
const advAttemptsEnv = "SOLGATE_ADVERSARIAL_ATTEMPTS"

const (
	advDefaultAttempts = 1000
	advFee             = 5000 // lamports per signature on localnet
	advTokenTTL        = time.Minute
	advRandomPerRound  = 50 // random tokens tried against each random-token round
	advConcurrentCalls = 16 // callers racing with one token
	advWorkers         = 8
)

// advOutcome is what one attempt must be answered with. The refusals are the
// token gate's sentinel messages, so a wrong reason is caught too.
type advOutcome string

const (
	outExecuted  advOutcome = "executed"
	outUsed      advOutcome = "refused: used"
	outMismatch  advOutcome = "refused: other arguments"
	outUnknown   advOutcome = "refused: unknown token"
	outExpired   advOutcome = "refused: expired"
	outMalformed advOutcome = "tool error: malformed arguments"
)

func (o advOutcome) gate() bool {
	return o == outUsed || o == outMismatch || o == outUnknown || o == outExpired
}

var advRefusalReasons = map[string]advOutcome{
	tokens.ErrUsed.Error():     outUsed,
	tokens.ErrMismatch.Error(): outMismatch,
	tokens.ErrUnknown.Error():  outUnknown,
	tokens.ErrExpired.Error():  outExpired,
}

func advClassify(res wire.CallResult) advOutcome {
	status, _ := res.Structured["status"].(string)
	switch {
	case !res.IsError && status == "executed":
		return outExecuted
	case !res.IsError && status == "refused":
		reason, _ := res.Structured["reason"].(string)
		if o, ok := advRefusalReasons[reason]; ok {
			return o
		}
		return advOutcome("refused: " + reason)
	case res.IsError && status == "error":
		return outMalformed
	}
	return advOutcome(fmt.Sprintf("unexpected %s (isError %v): %s", status, res.IsError, res.Text))
}

// advClock is the hub's clock. Expiry is tested by moving it past the token
// TTL, so the suite neither sleeps nor depends on how loaded the machine is.
type advClock struct{ offset atomic.Int64 }

func (c *advClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *advClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// adversary is a hub on a fresh ledger plus the attacker's ways in: the
// socket API (raw argument bytes, as any bridge sends them) and a real
// `solgate mcp` subprocess.
type adversary struct {
	t         *testing.T
	ledger    *localnet.Ledger
	chain     *rpc.Client
	authority *authority.Hub
	store     *store.Store
	clock     *advClock
	httpc     *http.Client
	mcp       *mcpclient.Client
	// closeHub stops serving and waits for executions in flight; once.
	closeHub func()
	wallet   solana.PublicKey
	// allowed receives the legitimate transfers; other is allowlisted too,
	// so only the token binding stops a redirected transfer.
	allowed, other solana.PublicKey

	amount   atomic.Uint64 // distinct amounts: every proposal its own fingerprint
	spelling atomic.Int64  // rotates through advSpellings(), one per socket spelling round
	voided   atomic.Int64  // live tokens spent by calls whose arguments did not parse

	mu        sync.Mutex
	attempts  int
	outcomes  map[advOutcome]int
	proposals map[string]bool // id → must have executed
	sent      uint64          // lamports of the executions that must have landed
	failures  int
}

func newAdversary(t *testing.T) *adversary {
	t.Helper()
	// A second allowlisted address, so tokens can be tried against another
	// legitimate recipient; room in the session cap for every legitimate
	// execution; an adjustable clock to expire tokens without sleeping.
	other, _ := executor.NewRandomKeypair()
	clock := &advClock{}
	w := newWorldListen(t, func(o *authority.Options) {
		o.Policy.AllowRecipients = append(o.Policy.AllowRecipients, other.PublicKey().String())
		o.Policy.MaxLamportsPerSession = 5 * solana.LAMPORTS_PER_SOL
		o.Now, o.TokenTTL = clock.now, advTokenTTL
		// One process plays every attacker here, far faster than an agent
		// may propose: flood control has tests of its own.
		o.MaxPendingPerUID, o.ProposalsPerMinute = 10_000, 10_000
	}, host.ListenConfig{MaxConnsPerUID: 1000})
	agent := testkit.StartAgent(t, w.socket, "adversary-mcp")

	a := &adversary{
		t: t, ledger: w.ledger, chain: w.chain, authority: w.authority, store: w.store, clock: clock,
		httpc: mcpbridge.NewUnixHTTPClient(w.socket, time.Minute), mcp: agent.C, closeHub: w.stop,
		wallet: w.wallet, allowed: w.allowed, other: other.PublicKey(),
		outcomes: map[advOutcome]int{}, proposals: map[string]bool{},
	}
	// Spaced by 10 and above the rent-exempt minimum: amount+1 never names
	// another proposal, and any transfer can be the recipient's first.
	a.amount.Store(1_000_000)
	return a
}

func (a *adversary) nextAmount() uint64 { return a.amount.Add(10) }

// post sends one call over the socket exactly as a bridge would.
func (a *adversary) post(args string) (wire.CallResult, error) {
	return mcpbridge.PostCall(context.Background(), a.httpc,
		wire.CallRequest{Client: wire.ClientInfo{Name: "adversary"}, Tool: "transfer_sol", Arguments: json.RawMessage(args)})
}

// viaMCP sends one call through the real `solgate mcp` subprocess.
func (a *adversary) viaMCP(args map[string]any) (wire.CallResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "transfer_sol"
	req.Params.Arguments = args
	res, err := a.mcp.CallTool(ctx, req)
	if err != nil {
		return wire.CallResult{}, err
	}
	return mcpbridge.ResultFromMCP(res), nil
}

// failf reports a wrong answer; only the first few are printed in full.
func (a *adversary) failf(format string, args ...any) {
	a.mu.Lock()
	a.failures++
	n := a.failures
	a.mu.Unlock()
	if n <= 20 {
		a.t.Errorf(format, args...)
	} else if n == 21 {
		a.t.Error("more wrong answers follow; not printed")
	}
}

// check counts one attempt and compares its answer with the one it must get.
func (a *adversary) check(kind string, got, want advOutcome) advOutcome {
	a.mu.Lock()
	a.attempts++
	a.outcomes[got]++
	a.mu.Unlock()
	if got != want {
		a.failf("%s: want %q, got %q", kind, want, got)
	}
	return got
}

func advAnswerOf(res wire.CallResult, err error) advOutcome {
	if err != nil {
		return advOutcome("transport error: " + err.Error())
	}
	return advClassify(res)
}

// try posts raw arguments and checks the answer.
func (a *adversary) try(kind, args string, want advOutcome) advOutcome {
	return a.check(kind, advAnswerOf(a.post(args)), want)
}

// legit notes an execution that must be on the ledger once.
func (a *adversary) legit(id string, lamports uint64, got advOutcome) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.proposals[id] = true
	if got == outExecuted {
		a.sent += lamports
	}
}

// approved proposes a transfer over the socket and has the operator approve it.
func (a *adversary) approved(to solana.PublicKey, lamports uint64) (id, token string, err error) {
	res, err := a.post(advTransferArgs(to, advNum(lamports), "", ""))
	if err != nil {
		return "", "", err
	}
	id, _ = res.Structured["proposal_id"].(string)
	if res.IsError || res.Structured["status"] != "pending_approval" || id == "" {
		return "", "", fmt.Errorf("propose %d lamports: %s", lamports, res.Text)
	}
	a.mu.Lock()
	a.proposals[id] = false
	a.mu.Unlock()
	p, err := a.authority.Approve(id, "adversary-operator")
	if err != nil {
		return "", "", err
	}
	return id, p.Token, nil
}

// advTransferArgs writes transfer_sol arguments by hand, so that the amount's
// spelling, the key order and extra or repeated keys are exactly as given.
// lamports is a raw JSON value; confirm "" is left out.
func advTransferArgs(to solana.PublicKey, lamports, confirm, extra string) string {
	s := fmt.Sprintf(`{"to":%q,"lamports":%s`, to, lamports)
	if confirm != "" {
		s += fmt.Sprintf(`,"confirm":%q`, confirm)
	}
	return s + extra + "}"
}

func advNum(n uint64) string { return strconv.FormatUint(n, 10) }

// advSpellings are ways to write one call that must fingerprint alike: the
// Amount as a digit string, in fraction and exponent forms, another key
// order, other whitespace.
func advSpellings(to solana.PublicKey, n uint64, confirm string) []string {
	d := advNum(n)
	mant := strings.TrimSuffix(strings.TrimRight(d[:1]+"."+d[1:], "0"), ".")
	return []string{
		advTransferArgs(to, strconv.Quote(d), confirm, ""),
		advTransferArgs(to, d+".0", confirm, ""),
		advTransferArgs(to, d+".000", confirm, ""),
		advTransferArgs(to, fmt.Sprintf("%se%d", mant, len(d)-1), confirm, ""),
		advTransferArgs(to, fmt.Sprintf("%sE+%d", mant, len(d)-1), confirm, ""),
		advTransferArgs(to, d+"0e-1", confirm, ""),
		fmt.Sprintf(`{"confirm":%q,"lamports":%s,"to":%q}`, confirm, d, to),
		fmt.Sprintf("{ \"lamports\" :\n %s ,\t\"confirm\": %q, \"to\" : %q }", d, confirm, to),
	}
}

const advBase58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

func advRandomToken() string {
	b := make([]byte, tokens.Length)
	for i := range b {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(advBase58))))
		b[i] = advBase58[n.Int64()]
	}
	return string(b)
}

// advNearMiss changes one character of a real token.
func advNearMiss(token string, i int) string {
	b := []byte(token)
	pos := i % len(b)
	j := strings.IndexByte(advBase58, b[pos])
	b[pos] = advBase58[(j+1)%len(advBase58)]
	return string(b)
}

// ---- rounds: each approves one or two proposals and attacks their tokens ----

type advRound func(a *adversary, seq int) error

// Executes once, then every replay — any spelling, any arguments — is "used".
func roundReplay(a *adversary, seq int) error {
	n := a.nextAmount()
	id, tok, err := a.approved(a.allowed, n)
	if err != nil {
		return err
	}
	a.legit(id, n, a.try("legit call", advTransferArgs(a.allowed, advNum(n), tok, ""), outExecuted))
	a.try("replay", advTransferArgs(a.allowed, advNum(n), tok, ""), outUsed)
	a.try("replay, string amount", advTransferArgs(a.allowed, strconv.Quote(advNum(n)), tok, ""), outUsed)
	a.try("replay, other amount", advTransferArgs(a.allowed, advNum(n+1), tok, ""), outUsed)
	a.try("replay, other recipient", advTransferArgs(a.other, advNum(n), tok, ""), outUsed)
	return nil
}

// Another spelling of the same amount is the same fingerprint: it executes.
// Every third of these rounds goes through the real `solgate mcp` bridge; the
// others rotate through advSpellings(), so eight socket rounds try each once.
func roundSpelling(a *adversary, seq int) error {
	n := a.nextAmount()
	id, tok, err := a.approved(a.allowed, n)
	if err != nil {
		return err
	}
	if seq%3 == 2 {
		got := advAnswerOf(a.viaMCP(map[string]any{"lamports": advNum(n), "to": a.allowed.String(), "confirm": tok}))
		a.legit(id, n, a.check("legit call via solgate mcp, string amount", got, outExecuted))
		got = advAnswerOf(a.viaMCP(map[string]any{"to": a.allowed.String(), "lamports": n, "confirm": tok}))
		a.check("replay via solgate mcp, integer amount", got, outUsed)
		return nil
	}
	all := advSpellings(a.allowed, n, tok)
	k := int(a.spelling.Add(1)-1) % len(all)
	a.legit(id, n, a.try("legit call spelled "+all[k], all[k], outExecuted))
	a.try("replay, another spelling", all[(k+1)%len(all)], outUsed)
	return nil
}

// The token with another amount is refused and dies with its proposal.
func roundOtherAmount(a *adversary, seq int) error {
	n := a.nextAmount()
	_, tok, err := a.approved(a.allowed, n)
	if err != nil {
		return err
	}
	other := []uint64{n + 1, n - 1, n * 10, 1}[seq%4]
	a.try("other amount", advTransferArgs(a.allowed, advNum(other), tok, ""), outMismatch)
	a.try("approved arguments after the token died", advTransferArgs(a.allowed, advNum(n), tok, ""), outUsed)
	return nil
}

// The token with another (allowlisted) recipient is refused and dies.
func roundOtherRecipient(a *adversary, seq int) error {
	n := a.nextAmount()
	_, tok, err := a.approved(a.allowed, n)
	if err != nil {
		return err
	}
	a.try("other recipient", advTransferArgs(a.other, advNum(n), tok, ""), outMismatch)
	a.try("approved arguments after the token died", advTransferArgs(a.allowed, advNum(n), tok, ""), outUsed)
	return nil
}

// A token sent with arguments that do not parse (an extra field, a key
// given twice) is spent all the same: the identical call after it is
// refused as used, and nothing executes.
func roundExtraField(a *adversary, seq int) error {
	for _, v := range []struct {
		kind  string
		extra func(n uint64) string
	}{
		{"extra field", func(uint64) string { return `,"memo":"pay me"` }},
		{"repeated amount key", func(n uint64) string { return `,"lamports":` + advNum(n*2) }},
		{"repeated recipient key", func(uint64) string { return fmt.Sprintf(`,"to":%q`, a.other) }},
	} {
		n := a.nextAmount()
		_, tok, err := a.approved(a.allowed, n)
		if err != nil {
			return err
		}
		if a.try(v.kind, advTransferArgs(a.allowed, advNum(n), tok, v.extra(n)), outMalformed) == outMalformed {
			a.voided.Add(1) // refused at parsing, and its live token audited as refused
		}
		a.try("the identical call after a "+v.kind, advTransferArgs(a.allowed, advNum(n), tok, ""), outUsed)
	}
	return nil
}

// A token is bound to its own proposal's arguments, even when both are approved.
func roundCrossProposal(a *adversary, seq int) error {
	n1, n2 := a.nextAmount(), a.nextAmount()
	_, tok1, err := a.approved(a.allowed, n1)
	if err != nil {
		return err
	}
	id2, tok2, err := a.approved(a.allowed, n2)
	if err != nil {
		return err
	}
	a.try("token of another proposal", advTransferArgs(a.allowed, advNum(n2), tok1, ""), outMismatch)
	a.legit(id2, n2, a.try("legit call with its own token", advTransferArgs(a.allowed, advNum(n2), tok2, ""), outExecuted))
	a.try("the burned token on its own proposal", advTransferArgs(a.allowed, advNum(n1), tok1, ""), outUsed)
	a.try("the used token on the other proposal", advTransferArgs(a.allowed, advNum(n1), tok2, ""), outUsed)
	return nil
}

// Random and near-miss tokens are unknown and harm nothing: the real token
// still executes afterwards.
func roundRandomTokens(a *adversary, seq int) error {
	n := a.nextAmount()
	id, tok, err := a.approved(a.allowed, n)
	if err != nil {
		return err
	}
	for i := 0; i < advRandomPerRound; i++ {
		guess := advRandomToken()
		if guess == tok {
			continue // 58^-12: never, but a match would be no attack
		}
		a.try("random token", advTransferArgs(a.allowed, advNum(n), guess, ""), outUnknown)
	}
	a.try("near-miss token", advTransferArgs(a.allowed, advNum(n), advNearMiss(tok, seq), ""), outUnknown)
	a.legit(id, n, a.try("legit call after the guesses", advTransferArgs(a.allowed, advNum(n), tok, ""), outExecuted))
	return nil
}

// One token fired by many callers at once executes exactly once.
func roundConcurrent(a *adversary, seq int) error {
	n := a.nextAmount()
	id, tok, err := a.approved(a.allowed, n)
	if err != nil {
		return err
	}
	args := advTransferArgs(a.allowed, advNum(n), tok, "")
	start := make(chan struct{})
	answers := make([]advOutcome, advConcurrentCalls)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = advAnswerOf(a.post(args))
		}()
	}
	close(start)
	wg.Wait()
	// Whichever caller the gate served first wins; every other one must
	// be told the token is used.
	executed := 0
	for _, got := range answers {
		want := outUsed
		if got == outExecuted && executed == 0 {
			want = outExecuted
			executed++
		}
		a.check("concurrent use of one token", got, want)
	}
	if executed != 1 {
		a.failf("concurrent use of one token: %d of %d callers executed, want exactly 1", executed, advConcurrentCalls)
		return nil
	}
	a.legit(id, n, outExecuted)
	return nil
}

// advCycle is one of each round; its attempt count sizes the run.
var advCycle = []advRound{roundReplay, roundSpelling, roundOtherAmount, roundOtherRecipient, roundExtraField, roundCrossProposal, roundRandomTokens, roundConcurrent}

const advAttemptsPerCycle = 5 + 2 + 2 + 2 + 4 + 4 + (advRandomPerRound + 2) + advConcurrentCalls + 2 // + 2: one expiry round

func TestAdversarialTokens(t *testing.T) {
	t.Parallel()
	target := advDefaultAttempts
	if v := os.Getenv(advAttemptsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number of attempts", advAttemptsEnv, v)
		}
		target = n
	}
	cycles := (target + advAttemptsPerCycle - 1) / advAttemptsPerCycle
	a := newAdversary(t)
	ctx := context.Background()
	started := time.Now()
	walletBefore := advBalance(t, a.chain, a.wallet)

	// Phase 1: every round kind, cycles times, on advWorkers workers.
	type job struct {
		r   advRound
		seq int
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < advWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := j.r(a, j.seq); err != nil {
					a.failf("round %d: %v", j.seq, err)
				}
			}
		}()
	}
	for c := 0; c < cycles; c++ {
		for _, r := range advCycle {
			jobs <- job{r, c}
		}
	}
	close(jobs)
	wg.Wait()

	// Phase 2: expiry. Every phase-1 token has been consumed, so moving the
	// hub's clock past the TTL affects only these.
	type pending struct {
		n   uint64
		tok string
	}
	var expiring []pending
	for c := 0; c < cycles; c++ {
		n := a.nextAmount()
		_, tok, err := a.approved(a.allowed, n)
		if err != nil {
			t.Fatal(err)
		}
		expiring = append(expiring, pending{n, tok})
	}
	a.clock.advance(advTokenTTL + time.Minute)
	for _, p := range expiring {
		a.try("expired token", advTransferArgs(a.allowed, advNum(p.n), p.tok, ""), outExpired)
		a.try("expired token again", advTransferArgs(a.allowed, advNum(p.n), p.tok, ""), outUsed)
	}
	a.closeHub() // waits for executions in flight to settle the spend ledger
	took := time.Since(started)

	// What the answers said.
	a.mu.Lock()
	legit := 0
	for _, must := range a.proposals {
		if must {
			legit++
		}
	}
	gateRefusals := 0
	for o, n := range a.outcomes {
		if o.gate() {
			gateRefusals += n
		}
	}
	attempts, executed, sent := a.attempts, a.outcomes[outExecuted], a.sent
	summary := fmt.Sprintf("%d attempts in %s: %d proposals, %d legitimate executions; answers %v", attempts, took.Round(time.Millisecond), len(a.proposals), legit, a.outcomes)
	a.mu.Unlock()
	t.Log(summary)
	if attempts < target {
		t.Errorf("made %d attempts, want at least %d", attempts, target)
	}
	if executed != legit {
		t.Errorf("%d answers said executed, %d legitimate executions", executed, legit)
	}

	// The ledger: exactly the legitimate transactions, nothing to the other
	// recipient, and the wallet lost exactly their amounts and fees.
	stats, err := a.ledger.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.TransactionsExecuted != uint64(legit) || stats.TransactionsFailed != 0 {
		t.Errorf("ledger executed %d transactions (%d failed), want exactly the %d legitimate ones", stats.TransactionsExecuted, stats.TransactionsFailed, legit)
	}
	if got := advBalance(t, a.chain, a.allowed); got != sent {
		t.Errorf("recipient holds %d lamports on chain, the legitimate transfers sent %d", got, sent)
	}
	if got := advBalance(t, a.chain, a.other); got != 0 {
		t.Errorf("the redirect target holds %d lamports on chain, want 0", got)
	}
	outflow := walletBefore - advBalance(t, a.chain, a.wallet)
	if want := sent + uint64(legit)*advFee; outflow != want {
		t.Errorf("wallet lost %d lamports on chain, want %d (%d sent + %d in fees)", outflow, want, sent, uint64(legit)*advFee)
	}
	// No spend double counted: the spend ledger equals the chain's outflow.
	if s := a.authority.SpendSummary(); s.Spent != outflow || s.Reserved != 0 {
		t.Errorf("spend ledger: spent %d, reserved %d; the chain paid out %d", s.Spent, s.Reserved, outflow)
	}

	// The audit database: one verified execution per legitimate proposal,
	// none for any other; every signature on chain; every refusal audited.
	var sigs []solana.Signature
	seen := map[string]bool{}
	for id, must := range a.proposals {
		execs, err := a.store.Executions(id)
		if err != nil {
			t.Fatal(err)
		}
		row, err := a.store.GetProposal(id)
		if err != nil {
			t.Fatal(err)
		}
		if !must {
			if len(execs) != 0 || row.Status == "executed" {
				t.Errorf("proposal %s was never legitimately confirmed, yet the database holds %d executions and status %s", id, len(execs), row.Status)
			}
			continue
		}
		if len(execs) != 1 || execs[0].Outcome != store.ExecExecuted || execs[0].Fee != advFee || row.Status != "executed" {
			t.Errorf("proposal %s: database holds %+v, status %s; want one executed execution", id, execs, row.Status)
			continue
		}
		if seen[execs[0].Signature] {
			t.Errorf("signature %s recorded for two proposals", execs[0].Signature)
		}
		seen[execs[0].Signature] = true
		sig, err := solana.SignatureFromBase58(execs[0].Signature)
		if err != nil {
			t.Fatalf("proposal %s: signature %q: %v", id, execs[0].Signature, err)
		}
		sigs = append(sigs, sig)
	}
	for len(sigs) > 0 {
		batch := sigs[:min(len(sigs), 200)]
		sigs = sigs[len(batch):]
		out, err := a.chain.GetSignatureStatuses(ctx, true, batch...)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range out.Value {
			if st == nil || st.Err != nil {
				t.Errorf("recorded signature %s is not a successful transaction on chain: %+v", batch[i], st)
			}
		}
	}
	entries, err := a.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	refusedAudited := 0
	for _, e := range entries {
		if e.Kind == "token_refused" {
			refusedAudited++
		}
	}
	if want := gateRefusals + int(a.voided.Load()); refusedAudited != want {
		t.Errorf("audit trail holds %d token refusals; the gate refused %d calls and %d unparseable calls spent a live token", refusedAudited, gateRefusals, a.voided.Load())
	}
	if bad, err := a.store.VerifyAudit(); err != nil {
		t.Errorf("audit chain broken at entry %d: %v", bad, err)
	}
}

func advBalance(t *testing.T, chain *rpc.Client, pk solana.PublicKey) uint64 {
	t.Helper()
	out, err := chain.GetBalance(context.Background(), pk, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	return out.Value
}
