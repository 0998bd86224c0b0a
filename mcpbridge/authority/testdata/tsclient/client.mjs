#!/usr/bin/env node
// The official TypeScript MCP SDK client, driven line by line by a Go test
// (tsclient_e2e_test.go): it starts the MCP stdio server named by its
// arguments (`solgate mcp --socket ...`), connects and lists the tools as
// Claude Desktop, Cursor, VS Code and the Inspector do (from then on the SDK
// holds every tools/call answer to the tool's outputSchema), then reads
// requests from stdin, one JSON object a line:
//   {"id": 1, "tool": "transfer_sol", "args": {...}, "progress": true}
// and writes events to stdout, one JSON object a line:
//   {"event": "tools", "tools": [{"name": ..., "hasOutputSchema": true}]}
//   {"event": "progress", "id": 1, "progress": {progress, total?, message?}}
//   {"event": "result", "id": 1, "result": CallToolResult, "wireProgress": n}
//   {"event": "threw", "id": 1, "error": "MCP error -32602: ..."}
// Requests run concurrently; "progress": true passes onprogress, which makes
// the SDK send a progressToken. wireProgress counts every
// notifications/progress the server sent so far, whatever its token.
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: client.mjs COMMAND [ARGS...]\n');
  process.exit(2);
}

const emit = (event) => process.stdout.write(JSON.stringify(event) + '\n');

const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
const client = new Client({ name: 'ts-sdk-e2e', version: '1.0.0' });
let wireProgress = 0;
await client.connect(transport);
// Count progress notifications as they come off the wire, before the SDK
// routes them to a call's onprogress (or reports one nobody asked for).
const route = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method === 'notifications/progress') wireProgress++;
  route(message, extra);
};

const { tools } = await client.listTools();
emit({ event: 'tools', tools: tools.map((t) => ({ name: t.name, hasOutputSchema: Boolean(t.outputSchema) })) });

const pending = new Set();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const req = JSON.parse(line);
  const options = { timeout: 120_000 };
  if (req.progress) {
    options.onprogress = (progress) => emit({ event: 'progress', id: req.id, progress, wireProgress });
  }
  const call = client
    .callTool({ name: req.tool, arguments: req.args }, undefined, options)
    .then((result) => emit({ event: 'result', id: req.id, result, wireProgress }))
    .catch((err) => emit({ event: 'threw', id: req.id, error: String(err?.message ?? err) }))
    .finally(() => pending.delete(call));
  pending.add(call);
});
lines.on('close', async () => {
  await Promise.allSettled([...pending]);
  await client.close();
});
