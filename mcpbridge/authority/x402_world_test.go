package authority_test

import (
	"context"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/policy"
)

// x402World is a console whose policy allows the localnet paid API's
// origin, with per-mint caps on its asset, and a wallet holding 1.0 of it.
// The ledger runs at the default (mainnet's) pace: a blockhash lives 60 s,
// so a machine under load cannot age the payment out between its build and
// the facilitator's check.
func x402World(t *testing.T, tweak func(*policy.Config, localnet.PaidAPI)) (*world, localnet.PaidAPI) {
	return x402WorldOn(t, localnet.Options{}, tweak)
}

// x402WorldOn is x402World on a ledger started with lopts (and the paid API).
func x402WorldOn(t *testing.T, lopts localnet.Options, tweak func(*policy.Config, localnet.PaidAPI)) (*world, localnet.PaidAPI) {
	t.Helper()
	var api localnet.PaidAPI
	lopts.PaidAPI = true
	w := newWorldLedger(t, lopts, func(o *authority.Options, l *localnet.Ledger) {
		api = l.PaidAPI()
		o.Policy.AllowedX402Origins = []string{api.URL}
		o.FollowInterval = 50 * time.Millisecond
		if tweak != nil {
			tweak(&o.Policy, api)
		}
	}, nil, host.ListenConfig{})
	if _, err := w.ledger.MintTo(context.Background(), api.Mint, w.wallet.String(), 1_000_000); err != nil {
		t.Fatal(err)
	}
	return w, api
}

func withTokenCaps(perTx, perSession string) func(*policy.Config, localnet.PaidAPI) {
	return func(c *policy.Config, api localnet.PaidAPI) {
		tc := func(s string) []policy.TokenCap {
			v, err := policy.ParseTokenCap(api.Mint + "=" + s)
			if err != nil {
				panic(err)
			}
			return []policy.TokenCap{v}
		}
		if perTx != "" {
			c.MaxTokenPerTx = tc(perTx)
		}
		if perSession != "" {
			c.MaxTokenPerSession = tc(perSession)
		}
	}
}

// proposeX402 calls x402_fetch with args and requires a proposal waiting
// for the human; it returns the answer and the proposal's id.
func proposeX402(t *testing.T, a *testkit.Agent, args map[string]any) (testkit.Answer, string) {
	t.Helper()
	ans := a.Call("x402_fetch", args)
	id, _ := ans.Structured["proposal_id"].(string)
	if ans.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose: %+v", ans)
	}
	return ans, id
}

// noTokenSpend fails when the session holds any token spent or reserved.
func (w *world) noTokenSpend(t *testing.T) {
	t.Helper()
	if s := w.authority.SpendSummary(); len(s.Tokens) > 0 && (s.Tokens[0].Spent != 0 || s.Tokens[0].Reserved != 0) {
		t.Fatalf("spend after refusal: %+v", s.Tokens)
	}
}
