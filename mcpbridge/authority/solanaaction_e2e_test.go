package authority_test

import (
	"context"
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"
	"time"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/policy"
)

// The addresses localnet/actions.mjs pays: sha256 of their seeds.
func actionSeedAddress(seed string) solana.PublicKey {
	h := sha256.Sum256([]byte(seed))
	return solana.PublicKeyFromBytes(h[:])
}

var (
	actionTipJar    = actionSeedAddress("solgate localnet action tip jar")
	actionCollector = actionSeedAddress("solgate localnet action collector")
)

func (w *world) actionRequests(t *testing.T) (gets, posts uint64) {
	t.Helper()
	s, err := w.ledger.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s.ActionGets, s.ActionPosts
}

// The honest action through the real bridge: a proposal that moves nothing,
// a preview naming the origin, where the SOL goes and the server's words as
// untrusted; after the human's approval the ledger shows exactly the
// previewed effects: the tip jar up by the tip, the wallet down by the
// previewed SOL out. The server is not asked again at execution.
func TestHonestActionExecutesOnlyAfterApprovalWithItsPreviewedEffects(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	const tip = 5000
	args := map[string]any{"url": w.ledger.RPC() + "/api/actions/tip", "input": map[string]any{"amount": "5000"}}
	walletBefore, jarBefore := w.balance(t, w.wallet), w.balance(t, actionTipJar)

	ans := a.Call("solana_action", args)
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.IsError || ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose: %+v", ans)
	}
	origin, _ := policy.ParseOrigin(w.ledger.RPC())
	for _, want := range []string{
		"nothing has been signed or sent",
		"Origin: " + origin + " (allowed by --allow-action-origin)",
		"Receives: " + actionTipJar.String() + " gets 0.000005 SOL",
		`Said (untrusted, never checked): "the action's title: Tip jar"`,
		`Said (untrusted, never checked): "the action's button: Tip"`,
		`Said (untrusted, never checked): "the action's message: Thank you for the tip!"`,
	} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("preview lacks %q:\n%s", want, ans.Text)
		}
	}
	if strings.Contains(ans.Text, actionCollector.String()) {
		t.Errorf("the honest action's preview names the collector:\n%s", ans.Text)
	}
	if w.balance(t, w.wallet) != walletBefore || w.balance(t, actionTipJar) != jarBefore || w.executed(t) != 0 {
		t.Fatal("a proposal moved funds")
	}
	previewedOut := ans.Str("sol_out_lamports")
	_, postsBefore := w.actionRequests(t)

	done := w.execute(t, a, "solana_action", id, args)
	if done.Status() != "executed" || !strings.Contains(done.Text, "EXECUTED and verified on chain") {
		t.Fatalf("execute: %+v", done)
	}
	if got := w.balance(t, actionTipJar); got != jarBefore+tip {
		t.Fatalf("tip jar %d; want %d + %d", got, jarBefore, tip)
	}
	out := walletBefore - w.balance(t, w.wallet)
	if previewedOut == "" || previewedOut != strconv.FormatUint(out, 10) {
		t.Fatalf("wallet paid %d lamports; the preview said %s", out, previewedOut)
	}
	if _, posts := w.actionRequests(t); posts != postsBefore {
		t.Fatalf("the server was asked again at execution (%d POSTs, %d before)", posts, postsBefore)
	}
	// Never covered by a standing grant: its effects differ per call.
	next := a.Call("solana_action", map[string]any{"url": args["url"], "input": map[string]any{"amount": "6000"}})
	nid, _ := next.Structured["proposal_id"].(string)
	if next.Status() != "pending_approval" {
		t.Fatalf("second tip: %+v", next)
	}
	if _, _, err := w.authority.ApproveWithGrant(nid, "operator", approval.GrantTerms{Count: 3, Ceiling: 10_000_000, For: time.Minute}); err == nil || !strings.Contains(err.Error(), "solana_action is never covered by a grant") {
		t.Fatalf("grant on an action: %v", err)
	}
	// The token is spent: the same call again is refused, nothing moves.
	again := a.Call("solana_action", map[string]any{"url": args["url"], "input": args["input"], "confirm": done.Str("confirm")})
	if again.Status() == "executed" {
		t.Fatalf("a second execution: %+v", again)
	}
}

