#!/usr/bin/env node
// server.mjs — solgate's test and demo ledger.
//
// Serves the standard Solana JSON-RPC 2.0 over HTTP POST on 127.0.0.1,
// backed by the real SVM (litesvm: real signature checks, fees, system and
// SPL token programs). When ready it prints exactly one JSON line on stdout:
//   {"rpc":"http://127.0.0.1:PORT","genesisHash":"..."}
// Everything else goes to stderr.
//
//   node server.mjs [--port N] [--network localnet|mainnet-beta|devnet|testnet]
//                   [--genesis-hash HASH] [--slot-ms N] [--paid-api] [--quiet]
//
// Modules: ledger.mjs (chain state, slots, blockhashes, execution),
// rpc.mjs (standard methods), faults.mjs (localnet_* controls),
// wire.mjs (wire formats), tokens.mjs (SPL token layouts), swap.mjs (demo
// tokens, pools and the Jupiter-compatible /swap/v1 API on the same port),
// outside.mjs (transactions built with @solana/kit, as an SDK would),
// actions.mjs (Solana Actions: /actions.json and /api/actions/*, same port).

import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { Ledger } from './ledger.mjs';
import { Rpc, RpcError } from './rpc.mjs';
import { Faults } from './faults.mjs';
import { b58encode, isPubkey } from './wire.mjs';
import { SwapApi } from './swap.mjs';
import { ActionsApi } from './actions.mjs';
import { OutsideBuilder } from './outside.mjs';

const NETWORKS = {
  'mainnet-beta': '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
  testnet: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
  // Our own fixed hash, deliberately none of the public clusters'.
  localnet: b58encode(crypto.createHash('sha256').update('solgate localnet genesis v1').digest()),
};

const MAX_BODY = 1 << 20;

function fail(msg) {
  process.stderr.write(`localnet: ${msg}\n`);
  process.exit(2);
}

function parseCli() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: '8899' },
        network: { type: 'string' },
        'genesis-hash': { type: 'string' },
        'slot-ms': { type: 'string', default: '400' },
        'paid-api': { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    fail(e.message);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0..65535, got ${values.port}`);
  const slotMs = Number(values['slot-ms']);
  if (!Number.isInteger(slotMs) || slotMs < 1) fail(`--slot-ms must be a positive integer, got ${values['slot-ms']}`);
  let genesisHash = NETWORKS.localnet;
  if (values.network && values['genesis-hash']) fail('use either --network or --genesis-hash, not both');
  if (values.network) {
    genesisHash = NETWORKS[values.network];
    if (!genesisHash) fail(`unknown --network ${values.network} (want one of ${Object.keys(NETWORKS).join(', ')})`);
  }
  if (values['genesis-hash']) {
    if (!isPubkey(values['genesis-hash'])) fail('--genesis-hash must be a base58 32-byte hash');
    genesisHash = values['genesis-hash'];
  }
  return { port, slotMs, genesisHash, quiet: values.quiet, paidApi: values['paid-api'] };
}

// JSON with u64 values: BigInts are written as bare integers (as real nodes
// write lamports and rentEpoch = 18446744073709551615), never as strings or
// lossy floats.
const BIG_MARK = `__big_${crypto.randomBytes(6).toString('hex')}_`;
const BIG_RE = new RegExp(`"${BIG_MARK}(-?\\d+)"`, 'g');
function stringify(v) {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${BIG_MARK}${x}` : x)).replace(BIG_RE, '$1');
}

function errorObj(id, code, message, data) {
  const error = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', error, id: id ?? null };
}

