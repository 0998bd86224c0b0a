// ledger.mjs — the chain state behind the RPC: a litesvm instance plus the
// parts of a validator litesvm does not model (slots, block height, the
// blockhash queue and its 150-block expiry, the status cache that refuses
// duplicates, and the transaction history with balances that
// getTransaction / getSignatureStatuses report).

import crypto from 'node:crypto';
import { LiteSVM, Clock, Account } from 'litesvm';
import {
  b58encode, b58decode, parseTransaction, verifySignatures, txErrorJson,
  newKeypair, buildSignedLegacyTx,
} from './wire.mjs';
import {
  parseTokenAccount, parseMint, uiTokenAmount, encodeMint, encodeTokenAccount,
  associatedTokenAddress, setU64, TOKEN_PROGRAM, SYSTEM_PROGRAM, MINT_SIZE,
  TOKEN_ACCOUNT_SIZE, NATIVE_MINT, TOKEN_2022_PROGRAM, encodeMint2022, mintExtensions,
  encodeTokenAccount2022,
} from './tokens.mjs';

export const LAMPORTS_PER_SIGNATURE = 5000n;
// A blockhash can be used while the block height is at most the height at
// which it was issued + 150 (MAX_PROCESSING_AGE on real validators).
export const MAX_PROCESSING_AGE = 150;
// Slots after landing until a transaction is reported `finalized`.
export const FINALITY_DEPTH = 32;
// Real nodes report u64::MAX as rentEpoch for rent-exempt accounts.
export const RENT_EPOCH_EXEMPT = (1n << 64n) - 1n;

const ALT_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
const COMPUTE_BUDGET_PROGRAM_BYTES = b58decode('ComputeBudget111111111111111111111111111111');
const ALT_HEADER_SIZE = 56;

// The SlotHashes sysvar account as litesvm's setSlotHashes writes it, and as
// it is on real clusters: 20 488 bytes (a u64 count, then up to 512 entries
// of a u64 slot and a 32-byte hash, newest first, zero padded), 1 lamport,
// owned by the sysvar program.
const SLOT_HASHES_MAX = 512;
const SLOT_HASH_ENTRY = 40;
const SLOT_HASHES_SIZE = 8 + SLOT_HASHES_MAX * SLOT_HASH_ENTRY;
const SLOT_HASHES_ID = b58decode('SysvarS1otHashes111111111111111111111111111');
const SYSVAR_OWNER = b58decode('Sysvar1111111111111111111111111111111111111');

export class Ledger {
  constructor({ genesisHash, log = () => {} }) {
    this.genesisHash = genesisHash;
    this.log = log;
    // Blockhash checking is done here (see checkBlockhash): litesvm only
    // accepts its single latest blockhash, real validators accept any
    // blockhash younger than 150 blocks.
    this.svm = new LiteSVM().withBlockhashCheck(false).withSigverify(true);
    this.inner = this.svm.inner; // raw-bytes send/simulate, no @solana/kit object round trip

    // Start with slot > block height, as on every real cluster (skipped
    // slots), so code that mixes the two up is not silently right.
    this.blockHeight = 0;
    this.slot = 10;
    this.slotHashes = []; // newest first, for the SlotHashes sysvar
    this.slotHashesData = new Uint8Array(SLOT_HASHES_SIZE); // its account data
    this.blockhashes = new Map(); // base58 blockhash -> lastValidBlockHeight
    this.txs = new Map(); // signature -> record (landed transactions only)
    this.transactionCount = 0;
    // The fee market getRecentPrioritizationFees reports (see
    // localnet_setPrioritizationFees): empty, as on an idle cluster.
    this.feeMarket = { fees: [], accounts: new Map(), unsupported: false };
    // getTransaction answers null for this long after a transaction landed,
    // as a load-balanced RPC whose history lags its status cache.
    this.getTransactionLagMs = 0;
    // Compute units every simulation reports on top of what litesvm measured
    // (localnet_setExtraComputeUnits).
    this.extraComputeUnits = 0;
    this.stats = {
      sendsReceived: 0, sendsDropped: 0, sendsRejected: 0,
      transactionsExecuted: 0, transactionsFailed: 0, airdrops: 0,
      simulations: 0, rpcCalls: 0, httpRequests: 0, failedCalls: 0, prioritizationFeeQueries: 0,
    };

    // The faucet behind requestAirdrop: a real keypair whose transfers are
    // real transactions, so airdrop signatures behave like any other.
    this.faucet = newKeypair();
    this.setAccount(this.faucet.address, { lamports: 500_000_000n * 1_000_000_000n, owner: SYSTEM_PROGRAM, data: new Uint8Array(0) });
    // Default mint authority for localnet_createMint.
    this.mintAuthority = newKeypair();
    // The native mint exists on every cluster (wrapped SOL: no authority,
    // 9 decimals); the associated token account program and TransferChecked
    // on wrapped SOL read it.
    if (!this.getAccount(NATIVE_MINT)) {
      const data = encodeMint({ mintAuthority: null, supply: 0n, decimals: 9, freezeAuthority: null });
      this.setAccount(NATIVE_MINT, { lamports: this.rentExempt(data.length), owner: TOKEN_PROGRAM, data });
    }

    this.advance(0);
  }