// The over-reaching action: its title says 0.001 SOL, its bytes send 0.2
// SOL more. Within the caps the preview shows where the 0.2 SOL goes; under
// a session cap it leaves, the proposal is denied by that cap and the ledger
// does not move.
func TestOverreachingActionsExtraOutflowIsPreviewedAndCapped(t *testing.T) {
	t.Run("a payee not on the recipient allowlist", func(t *testing.T) {
		// The world's allowlist is set and names neither address the
		// action pays: the collector, a wallet, is refused by name before
		// anyone is asked, whatever the action says it does.
		w := newWorld(t, func(o *authority.Options) {
			o.Policy.MaxLamportsPerTx, o.Policy.MaxLamportsPerSession = 500_000_000, 1_000_000_000
		})
		before := w.balance(t, w.wallet)
		ans := startAgent(t, w.socket).Call("solana_action", map[string]any{"url": w.ledger.RPC() + "/api/actions/overreach"})
		if ans.Status() != "denied" || ans.Str("rule") != "allow_recipient" || !strings.Contains(ans.Str("reason"), actionCollector.String()) {
			t.Fatalf("propose: %s %v; want denied by allow_recipient naming %s", ans.Text, ans.Structured, actionCollector)
		}
		if w.balance(t, w.wallet) != before {
			t.Fatal("the ledger moved")
		}
	})

	t.Run("shown", func(t *testing.T) {
		w := newWorld(t, func(o *authority.Options) {
			o.Policy.MaxLamportsPerTx, o.Policy.MaxLamportsPerSession = 500_000_000, 1_000_000_000
			allowActionPayees(o)
		})
		a := startAgent(t, w.socket)
		ans := a.Call("solana_action", map[string]any{"url": w.ledger.RPC() + "/api/actions/overreach"})
		if ans.Status() != "pending_approval" {
			t.Fatalf("propose: %+v", ans)
		}
		for _, want := range []string{
			"Leaves the wallet: 0.201005 SOL",
			"Receives: " + actionCollector.String() + " gets 0.2 SOL",
			"Receives: " + actionTipJar.String() + " gets 0.001 SOL",
			`"the action's title: Tip 0.001 SOL"`,
		} {
			if !strings.Contains(ans.Text, want) {
				t.Errorf("preview lacks %q:\n%s", want, ans.Text)
			}
		}
		if !strings.Contains(ans.Text, "instruction-like") {
			t.Errorf("the description's \"approve\" / \"is safe\" is not flagged:\n%s", ans.Text)
		}
	})
	t.Run("capped", func(t *testing.T) {
		w := newWorld(t, func(o *authority.Options) {
			o.Policy.MaxLamportsPerTx, o.Policy.MaxLamportsPerSession = 250_000_000, 250_000_000
			allowActionPayees(o)
		})
		a := startAgent(t, w.socket)
		// 0.1 SOL tipped first, honestly: 0.15 SOL of the session is left.
		tipArgs := map[string]any{"url": w.ledger.RPC() + "/api/actions/tip", "input": map[string]any{"amount": "100000000"}}
		first := a.Call("solana_action", tipArgs)
		if first.Status() != "pending_approval" {
			t.Fatalf("tip: %+v", first)
		}
		if done := w.execute(t, a, "solana_action", first.Str("proposal_id"), tipArgs); done.Status() != "executed" {
			t.Fatalf("tip execute: %+v", done)
		}
		walletBefore, collectorBefore, executed := w.balance(t, w.wallet), w.balance(t, actionCollector), w.executed(t)
		ans := a.Call("solana_action", map[string]any{"url": w.ledger.RPC() + "/api/actions/overreach"})
		if ans.Status() != "denied" || ans.Str("rule") != policy.RulePerSession {
			t.Fatalf("over-reaching action under the session cap: %+v", ans)
		}
		if w.balance(t, w.wallet) != walletBefore || w.balance(t, actionCollector) != collectorBefore || w.executed(t) != executed {
			t.Fatal("the denied action moved funds")
		}
	})
}

// An origin the operator did not allow is refused with its reason, and its
// server is never contacted.
func TestActionFromAnOriginNotAllowedIsRefusedUncontacted(t *testing.T) {
	w := newWorld(t, func(o *authority.Options) { o.Policy.AllowedActionOrigins = []string{"https://actions.example.com"} })
	a := startAgent(t, w.socket)
	ans := a.Call("solana_action", map[string]any{"url": w.ledger.RPC() + "/api/actions/tip"})
	origin, _ := policy.ParseOrigin(w.ledger.RPC())
	if ans.Status() != "denied" || ans.Str("rule") != "allow_action_origin" || ans.Structured["retryable"] != false ||
		!strings.Contains(ans.Str("reason"), origin+" is not on the action origin allowlist") {
		t.Fatalf("origin not allowed: %+v", ans)
	}
	if gets, posts := w.actionRequests(t); gets != 0 || posts != 0 {
		t.Fatalf("the refused origin was contacted: %d GETs, %d POSTs", gets, posts)
	}
	if w.executed(t) != 0 {
		t.Fatal("something was executed")
	}
}

