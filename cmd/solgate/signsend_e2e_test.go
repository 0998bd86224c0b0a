package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/policy"
)

// sign_and_send_transaction through the real binaries: the console in a
// terminal (tmux), `solgate mcp` driven by an MCP client, the ledger's
// @solana/kit builders making the transactions as an SDK would.

// lookupTableProgram is the address lookup table program's published id:
// on every cluster, in no default allow list.
const lookupTableProgram = "AddressLookupTab1e1111111111111111111111111"

// outsideWorld is the console world with the console open (0.1 SOL per
// transaction, 1 SOL per session, plus extra flags) and one agent on it.
type outsideWorld struct {
	*consoleWorld
	pane   testkit.Pane
	socket string
	agent  *testkit.Agent
}

func startOutsideWorld(t *testing.T, extra ...string) *outsideWorld {
	t.Helper()
	// The default (mainnet's) pace: a co-signed blockhash lives a minute,
	// time enough for a loaded machine to propose, draw and approve.
	w := newConsoleWorld(t, localnet.Options{}, 10*solana.LAMPORTS_PER_SOL)
	pane, socket := w.startConsole(t, "console", 180, 60, append([]string{"--max-sol-per-tx", "0.1", "--max-sol-per-session", "1"}, extra...)...)
	return &outsideWorld{consoleWorld: w, pane: pane, socket: socket, agent: testkit.StartAgent(t, socket, "sdk-agent")}
}

func (w *outsideWorld) build(t *testing.T, kind string, o localnet.OutsideOptions) localnet.Outside {
	t.Helper()
	out, err := w.l.BuildOutside(context.Background(), kind, w.wallet.String(), o)
	if err != nil {
		t.Fatalf("build %s: %v", kind, err)
	}
	return out
}

func lamports(t *testing.T, a testkit.Answer, key string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(a.Str(key), 10, 64)
	if err != nil {
		t.Fatalf("%s = %q in %v", key, a.Str(key), a.Structured)
	}
	return n
}