  // ------------------------------------------------------------ time

  /** Produce `n` blocks (and slots) at once; always rotates the blockhash. */
  advance(n) {
    this.slot += n;
    this.blockHeight += n;
    this.svm.expireBlockhash();
    const clock = this.svm.getClock();
    const c = new Clock(BigInt(this.slot), clock.epochStartTimestamp, 0n, 0n, BigInt(Math.floor(Date.now() / 1000)));
    this.svm.setClock(c);
    const bh = this.svm.latestBlockhash();
    // The SlotHashes sysvar lists recent (slot, blockhash) pairs; programs
    // read it, notably the address lookup table program, which only creates
    // a table for a `recent_slot` found there (real clusters keep 512).
    this.slotHashes.unshift({ slot: BigInt(this.slot), hash: bh });
    if (this.slotHashes.length > SLOT_HASHES_MAX) this.slotHashes.pop();
    this.writeSlotHashes(bh);
    this.latest = { blockhash: bh, lastValidBlockHeight: this.blockHeight + MAX_PROCESSING_AGE };
    this.blockhashes.set(bh, this.latest.lastValidBlockHeight);
    // Forget blockhashes long expired so the map stays small.
    if (this.blockhashes.size > 4 * MAX_PROCESSING_AGE) {
      for (const [h, lv] of this.blockhashes) {
        if (lv < this.blockHeight - MAX_PROCESSING_AGE) this.blockhashes.delete(h);
      }
    }
  }

  /**
   * Sets the SlotHashes sysvar to this.slotHashes, whose newest entry
   * (this.slot, bh) was just added: the older entries move down one place
   * in the account's bytes and the new one is written at the head. Setting
   * the account updates litesvm's sysvar cache as setSlotHashes does;
   * setSlotHashes itself took ~0.6 ms a slot to convert and base58-decode
   * all 512 entries, on the event loop every slot (20 ms in the benchmark),
   * where a request arriving meanwhile waited for it.
   */
  writeSlotHashes(bh) {
    const d = this.slotHashesData;
    const n = this.slotHashes.length;
    d.copyWithin(8 + SLOT_HASH_ENTRY, 8, 8 + (n - 1) * SLOT_HASH_ENTRY);
    const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
    v.setBigUint64(0, BigInt(n), true);
    v.setBigUint64(8, BigInt(this.slot), true);
    d.set(b58decode(bh), 16);
    this.inner.setAccount(SLOT_HASHES_ID, new Account(1n, d, SYSVAR_OWNER, false, 0n));
  }

  isBlockhashValid(bh) {
    const lv = this.blockhashes.get(bh);
    return lv !== undefined && lv >= this.blockHeight;
  }

  // ------------------------------------------------------------ accounts

  /** { lamports: bigint, owner: string, data: Uint8Array, executable } or null. */
  getAccount(address) {
    // The raw binding, not LiteSVM.getAccount: the wrapper builds
    // @solana/kit address codecs on every call, which made a read cost
    // ~80 µs against ~5 µs here (a proposal's batch makes about ten account
    // and balance reads).
    const a = this.inner.getAccount(addressBytes(address));
    if (a === null) return null;
    return { lamports: a.lamports(), owner: b58encode(a.owner()), data: a.data(), executable: a.executable(), rentEpoch: RENT_EPOCH_EXEMPT };
  }

