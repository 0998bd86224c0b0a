package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// tmuxPane runs a command in a detached tmux session of a fixed size, so a
// test can read the screen a person would see and type into it.
type tmuxPane struct {
	t    *testing.T
	name string
}

func startTmux(t *testing.T, cols, rows int, command string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("requires tmux")
	}
	name := fmt.Sprintf("sgtest%d", time.Now().UnixNano())
	out, err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), command).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	p := &tmuxPane{t: t, name: name}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() })
	return p
}

// screen is the visible pane; normal is the main screen under the TUI's
// alternate screen (what the program printed before the TUI started).
func (p *tmuxPane) screen() string { return p.capture() }
func (p *tmuxPane) normal() string { return p.capture("-a") }

func (p *tmuxPane) capture(extra ...string) string {
	args := append([]string{"capture-pane", "-p", "-t", p.name}, extra...)
	out, err := exec.Command("tmux", args...).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	args := append([]string{"send-keys", "-t", p.name}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		p.t.Fatalf("send-keys: %v\n%s", err, out)
	}
}

// waitFor polls the screen until every want appears.
func (p *tmuxPane) waitFor(d time.Duration, wants ...string) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	var s string
	for time.Now().Before(deadline) {
		s = p.screen()
		ok := true
		for _, w := range wants {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.t.Fatalf("screen never showed %q; last screen:\n%s\nmain screen:\n%s", wants, s, p.normal())
	return ""
}

var (
	ledgerURL   = regexp.MustCompile(`ledger (http://127\.0\.0\.1:\d+)`)
	recipientRe = regexp.MustCompile(`Recipient\s+([1-9A-HJ-NP-Za-km-z]{32,44})`)
)

// The newcomer's first command, as a person would run it: the demo's
// proposal waits for a key press, approval lands the transfer on the ledger
// and the console shows it verified; the over-cap and look-alike attempts
// are refused by policy without asking.
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

	time.Sleep(1200 * time.Millisecond) // past the grace period
	p.keys("a")
	p.waitFor(60*time.Second, "verified", "max_sol_per_tx", "allow_recipients")
	bal, err := chain.GetBalance(context.Background(), recipient, rpc.CommitmentConfirmed)
	if err != nil || bal.Value != 50_000_000 {
		t.Fatalf("after approval the recipient has %v (%v), want 50000000 lamports", bal, err)
	}
	p.keys("q")
}
