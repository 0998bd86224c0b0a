// wire.mjs — Solana wire formats: base58, compact-u16, transaction/message
// parsing, ed25519 signatures, and the JSON shapes real nodes use for
// transaction errors.
//
// The transaction parser is our own (rather than @solana/kit's decoders)
// because the server needs byte offsets, not just values: replacing the
// recent blockhash for `replaceRecentBlockhash` means rewriting 32 bytes in
// place inside the signed message.

import crypto from 'node:crypto';

// ---------------------------------------------------------------- base58

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
// Character code -> digit value, -1 for characters outside the alphabet.
const B58_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < B58.length; i++) B58_DIGIT[B58.charCodeAt(i)] = i;

// Base58 is on every request's path (each address read, each key and
// signature of a transaction), so both directions work on wide limbs in
// plain doubles rather than on a BigInt: encode keeps base-58^5 limbs and
// takes the input two bytes at a time (limb × 65536 + carry < 2^53), decode
// keeps base-2^16 limbs and takes five characters at a time (limb × 58^5 +
// carry < 2^53). Both are exact; TestBase58MatchesTheReference holds them
// to a reference implementation.
const B58_5 = 58 ** 5;
// Scratch limbs shared by both directions (single-threaded, never held
// across calls), grown for the longest input seen; allocating them per call
// cost more than the arithmetic on a 32-byte key.
let scratch = new Float64Array(64);
let chars = Buffer.allocUnsafe(128);
const B58_CODES = Uint8Array.from(B58, (c) => c.charCodeAt(0));
function limbsFor(n) {
  if (scratch.length < n) scratch = new Float64Array(n);
  return scratch;
}

export function b58encode(bytes) {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // 2 bytes become at most 2.74 base-58 digits, so (n/2 + 1) * 2.74 / 5 limbs
  // are enough; more for rounding.
  const limbs = limbsFor((((n - zeros) >> 1) + 2) * 0.55 + 2 | 0);
  let used = 0; // limbs in use, least significant first
  let i = zeros;
  if ((n - zeros) & 1) {
    limbs[0] = bytes[i++];
    used = limbs[0] > 0 ? 1 : 0;
  }
  for (; i < n; i += 2) {
    let carry = (bytes[i] << 8) | bytes[i + 1];
    for (let k = 0; k < used; k++) {
      const v = limbs[k] * 65536 + carry;
      carry = Math.floor(v / B58_5);
      limbs[k] = v - carry * B58_5;
    }
    while (carry > 0) {
      const q = Math.floor(carry / B58_5);
      limbs[used++] = carry - q * B58_5;
      carry = q;
    }
  }
  // The characters go to a scratch buffer and become one string: appending
  // them one by one made a string object a character.
  if (chars.length < zeros + used * 5) chars = Buffer.allocUnsafe(zeros + used * 5);
  let o = 0;
  while (o < zeros) chars[o++] = 49; // '1'
  for (let k = used - 1; k >= 0; k--) {
    // Five digits a limb, most significant first; the top limb without
    // its leading zeros.
    const v = limbs[k];
    let p = B58_5 / 58;
    let started = k < used - 1;
    for (let d = 0; d < 5; d++) {
      const q = Math.floor(v / p) % 58;
      if (q !== 0 || started) {
        chars[o++] = B58_CODES[q];
        started = true;
      }
      p /= 58;
    }
  }
  return chars.toString('latin1', 0, o);
}

/** The bytes of a base58 string; throws on characters outside the alphabet. */
export function b58decode(str) {
  const { limbs, used, zeros } = decodeLimbs(str);
  let len = used * 2;
  if (used > 0 && limbs[used - 1] < 256) len--;
  const out = new Uint8Array(zeros + len);
  for (let k = 0, o = out.length - 1; k < used; k++) {
    out[o--] = limbs[k] & 0xff;
    if (o >= zeros) out[o--] = limbs[k] >>> 8;
  }
  return out;
}

const decoded = { limbs: scratch, used: 0, zeros: 0 };

