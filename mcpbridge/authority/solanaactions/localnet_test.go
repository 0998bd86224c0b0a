package solanaactions_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	solana "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority/solanaactions"
	"github.com/solgate/solgate/policy"
)

// Addresses localnet/actions.mjs pays, derived here from their seeds the way
// the server derives them (sha256 of the seed is the 32-byte address).
func seedAddress(seed string) solana.PublicKey {
	return solana.PublicKeyFromBytes(func() []byte { h := sha256.Sum256([]byte(seed)); return h[:] }())
}

var (
	tipJar    = seedAddress("solgate localnet action tip jar")
	collector = seedAddress("solgate localnet action collector")
	memoProg  = solana.MustPublicKeyFromBase58("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
	systemID  = solana.MustPublicKeyFromBase58("11111111111111111111111111111111")
)

// actionLedger starts a ledger (its actions server is on the RPC's origin)
// and a client for its cluster that allows that origin only and records every
// origin it was asked about.
type actionWorld struct {
	l      *localnet.Ledger
	chain  *rpc.Client
	origin string
	client *solanaactions.Client
	asked  *[]string
}

func startActionWorld(t *testing.T) actionWorld {
	t.Helper()
	l, chain := testkit.StartLedger(t, localnet.Options{})
	origin, err := policy.ParseOrigin(l.RPC())
	if err != nil {
		t.Fatal(err)
	}
	cfg := policy.DefaultConfig()
	cfg.AllowedActionOrigins = []string{origin}
	var mu sync.Mutex
	asked := &[]string{}
	c, err := solanaactions.New(solanaactions.Options{
		Chain: executor.CAIP2(l.GenesisHash()),
		AllowOrigin: func(o string) error {
			mu.Lock()
			*asked = append(*asked, o)
			mu.Unlock()
			return cfg.CheckActionOrigin(o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return actionWorld{l: l, chain: chain, origin: origin, client: c, asked: asked}
}

// transfers decodes tx and lists its System transfers (to, lamports) and
// memos, checking that the wallet pays the fee.
func decodeAction(t *testing.T, raw []byte, wallet solana.PublicKey) (transfers map[solana.PublicKey]uint64, memos []string) {
	t.Helper()
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		t.Fatalf("the action's transaction does not decode: %v", err)
	}
	if got := tx.Message.AccountKeys[0]; got != wallet {
		t.Fatalf("fee payer %s; want the wallet %s", got, wallet)
	}
	transfers = map[solana.PublicKey]uint64{}
	for _, ix := range tx.Message.Instructions {
		prog := tx.Message.AccountKeys[ix.ProgramIDIndex]
		switch prog {
		case memoProg:
			memos = append(memos, string(ix.Data))
		case systemID:
			if len(ix.Data) != 12 || binary.LittleEndian.Uint32(ix.Data) != 2 {
				t.Fatalf("system instruction that is not a transfer: %x", ix.Data)
			}
			from, to := tx.Message.AccountKeys[ix.Accounts[0]], tx.Message.AccountKeys[ix.Accounts[1]]
			if from != wallet {
				t.Fatalf("transfer from %s; want the wallet", from)
			}
			transfers[to] += binary.LittleEndian.Uint64(ix.Data[4:])
		default:
			t.Fatalf("unexpected program %s", prog)
		}
	}
	return transfers, memos
}

// signAndSend signs the server's bytes with the wallet and lands them: the
// transaction the client fetched is a real one on this ledger.
func signAndSend(t *testing.T, chain *rpc.Client, raw []byte, w testkit.Wallet) {
	t.Helper()
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		if k == w.Pub {
			return &w.Key
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chain.SendTransactionWithOpts(context.Background(), tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed}); err != nil {
		t.Fatalf("send the action's transaction: %v", err)
	}
}

func TestHonestActionFromLocalnetLandsAsFetched(t *testing.T) {
	w := startActionWorld(t)
	wallet := testkit.FundedWallet(t, w.l, 2_000_000_000)
	ctx := context.Background()

	// The amount parameter fills the second link's {amount} template.
	a, err := w.client.Fetch(ctx, solanaactions.Request{
		URL: w.l.RPC() + "/api/actions/tip", Input: solanaactions.Input{"amount": {"5000"}}, Account: wallet.Pub,
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.Origin != w.origin || a.Choice != 2 || !strings.HasSuffix(a.PostURL, "/api/actions/tip?amount=5000") {
		t.Fatalf("origin %q choice %d post %q", a.Origin, a.Choice, a.PostURL)
	}
	if want := "solana:" + w.l.GenesisHash()[:32]; !slices.Equal(a.Chains, []string{want}) || a.Version != "2.4" {
		t.Fatalf("chains %q version %q; want [%s] and 2.4", a.Chains, a.Version, want)
	}
	if a.Shown.Title != "Tip jar" || a.Shown.Label != "Tip" || a.Shown.Message != "Thank you for the tip!" {
		t.Fatalf("shown %+v", a.Shown)
	}
	transfers, memos := decodeAction(t, a.Transaction, wallet.Pub)
	if len(transfers) != 1 || transfers[tipJar] != 5000 || !slices.Equal(memos, []string{"solgate localnet tip: thank you"}) {
		t.Fatalf("transfers %v memos %q; want 5000 lamports to the tip jar and the memo", transfers, memos)
	}

	before := testkit.Balance(t, w.chain, tipJar)
	signAndSend(t, w.chain, a.Transaction, wallet)
	testkit.Eventually(t, 30*time.Second, "the tip jar holding 5000 more lamports", func() bool {
		return testkit.Balance(t, w.chain, tipJar) == before+5000
	}, nil)
	for _, o := range *w.asked {
		if o != w.origin {
			t.Errorf("asked about origin %q; only %q was involved", o, w.origin)
		}
	}
}

func TestEveryURLFormReachesTheSameAction(t *testing.T) {
	w := startActionWorld(t)
	wallet := testkit.NewWallet(t)
	api := w.l.RPC() + "/api/actions/tip"
	for _, tc := range []struct{ name, url, wantPost string }{
		{"api URL", api, "/api/actions/tip?amount=1000000"},
		{"solana-action: plain", "solana-action:" + api, "/api/actions/tip?amount=1000000"},
		{"solana-action: encoded", "solana-action:" + url.QueryEscape(api+"?ref=x"), "/api/actions/tip?amount=1000000"},
		// The interstitial site is never contacted: it is unreachable, and
		// only the ledger's origin is ever asked about.
		{"blink", "https://blinks.invalid/?action=" + url.QueryEscape("solana-action:"+api), "/api/actions/tip?amount=1000000"},
		// actions.json: /tip maps to the API, /donate/* captures a segment.
		{"website via actions.json", w.l.RPC() + "/tip", "/api/actions/tip?amount=1000000"},
		{"website capture via actions.json", w.l.RPC() + "/donate/overreach", "/api/actions/overreach"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			*w.asked = nil
			a, err := w.client.Fetch(context.Background(), solanaactions.Request{URL: tc.url, Account: wallet.Pub})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(a.PostURL, tc.wantPost) {
				t.Fatalf("posted to %s; want ...%s", a.PostURL, tc.wantPost)
			}
			for _, o := range *w.asked {
				if o != w.origin {
					t.Fatalf("asked about %q", o)
				}
			}
		})
	}
}

func TestOverreachingActionsBytesSayMoreThanItsTitle(t *testing.T) {
	w := startActionWorld(t)
	wallet := testkit.NewWallet(t)
	a, err := w.client.Fetch(context.Background(), solanaactions.Request{URL: w.l.RPC() + "/api/actions/overreach", Account: wallet.Pub})
	if err != nil {
		t.Fatal(err)
	}
	// The words are the server's, shown and flagged; the bytes say more.
	if a.Shown.Title != "Tip 0.001 SOL" || !slices.Contains(a.Shown.Flags, "is safe") || !slices.Contains(a.Shown.Flags, "approve") {
		t.Fatalf("shown %+v; want the title and the instruction-like description flagged", a.Shown)
	}
	transfers, _ := decodeAction(t, a.Transaction, wallet.Pub)
	if transfers[tipJar] != 1_000_000 || transfers[collector] != 200_000_000 {
		t.Fatalf("transfers %v; want 0.001 SOL to the tip jar and 0.2 SOL to the collector", transfers)
	}
}

func TestActionInputErrorsNameTheParameter(t *testing.T) {
	w := startActionWorld(t)
	wallet := testkit.NewWallet(t)
	for _, tc := range []struct {
		name  string
		input solanaactions.Input
		says  []string
	}{
		{"missing required", solanaactions.Input{"link": {"2"}}, []string{"input.amount is required by choice 2", "a whole number of lamports"}},
		{"pattern", solanaactions.Input{"amount": {"1e6"}}, []string{"input.amount = \"1e6\" does not match"}},
		{"unknown key", solanaactions.Input{"link": {"2"}, "amount": {"5"}, "to": {"x"}}, []string{"input.to is not a parameter of choice 2", "amount (required)"}},
		{"link out of range", solanaactions.Input{"link": {"3"}}, []string{"want a position from 1 to 2", `1 "Tip 0.001 SOL"`, `2 "Tip" with amount (required)`}},
		{"nothing fits", solanaactions.Input{"memo": {"hi"}}, []string{"no choice of this action takes exactly the parameters given (input.memo)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.client.Fetch(context.Background(), solanaactions.Request{URL: w.l.RPC() + "/api/actions/tip", Input: tc.input, Account: wallet.Pub})
			if !errors.Is(err, solanaactions.ErrInput) {
				t.Fatalf("err = %v; want ErrInput", err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Fatalf("err = %v; want it to say %q", err, s)
				}
			}
		})
	}
}

func TestActionForAnotherClusterRefused(t *testing.T) {
	l, _ := testkit.StartLedger(t, localnet.Options{Network: "devnet"})
	origin, _ := policy.ParseOrigin(l.RPC())
	// A console on mainnet reaching a devnet action server.
	c, err := solanaactions.New(solanaactions.Options{
		Chain:       "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
		AllowOrigin: func(o string) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Fetch(context.Background(), solanaactions.Request{URL: l.RPC() + "/api/actions/tip", Account: testkit.NewWallet(t).Pub})
	if !errors.Is(err, solanaactions.ErrWrongChain) || !strings.Contains(err.Error(), "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1") {
		t.Fatalf("err = %v; want ErrWrongChain naming devnet's id (origin %s)", err, origin)
	}
}
