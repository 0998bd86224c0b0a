package main

import "context"

// consoleProposals is the queue depth issue 7 asks the console to be measured at.
const consoleProposals = 10_000

// measureConsole is the hook for the TUI's figures: View() time and console
// RSS with consoleProposals proposals queued (issue 7). The TUI (package tui)
// is being written now; once its root model exists, this function should:
//
//  1. start a console (w.startConsole) and queue consoleProposals proposals
//     through the socket API, each with its own amount (w.nextAmount);
//  2. build the TUI's root model on c.hub, feed it the hub's events the way
//     the console does, set a fixed window size, and time ansi.Strip-free
//     View() calls (p50/p99 over e.g. 200 renders; goal to be set with the
//     TUI owner);
//  3. report the RSS of a real `solgate console` process at that depth
//     (VmRSS from /proc/PID/status) — the console needs a TTY, so run it under
//     tmux or a pty.
//
// Until then it reports the two figures as pending, so the table says plainly
// that they are not measured rather than leaving them out.
func measureConsole(_ context.Context, _ *world) []row {
	const note = "hook for the TUI owner: measureConsole in cmd/solgate-bench/console.go (not measured yet)"
	return []row{
		{Name: "console View() at 10,000 proposals", Verdict: verdictPending, Note: note},
		{Name: "console RSS at 10,000 proposals", Verdict: verdictPending, Note: note},
	}
}
