package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/localnet/testkit"
)

// tmuxPane runs a command in a detached tmux session of a fixed size, so a
// test can read the screen a person would see and type into it. Each pane has
// a tmux server of its own (-L): on the shared default server, another test
// killing the last session stops the server under a session being created.
type tmuxPane struct {
	t    *testing.T
	name string
}

func startTmux(t *testing.T, cols, rows int, command string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("requires tmux")
	}
	p := &tmuxPane{t: t, name: fmt.Sprintf("sgtest%d-%d", os.Getpid(), time.Now().UnixNano())}
	out, err := p.pane().Tmux("new-session", "-d", "-s", p.name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), command)
	if err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = p.pane().Tmux("kill-server") })
	return p
}

func (p *tmuxPane) pane() testkit.Pane { return testkit.Pane{Server: p.name, Target: p.name} }

// screen is the visible pane; normal is the main screen under the TUI's
// alternate screen (what the program printed before the TUI started).
func (p *tmuxPane) screen() string { return p.pane().Screen() }
func (p *tmuxPane) normal() string { return p.pane().Normal() }

func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	p.pane().Keys(p.t, keys...)
}

// waitFor polls the screen until every want appears on it at once.
func (p *tmuxPane) waitFor(d time.Duration, wants ...string) string {
	p.t.Helper()
	return p.pane().WaitFor(p.t, d, wants...)
}

// sawAll polls until each want has appeared on some screen, not necessarily
// together: log lines scroll.
func (p *tmuxPane) sawAll(d time.Duration, wants ...string) {
	p.t.Helper()
	p.pane().SawAll(p.t, d, wants...)
}

var (
	ledgerURL   = regexp.MustCompile(`ledger (http://127\.0\.0\.1:\d+)`)
	recipientRe = regexp.MustCompile(`Recipient\s+([1-9A-HJ-NP-Za-km-z]{32,44})`)
	walletRe    = regexp.MustCompile(`demo wallet ([1-9A-HJ-NP-Za-km-z]{32,44}) funded`)
)

// The newcomer's first command, as a person would run it: the demo's
// proposal waits for a key press, approval lands the transfer on the ledger
// and the console shows it verified; the over-cap and look-alike attempts
// are refused by policy without asking; the swap into a token whose name
// tries to instruct the model waits for the human and, approved, lands.
func TestDemoStoryInARealTerminal(t *testing.T) {
	bin := solgateBinary(t)
	p := startTmux(t, 140, 40, bin+" demo --slot-ms 50; sleep 60")
	screen := p.waitFor(60*time.Second, "1 pending", "PENDING")
	m := recipientRe.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no recipient on screen:\n%s", screen)
	}
	recipient := solana.MustPublicKeyFromBase58(m[1])
	u := ledgerURL.FindStringSubmatch(p.normal())
	if u == nil {
		t.Fatalf("demo did not print its ledger:\n%s", p.normal())
	}
	chain := rpc.New(u[1])
	if bal, err := chain.GetBalance(context.Background(), recipient, rpc.CommitmentConfirmed); err != nil || bal.Value != 0 {
		t.Fatalf("before approval the recipient has %v (%v)", bal, err)
	}

	p.pane().WaitApprovable(t, 30*time.Second, "")
	p.keys("a")
	// allow_recipient is the look-alike attempt: it is the only one off the allowlist.
	p.sawAll(90*time.Second, "verified", "max_sol_per_tx", "allow_recipient", "swap 0.05 SOL")
	bal, err := chain.GetBalance(context.Background(), recipient, rpc.CommitmentConfirmed)
	if err != nil || bal.Value != 50_000_000 {
		t.Fatalf("after approval the recipient has %v (%v), want 50000000 lamports", bal, err)
	}

	// The swap into the hostile token waits for the human too. It is the
	// only pending proposal, so the console selects it when it arrives:
	// wait until the marker is on its row and its grace period is over.
	// (Pressing k here once moved the selection off it and restarted the
	// grace period, and the a that followed was ignored.)
	wallet := walletRe.FindStringSubmatch(p.normal())
	if wallet == nil {
		t.Fatalf("demo did not print its wallet:\n%s", p.normal())
	}
	p.pane().WaitApprovable(t, 60*time.Second, "")
	p.keys("a")
	p.sawAll(60*time.Second, "swapped 0.05 SOL")
	// The wallet holds the demo's USDC-like token too; the swap's output is
	// the bait token's account, the one that is neither empty-handed nor the
	// 25 demo tokens.
	accts, err := chain.GetTokenAccountsByOwner(context.Background(), solana.MustPublicKeyFromBase58(wallet[1]),
		&rpc.GetTokenAccountsConfig{ProgramId: &solana.TokenProgramID}, &rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64})
	if err != nil || len(accts.Value) != 2 {
		t.Fatalf("wallet token accounts after the swap: %v (%v)", accts, err)
	}
	var swapped bool
	for _, a := range accts.Value {
		data := a.Account.Data.GetBinary()
		if n := binary.LittleEndian.Uint64(data[64:72]); n != 0 && n != 25_000_000 {
			swapped = true
		}
	}
	if !swapped {
		t.Fatalf("the swap left the wallet's bait token account empty")
	}

	// Last, a token transfer under a per-mint cap: approve it and read the
	// recipient's token balance back from the ledger.
	p.waitFor(60*time.Second, "1 pending", "send 2.5")
	p.pane().WaitApprovable(t, 30*time.Second, "")
	p.keys("a")
	p.waitFor(60*time.Second, "0 pending", "That's the story")
	got, err := chain.GetTokenAccountsByOwner(context.Background(), recipient,
		&rpc.GetTokenAccountsConfig{ProgramId: &solana.TokenProgramID}, &rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil || len(got.Value) != 1 || binary.LittleEndian.Uint64(got.Value[0].Account.Data.GetBinary()[64:72]) != 2_500_000 {
		t.Fatalf("recipient's token accounts after the token transfer: %v (%v)", got, err)
	}
	p.keys("q")
}

