package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"
)

// measureConsole reports the console's figures from the TUI's own
// measurements, run as `go test` subprocesses so no test hook is compiled
// into the product:
//   - View() time: tui's BenchmarkView (mean over a fixed count of renders of
//     the whole 140×40 screen with 10 and 10,000 proposals queued);
//   - resident memory and idle CPU: tui's TestConsoleFigures, which runs the
//     real `solgate console` in tmux, reads VmRSS and utime+stime from /proc,
//     idles for a window, then queues 10,000 proposals through the socket.
//
// The second takes minutes, so it runs only in the full suite.
func measureConsole(ctx context.Context, full bool) []row {
	rows := measureView(ctx)
	rows = append(rows, measureFlood(ctx, full)...)
	if !full {
		const note = "full suite only (make bench): runs the real console in tmux for minutes"
		return append(rows,
			row{Name: "console RSS at 10,000 proposals", Verdict: verdictPending, Note: note},
			row{Name: "console idle CPU", Verdict: verdictPending, Note: note})
	}
	return append(rows, measureConsoleProcess(ctx)...)
}

var benchViewLine = regexp.MustCompile(`BenchmarkView/proposals=(\d+)/140x40\S*\s+(\d+)\s+([\d.]+) ns/op`)

func measureView(ctx context.Context) []row {
	const renders = 300
	out, err := goTest(ctx, nil, "-run", "^$", "-bench", "^BenchmarkView$", "-benchtime", fmt.Sprintf("%dx", renders), "./tui/")
	if err != nil {
		return []row{errorRow("console View()", err)}
	}
	var rows []row
	for _, m := range benchViewLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		ns, _ := strconv.ParseFloat(m[3], 64)
		var g *goal
		if m[1] == "10000" {
			g = &goal{Stat: "value", Op: "<", Limit: 2, Text: "< 2 ms"}
		}
		rows = append(rows, singleRow("console View() at "+m[1]+" proposals, 140×40", n, "ms", ns/1e6, g,
			"mean of go test -bench BenchmarkView ./tui/ (whole screen, selection mid-queue)"))
	}
	if len(rows) == 0 {
		return []row{errorRow("console View()", fmt.Errorf("no BenchmarkView lines in:\n%s", out))}
	}
	return rows
}

var (
	idleLine = regexp.MustCompile(`idle, nothing pending: \d+ clock ticks \(\S+ of CPU\) over (\S+) = ([\d.]+)%; VmRSS (\d+) kB`)
	fullLine = regexp.MustCompile(`10,000 pending: VmRSS (\d+) kB`)
)

func measureConsoleProcess(ctx context.Context) []row {
	env := []string{"SOLGATE_TUI_FIGURES=1", "SOLGATE_TUI_FIGURES_WINDOW=60s"}
	out, err := goTest(ctx, env, "-count=1", "-timeout", "20m", "-run", "^TestConsoleFigures$", "-v", "./tui/")
	if err != nil {
		return []row{errorRow("console RSS / idle CPU", err)}
	}
	idle, full := idleLine.FindStringSubmatch(out), fullLine.FindStringSubmatch(out)
	if idle == nil || full == nil {
		return []row{errorRow("console RSS / idle CPU", fmt.Errorf("figures not found in:\n%s", out))}
	}
	kb := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v / 1024 }
	cpu, _ := strconv.ParseFloat(idle[2], 64)
	return []row{
		singleRow("console RSS, nothing queued", 1, "MB", kb(idle[3]), nil, "VmRSS of the real solgate console (hub, store and TUI) in tmux"),
		singleRow("console RSS at 10,000 proposals", 1, "MB", kb(full[1]), nil, "VmRSS after 10,000 proposals queued through the socket"),
		singleRow("console idle CPU over "+idle[1], 1, "%", cpu, &goal{Stat: "value", Op: "<", Limit: 0.3, Text: "< 0.3 %"}, "utime+stime from /proc while nothing happens"),
	}
}

var floodLine = regexp.MustCompile(`FLOOD key-to-frame n=(\d+) p50=([\d.]+)ms p99=([\d.]+)ms missed=(\d+); cpu=([\d.]+)% over (\S+); fps=(\d+); answers (.*)`)

// measureFlood runs tui's TestOperatorUnderFlood: one agent (a real bridge)
// proposes 50 times a second for the window (60 s, quick 5 s) while the
// operator presses a key every 200-300 ms; it reports the time from the key
// reaching the console's input to the frame showing its effect being
// written, and the CPU of the console's process over the window.
func measureFlood(ctx context.Context, full bool) []row {
	window := "60s"
	if !full {
		window = "5s"
	}
	const name = "operator key → frame, one agent proposing 50/s"
	out, err := goTest(ctx, []string{"SOLGATE_TUI_FLOOD=1", "SOLGATE_TUI_FLOOD_WINDOW=" + window},
		"-count=1", "-timeout", "5m", "-run", "^TestOperatorUnderFlood$", "-v", "./tui/")
	if err != nil {
		return []row{errorRow(name, err)}
	}
	m := floodLine.FindStringSubmatch(out)
	if m == nil {
		return []row{errorRow(name, fmt.Errorf("no FLOOD line in:\n%s", out))}
	}
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	n, _ := strconv.Atoi(m[1])
	lat := row{Name: name + " (" + m[6] + ")", N: n, Unit: "ms", P50: f(m[2]), P99: f(m[3]),
		Goal: &goal{Stat: "p99", Op: "<", Limit: 16, Text: "p99 < 16 ms"},
		Note: fmt.Sprintf("key written to the console's input → frame with its effect written, drawn on change at most %s frames/s, flood control at its defaults; %s key presses missed; agent's answers %s", m[7], m[4], m[8])}
	lat.judge()
	return []row{lat,
		singleRow("console CPU during that flood", 1, "%", f(m[5]), nil,
			"utime+stime of the console's process (hub and TUI, and the agent's MCP client; not its bridge) over the window")}
}

// goTest runs `go test` on the repository the bench runs from (make bench
// runs it at the top level) and returns its combined output.
func goTest(ctx context.Context, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 25*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"test"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("go test %v: %v\n%s", args, err, out)
	}
	return string(out), nil
}
