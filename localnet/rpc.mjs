// rpc.mjs — the standard Solana JSON-RPC methods, answering in the shapes
// real nodes use (so unmodified clients such as solana-go's rpc.Client parse
// them): `{context:{slot,apiVersion}, value}` wrappers where real nodes have
// them, transaction errors as serde JSON ("BlockhashNotFound",
// {"InstructionError":[0,{"Custom":1}]}), -32002 for preflight failures.

import {
  b58encode, b58decode, isPubkey, parseTransaction, parseMessage,
  decodeTxParam, txErrorText,
} from './wire.mjs';
import {
  parseTokenAccount, parseMint, uiTokenAmount, TOKEN_PROGRAM, TOKEN_2022_PROGRAM,
} from './tokens.mjs';
import { FINALITY_DEPTH } from './ledger.mjs';

export const API_VERSION = '2.2.20';
const FEATURE_SET = 3294202862;

export class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

const invalidParams = (msg) => new RpcError(-32602, msg);

function pubkeyParam(v) {
  if (!isPubkey(v)) throw invalidParams('Invalid param: Invalid');
  return v;
}

function isSignature(v) {
  try {
    return b58decode(v).length === 64;
  } catch {
    return false;
  }
}

function configParam(v) {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParams('Invalid params: invalid type: expected a config object.');
  return v;
}

function u64Param(v, what) {
  let n;
  try {
    n = BigInt(v);
  } catch {
    throw invalidParams(`Invalid params: invalid type for ${what}, expected u64.`);
  }
  if (typeof v === 'number' && !Number.isSafeInteger(v)) throw invalidParams(`Invalid params: invalid ${what}`);
  if (n < 0n || n >= 1n << 64n) throw invalidParams(`Invalid params: ${what} out of range`);
  return n;
}

