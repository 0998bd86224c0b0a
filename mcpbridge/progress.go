package mcpbridge

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// Progress while a call waits, per the MCP spec's notifications/progress:
// a client that sends _meta.progressToken with a call that can wait long
// (proposal_status with wait_seconds, a write tool's confirmed call) is told
// at once, and then every progressEvery, that the call still waits and on
// what, so that it neither cancels the call nor leaves its user guessing.
// A client that sends no token is sent nothing. This uses only mcp-go's
// server API (the request's _meta and SendNotificationToClient).

// progressEvery is how often a waiting call reports.
const progressEvery = 5 * time.Second

// waitProgress starts reporting progress for req, if its client asked for
// it and the call is one that waits; stop ends it. No notification is sent
// after stop returns.
func waitProgress(ctx context.Context, req mcp.CallToolRequest) (stop func()) {
	var token mcp.ProgressToken
	if m := req.Params.Meta; m != nil {
		token = m.ProgressToken
	}
	if token == nil {
		return func() {}
	}
	message, total := waitDescription(req)
	srv := server.ServerFromContext(ctx)
	if message == "" || srv == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			// Whole seconds waited: at least progressEvery apart, so each
			// report's progress is greater than the last, as the spec asks.
			params := map[string]any{"progressToken": token, "progress": math.Floor(time.Since(start).Seconds()), "message": message}
			if total > 0 {
				params["total"] = total
			}
			_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
			select {
			case <-tick.C:
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// waitDescription says what a call waits for ("" when it does not wait),
// and for how many seconds at most when the call says (0 otherwise).
func waitDescription(req mcp.CallToolRequest) (message string, total float64) {
	args := req.GetArguments()
	switch {
	case req.Params.Name == wire.ToolProposalStatus:
		wait, _ := args["wait_seconds"].(float64)
		if wait <= 0 || wait > wire.MaxWaitSeconds {
			return "", 0
		}
		return "waiting for the operator in the solgate console", wait
	case wire.IsWriteTool(req.Params.Name):
		if confirm, _ := args["confirm"].(string); confirm == "" {
			return "", 0 // a first call only proposes, and answers at once
		}
		return "the solgate console is executing the approved call: simulating, signing, sending, then waiting for confirmation on chain", 0
	}
	return "", 0
}
