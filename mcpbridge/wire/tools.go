package wire

import "slices"

// ToolNames lists every tool, reads first, in inventory order.
func ToolNames() []string {
	names := make([]string, len(inventory))
	for i, t := range inventory {
		names[i] = t.Name
	}
	return names
}

// WriteToolNames lists the tools that can spend, in inventory order: the
// tools whose proposals proposal_status answers for.
func WriteToolNames() []string {
	var names []string
	for _, t := range inventory {
		if t.Write {
			names = append(names, t.Name)
		}
	}
	return names
}

// IsWriteTool reports whether calling the tool can spend funds, from its
// inventory entry. The console serves a write tool through its registered
// write kind, and clients read the annotations derived from this; a test
// checks both against what each handler does.
func IsWriteTool(name string) bool {
	t, ok := LookupTool(name)
	return ok && t.Write
}

// Inventory lists every tool's declaration, reads first: what the bridge
// declares to MCP clients and the console serves.
func Inventory() []Tool { return slices.Clone(inventory) }

const approvalFlow = ` Nothing moves on the first call: it creates a proposal that a human must approve in the solgate console, and returns status "pending_approval" with a proposal_id and a preview; nothing has been signed or sent at that point. Then call proposal_status with the proposal_id (wait_seconds up to 45 waits for the decision). When it says "approved" with a confirm token, call this tool again with exactly the same arguments plus confirm set to that token to execute; if proposal_status says approved without a token, ask the human for it. A token works once, only for those exact arguments, and expires (%s). A policy refusal is an ordinary result with status "denied", a reason and "retryable"; when retryable is false, do not try again in this session. A confirm token that does not hold (used already, expired, or sent with other arguments) is answered with status "refused" and a reason: nothing was signed or sent, and the token is void; propose again.`
