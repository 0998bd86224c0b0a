package mcpbridge

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// BenchmarkBridgeCall is one transfer_sol proposal through the bridge as
// the throughput benchmark drives it: a tools/call line in, the console's
// answer over the socket, the MCP result line out.
func BenchmarkBridgeCall(b *testing.B) {
	answer, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		b.Fatal(err)
	}
	p := startBridge(b, fakeConsoleOfContract(b, wire.OutputContract(), cannedAnswer(answer), 0))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		got := p.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"transfer_sol","arguments":{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":%d}}}`, i+1, 10000000+i))
		if !strings.Contains(got, `"pending_approval"`) || strings.Contains(got, `"isError":true`) {
			b.Fatalf("unexpected answer: %s", got)
		}
	}
}

// bridgeBin is a built solgate to measure in the process benchmarks
// (default: ./cmd/solgate built for the test), e.g. another revision's
// binary to compare with: go test -bench BridgeProcess -args -bridge-bin PATH
var bridgeBin = flag.String("bridge-bin", "", "solgate binary for the BridgeProcess benchmarks")

// bridgeEnv adds variables to the measured bridges' environment (e.g.
// "GOMAXPROCS=2 GOGC=200"), to try the runtime's settings.
var bridgeEnv = flag.String("bridge-env", "", "space-separated NAME=VALUE added to the BridgeProcess benchmarks' bridges")

// bridgeCalls is how many calls each bridge of
// BenchmarkBridgeProcessesLikeThroughput makes (20: the benchmark's -throughput 1000; 100: its default 5000).
var bridgeCalls = flag.Int("bridge-calls", 20, "calls per bridge in BenchmarkBridgeProcessesLikeThroughput")

// bridgeStdioKind is how the measured bridges' stdin and stdout are
// connected: "pipe", as Go's os/exec (and with it mcp-go's stdio launcher)
// and Python's subprocess connect them, or "socketpair", as Node's
// child_process does under the TypeScript SDK (Claude Desktop, Claude Code,
// Cursor, the Inspector), and as the throughput benchmark's agents do.
var bridgeStdioKind = flag.String("bridge-stdio", "pipe", "pipe or socketpair: the BridgeProcess benchmarks' bridges' stdin and stdout")

// startBridgeStdio starts cmd with its stdin and stdout connected as
// -bridge-stdio says and returns the benchmark's ends.
func startBridgeStdio(tb testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	switch *bridgeStdioKind {
	case "pipe":
		in, err := cmd.StdinPipe()
		if err != nil {
			tb.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			tb.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			tb.Fatal(err)
		}
		return in, out
	case "socketpair":
		in, out, err := testkit.StartWithSocketpairs(cmd)
		if err != nil {
			tb.Fatal(err)
		}
		return in, out
	}
	tb.Fatalf("-bridge-stdio %q: want pipe or socketpair", *bridgeStdioKind)
	return nil, nil
}

func solgateForBench(b *testing.B) string {
	if *bridgeBin != "" {
		return *bridgeBin
	}
	return testkit.Binary(b)
}

// runBridgeProcess starts `bin mcp` on sock, initialises it, makes calls
// transfer_sol calls one after another, closes its stdin and returns the
// CPU time (user+sys, from the kernel) the process used in its whole life.
func runBridgeProcess(tb testing.TB, bin, sock string, calls int) time.Duration {
	cmd := exec.Command(bin, "mcp", "--socket", sock)
	if *bridgeEnv != "" {
		cmd.Env = append(os.Environ(), strings.Fields(*bridgeEnv)...)
	}
	in, out := startBridgeStdio(tb, cmd)
	lines := bufio.NewReader(out)
	send := func(line string) {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			tb.Fatal(err)
		}
	}
	read := func() string {
		got, err := lines.ReadString('\n')
		if err != nil {
			tb.Fatal(err)
		}
		return got
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range calls {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"transfer_sol","arguments":{"to":"Apho6zJAuBoJmMvYNM6UyApsdWEthJTakMMXzWP4uaSn","lamports":%d}}}`, i+1, 10000000+i))
		if got := read(); !strings.Contains(got, `"pending_approval"`) {
			tb.Fatalf("unexpected answer: %s", got)
		}
	}
	in.Close()
	err := cmd.Wait()
	out.Close() // a socketpair's end is ours to close; Wait closed a pipe's
	if err != nil {
		tb.Fatal(err)
	}
	sysTime.Add(int64(cmd.ProcessState.SystemTime()))
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// sysTime adds up the kernel's share of the measured bridges' CPU.
var sysTime atomic.Int64

// BenchmarkBridgeProcessCall measures what the throughput benchmark counts
// for a bridge: the CPU time of a real `solgate mcp` process per
// transfer_sol call, against a console that answers at no cost. Start-up
// and exit (the median of processes that make no call) are subtracted and
// reported on their own, and so is the first call's extra cost.
func BenchmarkBridgeProcessCall(b *testing.B) {
	answer, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		b.Fatal(err)
	}
	sock, bin := fakeConsoleOfContract(b, wire.OutputContract(), cannedAnswer(answer), 0), solgateForBench(b)
	median := func(calls int) time.Duration {
		var runs []time.Duration
		for range 7 {
			runs = append(runs, runBridgeProcess(b, bin, sock, calls))
		}
		slices.Sort(runs)
		return runs[len(runs)/2]
	}
	idle, first := median(0), median(1)
	b.ResetTimer()
	busy := runBridgeProcess(b, bin, sock, b.N)
	b.StopTimer()
	b.ReportMetric(float64((busy-idle).Microseconds())/float64(b.N), "cpu-µs/call")
	b.ReportMetric(float64(idle.Microseconds())/1000, "cpu-ms/start")
	b.ReportMetric(float64((first-idle).Microseconds())/1000, "cpu-ms/first-call")
}

// BenchmarkBridgeProcessesLikeThroughput is the throughput benchmark's
// pattern at no cost on the console's side: 50 bridge processes at once,
// each making -bridge-calls calls, while the console takes a while to
// answer each (as the real one does with 50 agents on 2 cores), so each call
// wakes an idle process. It reports the bridges' CPU per call, their whole
// lives included, as the benchmark's goal row counts it.
func BenchmarkBridgeProcessesLikeThroughput(b *testing.B) {
	answer, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		b.Fatal(err)
	}
	// The delay stands for the console's work on 49 other agents' calls.
	sock, bin := fakeConsoleOfContract(b, wire.OutputContract(), cannedAnswer(answer), 20*time.Millisecond), solgateForBench(b)
	const procs = 50
	calls := *bridgeCalls
	var total time.Duration
	sysTime.Store(0)
	for range b.N {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range procs {
			wg.Go(func() {
				d := runBridgeProcess(b, bin, sock, calls)
				mu.Lock()
				total += d
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N*procs*max(calls, 1)), "cpu-µs/call")
	b.ReportMetric(100*float64(sysTime.Load())/float64(total), "sys-%")
}