function parseTxOrThrow(data, encoding) {
  let bytes;
  try {
    bytes = decodeTxParam(data, encoding);
  } catch (e) {
    throw invalidParams(`invalid transaction: ${e.message}`);
  }
  try {
    return parseTransaction(bytes);
  } catch (e) {
    throw invalidParams(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${e.message}`);
  }
}

export class Rpc {
  constructor(ledger, log = () => {}) {
    this.ledger = ledger;
    this.log = log;
    this.dropHook = () => false; // set by the server to Faults.takeDrop
    this.beforeExecuteHook = () => {}; // set by the server to Faults.beforeExecute
    this.methods = {
      getHealth: () => 'ok',
      getVersion: () => ({ 'solana-core': API_VERSION, 'feature-set': FEATURE_SET }),
      getGenesisHash: () => this.ledger.genesisHash,
      getSlot: () => this.ledger.slot,
      getBlockHeight: () => this.ledger.blockHeight,
      getTransactionCount: () => this.ledger.transactionCount,
      getEpochInfo: () => ({
        absoluteSlot: this.ledger.slot, blockHeight: this.ledger.blockHeight, epoch: 0,
        slotIndex: this.ledger.slot, slotsInEpoch: 432000, transactionCount: this.ledger.transactionCount,
      }),
      getLatestBlockhash: () => this.ctx({ ...this.ledger.latest }),
      isBlockhashValid: (p) => {
        if (typeof p[0] !== 'string') throw invalidParams('Invalid params: blockhash must be a string.');
        return this.ctx(this.ledger.isBlockhashValid(p[0]));
      },
      getBalance: (p) => this.ctx(this.ledger.balance(pubkeyParam(p[0]))),
      getAccountInfo: (p) => {
        const cfg = configParam(p[1]);
        const addr = pubkeyParam(p[0]);
        return this.ctx(this.encodeAccount(addr, this.ledger.getAccount(addr), cfg));
      },
      getMultipleAccounts: (p) => {
        if (!Array.isArray(p[0])) throw invalidParams('Invalid params: expected an array of pubkeys.');
        if (p[0].length > 100) throw invalidParams('Too many inputs provided; max 100');
        const cfg = configParam(p[1]);
        const addrs = p[0].map(pubkeyParam);
        return this.ctx(addrs.map((a) => this.encodeAccount(a, this.ledger.getAccount(a), cfg)));
      },
      getMinimumBalanceForRentExemption: (p) => {
        const len = Number(u64Param(p[0] ?? 0, 'data length'));
        return this.ledger.rentExempt(len);
      },
      getFeeForMessage: (p) => {
        if (typeof p[0] !== 'string') throw invalidParams('Invalid params: message must be a base64 string.');
        let msg;
        try {
          msg = parseMessage(new Uint8Array(Buffer.from(p[0], 'base64')));
        } catch (e) {
          throw invalidParams(`invalid message: ${e.message}`);
        }
        // Real nodes answer null for a message whose blockhash has expired.
        const valid = this.ledger.isBlockhashValid(b58encode(msg.recentBlockhash));
        return this.ctx(valid ? this.ledger.fee(msg) : null);
      },
      // An array of { slot, prioritizationFee } (micro-lamports per compute
      // unit), oldest slot first, for up to 128 accounts the caller wants to
      // write-lock; the table comes from localnet_setPrioritizationFees.
      getRecentPrioritizationFees: (p) => {
        const accounts = p[0] ?? [];
        if (!Array.isArray(accounts)) throw invalidParams('Invalid params: expected an array of pubkeys.');
        if (accounts.length > 128) throw invalidParams('Too many inputs provided; max 128');
        accounts.forEach(pubkeyParam);
        if (p.length > 1 && this.ledger.feeMarket.ignoresPercentile && !this.ledger.feeMarket.triton) {
          // A node that takes the extra parameter and ignores it: it
          // answers the standard per-slot minimums, which a client that
          // only checks that the call succeeded would take for Triton's.
        } else if (p.length > 1) {
          // Triton's percentile option, served only when the fee-market
          // control says so; a stock node refuses the extra parameter.
          if (!this.ledger.feeMarket.triton) throw invalidParams('Invalid params: invalid length 2, expected at most 1 parameter');
          const pct = (p[1] ?? {}).percentile;
          if (!Number.isSafeInteger(pct) || pct < 1 || pct > 10_000) throw invalidParams('Invalid params: percentile must be an integer from 1 to 10000');
          // localnet keeps one fee per slot, so every percentile of a slot is it.
        }
        this.ledger.stats.prioritizationFeeQueries++;
        const out = this.ledger.prioritizationFees(accounts);
        if (out === null) throw new RpcError(-32601, 'Method not found');
        return out;
      },
      // Helius' fee estimate, served only when the fee-market control says
      // so (-32601 otherwise, as a stock node): the level's percentile of
      // the non-zero fees the table gives for the accounts.
      getPriorityFeeEstimate: (p) => {
        if (!this.ledger.feeMarket.helius || this.ledger.feeMarket.unsupported) throw new RpcError(-32601, 'Method not found');
        const o = p[0] ?? {};
        const accounts = o.accountKeys ?? [];
        if (!Array.isArray(accounts) || accounts.length > 128) throw invalidParams('Invalid params: accountKeys must be an array of at most 128 pubkeys');
        accounts.forEach(pubkeyParam);
        const level = (o.options ?? {}).priorityLevel ?? 'Medium';
        const pct = { Min: 1, Low: 25, Medium: 50, High: 75, VeryHigh: 95, UnsafeMax: 100 }[level];
        if (pct === undefined) throw invalidParams('Invalid params: priorityLevel must be Min, Low, Medium, High, VeryHigh or UnsafeMax');
        this.ledger.stats.prioritizationFeeQueries++;
        return { priorityFeeEstimate: Number(this.ledger.feePercentile(accounts, pct)) };
      },
      requestAirdrop: (p) => {
        const to = pubkeyParam(p[0]);
        const lamports = u64Param(p[1], 'lamports');
        const r = this.ledger.airdrop(to, lamports);
        if (!r.landed) throw new RpcError(-32600, `airdrop request failed: ${txErrorText(r.err)}`);
        return r.signature;
      },
      simulateTransaction: (p) => this.simulateTransaction(p),
      sendTransaction: (p) => this.sendTransaction(p),
      getSignatureStatuses: (p) => {
        if (!Array.isArray(p[0])) throw invalidParams('Invalid params: expected an array of signatures.');
        if (p[0].length > 256) throw invalidParams('Too many inputs provided; max 256');
        configParam(p[1]); // searchTransactionHistory: history is always searched
        return this.ctx(p[0].map((sig) => {
          let bytes = null;
          try {
            bytes = typeof sig === 'string' ? b58decode(sig) : null;
          } catch {
            bytes = null;
          }
          if (!bytes || bytes.length !== 64) throw invalidParams('Invalid param: Invalid');
          const r = this.ledger.txs.get(sig);
          if (!r) return null;
          const st = this.ledger.status(r);
          return {
            slot: r.slot, confirmations: st.confirmations, err: r.err,
            status: r.err ? { Err: r.err } : { Ok: null }, confirmationStatus: st.confirmationStatus,
          };
        }));
      },
      getTransaction: (p) => this.getTransaction(p),
      getSignaturesForAddress: (p) => this.getSignaturesForAddress(p),
      getTokenAccountsByOwner: (p) => {
        const owner = pubkeyParam(p[0]);
        const filter = configParam(p[1]);
        const cfg = configParam(p[2]);
        let programs;
        let mint = null;
        if (filter.mint !== undefined) {
          mint = pubkeyParam(filter.mint);
          const m = this.ledger.getAccount(mint);
          if (!m || !parseMint(m)) throw invalidParams('Invalid param: could not find mint');
          programs = [m.owner];
        } else if (filter.programId !== undefined) {
          if (filter.programId !== TOKEN_PROGRAM && filter.programId !== TOKEN_2022_PROGRAM) {
            throw invalidParams('Invalid param: unrecognized Token program id');
          }
          programs = [filter.programId];
        } else {
          throw invalidParams('Invalid params: expected {"mint": ...} or {"programId": ...}');
        }
        const out = [];
        for (const prog of programs) {
          for (const { pubkey, account } of this.ledger.programAccounts(prog)) {
            const ta = parseTokenAccount(account);
            if (!ta || ta.owner !== owner || (mint && ta.mint !== mint)) continue;
            out.push({ pubkey, account: this.encodeAccount(pubkey, account, cfg) });
          }
        }
        out.sort((a, b) => (a.pubkey < b.pubkey ? -1 : 1));
        return this.ctx(out);
      },
      getTokenAccountBalance: (p) => {
        const addr = pubkeyParam(p[0]);
        const ta = parseTokenAccount(this.ledger.getAccount(addr));
        if (!ta) throw invalidParams('Invalid param: not a Token account');
        const m = parseMint(this.ledger.getAccount(ta.mint));
        if (!m) throw invalidParams('Invalid param: could not find mint');
        return this.ctx(uiTokenAmount(ta.amount, m.decimals));
      },
      getTokenSupply: (p) => {
        const addr = pubkeyParam(p[0]);
        const m = parseMint(this.ledger.getAccount(addr));
        if (!m) throw invalidParams('Invalid param: not a Token mint');
        return this.ctx(uiTokenAmount(m.supply, m.decimals));
      },
    };
  }

  ctx(value) {
    return { context: { slot: this.ledger.slot, apiVersion: API_VERSION }, value };
  }

  call(method, params) {
    const fn = Object.hasOwn(this.methods, method) ? this.methods[method] : null;
    if (!fn) throw new RpcError(-32601, 'Method not found');
    if (params !== undefined && !Array.isArray(params)) {
      throw invalidParams('Invalid params: expected an array of parameters.');
    }
    return fn(params ?? []);
  }

  // ------------------------------------------------------------ accounts

  /** UiAccount for the requested encoding (base58, base64, jsonParsed), or null. */
  encodeAccount(address, acct, cfg) {
    if (!acct) return null;
    const enc = cfg.encoding ?? 'base58';
    let data = acct.data;
    if (cfg.dataSlice) {
      const { offset = 0, length = data.length } = cfg.dataSlice;
      data = data.subarray(offset, offset + length);
    }
    const base = { lamports: acct.lamports, owner: acct.owner, executable: acct.executable, rentEpoch: acct.rentEpoch, space: acct.data.length };
    if (enc === 'jsonParsed') {
      const parsed = this.parseAccount(acct);
      if (parsed) return { ...base, data: parsed };
      return { ...base, data: [Buffer.from(data).toString('base64'), 'base64'] };
    }
    if (enc === 'base64') return { ...base, data: [Buffer.from(data).toString('base64'), 'base64'] };
    if (enc === 'base58') {
      if (data.length > 128) throw invalidParams(`Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.`);
      return { ...base, data: [b58encode(data), 'base58'] };
    }
    throw invalidParams(`Invalid params: unsupported encoding: ${enc}. Supported: base58, base64, jsonParsed`);
  }

  /** jsonParsed form of SPL token accounts and mints, as real nodes render them. */
  parseAccount(acct) {
    const program = acct.owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';
    const ta = parseTokenAccount(acct);
    if (ta) {
      const m = parseMint(this.ledger.getAccount(ta.mint));
      const info = {
        isNative: ta.isNative, mint: ta.mint, owner: ta.owner, state: ta.state,
        tokenAmount: uiTokenAmount(ta.amount, m ? m.decimals : 0),
      };
      return { parsed: { info, type: 'account' }, program, space: acct.data.length };
    }
    const m = parseMint(acct);
    if (m) {
      const info = {
        decimals: m.decimals, freezeAuthority: m.freezeAuthority, isInitialized: true,
        mintAuthority: m.mintAuthority, supply: m.supply.toString(),
      };
      return { parsed: { info, type: 'mint' }, program, space: acct.data.length };
    }
    return null;
  }

  // ------------------------------------------------------------ transactions

  simulateTransaction(p) {
    const cfg = configParam(p[1]);
    const tx = parseTxOrThrow(p[0], cfg.encoding);
    this.ledger.stats.simulations++;
    const sigVerify = !!cfg.sigVerify;
    const replace = !!cfg.replaceRecentBlockhash;
    if (sigVerify && replace) {
      throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    }
    if (sigVerify && !this.ledger.verify(tx)) {
      throw new RpcError(-32003, 'Transaction signature verification failure');
    }
    let replacementBlockhash;
    let run = tx;
    if (replace) {
      const bytes = Uint8Array.from(tx.bytes);
      bytes.set(b58decode(this.ledger.latest.blockhash), tx.message.blockhashOffset);
      run = parseTransaction(bytes);
      replacementBlockhash = { ...this.ledger.latest };
    }
    const value = this.simulateValue(run, { checkBlockhash: !replace, cfg });
    if (replacementBlockhash) value.replacementBlockhash = replacementBlockhash;
    return this.ctx(value);
  }

  /** The `value` of a simulation (shared by simulateTransaction and preflight). */
  simulateValue(tx, { checkBlockhash, cfg = {} }) {
    let pre = null;
    if (checkBlockhash) pre = this.ledger.precheck(tx);
    if (pre) {
      return { err: pre, logs: [], accounts: null, unitsConsumed: 0, returnData: null };
    }
    const sim = this.ledger.simulate(tx);
    this.addExtraUnits(tx, sim);
    let accounts = null;
    if (cfg.accounts) {
      const addrs = cfg.accounts.addresses;
      if (!Array.isArray(addrs)) throw invalidParams('Invalid params: accounts.addresses must be an array');
      const enc = { encoding: cfg.accounts.encoding || 'base64' };
      if (enc.encoding === 'base58') throw invalidParams('base58 encoding not supported');
      // As Agave: no more addresses than the message has accounts (loaded ones included).
      const max = tx.message.staticKeys.length + tx.message.lookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
      if (addrs.length > max) throw invalidParams(`Too many accounts provided; max ${max}`);
      accounts = addrs.map((a) => {
        pubkeyParam(a);
        if (sim.err) return null;
        return this.encodeAccount(a, sim.postAccounts.get(a) ?? this.ledger.getAccount(a), enc);
      });
    }
    const value = {
      err: sim.err,
      logs: sim.logs,
      accounts,
      unitsConsumed: sim.unitsConsumed,
      returnData: sim.returnData,
      // Not returned by real nodes; harmless extras that callers can use.
      fee: sim.fee,
      preBalances: sim.preBalances,
      postBalances: sim.postBalances,
    };
    if (cfg.innerInstructions) value.innerInstructions = sim.innerInstructions;
    return value;
  }

  /**
   * localnet_setExtraComputeUnits: the simulation reports n more units than
   * litesvm measured, as a node does when a program's cost has grown since
   * the transaction was first measured. Past the transaction's limit it
   * fails as a real node's simulation does, with ComputationalBudgetExceeded.
   */
  addExtraUnits(tx, sim) {
    const extra = this.ledger.extraComputeUnits;
    if (extra <= 0 || sim.err) return;
    const { limit } = this.ledger.computeBudget(tx.message);
    const units = sim.unitsConsumed + extra;
    if (BigInt(units) <= limit) {
      sim.unitsConsumed = units;
      return;
    }
    sim.unitsConsumed = Number(limit);
    sim.err = { InstructionError: [tx.message.instructions.length - 1, 'ComputationalBudgetExceeded'] };
    sim.logs = [...sim.logs, `Program failed: exceeded CUs meter (${units} units needed, limit ${limit})`];
    sim.postAccounts = new Map();
  }

  sendTransaction(p) {
    this.ledger.stats.sendsReceived++;
    const cfg = configParam(p[1]);
    const tx = parseTxOrThrow(p[0], cfg.encoding);
    // Fault injection (faults.mjs): accepted and answered, never executed.
    if (this.dropHook()) return tx.signature;
    // Real nodes verify signatures before anything else, even with skipPreflight.
    if (!this.ledger.verify(tx)) throw new RpcError(-32003, 'Transaction signature verification failure');
    if (!cfg.skipPreflight) {
      this.ledger.stats.simulations++;
      const v = this.simulateValue(tx, { checkBlockhash: true });
      if (v.err) {
        this.ledger.stats.sendsRejected++;
        throw new RpcError(-32002, `Transaction simulation failed: ${txErrorText(v.err)}`, {
          accounts: null, err: v.err, innerInstructions: null, loadedAccountsDataSize: 0,
          logs: v.logs, replacementBlockhash: null, returnData: null, unitsConsumed: v.unitsConsumed,
        });
      }
    }
    // With skipPreflight a refused transaction is still "accepted": the node
    // forwards it and it simply never lands, exactly like a real cluster.
    this.beforeExecuteHook(tx);
    const r = this.ledger.execute(tx);
    if (!r.landed) {
      this.ledger.stats.sendsRejected++;
      this.log(`send ${tx.signature} did not land: ${JSON.stringify(r.err)}`);
    }
    return tx.signature;
  }

  /**
   * The landed transactions that name an address (loaded addresses
   * included), newest first, as a node's history answers: at confirmed or
   * finalized commitment, `before` and `until` exclusive, at most `limit`
   * (1 to 1,000; 1,000 by default).
   */
  getSignaturesForAddress(p) {
    const address = pubkeyParam(p[0]);
    const cfg = configParam(p[1]);
    const commitment = cfg.commitment ?? 'finalized';
    if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
    const limit = cfg.limit ?? 1000;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw invalidParams('Invalid params: limit must be from 1 to 1000');
    for (const s of [cfg.before, cfg.until]) {
      if (s !== undefined && s !== null && (typeof s !== 'string' || !isSignature(s))) throw invalidParams('Invalid param: Invalid');
    }
    const out = [];
    // Landing order is the ledger's history order (a Map keeps insertion order).
    const records = [...this.ledger.txs.values()].reverse();
    let started = !cfg.before;
    for (const r of records) {
      if (!started) {
        started = r.signature === cfg.before;
        continue;
      }
      if (r.signature === cfg.until) break;
      const age = this.ledger.slot - r.slot;
      if (age < 1 || (commitment === 'finalized' && age < FINALITY_DEPTH)) continue;
      if (!r.keys.includes(address)) continue;
      out.push({
        signature: r.signature, slot: r.slot, err: r.err, memo: null, blockTime: r.blockTime,
        confirmationStatus: this.ledger.status(r).confirmationStatus,
      });
      if (out.length === limit) break;
    }
    return out;
  }

  getTransaction(p) {
    if (typeof p[0] !== 'string') throw invalidParams('Invalid param: Invalid');
    let cfg = p[1];
    if (typeof cfg === 'string') cfg = { encoding: cfg }; // legacy positional encoding
    cfg = configParam(cfg);
    const encoding = cfg.encoding ?? 'json';
    if (!['json', 'base64', 'base58', 'jsonParsed'].includes(encoding)) {
      throw invalidParams(`Invalid params: unsupported encoding: ${encoding}`);
    }
    const commitment = cfg.commitment ?? 'finalized';
    if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
    let sigBytes;
    try {
      sigBytes = b58decode(p[0]);
    } catch {
      sigBytes = null;
    }
    if (!sigBytes || sigBytes.length !== 64) throw invalidParams('Invalid param: Invalid');
    const r = this.ledger.txs.get(p[0]);
    if (!r) return null;
    if (Date.now() - r.landedAtMs < this.ledger.getTransactionLagMs) return null;
    // As on real nodes, a transaction is only visible at the requested
    // commitment: default `finalized` means 32 slots after landing.
    const age = this.ledger.slot - r.slot;
    if (age < 1) return null;
    if (commitment === 'finalized' && age < FINALITY_DEPTH) return null;

    const version = r.tx.message.version;
    const maxVersion = cfg.maxSupportedTransactionVersion;
    if (version !== 'legacy' && (maxVersion === undefined || maxVersion === null || maxVersion < version)) {
      throw new RpcError(-32015, `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`);
    }
    let transaction;
    if (encoding === 'base64') transaction = [Buffer.from(r.tx.bytes).toString('base64'), 'base64'];
    else if (encoding === 'base58') transaction = [b58encode(r.tx.bytes), 'base58'];
    else transaction = this.transactionJson(r);

    const meta = {
      err: r.err,
      status: r.err ? { Err: r.err } : { Ok: null },
      fee: r.fee,
      preBalances: r.preBalances,
      postBalances: r.postBalances,
      innerInstructions: r.innerInstructions,
      logMessages: r.logs,
      preTokenBalances: r.preTokenBalances,
      postTokenBalances: r.postTokenBalances,
      rewards: [],
      loadedAddresses: r.loaded,
      computeUnitsConsumed: r.computeUnitsConsumed,
    };
    if (r.returnData) meta.returnData = r.returnData;
    const out = { slot: r.slot, blockTime: r.blockTime, transaction, meta };
    // Real nodes only include `version` when the client declared support.
    if (maxVersion !== undefined && maxVersion !== null) out.version = version;
    return out;
  }

  /** The `json` encoding of a transaction (UiTransaction with a raw message). */
  transactionJson(r) {
    const m = r.tx.message;
    const message = {
      accountKeys: m.staticKeys.map(b58encode),
      header: m.header,
      recentBlockhash: b58encode(m.recentBlockhash),
      instructions: m.instructions.map((ix) => ({
        programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: b58encode(ix.data), stackHeight: null,
      })),
    };
    if (m.version !== 'legacy') {
      message.addressTableLookups = m.lookups.map((l) => ({
        accountKey: b58encode(l.key), writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes,
      }));
    }
    return { signatures: r.tx.signatures.map(b58encode), message };
  }
}

