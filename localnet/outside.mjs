// outside.mjs — transactions built outside solgate, the way an SDK builds
// them: @solana/kit messages with the program clients (@solana-program/system
// and /token, which the pinned litesvm depends on), the wallet's signature
// slot left empty by a no-op signer, every other signer's signature added by
// kit (a mint keypair, a stranger paying the fee). solgate's
// sign_and_send_transaction is tested against these bytes.
//
// One control method on the ledger's port:
//   localnet_buildOutside [{"kind": K, "wallet": ADDR, ...options}]
//   -> {"transaction": base64 wire bytes, "kind", "version", "blockhash",
//       "lastValidBlockHeight", "accounts": {name: address, ...}}
// The world each kind needs (a mint and the wallet's token account, a nonce
// account, a lookup table) is set up on the ledger first; funds come from
// the ledger's own helpers. The wallet's signature slot is always empty: only
// solgate holds that key.

import {
  pipe, createTransactionMessage, setTransactionMessageFeePayer, setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash, setTransactionMessageLifetimeUsingDurableNonce,
  appendTransactionMessageInstructions, compressTransactionMessageUsingAddressLookupTables,
  partiallySignTransactionMessageWithSigners, getBase64EncodedWireTransaction,
  generateKeyPairSigner, createNoopSigner, address, getProgramDerivedAddress, getAddressEncoder, AccountRole,
} from '@solana/kit';
import { RpcError } from './rpc.mjs';
import { isPubkey, b58encode, parseTransaction } from './wire.mjs';
import { NATIVE_MINT, TOKEN_2022_PROGRAM } from './tokens.mjs';
import { encodeLookupTable, ALT_PROGRAM, MEMO_PROGRAM, COMPUTE_BUDGET_PROGRAM } from './swap.mjs';
import { MAX_PROCESSING_AGE } from './ledger.mjs';

const NONCE_ACCOUNT_SIZE = 80n;

const SYSTEM_PROGRAM_ADDRESS = address('11111111111111111111111111111111');

// The program clients load on the first build, not with every ledger start.
let clients = null;
function programClients() {
  clients ??= Promise.all([import('@solana-program/system'), import('@solana-program/token')])
    .then(([system, token]) => ({ ...system, ...token }));
  return clients;
}

// The kinds a test may ask for. Accepted: what solgate signs once approved.
// Refused: what it must refuse, each for its own reason.
export const OUTSIDE_KINDS = [
  'memo-transfer', 'v0-lookup', 'mint-new', 'wsol-transfer', 'token-transfer', 'two-token-transfer',
  'approve', 'set-authority', 'close-to-stranger', 'durable-nonce', 'unknown-program',
  'foreign-payer', 'missing-cosigner', 'expired-cosigned',
  // Value the wallet controls without owning it, paid to `to` (a fresh
  // stranger when absent): the issue-32 attacks.
  'nonce-withdraw', 'withdraw-excess', 'multisig-transfer', 'mint-to', 'close-and-forward',
];

const u64le = (n) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

// Compute budget and memo have no program client in the lock; an SDK
// spells them as plain instructions like this.
function computeUnitPrice(microLamports) {
  return { programAddress: address(COMPUTE_BUDGET_PROGRAM), data: new Uint8Array([3, ...u64le(microLamports)]) };
}
function computeUnitLimit(units) {
  const d = Buffer.alloc(5);
  d[0] = 2;
  d.writeUInt32LE(units, 1);
  return { programAddress: address(COMPUTE_BUDGET_PROGRAM), data: new Uint8Array(d) };
}
function memo(text) {
  return { programAddress: address(MEMO_PROGRAM), data: new TextEncoder().encode(text) };
}

export class OutsideBuilder {
  constructor(ledger, log = () => {}) {
    this.ledger = ledger;
    this.log = log;
  }

