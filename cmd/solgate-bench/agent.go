package main

import (
	"context"
	"fmt"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/solgate/solgate/mcpbridge"
)

// agent is an MCP client driving a real `solgate mcp` subprocess over stdio,
// exactly as Claude Desktop or Claude Code would start it.
type agent struct {
	c      *mcpclient.Client
	client string // how the hub names it: clientInfo "name version"
}

func startAgent(ctx context.Context, bin, socket, name string) (*agent, error) {
	c, err := mcpclient.NewStdioMCPClient(bin, nil, "mcp", "--socket", socket)
	if err != nil {
		return nil, fmt.Errorf("start %s mcp: %w", bin, err)
	}
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ictx, init); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize %s: %w", name, err)
	}
	return &agent{c: c, client: name + " 1"}, nil
}

func (a *agent) close() { _ = a.c.Close() }

// answer is a tool result as the model sees it.
type answer struct {
	isError    bool
	text       string
	structured map[string]any
}

func (ans answer) status() string { s, _ := ans.structured["status"].(string); return s }

func (ans answer) str(key string) string { s, _ := ans.structured[key].(string); return s }

func (a *agent) call(ctx context.Context, tool string, args map[string]any) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := a.c.CallTool(ctx, req)
	if err != nil {
		return answer{}, fmt.Errorf("%s: %w", tool, err)
	}
	r := mcpbridge.ResultFromMCP(res)
	return answer{isError: r.IsError, text: r.Text, structured: r.Structured}, nil
}

// propose makes the first transfer_sol call and returns the proposal id.
func (a *agent) propose(ctx context.Context, to string, lamports uint64) (string, error) {
	ans, err := a.call(ctx, "transfer_sol", map[string]any{"to": to, "lamports": lamports})
	if err != nil {
		return "", err
	}
	if ans.isError || ans.status() != "pending_approval" || ans.str("proposal_id") == "" {
		return "", fmt.Errorf("propose %d lamports: want pending_approval, got %q: %s", lamports, ans.status(), ans.text)
	}
	return ans.str("proposal_id"), nil
}
