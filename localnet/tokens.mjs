// tokens.mjs — SPL Token account layouts: reading token accounts and mints
// (for token balances, jsonParsed and getTokenAccountsByOwner) and writing
// them for the createMint / mintTo test helpers.
//
// The helpers write accounts with the exact layout the SPL Token program
// itself writes, so everything afterwards (transfers signed by the owner,
// closing, getTokenAccountBalance) runs through the real token program.

import { getProgramDerivedAddress, address as kitAddress } from '@solana/kit';
import { b58encode, decodePubkey } from './wire.mjs';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';

export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;
const U64_MAX = (1n << 64n) - 1n;

export const isTokenProgram = (owner) => owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;

function readU64(data, off) {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(off);
}

/** Parse an SPL token account (classic or Token-2022 base layout), or null. */
export function parseTokenAccount(acct) {
  if (!acct || !isTokenProgram(acct.owner)) return null;
  const d = acct.data;
  if (d.length < TOKEN_ACCOUNT_SIZE) return null;
  // Token-2022 accounts with extensions carry an AccountType byte (2 = account) at 165.
  if (d.length > TOKEN_ACCOUNT_SIZE && d[TOKEN_ACCOUNT_SIZE] !== 2) return null;
  const state = d[108];
  if (state === 0) return null; // uninitialized
  const isNativeTag = Buffer.from(d.buffer, d.byteOffset).readUInt32LE(109);
  return {
    mint: b58encode(d.subarray(0, 32)),
    owner: b58encode(d.subarray(32, 64)),
    amount: readU64(d, 64),
    state: state === 2 ? 'frozen' : 'initialized',
    isNative: isNativeTag === 1,
    programId: acct.owner,
  };
}

/** Parse a mint, or null. */
export function parseMint(acct) {
  if (!acct || !isTokenProgram(acct.owner)) return null;
  const d = acct.data;
  if (d.length < MINT_SIZE || d[45] !== 1) return null;
  if (d.length > MINT_SIZE && d.length <= TOKEN_ACCOUNT_SIZE) return null;
  const view = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  return {
    mintAuthority: view.readUInt32LE(0) === 1 ? b58encode(d.subarray(4, 36)) : null,
    supply: readU64(d, 36),
    decimals: d[44],
    isInitialized: true,
    freezeAuthority: view.readUInt32LE(46) === 1 ? b58encode(d.subarray(50, 82)) : null,
  };
}

/** The UiTokenAmount shape: amount as a string, decimals, float and exact decimal string. */
export function uiTokenAmount(amount, decimals) {
  const s = amount.toString().padStart(decimals + 1, '0');
  let ui = decimals === 0 ? s : `${s.slice(0, s.length - decimals)}.${s.slice(s.length - decimals)}`;
  if (decimals > 0) ui = ui.replace(/0+$/, '').replace(/\.$/, '');
  return { amount: amount.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui };
}

/** Encode a mint account's data. */
export function encodeMint({ mintAuthority, supply, decimals, freezeAuthority }) {
  const d = Buffer.alloc(MINT_SIZE);
  if (mintAuthority) {
    d.writeUInt32LE(1, 0);
    d.set(decodePubkey(mintAuthority), 4);
  }
  d.writeBigUInt64LE(supply, 36);
  d[44] = decimals;
  d[45] = 1;
  if (freezeAuthority) {
    d.writeUInt32LE(1, 46);
    d.set(decodePubkey(freezeAuthority), 50);
  }
  return new Uint8Array(d);
}

/** Encode an initialized, non-native token account with no delegate. */
export function encodeTokenAccount({ mint, owner, amount }) {
  const d = Buffer.alloc(TOKEN_ACCOUNT_SIZE);
  d.set(decodePubkey(mint), 0);
  d.set(decodePubkey(owner), 32);
  d.writeBigUInt64LE(amount, 64);
  d[108] = 1; // AccountState::Initialized
  return new Uint8Array(d);
}

export function setU64(data, off, value) {
  if (value < 0n || value > U64_MAX) throw new Error('amount overflows u64');
  const d = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  d.writeBigUInt64LE(value, off);
}

/** The associated token account address for (owner, mint, token program). */
export async function associatedTokenAddress(owner, mint, tokenProgram = TOKEN_PROGRAM) {
  const [ata] = await getProgramDerivedAddress({
    programAddress: kitAddress(ATA_PROGRAM),
    seeds: [decodePubkey(owner), decodePubkey(tokenProgram), decodePubkey(mint)],
  });
  return String(ata);
}