  setAccount(address, { lamports, owner, data, executable = false }) {
    this.svm.setAccount({ address, lamports, programAddress: owner, data, executable, space: BigInt(data.length) });
  }

  balance(address) {
    return this.inner.getBalance(addressBytes(address)) ?? 0n; // raw binding, as getAccount
  }

  rentExempt(len) {
    return this.svm.minimumBalanceForRentExemption(BigInt(len));
  }

  programAccounts(program) {
    return this.svm.getProgramAccounts(program).map((a) => ({
      pubkey: String(a.address),
      account: { lamports: BigInt(a.lamports), owner: String(a.programAddress), data: a.data, executable: a.executable, rentEpoch: RENT_EPOCH_EXEMPT },
    }));
  }

  /** Token balance entry (getTransaction meta shape) for the account at index i, or null. */
  tokenBalance(i, address) {
    const ta = parseTokenAccount(this.getAccount(address));
    if (!ta) return null;
    const mint = parseMint(this.getAccount(ta.mint));
    const decimals = mint ? mint.decimals : 0;
    return { accountIndex: i, mint: ta.mint, owner: ta.owner, programId: ta.programId, uiTokenAmount: uiTokenAmount(ta.amount, decimals) };
  }

  // ------------------------------------------------------------ transactions

  /**
   * All account keys of a transaction in message order: static keys, then
   * lookup-table writable, then lookup-table readonly (as real nodes list
   * them in pre/postBalances). Unresolvable lookups yield { keys: static }.
   */
  accountKeys(msg) {
    const keys = msg.staticKeys.map(b58encode);
    const loaded = { writable: [], readonly: [] };
    for (const l of msg.lookups) {
      const alt = this.getAccount(b58encode(l.key));
      if (!alt || alt.owner !== ALT_PROGRAM) return { keys, loaded, unresolved: true };
      const addrs = [];
      for (let o = ALT_HEADER_SIZE; o + 32 <= alt.data.length; o += 32) addrs.push(b58encode(alt.data.subarray(o, o + 32)));
      for (const i of l.writableIndexes) {
        if (i >= addrs.length) return { keys, loaded, unresolved: true };
        loaded.writable.push(addrs[i]);
      }
      for (const i of l.readonlyIndexes) {
        if (i >= addrs.length) return { keys, loaded, unresolved: true };
        loaded.readonly.push(addrs[i]);
      }
    }
    return { keys: [...keys, ...loaded.writable, ...loaded.readonly], loaded, unresolved: false };
  }

  /**
   * The compute budget a message asks for, read from its ComputeBudget
   * instructions as a validator reads them: { price } in micro-lamports per
   * compute unit and { limit } in units (default 200 000 per other
   * instruction, at most 1 400 000).
   */
  computeBudget(msg) {
    let price = 0n;
    let limit = null;
    let nonBudget = 0;
    for (const ix of msg.instructions) {
      const prog = msg.staticKeys[ix.programIdIndex];
      if (prog && sameBytes(prog, COMPUTE_BUDGET_PROGRAM_BYTES)) {
        const d = Buffer.from(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength); // a view, no copy
        if (d[0] === 2 && d.length >= 5) limit = BigInt(d.readUInt32LE(1));
        if (d[0] === 3 && d.length >= 9) price = d.readBigUInt64LE(1);
      } else {
        nonBudget++;
      }
    }
    if (limit === null) limit = BigInt(Math.min(1_400_000, 200_000 * nonBudget));
    if (limit > 1_400_000n) limit = 1_400_000n;
    return { price, limit };
  }

  /**
   * The fee a validator charges: 5000 lamports per signature plus the
   * priority fee (compute-unit price × limit, rounded up), as litesvm
   * charges it (the payer's balance on the ledger is litesvm's, so a test
   * comparing it with this number checks both).
   */
  fee(msg) {
    const { price, limit } = this.computeBudget(msg);
    const priority = (price * limit + 999_999n) / 1_000_000n;
    return BigInt(msg.header.numRequiredSignatures) * LAMPORTS_PER_SIGNATURE + priority;
  }