// Each accepted transaction executes only after the human pressed a, and
// the ledger then shows exactly the previewed effects.
func TestSignAndSendAcceptedThroughTheRealBinary(t *testing.T) {
	w := startOutsideWorld(t, "--allow-program", lookupTableProgram+"=lookup tables", "--allow-uncapped-token-transfers")
	const tool = "sign_and_send_transaction"
	for _, tc := range []struct {
		kind   string
		screen []string // the effects view shows these
		check  func(t *testing.T, o localnet.Outside, preview testkit.Answer)
	}{
		{"memo-transfer", []string{"Memo", "System Program"}, func(t *testing.T, o localnet.Outside, _ testkit.Answer) {
			if got := w.balance(t, solana.MustPublicKeyFromBase58(o.Accounts["recipient"])); got != 1_000_000 {
				t.Errorf("recipient has %d lamports, want 1000000", got)
			}
		}},
		{"v0-lookup", []string{"System Program"}, func(t *testing.T, o localnet.Outside, _ testkit.Answer) {
			if got := w.balance(t, solana.MustPublicKeyFromBase58(o.Accounts["recipient"])); got != 1_000_000 {
				t.Errorf("recipient (from the lookup table) has %d lamports, want 1000000", got)
			}
		}},
		{"mint-new", []string{"already signed by", "expires by block height"}, func(t *testing.T, o localnet.Outside, preview testkit.Answer) {
			got, _ := testkit.OwnerTokens(t, w.chain, w.wallet, o.Accounts["mint"])
			if got != 1_000_000_000_000 {
				t.Errorf("the wallet holds %d of the new mint, want 1000000000000", got)
			}
			// The preview's inflow is what arrived.
			if in, _ := preview.Structured["tokens_in"].(map[string]any); in[o.Accounts["mint"]] != strconv.FormatUint(got, 10) {
				t.Errorf("previewed tokens in %v, the ledger shows %d", preview.Structured["tokens_in"], got)
			}
			// Rent of the mint (82 bytes) and the token account (165 bytes):
			// (82 + 128) × 6960 + (165 + 128) × 6960.
			if got := lamports(t, preview, "rent_paid_lamports"); got != 1_461_600+2_039_280 {
				t.Errorf("previewed rent %d, want 3500880", got)
			}
		}},
		{"wsol-transfer", []string{"Token"}, func(t *testing.T, o localnet.Outside, _ testkit.Answer) {
			if got, _ := testkit.OwnerTokens(t, w.chain, solana.MustPublicKeyFromBase58(o.Accounts["recipient"]), "So11111111111111111111111111111111111111112"); got != 1_000_000 {
				t.Errorf("recipient holds %d wrapped lamports, want 1000000", got)
			}
		}},
		{"unknown-program", []string{"lookup tables (" + lookupTableProgram + ")", "admitted by --allow-program"}, func(t *testing.T, o localnet.Outside, _ testkit.Answer) {
			if _, err := w.chain.GetAccountInfo(context.Background(), solana.MustPublicKeyFromBase58(o.Accounts["lookupTable"])); err != nil {
				t.Errorf("the lookup table was not created: %v", err)
			}
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			o := w.build(t, tc.kind, localnet.OutsideOptions{})
			args := map[string]any{"transaction": o.Transaction, "label": "pay for order 4417"}
			before := w.balance(t, w.wallet)
			ans := w.agent.Call(tool, args)
			id := pendingID(t, ans, tc.kind)
			if !strings.Contains(ans.Text, "pay for order 4417") || !strings.Contains(ans.Text, "untrusted") {
				t.Errorf("the label is not shown as the agent's untrusted words:\n%s", ans.Text)
			}
			screen := w.pane.WaitApprovable(t, 30*time.Second, id)
			for _, want := range append([]string{"Out", "Fees", "Programs", "Signers", "Expiry"}, tc.screen...) {
				if !strings.Contains(w.pane.Screen(), want) {
					t.Errorf("the effects view lacks %q:\n%s", want, screen)
				}
			}
			if tc.kind == "memo-transfer" {
				// A standing grant never covers bytes built elsewhere: A
				// says so and approves nothing.
				w.pane.Keys(t, "A")
				w.pane.WaitFor(t, 30*time.Second, "sign_and_send_transaction is never covered by a grant")
			}
			// Not before a: nothing is approved, nothing moved.
			if st := w.agent.Call("proposal_status", map[string]any{"proposal_id": id}); st.Status() != "pending" {
				t.Fatalf("before a: %s %v", st.Text, st.Structured)
			}
			if w.balance(t, w.wallet) != before {
				t.Fatal("a proposal moved funds")
			}
			w.pane.Keys(t, "a")
			args["confirm"] = approvedToken(t, w.agent, id, tc.kind)
			done := w.agent.Call(tool, args)
			if done.Status() != "executed" {
				t.Fatalf("execute: %s %v", done.Text, done.Structured)
			}
			// The ledger shows exactly the previewed effects: the wallet's
			// lamports moved by the previewed SOL out (wrapped SOL moves in
			// its token account, so there only the fee leaves the wallet).
			want := lamports(t, ans, "sol_out_lamports")
			if tc.kind == "wsol-transfer" {
				want = lamports(t, ans, "fee_lamports") + lamports(t, ans, "priority_fee_lamports")
			}
			if got := before - w.balance(t, w.wallet); got != want {
				t.Errorf("the wallet lost %d lamports, the preview said %d", got, want)
			}
			tc.check(t, o, ans)
		})
	}

	// Approved, then the world changes so that the same bytes would take
	// more (the recipient's token account is gone: the idempotent create
	// now pays its rent): refused at execution, nothing sent.
	t.Run("worse at execution", func(t *testing.T) {
		// Its own compute budget, so the effects are what is outgrown.
		limit := uint32(200_000)
		o := w.build(t, "token-transfer", localnet.OutsideOptions{Precreate: true, CULimit: &limit})
		args := map[string]any{"transaction": o.Transaction}
		id := pendingID(t, w.agent.Call(tool, args), "worse at execution")
		w.pane.WaitApprovable(t, 30*time.Second, id)
		w.pane.Keys(t, "a")
		token := approvedToken(t, w.agent, id, "worse at execution")
		if err := w.l.RemoveAccount(context.Background(), o.Accounts["destination"]); err != nil {
			t.Fatal(err)
		}
		before := w.balance(t, w.wallet)
		tokens, _ := testkit.OwnerTokens(t, w.chain, w.wallet, o.Accounts["mint"])
		args["confirm"] = token
		done := w.agent.Call(tool, args)
		if done.Status() != "failed" || !strings.Contains(done.Text, "more than was approved") || !strings.Contains(done.Text, "nothing was signed or sent") {
			t.Fatalf("execute: %s %v", done.Text, done.Structured)
		}
		after, _ := testkit.OwnerTokens(t, w.chain, w.wallet, o.Accounts["mint"])
		if w.balance(t, w.wallet) != before || after != tokens {
			t.Fatal("the ledger moved")
		}
	})
}