// Token-2022 extensions (spl-token-2022 ExtensionType numbers). An extended
// account is the base state, zero padding up to the token-account size, one
// AccountType byte (1 mint, 2 account), then entries of type u16, length u16,
// value: the layout the Token-2022 program itself reads.
export const EXT_TRANSFER_FEE_CONFIG = 1;
export const EXT_TRANSFER_FEE_AMOUNT = 2;
export const EXT_MINT_CLOSE_AUTHORITY = 3;
export const EXT_CONFIDENTIAL_TRANSFER_MINT = 4;
export const EXT_DEFAULT_ACCOUNT_STATE = 6;
export const EXT_IMMUTABLE_OWNER = 7;
export const EXT_NON_TRANSFERABLE = 9;
export const EXT_PERMANENT_DELEGATE = 12;
export const EXT_NON_TRANSFERABLE_ACCOUNT = 13;
export const EXT_TRANSFER_HOOK = 14;
export const EXT_TRANSFER_HOOK_ACCOUNT = 15;

function tlv(type, value) {
  const d = Buffer.alloc(4 + value.length);
  d.writeUInt16LE(type, 0);
  d.writeUInt16LE(value.length, 2);
  d.set(value, 4);
  return d;
}

function extended(base, accountType, entries) {
  const head = Buffer.alloc(TOKEN_ACCOUNT_SIZE + 1);
  head.set(base, 0);
  head[TOKEN_ACCOUNT_SIZE] = accountType;
  return new Uint8Array(Buffer.concat([head, ...entries]));
}

/**
 * Encode a Token-2022 mint with the extensions in ext:
 * {transferFee: {bps, maximum}, nonTransferable, permanentDelegate: ADDR,
 * transferHook: PROGRAM, confidential, closeAuthority: ADDR (the mint close
 * authority), defaultFrozen (new accounts open frozen)}. Without extensions it is the plain
 * 82-byte layout, which Token-2022 accepts as well.
 */
export function encodeMint2022(mint, ext = {}) {
  const base = encodeMint(mint);
  const entries = [];
  if (ext.transferFee) {
    // authority, withdraw authority, withheld u64, older fee, newer fee;
    // a fee is epoch u64, maximum u64, basis points u16.
    const v = Buffer.alloc(108);
    for (const off of [72, 90]) {
      v.writeBigUInt64LE(BigInt(ext.transferFee.maximum), off + 8);
      v.writeUInt16LE(ext.transferFee.bps, off + 16);
    }
    entries.push(tlv(EXT_TRANSFER_FEE_CONFIG, v));
  }
  if (ext.closeAuthority) entries.push(tlv(EXT_MINT_CLOSE_AUTHORITY, Buffer.from(decodePubkey(ext.closeAuthority))));
  if (ext.confidential) entries.push(tlv(EXT_CONFIDENTIAL_TRANSFER_MINT, Buffer.alloc(65)));
  if (ext.defaultFrozen) entries.push(tlv(EXT_DEFAULT_ACCOUNT_STATE, Buffer.from([2]))); // AccountState::Frozen
  if (ext.nonTransferable) entries.push(tlv(EXT_NON_TRANSFERABLE, Buffer.alloc(0)));
  if (ext.permanentDelegate) entries.push(tlv(EXT_PERMANENT_DELEGATE, Buffer.from(decodePubkey(ext.permanentDelegate))));
  if (ext.transferHook) {
    const v = Buffer.alloc(64); // authority (none), program
    v.set(decodePubkey(ext.transferHook), 32);
    entries.push(tlv(EXT_TRANSFER_HOOK, v));
  }
  if (entries.length === 0) return base;
  return extended(base, 1, entries);
}

/** The Token-2022 extension types present on a mint's data. */
export function mintExtensions(data) {
  const out = [];
  if (data.length <= TOKEN_ACCOUNT_SIZE + 1) return out;
  const d = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  for (let off = TOKEN_ACCOUNT_SIZE + 1; off + 4 <= d.length;) {
    const type = d.readUInt16LE(off);
    const n = d.readUInt16LE(off + 2);
    if (type === 0) break;
    out.push(type);
    off += 4 + n;
  }
  return out;
}

/**
 * Encode a Token-2022 token account for a mint with the given extension
 * types: the account-side extensions they require (as the program's
 * GetAccountDataSize computes them) plus ImmutableOwner, as the associated
 * token account program creates it.
 */
export function encodeTokenAccount2022({ mint, owner, amount }, mintExts) {
  const base = encodeTokenAccount({ mint, owner, amount });
  const entries = [tlv(EXT_IMMUTABLE_OWNER, Buffer.alloc(0))];
  if (mintExts.includes(EXT_TRANSFER_FEE_CONFIG)) entries.push(tlv(EXT_TRANSFER_FEE_AMOUNT, Buffer.alloc(8)));
  if (mintExts.includes(EXT_NON_TRANSFERABLE)) entries.push(tlv(EXT_NON_TRANSFERABLE_ACCOUNT, Buffer.alloc(0)));
  if (mintExts.includes(EXT_TRANSFER_HOOK)) entries.push(tlv(EXT_TRANSFER_HOOK_ACCOUNT, Buffer.alloc(1)));
  return extended(base, 2, entries);
}
