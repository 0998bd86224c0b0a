package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet"
)

// tsCall drives the official TypeScript MCP SDK client (the one of
// mcpbridge/authority/testdata/tsclient, installed by `make tsclient-deps`)
// over the real `solgate mcp`, one call at a time: the SDK holds every
// answer to its tool's outputSchema and throws on a mismatch.
type tsCall struct {
	t    *testing.T
	in   *json.Encoder
	out  *bufio.Scanner
	next int
}

func startTS(t *testing.T, bin, socket string) *tsCall {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("the TypeScript MCP client needs node on PATH: %v", err)
	}
	dir := filepath.Join("..", "..", "mcpbridge", "authority", "testdata", "tsclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the TypeScript MCP client is not installed: run `make tsclient-deps`: %v", err)
	}
	cmd := exec.Command("node", "client.mjs", bin, "mcp", "--socket", socket)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	c := &tsCall{t: t, in: json.NewEncoder(in), out: bufio.NewScanner(out)}
	c.out.Buffer(make([]byte, 0, 64<<10), 8<<20)
	if ev := c.event(); ev["event"] != "tools" {
		t.Fatalf("the client's first event is %v, want the tools it listed", ev)
	}
	return c
}

func (c *tsCall) event() map[string]any {
	c.t.Helper()
	if !c.out.Scan() {
		c.t.Fatalf("the TypeScript client's output ended: %v", c.out.Err())
	}
	var ev map[string]any
	if err := json.Unmarshal(c.out.Bytes(), &ev); err != nil {
		c.t.Fatalf("the TypeScript client wrote %q: %v", c.out.Text(), err)
	}
	return ev
}

// call is one tool call's structured result; an SDK exception or a tool
// error fails the test.
func (c *tsCall) call(tool string, args map[string]any) map[string]any {
	c.t.Helper()
	c.next++
	if err := c.in.Encode(map[string]any{"id": c.next, "tool": tool, "args": args}); err != nil {
		c.t.Fatal(err)
	}
	ev := c.event()
	res, _ := ev["result"].(map[string]any)
	if ev["event"] != "result" || res == nil || res["isError"] == true {
		c.t.Fatalf("%s: %v", tool, ev)
	}
	st, _ := res["structuredContent"].(map[string]any)
	return st
}

// reclaim_rent end to end: three empty token accounts (two SPL Token, one
// Token-2022 carrying a transfer-fee extension) and one holding tokens.
// Through the TypeScript client and the real console, nothing moves before
// a; after a, the three are gone, the wallet is up by exactly their rent
// less the fee, and the fourth is untouched.
func TestReclaimRentThroughTheRealBinaryAndTheTypeScriptClient(t *testing.T) {
	w := newConsoleWorld(t, localnet.Options{SlotMS: 400}, 10*solana.LAMPORTS_PER_SOL)
	ctx := context.Background()
	authority := solana.NewWallet().PublicKey().String()
	var empty []string
	for i := range 2 {
		mint, err := w.l.CreateMint(ctx, uint8(6+i), authority)
		if err != nil {
			t.Fatal(err)
		}
		acct, err := w.l.MintTo(ctx, mint, w.wallet.String(), 0)
		if err != nil {
			t.Fatal(err)
		}
		empty = append(empty, acct)
	}
	fee2022, err := w.l.CreateMint2022(ctx, localnet.Mint2022{Decimals: 6, TransferFee: true, TransferFeeBps: 50})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := w.l.MintTo(ctx, fee2022, w.wallet.String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	empty = append(empty, acct)
	held, err := w.l.CreateMint(ctx, 6, authority)
	if err != nil {
		t.Fatal(err)
	}
	holding, err := w.l.MintTo(ctx, held, w.wallet.String(), 1_234_567)
	if err != nil {
		t.Fatal(err)
	}
	lamportsOf := func(addr string) (uint64, bool) {
		info, err := w.chain.GetAccountInfoWithOpts(ctx, solana.MustPublicKeyFromBase58(addr), &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil || info == nil || info.Value == nil {
			return 0, false
		}
		return info.Value.Lamports, true
	}
	var rent uint64
	for _, a := range empty {
		l, ok := lamportsOf(a)
		if !ok || l == 0 {
			t.Fatalf("empty account %s was not created", a)
		}
		rent += l
	}
	holdingLamports, _ := lamportsOf(holding)

	pane, socket := w.startConsole(t, "reclaim", 200, 60)
	ts := startTS(t, w.bin, socket)
	before := w.balance(t, w.wallet)
	preview := ts.call("reclaim_rent", map[string]any{})
	id, _ := preview["proposal_id"].(string)
	if preview["status"] != "pending_approval" || id == "" {
		t.Fatalf("reclaim_rent: %v", preview)
	}
	var named []string
	for _, a := range preview["accounts"].([]any) {
		named = append(named, a.(string))
	}
	slices.Sort(named)
	if want := slices.Sorted(slices.Values(empty)); !slices.Equal(named, want) {
		t.Fatalf("the preview closes %v, want exactly the empty accounts %v (never %s, which holds tokens)", named, want, holding)
	}
	if preview["rent_lamports"] != strconv.FormatUint(rent, 10) {
		t.Errorf("the preview returns %v lamports of rent, the ledger holds %d in the three accounts", preview["rent_lamports"], rent)
	}
	pane.WaitApprovable(t, 30*time.Second, id)
	screen := pane.Screen()
	for _, want := range []string{"close 3 empty token account(s)", "Token-2022", "Returns"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the console does not show %q:\n%s", want, screen)
		}
	}
	// Not before a: nothing moved.
	if st := ts.call("proposal_status", map[string]any{"proposal_id": id}); st["status"] != "pending" {
		t.Fatalf("before a: %v", st)
	}
	if got := w.balance(t, w.wallet); got != before {
		t.Fatalf("a proposal moved the wallet's lamports: %d → %d", before, got)
	}

	pane.Keys(t, "a")
	st := ts.call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	token, _ := st["confirm"].(string)
	if st["status"] != "approved" || token == "" {
		t.Fatalf("after a: %v", st)
	}
	done := ts.call("reclaim_rent", map[string]any{"confirm": token})
	if done["status"] != "executed" {
		t.Fatalf("execute: %v", done)
	}

	// The fee as the ledger charged it, not assumed: the closes carry a
	// compute budget and a priority fee besides the signature's.
	sig, err := solana.SignatureFromBase58(fmt.Sprint(done["signature"]))
	if err != nil {
		t.Fatalf("execute returned signature %v: %v", done["signature"], err)
	}
	tx, err := w.chain.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil || tx.Meta == nil {
		t.Fatalf("getTransaction %s: %v", sig, err)
	}
	fee := tx.Meta.Fee
	if got := w.balance(t, w.wallet); got != before+rent-fee {
		t.Errorf("the wallet holds %d lamports, want %d + %d rent − %d fee = %d", got, before, rent, fee, before+rent-fee)
	}
	for _, a := range empty {
		if l, ok := lamportsOf(a); ok && l > 0 {
			t.Errorf("%s still holds %d lamports: not closed", a, l)
		}
	}
	if got := w.tokens(t, w.wallet, held); got != 1_234_567 {
		t.Errorf("the account holding tokens now holds %d, want 1234567 untouched", got)
	}
	if l, ok := lamportsOf(holding); !ok || l != holdingLamports {
		t.Errorf("the account holding tokens has %d lamports (exists %v), want %d untouched", l, ok, holdingLamports)
	}
}
