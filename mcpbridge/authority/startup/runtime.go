package startup

import "runtime/debug"

// The garbage collector of the process that hosts the hub: the console,
// and the benchmark, which hosts a hub in-process and must run it as the
// console does. The hub allocates about 100 KB a
// proposal over a live heap of a few MB, so at the default GOGC=100 it
// collects every few dozen proposals, and each cycle's mark workers run on
// otherwise idle cores, which still costs the process CPU. At 400 the
// collector's CPU a proposal fell from 0.12 to 0.03 ms (BenchmarkProposeDeny,
// gc-cpu-ms/op). The soft limit bounds the price in memory: the heap may
// grow to five times what is live only until the Go runtime's memory
// reaches 128 MiB. The real console in tmux (tui's TestConsoleFigures) held
// 23.8 MB idle and 145 MB with 10,000 proposals queued, against 24.9 and
// 161 MB at the default. Past the limit the collector runs as often as it
// must, at most about half the CPU: that takes some 15,000 queued
// proposals, which the flood limits (200 pending by default) never let in.
// GOGC or GOMEMLIMIT in the environment wins.
const (
	consoleGCPercent   = 400
	consoleMemoryLimit = 128 << 20
)

// ConsoleRuntime applies the console's GC settings unless the environment
// (getenv) sets either knob, and reports whether it did. Call it once, at
// the start of a process that hosts the hub.
func ConsoleRuntime(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(consoleGCPercent)
	debug.SetMemoryLimit(consoleMemoryLimit)
	return true
}
