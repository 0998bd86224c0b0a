// Package executor is the part of `solgate console` that talks to the chain:
// keypair loading, network detection, build → simulate → sign → send → confirm
// → verify; the effects engine (`effects.go`): what exact bytes do to
// everything the wallet owns or controls; transactions built elsewhere
// (`outside.go`): decoded, checked, measured, bound to the approval and
// verified after landing.
//
// It knows nothing of MCP or the console: the authority (package
// mcpbridge/authority) calls it to prepare the exact bytes of a proposal, to
// measure their effects, and to run an approved execution.
//
// # The effects engine
//
// The effects engine (`executor/effects.go`) is the one measure of value for
// every kind — transfers, token transfers and swaps — and for all four jobs:
// preview, caps, settlement and verification. It simulates the exact bytes
// (lookup tables resolved) once with the post-state of the wallet and every
// account the message can write (an account the message does not name cannot
// change), reading those accounts before and again after the simulation and
// measuring only when both reads agree. Its one value holds: SOL out and in with
// wrapped SOL counted as SOL, the network and priority fees, rent paid and
// refunded, each mint's out and in, accounts created and closed (and where a
// close sends its lamports), every owner, authority, delegate, delegated-amount
// or frozen-state change on what the wallet owns or controls (its token
// accounts, mints it is an authority of, and any other account holding its key
// as an authority), the programs invoked at the top level and inside (from the
// simulation's inner instructions), the signers, and durable-nonce use. Refused
// before signing, with the reason shown to the agent and in the console: a
// durable nonce (`AdvanceNonceAccount` anywhere, or a blockhash the node does not
// know as recent by `isBlockhashValid`); any change of owner, authority,
// delegate or frozen state (no kind declares one; creating a recipient's
// associated token account is a creation, not a change); and a close that sends
// its lamports anywhere but the wallet.
//
// What the measure counts as the wallet's is its sphere of control
// (`sphere.go`): the accounts it owns (system, SPL Token, Token-2022), nonce
// accounts it is authority of (one the transaction creates included; one it
// authorises to another key no longer counts after), token accounts of a
// multisig its signature satisfies, token accounts it is delegate or close
// authority of, a holder's account it takes from as a Token-2022 mint's
// permanent delegate, and the new supply of mints it may mint. Value leaving
// them counts as outflow, per asset and gross (a refund coming in does not net
// a payment going out). A transaction found on chain with nothing measured
// before it (after a restart) re-derives the sphere from the accounts as they
// are and from the instructions that ran with the wallet as authority.
// `effects_differential_test.go` holds a building block of each to the ledger.
//
// # Swaps
//
// Swaps follow the same path with the economic terms bound to the approval:
// the console asks the swap API for a quote and a transaction, and before
// anything is signed it decodes that transaction (lookup tables resolved) and
// refuses a foreign fee payer, an unknown program, or SOL or tokens sent anywhere
// but the quoted pool by an instruction it can read. Then the effects engine
// measures the exact bytes and holds them to one outflow budget: SOL and
// wrapped SOL counted together, and every token of the wallet, may lose at most
// the approved input plus the fees plus the rent of accounts the swap opens; no
// other asset may decrease. The detail's Input line names the account that
// actually pays (the wallet's lamports or its wrapped-SOL account). The
// simulation must also give at least the quoted minimum out.
//
// Aggregators, whose instructions cannot be decoded leg by leg, are judged by
// that whole-wallet simulation. Jupiter's v6 program
// (`JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4`) is known by default;
// `--swap-program ID` (repeatable) adds others.
//
// Jupiter as it is today. `lite-api.jup.ag` is deprecated (since 31 January
// 2026); use `--swap-api https://api.jup.ag` (solgate appends `/swap/v1/quote`
// and `/swap/v1/swap` under `--swap-api-version 1`; the default, 2, speaks
// Swap API v2's `/swap/v2/build`, below) with an API key from Jupiter's portal:
// `SOLGATE_SWAP_API_KEY` (or `swap_api_key` in the config file, or
// `--swap-api-key-file FILE`, mode 0600; never a flag, which every user can read
// in `/proc/PID/cmdline`) is sent as `x-api-key` and never printed or logged.
// The free tier allows 60 requests a minute per account (1 a second, a 60-second
// sliding window; keyless use 30), all endpoints together; a swap makes two
// requests at proposal and two or three at execution. An HTTP 429 is one clear
// error ("the swap API's rate limit was reached", with the wait the API asked
// for); nothing is proposed. Jupiter routes mainnet only: on any other cluster a
// swap with a swap API that is not on this machine is refused at proposal
// ("Jupiter routes mainnet only"). Facts are per cluster: devnet's USDC
// (`4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU`, Circle's) is USDC on devnet,
// and the impostor check uses the console's cluster.
//
// Swap API v2 (the console's default, swapv2.go): `GET /swap/v2/build` with
// inputMint, outputMint, amount, slippageBps and taker (the wallet) answers the
// quote and raw instructions (computeBudgetInstructions, setupInstructions,
// swapInstruction, cleanupInstruction, otherInstructions,
// addressesByLookupTableAddress, blockhashWithMetadata). The console compiles
// them into a v0 message in Jupiter's published order, the wallet its fee payer
// and only signer (an instruction asking anyone else to sign is refused), and
// from there judges the bytes as v1's: lookup tables read from the chain, not
// the API's copy; inspection; simulation against the outflow budget and the
// minimum. Every transaction comes from a fresh /build and is judged by that
// build's own quote, whose otherAmountThreshold its swap instruction carries
// and the chain enforces: at execution, one below the approved minimum is
// refused (the market moved between the re-quote and the build), and after
// waiting out a blockhash another identical swap took, the swap is quoted
// again. /build gives no priceImpactPct: with `max_price_impact_pct` set,
// a v2 quote is refused, since the limit cannot be held. On localnet /build
// routes through cpswap, a pool program on the ledger that holds the pool's
// side and the minimum out itself (localnet/README.md).
//
// At execution it re-quotes. The approval binds the input amount, the approved
// minimum out and the fee bound, not the route nor the slippage: a real price
// moves every slot while the human decides, so when the fresh quote's minimum is
// below the approved one, it asks once more with the slippage tightened so the
// minimum is at least the approved one. A lower minimum is never accepted: only
// when the market cannot meet the approved minimum at all is the swap refused,
// saying by how much the price moved ("price moved beyond the approved minimum —
// nothing was swapped: the price moved 5.01% against the swap since approval
// (expected out … then, … now)"). It then compares the new
// transaction with the approved one: the same programs, the same wallet accounts
// (writable or not), the same input mint and amount, a minimum out at least the
// approved one, a fee no higher, and an outflow within the approved budget. On
// any difference nothing is signed and the answer says "the swap API returned a
// different transaction than the one approved", with the difference, which the
// audit trail records too. Once signed, the console's detail shows the
// transaction actually signed and its message hash. After landing, the landed
// transaction's own effects (from its meta, through the same engine) are held to
// the same budget with the fee actually charged, and must deliver the approved
// minimum; the accounts it could write are also read again for any change of
// owner, delegate, allowance, frozen state or authority since the simulation
// (the landed meta carries none of those, and solgate signs no such change);
// otherwise the swap is executed with unexpected effects in the
// tool result, the console (red) and the audit trail, never "executed". Swap
// approvals lapse after 2 minutes.
//
// # Priority fees
//
// Priority fees, one policy for every kind: `--priority-fee-percentile`
// (default 75),
// `--priority-fee-source auto|standard|helius|triton` (default auto: Helius'
// `getPriorityFeeEstimate` when the RPC's own method answers, remembered for
// the session; Triton's `percentile` option only when named, since a node that
// ignores the option looks the same; otherwise the standard method, the
// percentile of the non-zero
// per-slot fees for the accounts the transaction writes and of the global market
// (no accounts), the larger — the per-slot minimums for one's own accounts are
// mostly zero on a busy cluster), `--max-priority-fee-lamports` (default 100000,
// about 0.0001 SOL: the cap on unit price × limit, for swaps too),
// `--priority-fee-lamports N` (a fixed fee instead of the market; 0 turns
// priority fees off). The preview names where the price came from.
//
// Every transaction solgate builds from its own instructions carries that
// budget: SOL and token transfers through their own preparers, anything else
// (the closes that reclaim rent) through PrepareBudgeted. The approval binds it: execution
// keeps the approved unit limit and refuses, with nothing signed, a
// transaction that now needs more units (ErrComputeOverApproved) or a market
// that now asks a higher priority fee (ErrPriorityFeeOverApproved).
//
// Swaps ask the swap API for a priority level held to the cap
// (`prioritizationFeeLamports: {"priorityLevelWithMaxLamports": {"priorityLevel":
// "veryHigh", "maxLamports": CAP}}`; up to p25 `medium`, up to p50 `high`), a
// fixed fee as that many lamports, and none when it is off. Why the API's level
// rather than solgate's own unit price: the API sets the swap's compute-unit
// limit from its own simulation and spreads a lamport amount over it, so a unit
// price solgate estimated could only become lamports through a guessed limit,
// and bytes the API built (sometimes co-signed) cannot be re-priced afterwards.
// A level with `maxLamports` gets a fee sized for the real limit in one request
// (the free tier allows few), bounded by the operator, not by the API's "auto"
// cap of 0.005 SOL. The API's word is not trusted for it: the inspector refuses a
// transaction whose price × limit exceeds the cap, the preview shows the swap's
// compute budget and priority fee as a transfer's, and the approval binds the
// previewed fee as the upper bound, as for transfers: a swap API that asks more
// at execution (a hostile one, or a market that rose) is refused with nothing
// signed, and the agent proposes again. The ledger's charged fee is what settles
// the spend.
//
// # A preview's round of RPCs
//
// A proposal's preview builds the real transaction and simulates it (a
// blockhash up to a second old may be reused: a preview is never signed, and execution fetches
// a fresh one). The transaction carries a compute budget: a measuring
// simulation gives the units it needs, and `SetComputeUnitLimit` asks for
// those plus 10% (at least 1000); `SetComputeUnitPrice` bids the fee
// estimate (`--priority-fee-source`, see the policy flags),
// with the total priority fee (price × limit, in micro-lamports per unit)
// capped. An RPC that does not serve the method, or reports no non-zero fee,
// means no priority fee and a note, never a failure. A proposal waits for one
// round of RPCs: the balances before, the simulation of the exact bytes and
// the balances again go as one JSON-RPC batch (every answer from one slot;
// in turn to a node that refuses batches), with the fee market's questions
// in the same batch once its source is known; a preview builds on the budget
// the last preview of the same shape
// measured and keeps the result only if the exact simulation consumed the
// same units and the fresh market gives the same price, else it measures
// again (`executor/batch.go`, `executor/forecast.go`). Every RPC goes
// through net/http's Transport over kept connections; an endpoint that
// redirects the call elsewhere is refused with the URL to give instead.
// A token transfer is
// built on the mint's program and decimals and on whether the recipient's
// account existed, as the last preview of that mint and recipient read them;
// the mint, its metadata and the recipient are read again in the same batch,
// and the preview stands only if those reads and the simulation's own reads
// of the token accounts pass every check and give the same bytes, else it
// reads first and builds again (`executor/tokenround.go`).
//
// # Verification
//
// Verification waits: a confirmed transaction is read back with
// `getTransaction`, retried with backoff for up to `--verify-timeout` (default
// 30s; load-balanced mainnet RPCs serve a transaction seconds after confirming
// its status) before the outcome is "unknown", which keeps its reservation and
// is reconciled in the background.
//
// # Which network
//
// `max_sol_per_tx in /etc/solgate/solgate.toml: …`). `solgate mcp`, `prove` and
// `audit` read their `--socket`, `--rpc`, `--keypair` and `--state` from the same
// rows. `NO_COLOR` is respected.
//
// Which network: solgate asks the node for its genesis hash. Mainnet-beta's
// (`5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d`) gives the red MAINNET badge,
// writes only with `--allow-mainnet`, and approval with `a` then `y`. Devnet and
// testnet are named as such. Any other hash is a local test ledger only when the
// `--rpc` host is loopback (127.0.0.0/8, `::1`, `localhost`); anywhere else it is
// UNKNOWN NETWORK, handled like mainnet with its own opt-in
// `--allow-unknown-network`. If the genesis hash cannot be read, the console does
// not start. A state directory is pinned to the first cluster it served: started
// against another genesis hash, the console refuses and names both, and
// `solgate audit` prints the cluster.
//
// # Tests
//
//   - Fuzzing: argument normalisation and fingerprints, the socket API's request
//     decoding, the terminal sanitiser, the swap-transaction inspector, the mint
//     parser, and the impostor check on hostile token names (invalid UTF-8, long
//     runs of combining marks; it fails when one does not return within a
//     deadline). CI runs each for 20,000 executions (a count, not a duration:
//     Go 1.26's
//     fuzzer can fail spuriously when a duration ends); `make fuzz
//     FUZZTIME=5m` runs them longer.
//   - Effects against the ledger (`executor/effects_differential_test.go`):
//     random transactions from localnet's building blocks (SOL, token and
//     wrapped-SOL transfers, wraps, unwraps, associated token account creation,
//     closes, approvals, revokes, freezes, thaws); the effects predicted from the
//     simulation must equal the landed transaction's and the ledger's own change
//     to the lamport and base unit, and every approval and freeze must be
//     predicted. 16 in `make test`, 1,000 in `make fuzz`
//     (`SOLGATE_EFFECTS_DIFF=N` for any count).
//   - Hostile swap API (`localnet/swap.mjs`, `localnet_swapHostile`): drains of
//     wrapped SOL and other tokens, closes to an attacker, delegates, owner
//     changes, a raised priority fee, a SOL input paid from wrapped SOL, and a
//     durable-nonce transaction; each is refused, or settled at its
//     ledger-measured cost (`mcpbridge/authority/swap_hostile_e2e_test.go`,
//     `effects_e2e_test.go`).
package executor