  controls() {
    return {
      localnet_buildOutside: async ([o]) => {
        const opts = o ?? {};
        if (typeof opts !== 'object' || Array.isArray(opts)) throw bad('expected {"kind":K,"wallet":ADDR}');
        if (!OUTSIDE_KINDS.includes(opts.kind)) throw bad(`kind must be one of ${OUTSIDE_KINDS.join(', ')}`);
        if (!isPubkey(opts.wallet)) throw bad('wallet must be a base58 public key');
        for (const k of ['lamports', 'amount', 'cuPrice', 'cuLimit']) {
          if (opts[k] !== undefined && !(Number.isSafeInteger(opts[k]) && opts[k] >= 0)) throw bad(`${k} must be a non-negative integer`);
        }
        if (opts.precreate !== undefined && typeof opts.precreate !== 'boolean') throw bad('precreate must be true or false');
        if (opts.to !== undefined && !isPubkey(opts.to)) throw bad('to must be a base58 public key');
        if (opts.mint !== undefined && !isPubkey(opts.mint)) throw bad('mint must be a base58 public key');
        if (opts.mints !== undefined && !(Array.isArray(opts.mints) && opts.mints.length === 2 && opts.mints.every(isPubkey))) {
          throw bad('mints must be two base58 addresses');
        }
        if (opts.amounts !== undefined && !(Array.isArray(opts.amounts) && opts.amounts.length === 2 && opts.amounts.every((n) => Number.isSafeInteger(n) && n >= 0))) {
          throw bad('amounts must be two non-negative integers');
        }
        try {
          return await this.build(opts);
        } catch (e) {
          if (e instanceof RpcError) throw e;
          this.log(`buildOutside ${opts.kind}: ${e.stack}`);
          throw bad(`${opts.kind}: ${e.message}`);
        }
      },
      // The account is gone (its owner closed it elsewhere): what a
      // transaction built against the old state meets when it executes.
      localnet_removeAccount: ([a]) => {
        if (!isPubkey(a)) throw bad('address must be a base58 public key');
        this.ledger.setAccount(a, { lamports: 0n, owner: SYSTEM_PROGRAM_ADDRESS, data: new Uint8Array(0) });
        return { removed: a, exists: this.ledger.getAccount(a) !== null };
      },
    };
  }

  /** A fresh keypair with lamports on the ledger. */
  async funded(lamports = 1_000_000_000n) {
    const s = await generateKeyPairSigner();
    this.ledger.fund(String(s.address), lamports);
    return s;
  }

  /**
   * A mint (9 decimals, authority the ledger's) and `amount` of it in the
   * wallet's ATA. at: the mint's address, created there unless it exists.
   */
  async walletTokens(wallet, amount, at = null) {
    const mint = at && this.ledger.getAccount(at) ? at : this.ledger.createMint(9, undefined, false, {}, null, at);
    const ata = await this.ledger.mintTo(mint, wallet, BigInt(amount));
    return { mint: address(mint), ata: address(ata) };
  }