// logEntries reads the log column of a wide console screen (left of the
// detail's "│") and joins each entry's wrapped lines into one line.
func logEntries(screen string) []string {
	var entries []string
	inLog := false
	for _, line := range strings.Split(screen, "\n") {
		left, _, _ := strings.Cut(line, "│")
		switch {
		case strings.HasPrefix(left, "LOG"):
			inLog = true
			continue
		case !inLog:
			continue
		case strings.HasPrefix(left, "  ↓ "), strings.TrimSpace(left) == "":
			continue
		case strings.HasPrefix(left, "  ") && len(entries) > 0:
			sep := " "
			if strings.HasSuffix(entries[len(entries)-1], "-") {
				sep = "" // wrapped after a hyphen
			}
			entries[len(entries)-1] += sep + strings.TrimSpace(left)
		default:
			entries = append(entries, strings.TrimSpace(left))
		}
	}
	return entries
}

// At 120x34, the size a side terminal often has, the demo's story can be followed: every
// line the agent narrates and every denial can be read whole in the log,
// scrolling back with [ where they have scrolled away.
func TestDemoReadableAt120x34(t *testing.T) {
	bin := solgateBinary(t)
	p := startTmux(t, 120, 34, bin+" demo --slot-ms 50; sleep 60")
	p.waitFor(60*time.Second, "1 pending", "PENDING")
	p.pane().WaitApprovable(t, 30*time.Second, "")
	p.keys("a")
	p.sawAll(90*time.Second, "swap 0.05 SOL")
	p.pane().WaitApprovable(t, 60*time.Second, "")
	p.keys("a")
	p.sawAll(90*time.Second, "swapped 0.05 SOL")
	p.waitFor(60*time.Second, "1 pending", "send 2.5")
	p.pane().WaitApprovable(t, 30*time.Second, "")
	p.keys("a")
	p.sawAll(90*time.Second, "That's the story")
	// The console draws each change as it comes, so a capture can fall
	// between the frame that adds the last entry and the one that settles
	// the log around it: wait for the newest entry to be shown whole.
	const last = "That's the story: nothing moved without your key press. Press q to leave."
	testkit.Eventually(t, 30*time.Second, "the story's last entry shown whole in the log", func() bool {
		return strings.Contains(strings.Join(logEntries(p.screen()), "\n"), last)
	}, p.screen)

	// Scroll from the newest entry back to the oldest, collecting entries.
	seen := map[string]bool{}
	var all []string
	for i := 0; i < 60; i++ {
		s := p.screen()
		for _, e := range logEntries(s) {
			if !seen[e] {
				seen[e] = true
				all = append(all, e)
			}
		}
		if strings.Contains(s, "console open on") {
			break
		}
		p.keys("[")
		// The log scrolls back: wait for the screen to change (at the
		// oldest entry it does not, and the loop ends on its words).
		testkit.Poll(5*time.Second, func() bool { return p.screen() != s })
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"Hi! I'm a scripted assistant. First, a look at the wallet.",
		"Now I'll try 4.6 SOL to the same address — far above the 0.1 SOL per-transfer cap.",
		"It never reached your queue.",
		"an address that only looks like the one above (address poisoning).",
		"above the per-transaction cap of 0.1 SOL (100000000 lamports); a smaller amount may pass, this one will not.",
		"denied by allow_recipient",
		"The name says to ignore limits. I won't. I'll propose a 0.05 SOL swap into it and leave the call to you.",
		"a token transfer, bounded by a per-mint cap.",
		// The look-alike's denial warns instead of offering to allow it,
		// and the IMPOSTOR flag on the demo's token is explained.
		"possible address poisoning. Do not allowlist it",
		"On a real cluster that is a reason to deny (d).",
		last,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("%q cannot be read in the log at 120x34; entries seen:\n%s", want, text)
		}
	}
	for _, e := range all {
		if strings.Contains(e, "poisoning") && strings.Contains(e, "--allow-recipient") {
			t.Errorf("the look-alike's denial suggests allowlisting it: %q", e)
		}
		if strings.HasSuffix(e, "…") {
			t.Errorf("a log entry is cut: %q", e)
		}
	}
	p.keys("q")
}
