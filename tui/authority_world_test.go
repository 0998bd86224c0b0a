package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/gagliardetto/solana-go"
	"github.com/muesli/termenv"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// authorityWorld is a real hub on a real ledger (localnet), without a socket:
// proposals come in through authority.Call as a bridge would send them.
type authorityWorld struct {
	ledger    *localnet.Ledger
	authority *authority.Hub
	genesis   string
	allowed   solana.PublicKey
	amount    atomic.Uint64 // each proposal gets distinct arguments
}

var (
	worldsMu sync.Mutex
	worlds   = map[string]*authorityWorld{}
)

// sharedWorld starts one ledger and hub per network for the whole test
// binary; every test proposes with fresh arguments, so they do not interfere.
func sharedWorld(t *testing.T, network string) *authorityWorld {
	t.Helper()
	worldsMu.Lock()
	defer worldsMu.Unlock()
	if w, ok := worlds[network]; ok {
		return w
	}
	ctx := context.Background()
	ledgerNetwork, remote := network, network == unknownRemote
	if remote {
		ledgerNetwork = ""
	}
	// Not testkit.StartLedger: that one ends with its test, and this ledger
	// serves the whole binary (TestMain stops it).
	l, err := localnet.Start(ctx, localnet.Options{Network: ledgerNetwork})
	if err != nil {
		t.Fatalf("localnet: %v", err)
	}
	key, _ := executor.NewRandomKeypair()
	testkit.Fund(t, l, key.PublicKey(), 10*solana.LAMPORTS_PER_SOL)
	allowed, _ := executor.NewRandomKeypair()
	cfg := policy.DefaultConfig()
	cfg.AllowRecipients = []string{allowed.PublicKey().String()}
	cfg.AllowMainnet = true
	cfg.AllowUnknownNetwork = true
	cfg.MaxLamportsPerSession = 5 * solana.LAMPORTS_PER_SOL
	spend, err := policy.NewSpend(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rpcURL := l.RPC()
	if remote {
		rpcURL = remoteURL(t, rpcURL)
	}
	client := executor.NewClient(rpcURL, executor.ClientOptions{})
	net, genesis, err := client.DetectNetwork(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if remote && net != executor.UnknownNetwork {
		t.Fatalf("ledger behind %s identified as %s, want %s", rpcURL, net, executor.UnknownNetwork)
	}
	ex := executor.New(client, key, executor.Options{})
	swapAPI, err := executor.NewSwapClient(l.SwapAPI(), executor.SwapClientOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h, err := authority.New(authority.Options{
		Executor: ex, Swapper: executor.NewSwapper(ex, swapAPI, executor.SwapOptions{}),
		Network: net, Genesis: genesis, Policy: cfg, Spend: spend,
		// Every test proposes as fast as it likes; flood control is
		// tested in the hub and in tmux.
		ProposalsPerMinute: 100_000, MaxPendingPerUID: 100_000, MaxPending: 100_000,
	})
	if err != nil {
		t.Fatal(err)
	}
	w := &authorityWorld{ledger: l, authority: h, genesis: genesis, allowed: allowed.PublicKey()}
	w.amount.Store(1_000_000)
	worlds[network] = w
	return w
}

// unknownRemote is the sharedWorld whose ledger reports a genesis hash of
// no public cluster, reached through an RPC URL that is not loopback.
const unknownRemote = "unknown-remote"

// remoteURL rewrites a loopback ledger URL to http://0.0.0.0:PORT. Linux
// delivers a connection to 0.0.0.0 to this machine, but the address is not
// in 127.0.0.0/8, so solgate must not call what answers there a local ledger.
func remoteURL(t *testing.T, loopback string) string {
	t.Helper()
	u, err := url.Parse(loopback)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "0.0.0.0:" + u.Port()
	return u.String()
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, w := range worlds {
		w.authority.Close()
		_ = w.ledger.Close()
	}
	os.Exit(code)
}

// propose makes a new pending proposal through the hub's front door.
func (w *authorityWorld) propose(t *testing.T, client string) *authority.Proposal {
	t.Helper()
	amount := w.amount.Add(1000)
	args := fmt.Sprintf(`{"to":%q,"lamports":%d}`, w.allowed, amount)
	res := w.authority.Call(context.Background(), wire.CallRequest{
		Client: wire.ClientInfo{Name: client}, Tool: wire.ToolTransferSOL, Arguments: json.RawMessage(args),
	})
	id, _ := res.Structured["proposal_id"].(string)
	if res.IsError || id == "" {
		t.Fatalf("propose: %+v", res)
	}
	p, ok := w.authority.Proposal(id)
	if !ok {
		t.Fatalf("proposal %s not in the hub", id)
	}
	return p
}

func (w *authorityWorld) status(t *testing.T, id string) approval.Status {
	t.Helper()
	p, ok := w.authority.Proposal(id)
	if !ok {
		t.Fatalf("proposal %s vanished", id)
	}
	return p.Status
}

// newClock is a settable time source for the model (the hub keeps real time).
func newClock() *testkit.Clock { return testkit.NewClock(time.Now()) }

// authorityModel builds the console's model on a real hub, as Run does.
func authorityModel(w *authorityWorld, c *testkit.Clock) *model {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	h := consoleservice.Of(w.authority)
	m := newModel(config{
		ops: h, network: h.Network(), genesis: w.genesis, wallet: h.Wallet(), policy: h.Policy(),
		grace: defaultGrace, now: c.Now, loc: time.UTC, styles: stylesFor(r, true), after: noTimer,
	}, h.Proposals(), readState(h))
	m.Update(sizeMsg(100, 30))
	return m
}