// The draining action: "Tip 0.001 SOL" whose bytes also send the wallet's
// whole balance of a token. A mint with no cap is refused; over its per-mint
// cap it is denied by that cap; within a cap the preview shows the token
// leaving. The wallet's tokens, read back from the ledger, never move.
func TestDrainingActionIsHeldToTheTokenCaps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cap    string // "" for none
		status string
		rule   string
	}{
		{"no cap", "", "denied", policy.RuleUncappedTransfer},
		{"over its cap", "=0.5", "denied", policy.RuleTokenPerTx},
		{"within its cap", "=2.0", "pending_approval", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var usdc string
			w := newWorldOn(t, func(o *authority.Options, l *localnet.Ledger) {
				usdc = l.DemoMints().USDC.Mint
				allowActionPayees(o)
				if tc.cap != "" {
					o.Policy.MaxTokenPerTx = capped(t, usdc+tc.cap)
				}
			})
			if _, err := w.ledger.MintTo(context.Background(), usdc, w.wallet.String(), 1_000_000); err != nil {
				t.Fatal(err)
			}
			a := startAgent(t, w.socket)
			before, _ := w.ownerTokens(t, w.wallet, usdc)
			ans := a.Call("solana_action", map[string]any{"url": w.ledger.RPC() + "/api/actions/drain"})
			if ans.Status() != tc.status || (tc.rule != "" && ans.Str("rule") != tc.rule) {
				t.Fatalf("drain: %s %v; want %s %s", ans.Text, ans.Structured, tc.status, tc.rule)
			}
			if tc.status == "pending_approval" && !strings.Contains(ans.Text, "1000000 base units of mint "+usdc) {
				t.Errorf("the preview does not show the token leaving:\n%s", ans.Text)
			}
			if tc.rule != "" && !strings.Contains(ans.Str("reason"), usdc) {
				t.Errorf("the denial does not name the mint: %s", ans.Str("reason"))
			}
			if after, _ := w.ownerTokens(t, w.wallet, usdc); after != before || w.executed(t) != 0 {
				t.Fatalf("the wallet's tokens moved: %d → %d", before, after)
			}
		})
	}
}

// allowActionPayees puts the addresses localnet's actions pay on the
// recipient allowlist: with it set, every payee that is a wallet must be.
func allowActionPayees(o *authority.Options) {
	o.Policy.AllowRecipients = append(o.Policy.AllowRecipients, actionCollector.String(), actionTipJar.String())
}

// What localnet/actions.mjs pays for the chained second tip and per jar
// picked.
const (
	actionThanksLamports = 2_000
	actionPickLamports   = 3_000
)

// An action whose POST answer chains to another (links.next, inline): the
// agent is handed the next action's description, marked as the server's
// untrusted words, with the URL to call; nothing is fetched, proposed or
// signed for it, neither at the proposal nor at the execution. Only the
// agent's own next solana_action call proposes it, for its own approval.
// On the ledger's default pace (mainnet's 400 ms slots): the callback is
// asked only once the transaction landed, at a real cluster's speed.
func TestChainedActionHandsTheNextActionToTheAgentAndProposesNothing(t *testing.T) {
	w := newWorldLedger(t, localnet.Options{}, func(*authority.Options, *localnet.Ledger) {}, nil, host.ListenConfig{})
	a := startAgent(t, w.socket)
	origin, _ := policy.ParseOrigin(w.ledger.RPC())
	args := map[string]any{"url": w.ledger.RPC() + "/api/actions/chain"}
	jarBefore := w.balance(t, actionTipJar)

	ans := a.Call("solana_action", args)
	if ans.Status() != "pending_approval" {
		t.Fatalf("propose: %+v", ans)
	}
	thanksURL := w.ledger.RPC() + "/api/actions/thanks"
	for _, want := range []string{
		"Next action offered by " + origin + " (links.next; the server's words, untrusted and never checked; nothing has been fetched, proposed or signed for it)",
		`title "One more?"`,
		`1 "Tip 0.000002 SOL" (transaction, url ` + thanksURL,
		"instruction-like text",
		"call solana_action again with a choice's url",
	} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("proposal lacks %q:\n%s", want, ans.Text)
		}
	}
	next, _ := ans.Structured["next_action"].(map[string]any)
	if next["untrusted"] != true || next["proposed"] != false {
		t.Fatalf("next_action %v", next)
	}
	gets, posts := w.actionRequests(t)
	if n := len(w.authority.Proposals()); n != 1 {
		t.Fatalf("%d proposals after one call", n)
	}

	done := w.execute(t, a, "solana_action", ans.Str("proposal_id"), args)
	if done.Status() != "executed" || !strings.Contains(done.Text, `title "One more?"`) || !strings.Contains(done.Text, "nothing has been fetched, proposed or signed for it") {
		t.Fatalf("execute: %+v", done)
	}
	if got := w.balance(t, actionTipJar); got != jarBefore+1_000_000 {
		t.Fatalf("tip jar %d; want %d + the first tip only", got, jarBefore)
	}
	if g, p := w.actionRequests(t); g != gets || p != posts {
		t.Fatalf("the next action was fetched at execution: %d/%d GETs, %d/%d POSTs", g, gets, p, posts)
	}
	if n := len(w.authority.Proposals()); n != 1 {
		t.Fatalf("%d proposals after the execution; the next action was proposed", n)
	}

	// The agent takes it: a new call, a new proposal, its own approval.
	choices, _ := next["action"].(map[string]any)["choices"].([]any)
	url, _ := choices[0].(map[string]any)["url"].(string)
	if url != thanksURL {
		t.Fatalf("next choice url %q", url)
	}
	second := a.Call("solana_action", map[string]any{"url": url})
	if second.Status() != "pending_approval" || second.Str("proposal_id") == ans.Str("proposal_id") {
		t.Fatalf("second: %+v", second)
	}
	if got := w.balance(t, actionTipJar); got != jarBefore+1_000_000 {
		t.Fatal("proposing the next action moved funds")
	}
	if d := w.execute(t, a, "solana_action", second.Str("proposal_id"), map[string]any{"url": url}); d.Status() != "executed" {
		t.Fatalf("second execute: %+v", d)
	}
	if got := w.balance(t, actionTipJar); got != jarBefore+1_000_000+actionThanksLamports {
		t.Fatalf("tip jar %d; want %d + both tips", got, jarBefore)
	}
}

