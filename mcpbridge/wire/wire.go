// Package wire is the contract both sides of the socket import: the call
// request and result, the tool inventory (names, arguments, outputs) and its
// limits. It imports nothing of either side.
package wire

import (
	"encoding/json"
	"fmt"
)

// The socket API between `solgate mcp` (client) and the console's hub
// (server). The bridge forwards tool calls verbatim: all parsing, policy and
// state live in the hub, so the process the model drives decides nothing.

// CallPath is the endpoint for tool calls.
const CallPath = "/v1/call"

// HealthPath answers whether a console is serving and on which network.
const HealthPath = "/v1/health"

// PresencePath is held open by each bridge for as long as it runs (the body
// is its ClientInfo). The console lists as connected exactly the agents with
// such a request open: a bridge that exits or is killed closes its socket,
// and the kernel tells the console at once, without any polling.
const PresencePath = "/v1/presence"

// ClientInfo names the MCP client a bridge serves (from `initialize`).
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// String is how a client is shown to the operator and keyed by the breaker.
func (c ClientInfo) String() string {
	switch {
	case c.Name == "":
		return "unknown-client"
	case c.Version == "":
		return c.Name
	}
	return c.Name + " " + c.Version
}

// CallRequest is one tool call forwarded by a bridge.
type CallRequest struct {
	Client    ClientInfo      `json:"client"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	// Process is the bridge's secret for the life of its process (random,
	// made at start, held only in the memory of a non-dumpable process). A
	// standing grant binds to it beside the kernel's pid and start time, so
	// the program a process execs into (same pid, same start time) is not
	// the process the operator granted. Empty: no grant can cover the call.
	Process string `json:"process,omitempty"`
}

// CallResult is the hub's answer, mapped 1:1 onto an MCP CallToolResult.
type CallResult struct {
	IsError    bool           `json:"isError"`
	Text       string         `json:"text"`
	Structured map[string]any `json:"structured,omitempty"`
}

// ToolError is a call that failed as a tool (status "error"): msg is what
// the model reads, and names what went wrong.
func ToolError(msg string) CallResult {
	return CallResult{IsError: true, Text: msg, Structured: map[string]any{"status": "error", "error": msg}}
}

// Status is the structured "status" field ("" when absent).
func (r CallResult) Status() string { s, _ := r.Structured["status"].(string); return s }

// Str is a structured field as a string ("" when absent).
func (r CallResult) Str(key string) string {
	if v, ok := r.Structured[key]; ok && v != nil {
		return fmt.Sprint(v)
	}
	return ""
}

// Health is the hub's self-description.
type Health struct {
	Network string `json:"network"`
	Wallet  string `json:"wallet"`
	Version string `json:"version"`
}

// RefusalHeader marks the console's answer to a peer it does not admit, so
// the bridge can tell it from any other 403.
const RefusalHeader = "X-Solgate-Refused"
