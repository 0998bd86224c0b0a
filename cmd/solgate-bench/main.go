// Command solgate-bench measures solgate against real processes on a local
// ledger and prints one table (name, n, p50, p99, goal, result), also written
// as JSON. `make bench` runs the full suite; `make bench-quick` the small one
// CI can afford. See README.md beside this file for what each figure means.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"

	"github.com/solgate/solgate/localnet"
)

type counts struct {
	ColdStartRuns int `json:"coldstart_runs"`
	Proposals     int `json:"proposals"`
	Reads         int `json:"reads"`
	Transfers     int `json:"transfers"`
	Agents        int `json:"agents"`
	Throughput    int `json:"throughput_proposals"`
	Floors        int `json:"floor_samples"`
	Market        int `json:"market_swaps"`
	// ConsoleProcess runs the real console in tmux for RSS and idle CPU.
	ConsoleProcess bool `json:"console_process"`
}

var (
	fullCounts  = counts{ColdStartRuns: 30, Proposals: 1000, Reads: 1000, Transfers: 200, Agents: 50, Throughput: 5000, Floors: 200, Market: 200, ConsoleProcess: true}
	quickCounts = counts{ColdStartRuns: 10, Proposals: 100, Reads: 100, Transfers: 20, Agents: 50, Throughput: 500, Floors: 50, Market: 20}
)

var sections = []string{"floors", "coldstart", "proposals", "reads", "transfers", "throughput", "market", "console"}

func main() {
	if len(os.Args) == 2 && os.Args[1] == agentDriverArg {
		if err := runAgentDriver(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "solgate-bench agent driver:", err)
			os.Exit(1)
		}
		return
	}
	quick := flag.Bool("quick", false, "small counts (CI): well under 2 minutes")
	bin := flag.String("solgate", "bin/solgate", "the solgate binary under test (make build)")
	refDir := flag.String("ref-dir", "cmd/solgate-bench/refserver", "folder of the reference MCP server's npm package (npm ci there)")
	out := flag.String("out", "bench-results/bench.json", "where to write the table as JSON")
	pace := flag.String("pace", "fast", "the ledger's pace, named: fast (localnet.FastSlotMS, 20 ms slots: the hub's own costs, not the chain's) or mainnet (400 ms slots)")
	slotMS := flag.Int("slot-ms", 0, "localnet slot time in milliseconds; overrides -pace")
	strict := flag.Bool("strict", false, "exit 1 when a goal is missed (default: only when a measurement or an integrity check fails)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the bench process (which hosts the hub) to this file")
	profileThroughput := flag.Bool("throughput-profile", true, "profile the bench process (the console's hub) during the throughput run through bridges, beside -out as console-throughput.pprof, and print its top 10")
	only := flag.String("only", strings.Join(sections, ","), "comma-separated sections to run: "+strings.Join(sections, ", "))
	var c counts // 0: the mode's default, filled in below
	flag.IntVar(&c.ColdStartRuns, "coldstart-runs", 0, "cold starts of each server (default 30, quick 10)")
	flag.IntVar(&c.Proposals, "proposals", 0, "proposals timed for propose → visible and approve → token (default 1000, quick 100)")
	flag.IntVar(&c.Reads, "reads", 0, "get_balance round trips (default 1000, quick 100)")
	flag.IntVar(&c.Transfers, "transfers", 0, "confirmed transfers (default 200, quick 20)")
	flag.IntVar(&c.Agents, "agents", 0, "concurrent agents for throughput (default 50)")
	flag.IntVar(&c.Throughput, "throughput", 0, "proposals in the throughput run (default 5000, quick 500)")
	flag.IntVar(&c.Floors, "floor-samples", 0, "samples of each floor figure (default 200, quick 50)")
	flag.IntVar(&c.Market, "market-swaps", 0, "swaps approved against a drifting pool (default 200, quick 20)")
	flag.Parse()

	def := fullCounts
	mode := "full"
	if *quick {
		def, mode = quickCounts, "quick"
	}
	fill := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	fill(&c.ColdStartRuns, def.ColdStartRuns)
	fill(&c.Proposals, def.Proposals)
	fill(&c.Reads, def.Reads)
	fill(&c.Transfers, def.Transfers)
	fill(&c.Agents, def.Agents)
	fill(&c.Throughput, def.Throughput)
	fill(&c.Floors, def.Floors)
	fill(&c.Market, def.Market)
	c.ConsoleProcess = def.ConsoleProcess
	paces := map[string]int{"fast": localnet.FastSlotMS, "mainnet": localnet.MainnetSlotMS}
	if _, ok := paces[*pace]; !ok {
		fmt.Fprintf(os.Stderr, "solgate-bench: -pace %q: give fast or mainnet\n", *pace)
		os.Exit(2)
	}
	if *slotMS <= 0 {
		*slotMS = paces[*pace]
	} else {
		*pace = "custom"
	}
	run := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(sections, s) {
			fmt.Fprintf(os.Stderr, "solgate-bench: unknown section %q (have %s)\n", s, strings.Join(sections, ", "))
			os.Exit(2)
		}
		run[s] = true
	}

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "solgate-bench:", err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "solgate-bench:", err)
			os.Exit(2)
		}
	}
	if *profileThroughput && *cpuprofile == "" {
		throughputProfile = filepath.Join(filepath.Dir(*out), "console-throughput.pprof")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := runSuite(ctx, *bin, *refDir, *slotMS, c, run)
	if *cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "solgate-bench:", err)
		os.Exit(1)
	}
	rep.Mode = mode
	rep.Command = strings.Join(os.Args, " ")
	rep.Settings = map[string]any{"counts": c, "pace": *pace, "slot_ms": *slotMS, "solgate": *bin}

	printTable(os.Stdout, rep.Rows)
	rep.Profile = lastProfile
	rep.Profile.print()
	for _, f := range rep.Integrity {
		fmt.Println("INTEGRITY FAILURE:", f)
	}
	if rep.Machine.Runtime != "" {
		fmt.Printf("\nthe in-process hub ran with %s\n", rep.Machine.Runtime)
	}
	fmt.Printf("\n%s suite, %s; load average before %s, after %s (%d CPUs). JSON: %s\n",
		mode, rep.Took, rep.Machine.LoadBefore, rep.Machine.LoadAfter, rep.Machine.CPUs, *out)
	if err := writeJSON(*out, rep); err != nil {
		fmt.Fprintln(os.Stderr, "solgate-bench: write", *out+":", err)
		os.Exit(1)
	}
	code := 0
	for _, r := range rep.Rows {
		if r.Verdict == verdictError || (*strict && r.Verdict == verdictMiss) {
			code = 1
		}
	}
	if len(rep.Integrity) > 0 {
		code = 1
	}
	os.Exit(code)
}

func progress(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "solgate-bench: "+format+"\n", a...)
}

func commandOutput(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
