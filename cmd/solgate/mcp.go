package main

import (
	"github.com/spf13/cobra"

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
as SOLGATE_SOCKET.`,
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
			b := mcpbridge.NewBridge(s.Socket, buildVersion())
			return b.ServeStdio(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	sf = registerSettings(cmd.Flags(), "socket")
	return cmd
}