function decodeLimbs(str) {
  if (typeof str !== 'string') throw new Error('expected a base58 string');
  const n = str.length;
  let zeros = 0;
  while (zeros < n && str.charCodeAt(zeros) === 49) zeros++; // '1'
  const limbs = limbsFor(((n - zeros) * 0.37 + 2) | 0); // 58 < 2^5.86, 16 bits a limb
  let used = 0;
  for (let i = zeros; i < n;) {
    let mul = 1;
    let carry = 0;
    for (let j = 0; j < 5 && i < n; j++, i++) {
      const c = str.charCodeAt(i);
      const v = c < 128 ? B58_DIGIT[c] : -1;
      if (v < 0) throw new Error(`invalid base58 character ${JSON.stringify(String.fromCodePoint(str.codePointAt(i)))}`);
      carry = carry * 58 + v;
      mul *= 58;
    }
    for (let k = 0; k < used; k++) {
      const v = limbs[k] * mul + carry;
      carry = Math.floor(v / 65536);
      limbs[k] = v - carry * 65536;
    }
    while (carry > 0) {
      const q = Math.floor(carry / 65536);
      limbs[used++] = carry - q * 65536;
      carry = q;
    }
  }
  decoded.limbs = limbs;
  decoded.used = used;
  decoded.zeros = zeros;
  return decoded;
}

/** Decode a base58 public key; throws a readable error unless it is 32 bytes. */
export function decodePubkey(str) {
  let bytes;
  try {
    bytes = b58decode(str);
  } catch {
    bytes = null;
  }
  if (!bytes || bytes.length !== 32) throw new Error(`Invalid param: Invalid`);
  return bytes;
}

// Strings isPubkey found to be keys: every request checks the same few
// (a pure function of the string, so never stale). Cleared when full.
const knownKeys = new Set();

export function isPubkey(str) {
  if (typeof str !== 'string') return false;
  if (knownKeys.has(str)) return true;
  // A 32-byte key is 32 ('1' for each zero byte) to 44 characters.
  if (str.length < 32 || str.length > 44) return false;
  let ok;
  try {
    const { limbs, used, zeros } = decodeLimbs(str);
    ok = zeros + used * 2 - (used > 0 && limbs[used - 1] < 256 ? 1 : 0) === 32;
  } catch {
    return false;
  }
  if (ok) {
    if (knownKeys.size >= 4096) knownKeys.clear();
    knownKeys.add(str);
  }
  return ok;
}

// ---------------------------------------------------------------- compact-u16

function readCompactU16(buf, pos) {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    if (pos.o >= buf.length) throw new Error('unexpected end of transaction data');
    const b = buf[pos.o++];
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return value;
  }
  throw new Error('invalid compact-u16 length');
}

