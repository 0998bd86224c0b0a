package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuSplit apportions the CPU time of a throughput run between the console
// (the bench process: hub, store and operator), the bridge processes and
// the agents' clients (the agent driver and its children, reported by the
// driver) and the ledger. On a 2-core machine the rate is bounded by CPU,
// and this says whose.
type cpuSplit struct {
	ledgerPid    int
	self, ledger time.Duration
}

func startCPUSplit(ledgerPid int) *cpuSplit {
	return &cpuSplit{ledgerPid: ledgerPid, self: rusage(syscall.RUSAGE_SELF), ledger: procCPU(ledgerPid)}
}

// cpuFigures are the CPU milliseconds per item of each party.
type cpuFigures struct {
	Console, Bridges, Agents, Ledger float64
}

// stop reports the CPU per item spent by each party since start, given the
// agent driver's own CPU and its children's (the bridges).
func (c *cpuSplit) stop(items int, agents, bridges time.Duration) cpuFigures {
	self := rusage(syscall.RUSAGE_SELF) - c.self
	ledger := procCPU(c.ledgerPid) - c.ledger
	per := func(d time.Duration) float64 { return ms(d) / float64(items) }
	return cpuFigures{Console: per(self), Bridges: per(bridges), Agents: per(agents), Ledger: per(ledger)}
}

func (f cpuFigures) String() string {
	return fmt.Sprintf("CPU per proposal: console (hub, store, operator) %.2f ms, solgate mcp bridges %.2f ms (start-up included), the agents' clients %.2f ms, ledger %.2f ms",
		f.Console, f.Bridges, f.Agents, f.Ledger)
}

// bound is the rate the CPU figures allow on cpus cores: cpus ÷ the CPU
// one proposal costs all parties together.
func (f cpuFigures) bound(cpus int) float64 {
	sum := f.Console + f.Bridges + f.Agents + f.Ledger
	if sum <= 0 {
		return 0
	}
	return float64(cpus) * 1000 / sum
}

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU reads utime+stime of a running process from /proc (Linux).
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields of the whole line.
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / ticks
}