  /**
   * getRecentPrioritizationFees: one entry per recent slot (oldest first),
   * from the table set by localnet_setPrioritizationFees. A slot's fee for a
   * set of accounts is the highest of the table's general fee and each
   * requested account's own fee, as a real node reports the fee needed to
   * write-lock all of them. Returns null when the table says the method is
   * unsupported.
   */
  /**
   * The nearest-rank percentile (1..100, fractions allowed) of the non-zero
   * fees the market table gives for these accounts; 0n when there are none.
   */
  feePercentile(accounts, pct) {
    const fees = (this.prioritizationFees(accounts) ?? []).map((f) => f.prioritizationFee).filter((f) => f > 0n);
    if (fees.length === 0) return 0n;
    fees.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const rank = Math.max(1, Math.ceil((pct / 100) * fees.length));
    return fees[Math.min(rank, fees.length) - 1];
  }

  prioritizationFees(accounts) {
    const m = this.feeMarket;
    if (m.unsupported) return null;
    const n = Math.max(m.fees.length, ...accounts.map((a) => (m.accounts.get(a) ?? []).length), 0);
    const out = [];
    // The last n slots; a ledger younger than its table numbers from 0.
    const first = Math.max(0, this.slot - n + 1);
    for (let i = 0; i < n; i++) {
      let fee = m.fees[i] ?? 0n;
      for (const a of accounts) {
        const f = (m.accounts.get(a) ?? [])[i] ?? 0n;
        if (f > fee) fee = f;
      }
      out.push({ slot: first + i, prioritizationFee: fee });
    }
    return out;
  }

  /**
   * Checks a real node makes before executing: the blockhash is known and
   * not expired, and the signature is not in the status cache. Returns a
   * transaction-error JSON value, or null when the transaction may run.
   */
  precheck(tx) {
    if (this.txs.has(tx.signature)) return 'AlreadyProcessed';
    if (!this.isBlockhashValid(b58encode(tx.message.recentBlockhash))) return 'BlockhashNotFound';
    return null;
  }

  verify(tx) {
    return verifySignatures(tx);
  }

  /**
   * Execute a parsed, signature-checked transaction against the ledger.
   * Returns { landed: bool, err, record? }. A transaction "lands" when the
   * validator would put it in a block: it succeeded, or it failed during
   * execution after the fee was charged. Failures before that point
   * (unknown blockhash, fee payer cannot pay, bad signature, ...) never land.
   */
  execute(tx, { kind = 'send' } = {}) {
    const pre = this.precheck(tx);
    if (pre) return { landed: false, err: pre };
    const { keys, loaded } = this.accountKeys(tx.message);
    const preBalances = keys.map((k) => this.balance(k));
    const preTokenBalances = keys.map((k, i) => this.tokenBalance(i, k)).filter(Boolean);

    let result;
    try {
      result = tx.message.version === 'legacy'
        ? this.inner.sendLegacyTransaction(tx.bytes)
        : this.inner.sendVersionedTransaction(tx.bytes);
    } catch (e) {
      this.log(`litesvm refused transaction ${tx.signature}: ${e.message}`);
      return { landed: false, err: 'SanitizeFailure' };
    }
    const failed = result.constructor.name === 'FailedTransactionMetadata';
    const err = failed ? txErrorJson(result.err()) : null;
    // litesvm keeps a transaction in its history exactly when it was
    // committed (fee charged); that is our "landed".
    const landed = this.inner.getTransaction(b58decode(tx.signature)) !== null;
    if (!landed) return { landed: false, err };

    const meta = failed ? result.meta() : result;
    const record = {
      signature: tx.signature,
      slot: this.slot,
      blockTime: Math.floor(Date.now() / 1000),
      landedAtMs: Date.now(),
      tx,
      keys,
      loaded,
      err,
      fee: this.fee(tx.message),
      preBalances,
      postBalances: keys.map((k) => this.balance(k)),
      preTokenBalances,
      postTokenBalances: keys.map((k, i) => this.tokenBalance(i, k)).filter(Boolean),
      logs: meta.logs(),
      innerInstructions: innerInstructionsJson(meta.innerInstructions()),
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      returnData: returnDataJson(meta.returnData()),
      kind,
    };
    this.txs.set(tx.signature, record);
    this.transactionCount++;
    if (kind === 'airdrop') this.stats.airdrops++;
    else if (err) this.stats.transactionsFailed++;
    else this.stats.transactionsExecuted++;
    return { landed: true, err, record };
  }