// links.next as a callback (type "post"): asked once, after the
// transaction landed, with the wallet and the signature; its answer reaches
// the agent in the execution's result, marked untrusted. Nothing is
// proposed for it.
func TestChainCallbackIsAskedOnlyAfterTheTransactionLanded(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	args := map[string]any{"url": w.ledger.RPC() + "/api/actions/chainpost"}
	callbacks := func() uint64 {
		s, err := w.ledger.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return s.ActionCallbacks
	}
	ans := a.Call("solana_action", args)
	if ans.Status() != "pending_approval" || !strings.Contains(ans.Text, "the server describes it only after this transaction lands") {
		t.Fatalf("propose: %+v", ans)
	}
	if callbacks() != 0 {
		t.Fatal("the callback was asked before approval")
	}
	done := w.execute(t, a, "solana_action", ans.Str("proposal_id"), args)
	if done.Status() != "executed" || !strings.Contains(done.Text, `title "One more?"`) || !strings.Contains(done.Text, "untrusted and never checked") {
		t.Fatalf("execute: %+v", done)
	}
	if got := callbacks(); got != 1 {
		t.Fatalf("callback asked %d times; want once", got)
	}
	if n := len(w.authority.Proposals()); n != 1 {
		t.Fatalf("%d proposals; the next action was proposed", n)
	}
}

// A multi-select (checkbox) parameter reaches the server as an array of
// strings: localnet's pick action refuses anything else, and pays
// PICK_LAMPORTS per jar, read back from the ledger.
func TestMultiSelectParameterIsSentAsAnArray(t *testing.T) {
	w := newWorld(t, nil)
	a := startAgent(t, w.socket)
	args := map[string]any{"url": w.ledger.RPC() + "/api/actions/pick", "input": map[string]any{"jars": []any{"a", "c"}}}
	jarBefore := w.balance(t, actionTipJar)
	ans := a.Call("solana_action", args)
	if ans.Status() != "pending_approval" || !strings.Contains(ans.Text, "Receives: "+actionTipJar.String()+" gets 0.000006 SOL") {
		t.Fatalf("propose: %+v", ans)
	}
	if d := w.execute(t, a, "solana_action", ans.Str("proposal_id"), args); d.Status() != "executed" {
		t.Fatalf("execute: %+v", d)
	}
	if got := w.balance(t, actionTipJar); got != jarBefore+2*actionPickLamports {
		t.Fatalf("tip jar %d; want %d + 2 × %d", got, jarBefore, actionPickLamports)
	}
	// One comma-joined string is one value, and no option is "a,c".
	_, posts := w.actionRequests(t)
	bad := a.Call("solana_action", map[string]any{"url": args["url"], "input": map[string]any{"jars": "a,c"}})
	if !bad.IsError || !strings.Contains(bad.Text, `input.jars = "a,c" is not one of its options`) {
		t.Fatalf("comma-joined: %+v", bad)
	}
	if _, p := w.actionRequests(t); p != posts {
		t.Fatal("a refused input was POSTed")
	}
}