export function encodeCompactU16(n) {
  const out = [];
  for (;;) {
    let b = n & 0x7f;
    n >>= 7;
    if (n === 0) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

function take(buf, pos, n) {
  if (pos.o + n > buf.length) throw new Error('unexpected end of transaction data');
  const s = buf.subarray(pos.o, pos.o + n);
  pos.o += n;
  return s;
}

// ---------------------------------------------------------------- transactions

/**
 * Parse a message (legacy or v0). `base` is the message's offset inside the
 * enclosing transaction so that `blockhashOffset` is absolute.
 */
export function parseMessage(buf, base = 0) {
  const pos = { o: 0 };
  let version = 'legacy';
  if (buf.length === 0) throw new Error('empty message');
  if (buf[0] & 0x80) {
    version = buf[0] & 0x7f;
    pos.o = 1;
    if (version !== 0) throw new Error(`unsupported transaction version ${version}`);
  }
  const [numRequiredSignatures, numReadonlySigned, numReadonlyUnsigned] = take(buf, pos, 3);
  const nKeys = readCompactU16(buf, pos);
  const staticKeys = [];
  for (let i = 0; i < nKeys; i++) staticKeys.push(take(buf, pos, 32));
  const blockhashOffset = base + pos.o;
  const recentBlockhash = take(buf, pos, 32);
  const nIx = readCompactU16(buf, pos);
  const instructions = [];
  for (let i = 0; i < nIx; i++) {
    const programIdIndex = take(buf, pos, 1)[0];
    const nAcc = readCompactU16(buf, pos);
    const accounts = [...take(buf, pos, nAcc)];
    const dataLen = readCompactU16(buf, pos);
    const data = take(buf, pos, dataLen);
    instructions.push({ programIdIndex, accounts, data });
  }
  const lookups = [];
  if (version === 0) {
    const nL = readCompactU16(buf, pos);
    for (let i = 0; i < nL; i++) {
      const key = take(buf, pos, 32);
      const nw = readCompactU16(buf, pos);
      const writableIndexes = [...take(buf, pos, nw)];
      const nr = readCompactU16(buf, pos);
      const readonlyIndexes = [...take(buf, pos, nr)];
      lookups.push({ key, writableIndexes, readonlyIndexes });
    }
  }
  if (pos.o !== buf.length) throw new Error('trailing bytes after message');
  if (numRequiredSignatures > nKeys || numRequiredSignatures === 0) {
    throw new Error('message header does not match its account keys');
  }
  return {
    version,
    header: { numRequiredSignatures, numReadonlySignedAccounts: numReadonlySigned, numReadonlyUnsignedAccounts: numReadonlyUnsigned },
    staticKeys,
    recentBlockhash,
    blockhashOffset,
    instructions,
    lookups,
  };
}

/** Parse a wire transaction (signatures + message). Throws on malformed input. */
export function parseTransaction(bytes) {
  const pos = { o: 0 };
  const nSig = readCompactU16(bytes, pos);
  const signatures = [];
  for (let i = 0; i < nSig; i++) signatures.push(take(bytes, pos, 64));
  const messageOffset = pos.o;
  const messageBytes = bytes.subarray(messageOffset);
  const message = parseMessage(messageBytes, messageOffset);
  if (nSig !== message.header.numRequiredSignatures) {
    throw new Error('number of signatures does not match the message header');
  }
  return { bytes, signatures, messageBytes, message, signature: b58encode(signatures[0]) };
}

/** Decode a transaction parameter the way real nodes do (base58 default, or base64). */
export function decodeTxParam(data, encoding) {
  if (typeof data !== 'string') throw new Error('transaction must be a string');
  const enc = encoding ?? 'base58';
  let bytes;
  if (enc === 'base58') {
    bytes = b58decode(data);
  } else if (enc === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new Error('invalid base64 encoding');
    bytes = new Uint8Array(Buffer.from(data, 'base64'));
  } else {
    throw new Error(`unsupported encoding: ${enc}. Supported encodings: base58, base64`);
  }
  if (bytes.length > 1232) throw new Error(`transaction too large: ${bytes.length} bytes (max: 1232 bytes)`);
  return bytes;
}

// ---------------------------------------------------------------- ed25519

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** True when every signature verifies against its signer key over the message. */
export function verifySignatures(tx) {
  const { signatures, messageBytes, message } = tx;
  for (let i = 0; i < signatures.length; i++) {
    const key = crypto.createPublicKey({
      key: Buffer.concat([SPKI_PREFIX, message.staticKeys[i]]),
      format: 'der',
      type: 'spki',
    });
    let ok = false;
    try {
      ok = crypto.verify(null, messageBytes, key, signatures[i]);
    } catch {
      ok = false;
    }
    if (!ok) return false;
  }
  return true;
}

/** A fresh ed25519 keypair: { publicKey: Uint8Array(32), address, sign(msg) }. */
export function newKeypair() {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(12));
  return {
    publicKey: raw,
    address: b58encode(raw),
    sign: (msg) => new Uint8Array(crypto.sign(null, msg, privateKey)),
  };
}

/**
 * Build and sign a legacy transaction with a single fee-paying signer.
 * `accounts` entries are { key: Uint8Array, writable: bool }; `programId` is
 * the invoked program. Used for the airdrop faucet, which should produce a
 * real transaction that getTransaction can return like any other.
 */
export function buildSignedLegacyTx(payer, blockhash, programId, accounts, data) {
  const keys = [payer.publicKey];
  const hex = (k) => Buffer.from(k).toString('hex');
  const writableNon = [];
  const readonlyNon = [];
  for (const a of accounts) {
    if (hex(a.key) === hex(payer.publicKey)) continue;
    (a.writable ? writableNon : readonlyNon).push(a.key);
  }
  readonlyNon.push(programId);
  keys.push(...writableNon, ...readonlyNon);
  const index = (k) => keys.findIndex((x) => hex(x) === hex(k));
  const msg = [
    1, 0, readonlyNon.length,
    ...encodeCompactU16(keys.length),
    ...keys.flatMap((k) => [...k]),
    ...blockhash,
    ...encodeCompactU16(1),
    index(programId),
    ...encodeCompactU16(accounts.length),
    ...accounts.map((a) => index(a.key)),
    ...encodeCompactU16(data.length),
    ...data,
  ];
  const messageBytes = Uint8Array.from(msg);
  const sig = payer.sign(messageBytes);
  return Uint8Array.from([...encodeCompactU16(1), ...sig, ...messageBytes]);
}

// ---------------------------------------------------------------- errors

// litesvm exposes these as numeric `const enum`s (erased at runtime), so the
// names are listed here in declaration order; they are the serde names real
// nodes put in JSON.
const TX_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound',
  'InsufficientFundsForFee', 'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound',
  'CallChainTooDeep', 'MissingSignatureForFee', 'InvalidAccountIndex', 'SignatureFailure',
  'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance', 'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

const IX_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData',
  'AccountDataTooSmall', 'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature',
  'AccountAlreadyInitialized', 'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId',
  'ExternalAccountLamportSpend', 'ExternalAccountDataModified', 'ReadonlyLamportChange',
  'ReadonlyDataModified', 'DuplicateAccountIndex', 'ExecutableModified', 'RentEpochModified',
  'NotEnoughAccountKeys', 'AccountDataSizeChanged', 'AccountNotExecutable', 'AccountBorrowFailed',
  'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError', 'ExecutableDataModified',
  'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId', 'CallDepth',
  'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc',
  'ComputationalBudgetExceeded', 'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete', 'ProgramFailedToCompile', 'Immutable', 'IncorrectAuthority',
  'AccountNotRentExempt', 'InvalidAccountOwner', 'ArithmeticOverflow', 'UnsupportedSysvar',
  'IllegalOwner', 'MaxAccountsDataAllocationsExceeded', 'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
];