  /** Lands a fully signed setup transaction built with kit; throws unless it succeeds. */
  async land(payer, instructions) {
    const msg = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(this.lifetime(), m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await partiallySignTransactionMessageWithSigners(msg);
    const tx = parseTransaction(Buffer.from(getBase64EncodedWireTransaction(signed), 'base64'));
    const r = this.ledger.execute(tx);
    if (!r.landed || r.err) throw new Error(`setup transaction failed: ${JSON.stringify(r.err)}`);
  }

  lifetime() {
    return { blockhash: this.ledger.latest.blockhash, lastValidBlockHeight: BigInt(this.ledger.latest.lastValidBlockHeight) };
  }

  async build(opts) {
    const {
      getTransferSolInstruction, getCreateAccountInstruction, getInitializeNonceAccountInstruction,
      TOKEN_PROGRAM_ADDRESS, AuthorityType, findAssociatedTokenPda, getApproveInstruction,
      getSetAuthorityInstruction, getCloseAccountInstruction, getTransferCheckedInstruction,
      getInitializeMint2Instruction, getMintToInstruction, getCreateAssociatedTokenIdempotentInstruction,
      getMintSize, getWithdrawNonceAccountInstruction, getWithdrawExcessLamportsInstruction,
      getInitializeMultisig2Instruction, getMultisigSize,
    } = await programClients();
    const wallet = address(opts.wallet);
    // The wallet as an SDK sees a wallet it does not hold: a signer that
    // signs nothing, so kit leaves its slot empty.
    const walletSigner = createNoopSigner(wallet);
    const lamports = BigInt(opts.lamports ?? 1_000_000);
    const accounts = {};
    let feePayer = walletSigner;
    let version = 'legacy';
    let lifetime = this.lifetime();
    let nonce = null;
    let tables = null;
    let expireAfter = false;
    const ixs = [];
    if (opts.cuLimit !== undefined) ixs.push(computeUnitLimit(opts.cuLimit));
    if (opts.cuPrice !== undefined) ixs.push(computeUnitPrice(opts.cuPrice));

    // The payee of the kinds that pay someone: opts.to, or a stranger.
    const payee = async () => (opts.to ? address(opts.to) : (await generateKeyPairSigner()).address);

    switch (opts.kind) {
      case 'memo-transfer': {
        const to = await payee();
        accounts.recipient = to;
        ixs.push(memo('order #4417: thank you'), getTransferSolInstruction({ source: walletSigner, destination: to, amount: lamports }));
        break;
      }
      case 'nonce-withdraw': {
        // A nonce account whose authority is the wallet, holding `lamports`
        // above its rent; the message withdraws them to the payee (its
        // lifetime is a plain blockhash: no durable nonce is used).
        const setup = await this.funded();
        const nonceAccount = await generateKeyPairSigner();
        await this.land(setup, [
          getCreateAccountInstruction({ payer: setup, newAccount: nonceAccount, lamports: this.ledger.rentExempt(Number(NONCE_ACCOUNT_SIZE)), space: NONCE_ACCOUNT_SIZE, programAddress: SYSTEM_PROGRAM_ADDRESS }),
          getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: wallet }),
        ]);
        this.ledger.fund(String(nonceAccount.address), lamports);
        const to = await payee();
        Object.assign(accounts, { nonceAccount: nonceAccount.address, recipient: to });
        ixs.push(getWithdrawNonceAccountInstruction({ nonceAccount: nonceAccount.address, recipientAccount: to, nonceAuthority: walletSigner, withdrawAmount: lamports }));
        break;
      }
      case 'withdraw-excess': {
        // Token-2022's WithdrawExcessLamports: `lamports` above rent in the
        // wallet's own token account, out to the payee.
        const mint = this.ledger.createMint(9, undefined, true);
        const ata = await this.ledger.mintTo(mint, String(wallet), 1n);
        this.ledger.fund(ata, lamports);
        const to = await payee();
        Object.assign(accounts, { mint, tokenAccount: ata, recipient: to });
        ixs.push(getWithdrawExcessLamportsInstruction({ source: address(ata), destination: to, authority: walletSigner }, { programAddress: address(TOKEN_2022_PROGRAM) }));
        break;
      }
      case 'multisig-transfer': {
        // A 1-of-1 SPL multisig whose signer is the wallet, created and
        // initialized by a real transaction, owns `amount` of a mint; the
        // message moves them to the payee's token account.
        const setup = await this.funded();
        const multisig = await generateKeyPairSigner();
        const space = BigInt(getMultisigSize());
        await this.land(setup, [
          getCreateAccountInstruction({ payer: setup, newAccount: multisig, lamports: this.ledger.rentExempt(Number(space)), space, programAddress: TOKEN_PROGRAM_ADDRESS }),
          getInitializeMultisig2Instruction({ multisig: multisig.address, signers: [wallet], m: 1 }),
        ]);
        const amount = BigInt(opts.amount ?? 5_000_000);
        const { mint, ata: source } = await this.walletTokens(multisig.address, amount, opts.mint ?? null);
        const to = await payee();
        const dst = address(await this.ledger.mintTo(String(mint), String(to), 0n));
        Object.assign(accounts, { mint, multisig: multisig.address, source, recipient: to, destination: dst });
        ixs.push(getTransferCheckedInstruction({ source, mint, destination: dst, authority: multisig.address, multiSigners: [walletSigner], amount, decimals: 9 }));
        break;
      }
      case 'mint-to': {
        // A mint whose mint authority is the wallet; the message mints
        // `amount` to the payee's token account.
        const mint = address(this.ledger.createMint(9, String(wallet), false, {}, null, opts.mint ?? null));
        const to = await payee();
        const dst = address(await this.ledger.mintTo(String(mint), String(to), 0n));
        Object.assign(accounts, { mint, recipient: to, destination: dst });
        ixs.push(getMintToInstruction({ mint, token: dst, mintAuthority: walletSigner, amount: BigInt(opts.amount ?? 1_000_000_000_000) }));
        break;
      }
      case 'close-and-forward': {
        // Five of the wallet's empty token accounts closed to the wallet,
        // and `lamports` sent on to the payee: refunds in, a payment out.
        const to = await payee();
        accounts.recipient = to;
        for (let i = 0; i < 5; i++) {
          const { ata } = await this.walletTokens(wallet, 0);
          accounts[`closed${i}`] = ata;
          ixs.push(getCloseAccountInstruction({ account: ata, destination: wallet, owner: walletSigner }));
        }
        ixs.push(getTransferSolInstruction({ source: walletSigner, destination: to, amount: lamports }));
        break;
      }
      case 'v0-lookup': {
        // The recipient comes from a lookup table, as SDKs compress v0
        // messages with the tables they know.
        const to = await generateKeyPairSigner();
        const filler = await generateKeyPairSigner();
        const table = await generateKeyPairSigner();
        const data = encodeLookupTable([String(filler.address), String(to.address)]);
        this.ledger.setAccount(String(table.address), { lamports: this.ledger.rentExempt(data.length), owner: ALT_PROGRAM, data });
        accounts.recipient = to.address;
        accounts.lookupTable = table.address;
        version = 0;
        tables = { [table.address]: [filler.address, to.address] };
        ixs.push(getTransferSolInstruction({ source: walletSigner, destination: to.address, amount: lamports }));
        break;
      }
      case 'mint-new':
      case 'missing-cosigner':
      case 'expired-cosigned': {
        // A launch: a new mint (its keypair co-signs, as launchpads'
        // transactions arrive), the wallet's token account, and a mint-to.
        const mint = await generateKeyPairSigner();
        // missing-cosigner: the mint stays a required signer, but nobody
        // signs for it.
        const mintSigner = opts.kind === 'missing-cosigner' ? createNoopSigner(mint.address) : mint;
        const amount = BigInt(opts.amount ?? 1_000_000_000_000);
        const [ata] = await findAssociatedTokenPda({ owner: wallet, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
        accounts.mint = mint.address;
        accounts.tokenAccount = ata;
        const space = BigInt(getMintSize());
        ixs.push(
          getCreateAccountInstruction({ payer: walletSigner, newAccount: mintSigner, lamports: this.ledger.rentExempt(Number(space)), space, programAddress: TOKEN_PROGRAM_ADDRESS }),
          getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: wallet, freezeAuthority: null }),
          getCreateAssociatedTokenIdempotentInstruction({ payer: walletSigner, ata, owner: wallet, mint: mint.address }),
          getMintToInstruction({ mint: mint.address, token: ata, mintAuthority: walletSigner, amount }),
        );
        expireAfter = opts.kind === 'expired-cosigned';
        break;
      }
      case 'wsol-transfer': {
        // Paid from the wallet's wrapped SOL to a stranger's wrapped-SOL account.
        const to = await generateKeyPairSigner();
        const src = address(await this.ledger.wrapSol(String(wallet), lamports * 2n));
        const dst = address(await this.ledger.wrapSol(String(to.address), 0n));
        accounts.recipient = to.address;
        accounts.source = src;
        accounts.destination = dst;
        ixs.push(getTransferCheckedInstruction({ source: src, mint: address(NATIVE_MINT), destination: dst, authority: walletSigner, amount: lamports, decimals: 9 }));
        break;
      }
      case 'token-transfer': {
        // Tokens to a stranger, creating its token account when missing
        // (idempotent, as SDKs do); precreate: it exists already.
        const { mint, ata } = await this.walletTokens(wallet, 1_000_000);
        const to = await generateKeyPairSigner();
        const [dst] = await findAssociatedTokenPda({ owner: to.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
        if (opts.precreate) await this.ledger.mintTo(String(mint), String(to.address), 0n);
        Object.assign(accounts, { mint, tokenAccount: ata, recipient: to.address, destination: dst });
        ixs.push(
          getCreateAssociatedTokenIdempotentInstruction({ payer: walletSigner, ata: dst, owner: to.address, mint }),
          getTransferCheckedInstruction({ source: ata, mint, destination: dst, authority: walletSigner, amount: BigInt(opts.amount ?? 250_000), decimals: 9 }),
        );
        break;
      }
      case 'two-token-transfer': {
        // Two mints leave in one transaction, to one stranger: what a
        // payment splitter or a multi-asset deposit builds. mints: where the
        // two mints are (created there if absent), so a console's per-mint
        // caps can name them before they exist; amounts: of each.
        const to = await generateKeyPairSigner();
        const amounts = opts.amounts ?? [250_000, 250_000];
        accounts.recipient = to.address;
        for (const i of [0, 1]) {
          const { mint, ata } = await this.walletTokens(wallet, 1_000_000, opts.mints?.[i] ?? null);
          const [dst] = await findAssociatedTokenPda({ owner: to.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
          // The recipient's account exists beforehand: only tokens leave.
          await this.ledger.mintTo(String(mint), String(to.address), 0n);
          accounts[`mint${i}`] = mint;
          accounts[`destination${i}`] = dst;
          ixs.push(getTransferCheckedInstruction({ source: ata, mint, destination: dst, authority: walletSigner, amount: BigInt(amounts[i]), decimals: 9 }));
        }
        break;
      }
      case 'approve': {
        const { mint, ata } = await this.walletTokens(wallet, 1_000_000);
        const delegate = await generateKeyPairSigner();
        Object.assign(accounts, { mint, tokenAccount: ata, delegate: delegate.address });
        ixs.push(getApproveInstruction({ source: ata, delegate: delegate.address, owner: walletSigner, amount: 1_000_000n }));
        break;
      }
      case 'set-authority': {
        const { mint, ata } = await this.walletTokens(wallet, 1_000_000);
        const stranger = await generateKeyPairSigner();
        Object.assign(accounts, { mint, tokenAccount: ata, newOwner: stranger.address });
        ixs.push(getSetAuthorityInstruction({ owned: ata, owner: walletSigner, authorityType: AuthorityType.AccountOwner, newAuthority: stranger.address }));
        break;
      }
      case 'close-to-stranger': {
        const { mint, ata } = await this.walletTokens(wallet, 0);
        const stranger = await generateKeyPairSigner();
        Object.assign(accounts, { mint, tokenAccount: ata, destination: stranger.address });
        ixs.push(getCloseAccountInstruction({ account: ata, destination: stranger.address, owner: walletSigner }));
        break;
      }
      case 'durable-nonce': {
        // A nonce account whose authority is the wallet, created by a real
        // transaction; the message then lives on its nonce, not a blockhash.
        const payer = await this.funded();
        const nonceAccount = await generateKeyPairSigner();
        await this.land(payer, [
          getCreateAccountInstruction({ payer, newAccount: nonceAccount, lamports: this.ledger.rentExempt(Number(NONCE_ACCOUNT_SIZE)), space: NONCE_ACCOUNT_SIZE, programAddress: SYSTEM_PROGRAM_ADDRESS }),
          getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: wallet }),
        ]);
        const data = this.ledger.getAccount(String(nonceAccount.address)).data;
        nonce = { nonce: b58encode(data.subarray(40, 72)), nonceAccountAddress: nonceAccount.address, nonceAuthorityAddress: wallet };
        const to = await generateKeyPairSigner();
        Object.assign(accounts, { nonceAccount: nonceAccount.address, recipient: to.address });
        ixs.push(getTransferSolInstruction({ source: walletSigner, destination: to.address, amount: lamports }));
        break;
      }
      case 'unknown-program': {
        // The address lookup table program: on every cluster, in no default
        // allow list. Creating a table the wallet pays for and controls.
        const recentSlot = BigInt(this.ledger.slotHashes[Math.min(1, this.ledger.slotHashes.length - 1)].slot);
        const [table, bump] = await getProgramDerivedAddress({ programAddress: address(ALT_PROGRAM), seeds: [getAddressEncoder().encode(wallet), u64le(recentSlot)] });
        accounts.program = address(ALT_PROGRAM);
        accounts.lookupTable = table;
        const data = Buffer.alloc(13);
        data.writeUInt32LE(0, 0); // CreateLookupTable
        data.writeBigUInt64LE(recentSlot, 4);
        data[12] = bump;
        ixs.push({
          programAddress: address(ALT_PROGRAM),
          accounts: [
            { address: table, role: AccountRole.WRITABLE },
            { address: wallet, role: AccountRole.READONLY_SIGNER, signer: walletSigner },
            { address: wallet, role: AccountRole.WRITABLE_SIGNER, signer: walletSigner },
            { address: SYSTEM_PROGRAM_ADDRESS, role: AccountRole.READONLY },
          ],
          data: new Uint8Array(data),
        });
        break;
      }
      case 'foreign-payer': {
        // A stranger pays the fee and signs; the wallet only moves SOL.
        const payer = await this.funded();
        const to = await generateKeyPairSigner();
        feePayer = payer;
        Object.assign(accounts, { feePayer: payer.address, recipient: to.address });
        ixs.push(getTransferSolInstruction({ source: walletSigner, destination: to.address, amount: lamports }));
        break;
      }
      default:
        throw bad(`unknown kind ${opts.kind}`);
    }

    let msg = pipe(
      createTransactionMessage({ version }),
      (m) => (feePayer === walletSigner ? setTransactionMessageFeePayer(wallet, m) : setTransactionMessageFeePayerSigner(feePayer, m)),
      (m) => (nonce ? setTransactionMessageLifetimeUsingDurableNonce(nonce, m) : setTransactionMessageLifetimeUsingBlockhash(lifetime, m)),
      (m) => appendTransactionMessageInstructions(ixs, m),
    );
    if (tables) msg = compressTransactionMessageUsingAddressLookupTables(msg, tables);
    // Every signer kit holds signs; the wallet's no-op signer adds nothing.
    const signed = await partiallySignTransactionMessageWithSigners(msg);
    const transaction = getBase64EncodedWireTransaction(signed);
    if (expireAfter) this.ledger.advance(MAX_PROCESSING_AGE + 1);
    return {
      kind: opts.kind,
      transaction,
      version: String(version),
      blockhash: nonce ? nonce.nonce : lifetime.blockhash,
      lastValidBlockHeight: nonce ? null : Number(lifetime.lastValidBlockHeight),
      accounts: Object.fromEntries(Object.entries(accounts).map(([k, v]) => [k, String(v)])),
    };
  }
}

function bad(m) {
  return new RpcError(-32602, `Invalid params: ${m}`);
}
