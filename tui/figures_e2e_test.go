package tui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// TestConsoleFigures measures the real console in tmux: idle CPU over 60 s
// with nothing pending, then resident memory and CPU with 10,000 pending
// proposals. It takes a few minutes, so it runs only with
// SOLGATE_TUI_FIGURES=1 (e.g. `SOLGATE_TUI_FIGURES=1 go test -run Figures -v ./tui/`).
func TestConsoleFigures(t *testing.T) {
	if os.Getenv("SOLGATE_TUI_FIGURES") == "" {
		t.Skip("requires SOLGATE_TUI_FIGURES=1: measures the real console for minutes (make bench runs it)")
	}
	window := 60 * time.Second
	if v := os.Getenv("SOLGATE_TUI_FIGURES_WINDOW"); v != "" {
		window, _ = time.ParseDuration(v)
	}
	// One process queues all 10,000: lift the per-agent flood limits.
	w := startConsole(t, "--max-pending-per-uid", "100000", "--max-pending", "100000", "--proposals-per-minute-per-uid", "100000")
	pid := w.term.pid()
	// The figures are CPU and memory over wall time; the first 2 s let
	// start-up's one-off work finish so that it is not counted as idle.
	time.Sleep(2 * time.Second) // behaviour under test: start-up is over before idle is measured

	rss0 := vmRSS(t, pid)
	cpu := cpuTicks(t, pid)
	time.Sleep(window) // behaviour under test: idle CPU over the window
	idle := cpuTicks(t, pid) - cpu
	t.Logf("idle, nothing pending: %d clock ticks (%s of CPU) over %s = %.3f%%; VmRSS %d kB",
		idle, ticksDuration(idle), window, 100*ticksDuration(idle).Seconds()/window.Seconds(), rss0)

	// 10,000 proposals straight through the socket API, as bridges send them.
	const n = 10_000
	httpc := mcpbridge.NewUnixHTTPClient(w.socket, time.Minute)
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > n {
					return
				}
				args := fmt.Sprintf(`{"to":%q,"lamports":%d}`, w.recipient, 1_000_000+i)
				res, err := mcpbridge.PostCall(context.Background(), httpc,
					wire.CallRequest{Client: wire.ClientInfo{Name: fmt.Sprintf("load-%d", i%5)}, Tool: "transfer_sol", Arguments: json.RawMessage(args)})
				if err != nil || res.Status() != "pending_approval" {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("proposed %d in %s (%d failed)", n, time.Since(start).Round(time.Millisecond), failed.Load())
	w.term.waitFor(time.Minute, fmt.Sprintf("QUEUE  %d pending", n-int(failed.Load())))
	time.Sleep(3 * time.Second) // behaviour under test: the queue's first redraws are not the steady state measured next
	rss := vmRSS(t, pid)
	cpu = cpuTicks(t, pid)
	time.Sleep(window) // behaviour under test: CPU over the window with 10,000 pending
	busy := cpuTicks(t, pid) - cpu
	t.Logf("10,000 pending: VmRSS %d kB; %d clock ticks (%s of CPU) over %s = %.3f%% with the 1 s countdown tick redrawing",
		rss, busy, ticksDuration(busy), window, 100*ticksDuration(busy).Seconds()/window.Seconds())

	// Quitting asks, then denies them all.
	w.term.keys("q")
	w.term.waitFor(30*time.Second, "Quit and deny them all")
	w.term.keys("y")
	if !testkit.Poll(time.Minute, func() bool { return !processAlive(pid) }) {
		t.Errorf("console still running after q y")
	}
}

func procStatus(t *testing.T, pid int, field string) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, field+":") {
			v, _ := strconv.Atoi(strings.Fields(line)[1])
			return v
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

func vmRSS(t *testing.T, pid int) int { return procStatus(t, pid, "VmRSS") }

// cpuTicks is utime+stime of pid in clock ticks.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// After the command: state is field 3 (index 0 here); utime 14, stime 15.
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return ut + st
}

// ticksDuration assumes USER_HZ = 100, as on every Linux we run on.
func ticksDuration(ticks int64) time.Duration { return time.Duration(ticks) * 10 * time.Millisecond }