  /**
   * Simulate without committing. `tx` may be unsigned when sigVerify is off.
   * Returns { err, logs, unitsConsumed, returnData, postAccounts: Map, fee,
   * preBalances, postBalances, innerInstructions, keys }.
   */
  simulate(tx) {
    const { keys } = this.accountKeys(tx.message);
    const preBalances = keys.map((k) => this.balance(k));
    let result;
    // Signatures are checked by the caller when requested (sigVerify);
    // simulation itself must accept unsigned transactions like real nodes.
    this.inner.setSigverify(false);
    try {
      result = tx.message.version === 'legacy'
        ? this.inner.simulateLegacyTransaction(tx.bytes)
        : this.inner.simulateVersionedTransaction(tx.bytes);
    } catch (e) {
      this.log(`litesvm refused simulation: ${e.message}`);
      return { err: 'SanitizeFailure', logs: [], unitsConsumed: 0, returnData: null, postAccounts: new Map(), keys, preBalances, postBalances: preBalances, fee: 0n, innerInstructions: [] };
    } finally {
      this.inner.setSigverify(true);
    }
    const failed = result.constructor.name === 'FailedTransactionMetadata';
    const meta = result.meta();
    const postAccounts = new Map();
    if (!failed) {
      for (const aa of result.postAccounts()) {
        const acc = aa.account();
        postAccounts.set(b58encode(aa.address), {
          lamports: acc.lamports(), owner: b58encode(acc.owner()), data: acc.data(), executable: acc.executable(), rentEpoch: RENT_EPOCH_EXEMPT,
        });
      }
    }
    const fee = this.fee(tx.message);
    const postBalances = keys.map((k) => (postAccounts.has(k) ? postAccounts.get(k).lamports : this.balance(k)));
    return {
      err: failed ? txErrorJson(result.err()) : null,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      returnData: returnDataJson(meta.returnData()),
      innerInstructions: innerInstructionsJson(meta.innerInstructions()),
      postAccounts,
      keys,
      fee,
      preBalances,
      postBalances,
    };
  }

  /** Confirmation status of a landed record at the current slot. */
  status(record) {
    const age = this.slot - record.slot;
    if (age >= FINALITY_DEPTH) return { confirmationStatus: 'finalized', confirmations: null };
    if (age >= 1) return { confirmationStatus: 'confirmed', confirmations: age };
    return { confirmationStatus: 'processed', confirmations: 0 };
  }

  // ------------------------------------------------------------ helpers behind localnet_* and requestAirdrop

  /** A real transfer from the faucet; returns the execute() result. */
  airdrop(to, lamports) {
    const data = Buffer.alloc(12);
    data.writeUInt32LE(2, 0); // SystemInstruction::Transfer
    data.writeBigUInt64LE(lamports, 4);
    const toKey = b58decode(to);
    const bytes = buildSignedLegacyTx(
      this.faucet, b58decode(this.latest.blockhash), b58decode(SYSTEM_PROGRAM),
      [{ key: this.faucet.publicKey, writable: true }, { key: toKey, writable: true }], data,
    );
    const tx = parseTransaction(bytes);
    return { signature: tx.signature, ...this.execute(tx, { kind: 'airdrop' }) };
  }

  fund(address, lamports) {
    const a = this.getAccount(address);
    if (a) {
      this.setAccount(address, { ...a, lamports: a.lamports + lamports });
    } else {
      this.setAccount(address, { lamports, owner: SYSTEM_PROGRAM, data: new Uint8Array(0) });
    }
    return this.balance(address);
  }

  // at: the mint's address (a test that must name the mint before it
  // exists, e.g. in a console's caps); random when absent.
  createMint(decimals, authority, token2022 = false, extensions = {}, freezeAuthority = null, at = null) {
    const mint = at ?? b58encode(crypto.randomBytes(32));
    const mintAuthority = authority ?? this.mintAuthority.address;
    const state = { mintAuthority, supply: 0n, decimals, freezeAuthority };
    const data = token2022 ? encodeMint2022(state, extensions) : encodeMint(state);
    this.setAccount(mint, {
      lamports: this.rentExempt(data.length), owner: token2022 ? TOKEN_2022_PROGRAM : TOKEN_PROGRAM,
      data,
    });
    return mint;
  }

