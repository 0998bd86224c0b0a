package main

import (
	"context"
	"fmt"
	"sync"
	"syscall"
)

// lastBridgeCPU is the throughput run's bridge CPU per proposal (the
// goal row's "solgate mcp bridges" figure), its agents and proposals, for
// the breakdown row.
var lastBridgeCPU struct {
	perProposal   float64
	agents, items int
}

// noteBridgeRun keeps a throughput run's figures for bridgeBreakdown when it
// went through real bridges.
func noteBridgeRun(viaBridges bool, split cpuFigures, agents, items int) {
	if viaBridges {
		lastBridgeCPU.perProposal, lastBridgeCPU.agents, lastBridgeCPU.items = split.Bridges, agents, items
	}
}

// bridgeBreakdown is an info row beside the throughput run: how much of the
// bridges' CPU per proposal is their life without work (start-up,
// initialize, the presence request, exit) and how much is the calls. It
// starts as many bridges as that run did on a console of their own, has each
// answer `initialize` exactly as there, closes them without a call, and
// takes the CPU those children used (RUSAGE_CHILDREN, counted at exit, as
// the goal row counts it). The rest of the run's figure is the calls.
func bridgeBreakdown(ctx context.Context, w *world) []row {
	const name = "bridge CPU: start-up vs calls (info)"
	run := lastBridgeCPU
	if run.agents == 0 || run.items == 0 {
		return nil
	}
	c, err := w.startConsole(ctx)
	if err != nil {
		return []row{errorRow(name, err)}
	}
	defer c.close()
	before := rusage(syscall.RUSAGE_CHILDREN)
	agents := make([]*agent, run.agents)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var startErr error
	for i := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := startAgent(ctx, w.bin, c.socket, fmt.Sprintf("bench-idle-%02d", i))
			mu.Lock()
			defer mu.Unlock()
			if err != nil && startErr == nil {
				startErr = err
			}
			agents[i] = a
		}()
	}
	wg.Wait()
	for _, a := range agents {
		if a != nil {
			a.close()
		}
	}
	if startErr != nil {
		return []row{errorRow(name, startErr)}
	}
	life := ms(rusage(syscall.RUSAGE_CHILDREN)-before) / float64(run.agents)
	startShare := life * float64(run.agents) / float64(run.items)
	calls := run.perProposal - startShare
	note := fmt.Sprintf("a bridge's life without calls (start-up, initialize, presence, exit) costs %.1f ms CPU; %d of them over %d proposals is %.2f ms a proposal of the run's %.2f ms, so the calls cost %.2f ms a proposal (%d per bridge)",
		life, run.agents, run.items, startShare, run.perProposal, calls, run.items/run.agents)
	return []row{singleRow(name, run.items, "ms/proposal", calls, nil, note)}
}