function instructionErrorJson(e) {
  if (typeof e === 'number') return IX_ERRORS[e] ?? 'InvalidError';
  if (e && typeof e.code === 'number') return { Custom: e.code };
  if (e && typeof e.msg === 'string') return { BorshIoError: e.msg };
  return 'InvalidError';
}

/** Convert a litesvm TransactionError into the JSON a real node returns. */
export function txErrorJson(e) {
  if (typeof e === 'number') return TX_ERRORS[e] ?? 'SanitizeFailure';
  const name = e?.constructor?.name ?? '';
  if (name === 'TransactionErrorInstructionError') return { InstructionError: [e.index, instructionErrorJson(e.err())] };
  if (name === 'TransactionErrorDuplicateInstruction') return { DuplicateInstruction: e.index };
  if (name === 'TransactionErrorInsufficientFundsForRent') return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  if (name === 'TransactionErrorProgramExecutionTemporarilyRestricted') {
    return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
  }
  return 'SanitizeFailure';
}

/** Human text for a transaction error, as in "Transaction simulation failed: <text>". */
export function txErrorText(err) {
  const fixed = {
    BlockhashNotFound: 'Blockhash not found',
    AlreadyProcessed: 'This transaction has already been processed',
    AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
    InsufficientFundsForFee: 'Insufficient funds for fee',
    SignatureFailure: 'Transaction did not pass signature verification',
    ProgramAccountNotFound: 'Attempt to load a program that does not exist',
    InvalidAccountForFee: 'This account may not be used to pay transaction fees',
    SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  };
  if (typeof err === 'string') return fixed[err] ?? err;
  if (err?.InstructionError) {
    const [i, ie] = err.InstructionError;
    if (ie?.Custom !== undefined) return `Error processing Instruction ${i}: custom program error: 0x${ie.Custom.toString(16)}`;
    return `Error processing Instruction ${i}: ${typeof ie === 'string' ? ie : JSON.stringify(ie)}`;
  }
  if (err?.InsufficientFundsForRent) {
    return `Transaction results in an account (${err.InsufficientFundsForRent.account_index}) with insufficient funds for rent`;
  }
  return JSON.stringify(err);
}
