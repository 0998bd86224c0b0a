package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge"
)

func init() { extraCommands = append(extraCommands, newMCPCmd) }

func newMCPCmd() *cobra.Command {
	var sf *settingFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "MCP stdio server for an AI assistant: proposals only, no key",
		Long: `mcp is the server your AI assistant starts (Claude Desktop, Claude Code, any MCP
client). It holds no key, no RPC connection and no state: every tool call is
forwarded to the approval console over its Unix socket. Write tools return a
proposal that a human must approve in ` + "`solgate console`" + `; if no console is
running, every tool fails closed and says so.

stdout carries only MCP frames; logs go to stderr. --socket can also be given
as SOLGATE_SOCKET. A debugging aid: with SOLGATE_MCP_CPUPROFILE=DIR each
bridge writes a CPU profile of its life to DIR/solgate-mcp-PID.pprof.`,
		Example: `  claude mcp add solgate -- solgate mcp
  # a console running as its own account (README, "Run it safely"):
  claude mcp add solgate -- solgate mcp --socket /run/solgate/console.sock
  # Claude Desktop: {"mcpServers": {"solgate": {"command": "solgate", "args": ["mcp", "--socket", "/run/solgate/console.sock"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := sf.build()
			if err != nil {
				return err
			}
			// Non-dumpable: no other process of the agent's user can
			// ptrace the bridge, read its memory (its process secret) or
			// take its connections through /proc or pidfd_getfd, so a
			// grant bound to this process is this process's alone.
			if err := executor.MakeUndumpable(); err != nil {
				return fmt.Errorf("solgate mcp: %w", err)
			}
			relayRuntime()
			stop, err := startBridgeProfile(os.Getenv(bridgeProfileEnv))
			if err != nil {
				return err
			}
			defer stop()
			b := mcpbridge.NewBridge(s.Socket, buildVersion())
			return b.ServeStdio(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	sf = registerSettings(cmd.Flags(), "socket")
	return cmd
}

// bridgeProfileEnv is a debugging aid, off unless set: a directory where each
// `solgate mcp` process writes a CPU profile of its life (from its command's
// start to its exit) as solgate-mcp-PID.pprof, so the bridges of a
// benchmark run can be profiled together (go tool pprof -top bin/solgate
// DIR/*.pprof). Package initialisation, before main, is not in it: see
// GODEBUG=inittrace=1 for that.
const bridgeProfileEnv = "SOLGATE_MCP_CPUPROFILE"

func startBridgeProfile(dir string) (stop func(), err error) {
	if dir == "" {
		return func() {}, nil
	}
	path := filepath.Join(dir, fmt.Sprintf("solgate-mcp-%d.pprof", os.Getpid()))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bridgeProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", bridgeProfileEnv, err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// relayRuntime sizes the Go runtime for what a bridge is: a relay that
// waits on its stdin and the console's socket and does a little JSON
// between the two. It needs no parallelism, and with one P the scheduler
// no longer wakes a second thread to spin for work at every hand-off
// between goroutines; those wake-ups were a quarter of a bridge's CPU per
// call with 50 bridges on 2 cores. GOMAXPROCS in the environment still
// wins.
//
// Its collector waits for a 6 MB heap rather than 4 MB (GOGC 150; GOGC or
// GOMEMLIMIT in the environment wins). Package initialisation leaves about
// 3 MB of garbage (mcp-go's JSON Schema library's meta-schemas), so under
// GOGC 100 every bridge ran a collection soon after it started, and one of
// a hundred calls ran no other; under 150 it runs none. That was about
// 1.4 ms of CPU a bridge of a hundred calls (bridges run with GOGC=150 in
// their environment, 6 runs of 20 each: 28.2 → 26.8 ms) for about 0.4 MB
// more resident memory. A long-lived bridge's live heap is about 1 MB, so
// its heap peaks at most about 2 MB higher than under GOGC 100. A memory
// limit with the collector off was tried instead: under 8 MiB a bridge
// collected 168 times in a hundred calls.
func relayRuntime() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(bridgeGCPercent)
	}
}

// bridgeGCPercent is a bridge's GOGC (see relayRuntime).
const bridgeGCPercent = 150