function main() {
  const opts = parseCli();
  const log = opts.quiet ? () => {} : (msg) => process.stderr.write(`localnet: ${msg}\n`);
  const ledger = new Ledger({ genesisHash: opts.genesisHash, log });
  const rpc = new Rpc(ledger, log);
  const faults = new Faults(ledger, log);
  rpc.dropHook = () => faults.takeDrop();
  rpc.beforeExecuteHook = () => faults.beforeExecute();
  const swapApi = new SwapApi(ledger, log);
  Object.assign(faults.methods, swapApi.controls());
  // Transactions built outside solgate with @solana/kit (outside.mjs).
  Object.assign(faults.methods, new OutsideBuilder(ledger, log).controls());
  // x402.mjs, the paid API on its own loopback port, only with --paid-api:
  // its packages cost every other ledger start a fifth of a second.
  let paidApi = null;
  const actionsApi = new ActionsApi(ledger, log, () => swapApi.pools.info?.usdc?.mint);

  // One JSON-RPC request object -> one response object.
  async function handleOne(req) {
    const id = req && typeof req === 'object' && !Array.isArray(req) ? req.id : null;
    if (!req || typeof req !== 'object' || Array.isArray(req) || req.jsonrpc !== '2.0' || typeof req.method !== 'string') {
      return errorObj(id, -32600, 'Invalid request');
    }
    const control = faults.isControl(req.method);
    if (!control) ledger.stats.rpcCalls++;
    try {
      const result = await (control ? faults.call(req.method, req.params) : rpc.call(req.method, req.params));
      return { jsonrpc: '2.0', result, id: id ?? null };
    } catch (e) {
      if (e instanceof RpcError) return errorObj(id, e.code, e.message, e.data);
      log(`internal error in ${req.method}: ${e.stack}`);
      return errorObj(id, -32603, `Internal error: ${e.message}`);
    }
  }

  async function handleBody(body) {
    let req;
    try {
      req = JSON.parse(body);
    } catch {
      return { status: 200, body: stringify(errorObj(null, -32700, 'Parse error')), control: false };
    }
    const batch = Array.isArray(req);
    const control = batch
      ? req.length > 0 && req.every((r) => faults.isControl(r?.method))
      : faults.isControl(req?.method);
    if (!control) {
      ledger.stats.httpRequests++; // round trips: a batch is one
      if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
      if (faults.takeFailure()) {
        return { status: 503, body: 'Service Unavailable (localnet_failNextCalls)\n', text: true };
      }
    }
    if (batch && faults.refuseBatches) {
      return { status: 400, body: stringify(errorObj(null, -32600, 'batch requests are not served here (localnet_refuseBatches)')) };
    }
    if (batch) {
      if (req.length === 0) return { status: 200, body: stringify(errorObj(null, -32600, 'Invalid request')) };
      const out = [];
      const split = faults.splitBatchSlots > 0;
      if (split) faults.splitBatchSlots--;
      for (const r of req) {
        if (split && out.length > 0) ledger.advance(1);
        out.push(await handleOne(r)); // sequential: ledger order is request order
      }
      return { status: 200, body: stringify(out) };
    }
    return { status: 200, body: stringify(await handleOne(req)) };
  }

  const server = http.createServer((req, res) => {
    const send = (status, body, type = 'application/json') => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (req.method === 'GET' && (req.url === '/health' || req.url === '/health/')) return send(200, 'ok', 'text/plain');
    if (swapApi.handles(req)) return swapApi.handle(req, res);
    if (actionsApi.handles(req)) return actionsApi.handle(req, res);
    if (req.method !== 'POST') return send(405, 'Method Not Allowed\n', 'text/plain');
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        send(413, 'Payload Too Large\n', 'text/plain');
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return;
      handleBody(Buffer.concat(chunks).toString('utf8')).then(
        (r) => send(r.status, r.body, r.text ? 'text/plain' : 'application/json'),
        (e) => {
          log(`request failed: ${e.stack}`);
          send(500, stringify(errorObj(null, -32603, 'Internal error')));
        },
      );
    });
    req.on('error', () => {});
  });

  // Slots: every slot-ms one block is produced (slot + 1, block height + 1)
  // and a fresh blockhash issued.
  const ticker = setInterval(() => ledger.advance(1), opts.slotMs);

  let stopping = false;
  const shutdown = (why) => {
    if (stopping) return;
    stopping = true;
    log(`shutting down (${why})`);
    clearInterval(ticker);
    server.close();
    server.closeAllConnections();
    paidApi?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  // A parent that talks to us through a pipe (the Go harness) may die
  // without cleaning up; its end of the pipe closing is our cue to exit.
  // Stdin that is a terminal or /dev/null is ignored so that running the
  // server by hand or in the background still works.
  let st = null;
  try {
    st = fs.fstatSync(0);
  } catch {
    st = null;
  }
  if (st && (st.isFIFO() || st.isSocket())) {
    process.stdin.on('data', () => {});
    process.stdin.on('end', () => shutdown('stdin closed'));
    process.stdin.on('error', () => shutdown('stdin error'));
    process.stdin.resume();
  }

  server.on('error', (e) => fail(`cannot listen on 127.0.0.1:${opts.port}: ${e.message}`));
  server.keepAliveTimeout = 5000;
  // The demo tokens and pools exist before the first request.
  swapApi.setup().then(() => server.listen(opts.port, '127.0.0.1', () => {
    const { port } = server.address();
    const base = `http://127.0.0.1:${port}`;
    const startPaid = async () => {
      if (!opts.paidApi) return undefined;
      const { PaidApi } = await import('./x402.mjs');
      paidApi = new PaidApi(ledger, log);
      Object.assign(faults.methods, paidApi.controls());
      return paidApi.start(base);
    };
    startPaid().then((x402) => {
      process.stdout.write(`${JSON.stringify({ rpc: base, genesisHash: opts.genesisHash, swapApi: base, swap: swapApi.pools.info, x402 })}\n`);
      log(`listening on http://127.0.0.1:${port} (genesis ${opts.genesisHash}, slot ${opts.slotMs} ms)`);
    }, (e) => fail(`starting the paid API: ${e.stack}`));
  }), (e) => fail(`setting up the swap pools: ${e.stack}`));
}

main();
