// Package mcpbridge is the unprivileged bridge that `solgate mcp` runs, with
// no key: MCP over stdio through mcp-go's StdioServer (`bridge.go`,
// `progress.go`), the MCP tool declarations generated from the inventory
// (`tools.go`) and the check of a result against its outputSchema when the
// console's output contract is not the bridge's (`outputs.go`), the socket
// client (`client.go`: net/http's client over the
// console's socket, which also carries the tool calls); `wire/`: the
// contract both sides import (the call request and result, the tool
// inventory with its arguments, outputs and limits), which imports nothing
// of either; `demoagent/`: the demo's scripted assistant, a client like any
// other.
//
// For an auditor of the privilege split: the bridge is this package's non-test
// files (`bridge.go`, `progress.go`, `process.go`, `client.go`,
// `tools.go`, `toolschemas.go`, `outputs.go`, `peercred_*.go`, and
// `wire/`). They hold no key and cannot approve, sign or mint a token;
// `TestBridgeDoesNotImportTheAuthority` fails if the bridge package ever
// depends on `mcpbridge/authority`, `executor`, `policy` or `policy/store`,
// and `TestBridgeLinksNoSolanaLibrary` if it links solana-go.
//
// Both processes find each other through the socket
// `$XDG_RUNTIME_DIR/solgate/console.sock` (or `/tmp/solgate-<uid>/console.sock`);
// `--socket` overrides it on both sides. With no console running, every tool
// answers "no approval console is running at PATH", naming the socket it tried
// and the `--socket` setting. Each bridge keeps one request open on the socket
// while it runs, so the console's header lists exactly the assistants
// connected now, and its log says when one connects or goes away (even if it
// was killed).
//
// The privileged side, which holds the key, is package mcpbridge/authority; its
// documentation is solgate's design.
package mcpbridge