// Each refused transaction is refused with its reason, before it bothers the
// human, and the ledger is unchanged.
func TestSignAndSendRefusedThroughTheRealBinary(t *testing.T) {
	// The retry breaker pauses a user after five denials in a minute (all
	// its processes together), so each five cases get a console of their
	// own; the cases' closures read w as it is when they run.
	var w *outsideWorld
	const tool = "sign_and_send_transaction"
	overCap := uint64(200_000_000) // 0.2 SOL: over the 0.1 SOL per-transaction cap
	for i, tc := range []struct {
		kind string
		opts localnet.OutsideOptions
		want func(o localnet.Outside) string
	}{
		{"approve", localnet.OutsideOptions{}, func(o localnet.Outside) string { return "delegate changed from none to " + o.Accounts["delegate"] }},
		{"set-authority", localnet.OutsideOptions{}, func(o localnet.Outside) string {
			return "owner changed from " + w.wallet.String() + " to " + o.Accounts["newOwner"]
		}},
		{"close-to-stranger", localnet.OutsideOptions{}, func(o localnet.Outside) string { return "send its 2039280 lamports to " + o.Accounts["destination"] }},
		{"durable-nonce", localnet.OutsideOptions{}, func(o localnet.Outside) string { return "durable nonce" }},
		{"unknown-program", localnet.OutsideOptions{}, func(localnet.Outside) string {
			return "calls program " + lookupTableProgram + ", which is not allowed"
		}},
		{"foreign-payer", localnet.OutsideOptions{}, func(o localnet.Outside) string { return "the fee payer is " + o.Accounts["feePayer"] }},
		{"missing-cosigner", localnet.OutsideOptions{}, func(o localnet.Outside) string { return "signer " + o.Accounts["mint"] + ") is missing or invalid" }},
		{"expired-cosigned", localnet.OutsideOptions{}, func(localnet.Outside) string { return "is no longer valid" }},
		// The SOL caps apply to SOL out.
		{"memo-transfer", localnet.OutsideOptions{Lamports: overCap}, func(localnet.Outside) string { return "per-transaction" }},
		// A mint with no cap is refused.
		{"token-transfer", localnet.OutsideOptions{}, func(o localnet.Outside) string { return o.Accounts["mint"] + ", which no per-mint cap bounds" }},
	} {
		if i%policy.DefaultBreakerDenials == 0 {
			w = startOutsideWorld(t)
		}
		t.Run(fmt.Sprintf("%s/%d", tc.kind, tc.opts.Lamports), func(t *testing.T) {
			o := w.build(t, tc.kind, tc.opts)
			before := w.balance(t, w.wallet)
			a := testkit.StartAgent(t, w.socket, "sdk-agent-"+tc.kind)
			ans := a.Call(tool, map[string]any{"transaction": o.Transaction})
			if ans.Status() != "denied" || !strings.Contains(ans.Text, tc.want(o)) {
				t.Fatalf("got %s %v, want denied naming %q", ans.Text, ans.Structured, tc.want(o))
			}
			if tc.kind == "unknown-program" && ans.Str("rule") != "allow_program" {
				t.Errorf("an unknown program is denied by rule %q, want the program allowlist's allow_program", ans.Str("rule"))
			}
			if w.balance(t, w.wallet) != before {
				t.Fatal("the wallet moved")
			}
		})
	}
}
