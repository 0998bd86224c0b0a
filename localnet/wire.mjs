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
const B58_MAP = new Map([...B58].map((c, i) => [c, BigInt(i)]));

export function b58encode(bytes) {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = B58[Number(n % 58n)] + out;
    n /= 58n;
  }
  return '1'.repeat(zeros) + out;
}

export function b58decode(str) {
  if (typeof str !== 'string') throw new Error('expected a base58 string');
  let zeros = 0;
  while (zeros < str.length && str[zeros] === '1') zeros++;
  let n = 0n;
  for (const c of str) {
    const v = B58_MAP.get(c);
    if (v === undefined) throw new Error(`invalid base58 character ${JSON.stringify(c)}`);
    n = n * 58n + v;
  }
  const body = [];
  while (n > 0n) {
    body.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return Uint8Array.from([...new Array(zeros).fill(0), ...body]);
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

export function isPubkey(str) {
  try {
    return typeof str === 'string' && b58decode(str).length === 32;
  } catch {
    return false;
  }
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
