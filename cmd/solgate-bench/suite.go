package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority/startup"
)

// runSuite starts one ledger and runs each section on a console of its own.
func runSuite(ctx context.Context, bin, refDir string, slotMS int, c counts, run map[string]bool) (report, error) {
	rep := report{Started: time.Now().UTC(), Machine: machine{
		GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), CPUModel: cpuModel(), LoadBefore: loadavg(),
		NodeVersion: commandOutput("node", "--version"), Commit: commandOutput("git", "describe", "--always", "--dirty"),
	}}
	if _, err := os.Stat(bin); err != nil {
		return rep, fmt.Errorf("solgate binary %s: %w (run `make build` first)", bin, err)
	}
	// The hub runs in this process: give it the console's collector
	// settings, as `solgate console` does at start.
	if startup.ConsoleRuntime(os.Getenv) {
		rep.Machine.Runtime = "the console's GC settings (mcpbridge/authority/startup/runtime.go)"
	}
	progress("starting localnet (slot %d ms)", slotMS)
	w, err := startWorld(ctx, slotMS, bin)
	if err != nil {
		return rep, err
	}
	defer w.close()

	var integrity []string
	var floors []row
	if run["floors"] {
		// First, while nothing of ours is running yet; printed last.
		progress("floors: %d fsynced commits and %d ledger round trips", c.Floors, c.Floors)
		rows, err := measureFloors(ctx, w, c.Floors)
		if err != nil {
			rows = []row{errorRow("floors", err)}
		}
		floors = rows
	}
	if run["coldstart"] {
		progress("cold start: %d runs of solgate mcp and of the reference, alternating", c.ColdStartRuns)
		con, err := w.startConsole(ctx)
		if err != nil {
			return rep, err
		}
		rep.Rows = append(rep.Rows, measureColdStart(ctx, bin, con.socket, refDir, c.ColdStartRuns)...)
		con.close()
	}
	if run["proposals"] {
		progress("proposals: %d × (propose → visible, approve → token)", c.Proposals)
		rows, err := measureProposals(ctx, w, c.Proposals)
		if err != nil {
			rows = []row{errorRow("propose → visible / approve → token", err)}
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	if run["reads"] {
		progress("reads: %d × get_balance", c.Reads)
		rows, err := measureReads(ctx, w, c.Reads)
		if err != nil {
			rows = []row{errorRow("read round trip (get_balance)", err)}
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	if run["transfers"] {
		progress("transfers: %d confirmed, verified transfers", c.Transfers)
		rows, bad, err := measureTransfers(ctx, w, c.Transfers)
		if err != nil {
			rows = []row{errorRow("transfer", err)}
		}
		rep.Rows = append(rep.Rows, rows...)
		integrity = append(integrity, bad...)
	}
	if run["throughput"] {
		progress("throughput: %d agents, %d proposals, each denied", c.Agents, c.Throughput)
		rows, bad, err := measureThroughput(ctx, w, c.Agents, c.Throughput)
		if err != nil {
			rows = []row{errorRow("hub throughput (propose + deny)", err)}
		}
		rep.Rows = append(rep.Rows, rows...)
		integrity = append(integrity, bad...)
	}
	if run["market"] {
		progress("market: %d swaps approved after 1–30 s against a pool walking 0.1%%/s", c.Market)
		rows, err := measureMarket(ctx, w, c.Market, uint64(rep.Started.UnixNano()))
		if err != nil {
			rows = []row{errorRow("swap approvals wasted by a moving market", err)}
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	if run["console"] {
		progress("console: View() benchmark%s", map[bool]string{true: " and the real console in tmux (minutes)", false: ""}[c.ConsoleProcess])
		rep.Rows = append(rep.Rows, measureConsole(ctx, c.ConsoleProcess)...)
	}
	rep.Rows = append(rep.Rows, floors...)
	rep.Integrity = integrity
	rep.Machine.LoadAfter = loadavg()
	rep.Took = time.Since(rep.Started).Round(time.Second).String()
	return rep, nil
}