  async mintTo(mint, owner, amount) {
    if (mint === NATIVE_MINT) return this.wrapSol(owner, amount);
    const mintAcct = this.getAccount(mint);
    const m = parseMint(mintAcct);
    if (!m) throw new Error(`${mint} is not an SPL token mint`);
    const ata = await associatedTokenAddress(owner, mint, mintAcct.owner);
    const existing = this.getAccount(ata);
    let data;
    if (existing) {
      const ta = parseTokenAccount(existing);
      if (!ta || ta.mint !== mint) throw new Error(`associated token account ${ata} exists but is not a token account for ${mint}`);
      data = Uint8Array.from(existing.data);
      setU64(data, 64, ta.amount + amount);
    } else if (mintAcct.owner === TOKEN_2022_PROGRAM) {
      data = encodeTokenAccount2022({ mint, owner, amount }, mintExtensions(mintAcct.data));
    } else {
      data = encodeTokenAccount({ mint, owner, amount });
    }
    const mintData = Uint8Array.from(mintAcct.data);
    setU64(mintData, 36, m.supply + amount);
    this.setAccount(ata, {
      lamports: existing ? existing.lamports : this.rentExempt(data.length),
      owner: mintAcct.owner, data,
    });
    this.setAccount(mint, { ...mintAcct, data: mintData });
    return ata;
  }
}

/**
 * Wrapped SOL for owner: its associated wrapped-SOL account, created or
 * topped up, holding `amount` more lamports beyond rent (is_native set, as the
 * token program keeps it).
 */
Ledger.prototype.wrapSol = async function wrapSol(owner, amount) {
  const ata = await associatedTokenAddress(owner, NATIVE_MINT, TOKEN_PROGRAM);
  const existing = this.getAccount(ata);
  const rent = this.rentExempt(TOKEN_ACCOUNT_SIZE);
  let data;
  let lamports;
  if (existing) {
    const ta = parseTokenAccount(existing);
    if (!ta || ta.mint !== NATIVE_MINT) throw new Error(`${ata} exists but is not a wrapped-SOL account`);
    data = Uint8Array.from(existing.data);
    setU64(data, 64, ta.amount + amount);
    lamports = existing.lamports + amount;
  } else {
    data = encodeTokenAccount({ mint: NATIVE_MINT, owner, amount });
    const d = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    d.writeUInt32LE(1, 109); // is_native: Some(rent)
    d.writeBigUInt64LE(rent, 113);
    lamports = rent + amount;
  }
  this.setAccount(ata, { lamports, owner: TOKEN_PROGRAM, data });
  return ata;
};

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Decoded addresses, for the reads every request repeats (a wallet, its
// recipient). A pure function of the string, so never stale; the arrays
// only go to litesvm's binding, which copies them. Cleared when full.
const ADDRESS_CACHE_MAX = 4096;
const addressCache = new Map();

/** The 32 bytes of a base58 address; throws on anything else, as kit's codec did. */
function addressBytes(address) {
  let bytes = addressCache.get(address);
  if (bytes !== undefined) return bytes;
  bytes = b58decode(address);
  if (bytes.length !== 32) throw new Error(`${JSON.stringify(address)} is not a base58 32-byte address`);
  if (addressCache.size >= ADDRESS_CACHE_MAX) addressCache.clear();
  addressCache.set(address, bytes);
  return bytes;
}

function innerInstructionsJson(groups) {
  const out = [];
  groups.forEach((group, index) => {
    if (!group || group.length === 0) return;
    out.push({
      index,
      instructions: group.map((ii) => {
        const ci = ii.instruction();
        return { programIdIndex: ci.programIdIndex(), accounts: [...ci.accounts()], data: b58encode(ci.data()), stackHeight: ii.stackHeight() };
      }),
    });
  });
  return out;
}

function returnDataJson(rd) {
  if (!rd) return null;
  const data = rd.data();
  if (!data || data.length === 0) return null;
  return { programId: b58encode(rd.programId()), data: [Buffer.from(data).toString('base64'), 'base64'] };
}
