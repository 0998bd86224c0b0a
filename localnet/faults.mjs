// faults.mjs — fault injection and test helpers, exposed as JSON-RPC methods
// prefixed `localnet_` on the same port and path as the standard RPC.
//
// Control calls are never themselves subject to injected faults or latency:
// a test must be able to arm a fault, observe it, and read the stats without
// the fault getting in its own way.

import { isPubkey } from './wire.mjs';
import { RpcError } from './rpc.mjs';
import { MAX_PROCESSING_AGE } from './ledger.mjs';

export const CONTROL_PREFIX = 'localnet_';

export class Faults {
  constructor(ledger, log = () => {}) {
    this.ledger = ledger;
    this.log = log;
    this.dropSends = 0; // next N sendTransaction calls: answer with the signature, never execute
    this.failCalls = 0; // next N non-control HTTP requests: HTTP 503
    this.latencyMs = 0; // delay before every non-control answer
    this.refuseBatches = false; // answer JSON-RPC batches with HTTP 400
    this.splitBatchSlots = 0; // next N batches: a slot passes between their calls
    this.stealOnSend = null; // { from, to, lamports }: moved after the next send's preflight, before it executes

    const count = (v, name) => {
      const n = v ?? 1;
      if (!Number.isInteger(n) || n < 0) throw new RpcError(-32602, `Invalid params: ${name} must be a non-negative integer`);
      return n;
    };
    const amount = (v, name) => {
      let n;
      try {
        n = BigInt(v);
      } catch {
        throw new RpcError(-32602, `Invalid params: ${name} must be an integer (string or number)`);
      }
      if (n < 0n || n >= 1n << 64n) throw new RpcError(-32602, `Invalid params: ${name} out of u64 range`);
      return n;
    };
    const pubkey = (v, name) => {
      if (!isPubkey(v)) throw new RpcError(-32602, `Invalid params: ${name} must be a base58 public key`);
      return v;
    };

    this.methods = {
      localnet_dropNextSends: ([n]) => {
        this.dropSends = count(n, 'n');
        return { dropNextSends: this.dropSends };
      },
      // Between the next sent transaction's preflight and its execution,
      // move lamports from one account to another: a loss the simulation
      // did not show, as a chain that behaves differently from its
      // simulation would cause.
      localnet_stealOnNextSend: ([opts]) => {
        const o = opts ?? {};
        this.stealOnSend = { from: pubkey(o.from, 'from'), to: pubkey(o.to, 'to'), lamports: amount(o.lamports, 'lamports') };
        return { from: o.from, to: o.to, lamports: this.stealOnSend.lamports.toString() };
      },
      localnet_failNextCalls: ([n]) => {
        this.failCalls = count(n, 'n');
        return { failNextCalls: this.failCalls };
      },
      // getTransaction answers null until ms after a transaction landed,
      // as a load-balanced RPC whose history lags its statuses.
      localnet_lagGetTransaction: ([ms]) => {
        this.ledger.getTransactionLagMs = count(ms ?? 0, 'ms');
        return { lagMs: this.ledger.getTransactionLagMs };
      },
      // Answer every JSON-RPC batch with HTTP 400, as RPCs that do not
      // serve batches do.
      // The next N batches are answered across slots: a slot passes
      // between their calls, as on a node that runs a batch's calls side
      // by side while its banks move on.
      localnet_splitBatchSlots: ([n]) => {
        this.splitBatchSlots = count(n, 'n');
        return { splitBatchSlots: this.splitBatchSlots };
      },
      localnet_refuseBatches: ([on]) => {
        this.refuseBatches = !!on;
        return { refuseBatches: this.refuseBatches };
      },
      localnet_setLatency: ([ms]) => {
        this.latencyMs = count(ms ?? 0, 'ms');
        return { latencyMs: this.latencyMs };
      },
      // Jump the block height past every outstanding blockhash's
      // lastValidBlockHeight (each is at most current + 150).
      // n slots one by one, each recorded in SlotHashes: what a lookup
      // table's deactivation cooldown (512 entries) waits for.
      localnet_advanceSlots: ([n]) => {
        if (!Number.isInteger(n) || n < 1 || n > 1024) throw new RpcError(-32602, 'Invalid params: n must be 1..1024');
        for (let i = 0; i < n; i++) this.ledger.advance(1);
        return { slot: this.ledger.slot, blockHeight: this.ledger.blockHeight };
      },
      localnet_expireBlockhash: () => {
        this.ledger.advance(MAX_PROCESSING_AGE + 1);
        return { slot: this.ledger.slot, blockHeight: this.ledger.blockHeight, blockhash: this.ledger.latest.blockhash };
      },
      localnet_fund: ([address, lamports]) => {
        const bal = this.ledger.fund(pubkey(address, 'address'), amount(lamports, 'lamports'));
        return { address, lamports: bal };
      },
      localnet_createMint: ([opts]) => {
        const o = opts ?? {};
        const decimals = o.decimals ?? 9;
        if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
          throw new RpcError(-32602, 'Invalid params: decimals must be 0..255');
        }
        const authority = o.authority ? pubkey(o.authority, 'authority') : undefined;
        const freezeAuthority = o.freezeAuthority ? pubkey(o.freezeAuthority, 'freezeAuthority') : null;
        if (o.program !== undefined && o.program !== 'token' && o.program !== 'token-2022') {
          throw new RpcError(-32602, 'Invalid params: program must be "token" or "token-2022"');
        }
        const ext = {};
        if (o.transferFeeBps !== undefined) {
          const bps = o.transferFeeBps;
          if (!Number.isInteger(bps) || bps < 0 || bps > 10000) throw new RpcError(-32602, 'Invalid params: transferFeeBps must be 0..10000');
          ext.transferFee = { bps, maximum: amount(o.transferFeeMax ?? '18446744073709551615', 'transferFeeMax') };
        }
        if (o.nonTransferable) ext.nonTransferable = true;
        if (o.confidential) ext.confidential = true;
        if (o.permanentDelegate) ext.permanentDelegate = pubkey(o.permanentDelegate, 'permanentDelegate');
        if (o.transferHook) ext.transferHook = pubkey(o.transferHook, 'transferHook');
        if (o.closeAuthority) ext.closeAuthority = pubkey(o.closeAuthority, 'closeAuthority');
        if (o.defaultFrozen) ext.defaultFrozen = true;
        const token2022 = o.program === 'token-2022';
        if (!token2022 && Object.keys(ext).length > 0) {
          throw new RpcError(-32602, 'Invalid params: extensions need "program":"token-2022"');
        }
        return { mint: this.ledger.createMint(decimals, authority, token2022, ext, freezeAuthority) };
      },
      localnet_mintTo: async ([opts]) => {
        const o = opts ?? {};
        const mint = pubkey(o.mint, 'mint');
        const owner = pubkey(o.owner, 'owner');
        const amt = amount(o.amount, 'amount');
        try {
          return { tokenAccount: await this.ledger.mintTo(mint, owner, amt) };
        } catch (e) {
          throw new RpcError(-32602, `Invalid params: ${e.message}`);
        }
      },
      // The fee market getRecentPrioritizationFees answers from:
      // {"fees":[N,...]} micro-lamports per compute unit for the last slots
      // (oldest first), optionally {"accounts":{ADDR:[N,...]}} for
      // transactions that write-lock ADDR, or {"unsupported":true}: the
      // method is missing (-32601), as on RPCs that do not serve it;
      // {"helius":true} serves getPriorityFeeEstimate and {"triton":true}
      // the percentile option from the same table. [{}]
      // resets to the empty answer of an idle cluster.
      localnet_setPrioritizationFees: ([opts]) => {
        const o = opts ?? {};
        if (typeof o !== 'object' || Array.isArray(o)) throw new RpcError(-32602, 'Invalid params: expected {"fees":[...], "accounts":{...}, "unsupported":bool}');
        const list = (v, name) => {
          if (v === undefined) return [];
          if (!Array.isArray(v) || v.length > 150) throw new RpcError(-32602, `Invalid params: ${name} must be an array of at most 150 fees`);
          return v.map((x, i) => amount(x, `${name}[${i}]`));
        };
        const accounts = new Map();
        if (o.accounts !== undefined) {
          if (typeof o.accounts !== 'object' || Array.isArray(o.accounts) || o.accounts === null) throw new RpcError(-32602, 'Invalid params: accounts must be an object of address -> fees');
          for (const [a, fees] of Object.entries(o.accounts)) accounts.set(pubkey(a, 'accounts key'), list(fees, `accounts.${a}`));
        }
        this.ledger.feeMarket = { fees: list(o.fees, 'fees'), accounts, unsupported: !!o.unsupported, helius: !!o.helius, triton: !!o.triton, ignoresPercentile: !!o.ignoresPercentile };
        return { fees: this.ledger.feeMarket.fees.length, accounts: accounts.size, unsupported: !!o.unsupported, helius: !!o.helius, triton: !!o.triton, ignoresPercentile: !!o.ignoresPercentile };
      },
      localnet_setExtraComputeUnits: ([n]) => {
        this.ledger.extraComputeUnits = count(n ?? 0, 'n');
        return { extraComputeUnits: this.ledger.extraComputeUnits };
      },
      localnet_stats: () => ({
        ...this.ledger.stats,
        slot: this.ledger.slot,
        blockHeight: this.ledger.blockHeight,
      }),
    };
  }

  isControl(method) {
    return typeof method === 'string' && method.startsWith(CONTROL_PREFIX);
  }

  call(method, params) {
    const fn = Object.hasOwn(this.methods, method) ? this.methods[method] : null;
    if (!fn) throw new RpcError(-32601, 'Method not found');
    if (params !== undefined && !Array.isArray(params)) throw new RpcError(-32602, 'Invalid params: expected an array');
    return fn(params ?? []);
  }

  /** Consume one injected HTTP failure, if armed. */
  takeFailure() {
    if (this.failCalls > 0) {
      this.failCalls--;
      this.ledger.stats.failedCalls++;
      return true;
    }
    return false;
  }

  /** Apply the armed localnet_stealOnNextSend, once. */
  beforeExecute() {
    const s = this.stealOnSend;
    if (!s) return;
    this.stealOnSend = null;
    const from = this.ledger.getAccount(s.from);
    if (!from || from.lamports < s.lamports) return;
    this.ledger.setAccount(s.from, { ...from, lamports: from.lamports - s.lamports });
    this.ledger.fund(s.to, s.lamports);
  }

  /** Consume one dropped send, if armed. */
  takeDrop() {
    if (this.dropSends > 0) {
      this.dropSends--;
      this.ledger.stats.sendsDropped++;
      return true;
    }
    return false;
  }
}
