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
