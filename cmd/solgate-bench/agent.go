package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
)

// agent is an MCP client driving a real `solgate mcp` subprocess over stdio,
// started as the TypeScript SDK (Claude Desktop, Claude Code) starts it:
// Node gives a child socketpairs for its stdin and stdout, where mcp-go's
// own stdio client would use pipes, and a bridge costs more CPU a call on
// socketpairs (mcpbridge's BenchmarkBridgeProcessCall -bridge-stdio).
type agent struct {
	c      *mcpclient.Client
	cmd    *exec.Cmd
	out    *os.File // the bridge's stdout, our end
	client string   // how the hub names it: clientInfo "name version"
}

func startAgent(ctx context.Context, bin, socket, name string) (*agent, error) {
	cmd := exec.Command(bin, "mcp", "--socket", socket)
	cmd.Stderr = os.Stderr
	in, out, err := testkit.StartWithSocketpairs(cmd)
	if err != nil {
		return nil, fmt.Errorf("start %s mcp: %w", bin, err)
	}
	a := &agent{c: mcpclient.NewClient(transport.NewIO(out, in, nil)), cmd: cmd, out: out, client: name + " 1"}
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := a.c.Start(ctx); err != nil { // for the client's life, not initialize's
		a.close()
		return nil, fmt.Errorf("start the MCP client of %s: %w", name, err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := a.c.Initialize(ictx, init); err != nil {
		a.close()
		return nil, fmt.Errorf("initialize %s: %w", name, err)
	}
	return a, nil
}

// close ends the bridge as a client does, by closing its stdin, and reaps
// it, so that its CPU is accounted to this process's children. A bridge
// still running after bridgeExitWait is killed.
func (a *agent) close() {
	_ = a.c.Close()
	exited := make(chan struct{})
	go func() {
		_ = a.cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(bridgeExitWait):
		_ = a.cmd.Process.Kill()
		<-exited
	}
	a.out.Close()
}

// bridgeExitWait is how long a bridge may take to exit once its stdin is
// closed.
const bridgeExitWait = 10 * time.Second

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
