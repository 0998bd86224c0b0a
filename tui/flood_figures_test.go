package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/consoleservice"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/authority/server"
	"github.com/solgate/solgate/policy"
)

// frameClock is the console's output: it notes when a frame containing
// what it waits for is written.
type frameClock struct {
	mu   sync.Mutex
	want []byte
	seen chan time.Time
}

func (f *frameClock) expect(marker string) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.want, f.seen = []byte(marker), make(chan time.Time, 1)
	return f.seen
}

func (f *frameClock) Write(p []byte) (int, error) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.want != nil && bytes.Contains(p, f.want) {
		f.seen <- now
		f.want = nil
	}
	return len(p), nil
}

// TestOperatorUnderFlood measures the console while one agent (a real
// `solgate mcp` bridge) proposes 50 times a second: the time from the
// operator's key press reaching the console's input to the frame that shows
// its effect being written, and the CPU of the console's process (hub and
// TUI; the agent's MCP client also runs in it, its bridge does not). Flood
// control is at its defaults. It runs only with SOLGATE_TUI_FLOOD=1 (make
// bench runs it; SOLGATE_TUI_FLOOD_WINDOW sets the length, default 60s), and
// prints one line the bench parses.
func TestOperatorUnderFlood(t *testing.T) {
	if os.Getenv("SOLGATE_TUI_FLOOD") == "" {
		t.Skip("requires SOLGATE_TUI_FLOOD=1: a timed measurement for make bench")
	}
	window := 60 * time.Second
	if v := os.Getenv("SOLGATE_TUI_FLOOD_WINDOW"); v != "" {
		window, _ = time.ParseDuration(v)
	}
	fps, _ := strconv.Atoi(os.Getenv("SOLGATE_TUI_FPS"))
	ctx := context.Background()
	// The benchmark's pace, by name: it measures the console, not the chain.
	l, _ := testkit.StartLedger(t, localnet.Options{SlotMS: localnet.FastSlotMS})
	key, _ := executor.NewRandomKeypair()
	to, _ := executor.NewRandomKeypair()
	testkit.Fund(t, l, key.PublicKey(), 100*solana.LAMPORTS_PER_SOL)
	cfg := policy.DefaultConfig()
	cfg.AllowRecipients = []string{to.PublicKey().String()}
	spend, _ := policy.NewSpend(nil, nil)
	client := executor.NewClient(l.RPC(), executor.ClientOptions{})
	network, genesis, err := client.DetectNetwork(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h, err := authority.New(authority.Options{Executor: executor.New(client, key, executor.Options{}), Network: network, Genesis: genesis, Policy: cfg, Spend: spend})
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := os.MkdirTemp("", "sgflood")
	defer os.RemoveAll(dir)
	ln, err := host.Listen(filepath.Join(dir, "run", "c.sock"))
	if err != nil {
		t.Fatal(err)
	}
	go server.Serve(ln, h, server.Options{})
	defer func() { ln.Close(); h.Close() }()
	agent := testkit.StartAgent(t, ln.Path(), "flood-agent")

	in, typist := io.Pipe()
	out := &frameClock{}
	runCtx, stopRun := context.WithCancel(ctx)
	ran := make(chan error, 1)
	firstFrame := out.expect("QUEUE") // before Run, so the first frame cannot slip past
	go func() {
		ran <- Run(runCtx, Options{Service: consoleservice.Of(h), Genesis: genesis, NoColor: true, NoBell: true, Input: in, Output: out, FPS: fps, Width: 120, Height: 34})
	}()
	defer func() { stopRun(); typist.Close(); <-ran }()
	select { // the first frame: the console is up
	case <-firstFrame:
	case <-time.After(30 * time.Second):
		t.Fatal("the console drew no frame within 30 s")
	}

	// The flood: one proposal every 20 ms, each with its own amount.
	var mu sync.Mutex
	answers := map[string]int{}
	floodDone := make(chan struct{})
	stopFlood := make(chan struct{})
	go func() {
		defer close(floodDone)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stopFlood:
				return
			case <-tick.C:
			}
			ans, err := agent.Try("transfer_sol", map[string]any{"to": to.PublicKey().String(), "lamports": 1_000_000 + i}, 10*time.Second)
			what := ans.Status()
			if err != nil {
				what = "error"
			} else if r := ans.Str("rule"); r != "" {
				what += " (" + r + ")"
			}
			mu.Lock()
			answers[what]++
			mu.Unlock()
		}
	}()

	var cpu0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &cpu0)
	start := time.Now()
	var lat []time.Duration
	missed := 0
	on := false
	for time.Since(start) < window {
		marker := "agents (1, self-described)"
		if !on {
			marker = key.PublicKey().String() // w shows the full wallet
		}
		seen := out.expect(marker)
		pressed := time.Now()
		io.WriteString(typist, "w")
		on = !on
		select {
		case at := <-seen:
			lat = append(lat, at.Sub(pressed))
		case <-time.After(time.Second):
			missed++
		}
		// Not in step with the flood's frames: a press within 1/fps of a
		// frame waits for the end of that interval, one after a quiet spell
		// is drawn at once.
		time.Sleep(200*time.Millisecond + time.Duration(rand.Int64N(int64(100*time.Millisecond)))) // behaviour under test: an operator's typing pace
	}
	elapsed := time.Since(start)
	var cpu1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &cpu1)
	close(stopFlood)
	<-floodDone

	cpu := time.Duration(cpu1.Utime.Nano()+cpu1.Stime.Nano()) - time.Duration(cpu0.Utime.Nano()+cpu0.Stime.Nano())
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) == 0 {
		t.Fatalf("no key press reached the screen (%d missed)", missed)
	}
	pct := func(p int) float64 {
		i := (p*len(lat) + 99) / 100
		return float64(lat[max(i-1, 0)].Microseconds()) / 1000
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("FLOOD key-to-frame n=%d p50=%.2fms p99=%.2fms missed=%d; cpu=%.1f%% over %s; fps=%d; answers %v",
		len(lat), pct(50), pct(99), missed, 100*cpu.Seconds()/elapsed.Seconds(), elapsed.Round(time.Second), fpsOf(fps), fmt.Sprint(answers))
	if missed > 0 {
		t.Errorf("%d key presses did not reach the screen within 1 s", missed)
	}
}
