// Package authority is the authority inside `solgate console`: it turns an agent's
// write call into a proposal, lets only a human's approval mint the token
// that executes it, and runs the execution through policy, spend reservation
// and the executor. Bridges reach it over a Unix socket (package server),
// the TUI through Subscribe and the operator methods (operator.go).
//
// This comment is solgate's design as the authority carries it out: the write
// path from proposal to settlement, the tokens, standing grants, each write kind
// (transfers, token transfers, swaps, transactions built elsewhere, x402
// payments, Solana Actions), the commit rule, and the tests that hold it. The
// security model and what holds per deployment are in SECURITY.md at the
// repository's root; the effects engine, fees and swaps are in package executor;
// settings in cmd/solgate.
//
// # Files
//
// This package is the privileged side inside `solgate console`, built in one
// place (`build.go`: identify the cluster, pin the state to it, restore the
// spend ledger, reconcile, then the hub). The approval core is here: the
// proposal queue, the one propose skeleton and the one run skeleton
// (`hub.go`, `propose.go`, `run.go`, `operator.go`, `execute.go`), and the
// registry (`registry.go`: a write kind is one registration: parse, draft,
// prepare, facts, the console's lines, the approved bytes as an writekind.Execution,
// the one execution adapter; and two pieces every kind must state, its
// landed-effects check and its grant rule, with no default behind either: a
// kind without one does not compile). The console draws every kind through
// its lines (`lines.go`) and reaches the hub only through the approval
// service (package `approval`, which `consoleservice/` serves from the
// hub, above the core). The HTTP routes of the socket are `server/`, which
// imports no side of the hub and reaches it through an interface of its
// own; the hub keeps who is present (`presence.go`). Its sub-packages, each
// below the core:
//   - `kinds/`: the write kinds, a file each, registering with the core
//     they import (the core names no concrete kind); `kinds/outside/`, the
//     kinds that sign bytes built elsewhere; `cmd` imports `kinds` once;
//   - `args/`: argument parsing and normalisation, with fingerprints;
//   - `tokens/`: the confirmation tokens;
//   - `host/`: admission and the checks of the machine, which know nothing
//     of the Hub (the socket with peer credentials and limits, admission of
//     other users, the terminal device and who can reach it, trusted files,
//     the notify command, the log file);
//   - `untrusted/`: sanitising text from outside for the console;
//   - `solanaactions/`: the console's Solana Actions client (URL forms,
//     `actions.json`, metadata, links and parameters, the POST), which
//     `kinds/outside/solanaaction.go`, the `solana_action` kind, calls;
//   - `reconcile/`: settling what a previous console left in flight, and
//     the chain's verdict on a submission the hub follows.
//
// # How it works
//
//	AI client (Claude Desktop, Claude Code, any MCP client)
//	  │ stdio (MCP)                       ← untrusted: the model chooses every argument
//	  ▼
//	solgate mcp        no key, no RPC, no state; forwards each call
//	  │ HTTP/JSON over a Unix socket (peer uid checked: the console's own, and --allow-uid/--allow-gid)
//	  ▼
//	solgate console    keypair, RPC, policy, spend ledger, proposals, tokens, audit, TUI
//	  │ JSON-RPC
//	  ▼
//	Solana cluster (localnet in tests and the demo)
//
// In detail:
//
//  1. Propose. The bridge forwards `transfer_sol{to, lamports}`. The console
//     checks policy first (a denial never bothers the human but shows in its log),
//     then builds the real transaction and simulates it (a blockhash up to a
//     second old may be reused: a preview is never signed, and execution fetches
//     a fresh one). The transaction carries a compute budget: a measuring
//     simulation gives the units it needs, and `SetComputeUnitLimit` asks for
//     those plus 10% (at least 1000); `SetComputeUnitPrice` bids the fee
//     estimate (`--priority-fee-source`, see the policy flags),
//     with the total priority fee (price × limit, in micro-lamports per unit)
//     capped. An RPC that does not serve the method, or reports no non-zero fee,
//     means no priority fee and a note, never a failure. A proposal waits for one
//     round of RPCs: the balances before, the simulation of the exact bytes and
//     the balances again go as one JSON-RPC batch (every answer from one slot;
//     in turn to a node that refuses batches), with the fee market's questions
//     in the same batch once its source is known; a preview builds on the budget
//     the last preview of the same shape
//     measured and keeps the result only if the exact simulation consumed the
//     same units and the fresh market gives the same price, else it measures
//     again (`executor/batch.go`, `executor/forecast.go`). Every RPC goes
//     through net/http's Transport over kept connections; an endpoint that
//     redirects the call elsewhere is refused with the URL to give instead.
//     A token transfer is
//     built on the mint's program and decimals and on whether the recipient's
//     account existed, as the last preview of that mint and recipient read them;
//     the mint, its metadata and the recipient are read again in the same batch,
//     and the preview stands only if those reads and the simulation's own reads
//     of the token accounts pass every check and give the same bytes, else it
//     reads first and builds again (`executor/tokenround.go`). The preview —
//     instructions decoded from the bytes, simulated balance changes, the fee
//     split as "fee 0.000005 + priority 0.00004 SOL (p75 of 12 recent fees for
//     its accounts, standard method)"
//     (and CAPPED when the market asked more than the cap), the compute budget,
//     message hash, and the effects line — is what the human sees. Fees and rent
//     are part of the measured spend every cap checks, for every kind: one
//     effects engine (below) measures it from the exact bytes. The same
//     arguments while pending return the same proposal.
//  2. Decide. `a` approves (on mainnet, then `y`), `d` denies with an optional
//     reason. Keys are ignored for a moment after a new proposal appears. Approval
//     records the decision, then mints a 12-character token bound to
//     `sha256(tool + canonical arguments)` and the proposal; undecided proposals
//     expire after 10 minutes.
//     `A` approves and grants more like it: see Standing grants below.
//  3. Deliver. `proposal_status` returns the token to the agent (default), or
//     the console only shows it to the human (`--token-delivery operator`).
//  4. Execute. The identical call plus `confirm`: the token is consumed
//     whatever happens (also when the arguments sent with it do not even
//     parse); policy is re-checked and the spend reserved atomically
//     at the simulated amount (amount + fee + priority fee + rent). The approval
//     binds the compute budget: execution simulates afresh and keeps the approved
//     unit limit, and it refuses, with nothing signed, when the transaction now
//     needs more units than approved or the fee market now asks a higher priority
//     fee than the one approved. The signature and its last
//     valid block height are persisted before the bytes leave (if they cannot be,
//     nothing is sent); send with `maxRetries: 0`, rebroadcast every 2 s
//     (rebroadcasting re-sends the same signed bytes: it never re-signs with a
//     higher fee, which would need a new approval),
//     poll `getSignatureStatuses` until confirmed or until block height passes
//     `lastValidBlockHeight`; re-fetch with `getTransaction` and check `err ==
//     null`
//     and the landed effects against the approved ones: more out, less in or any
//     undeclared change is executed with unexpected effects, with the
//     difference, never "executed". An answer takes at most 40 s; past that
//     the agent hears
//     `submitted` and `proposal_status` carries the outcome.
//  5. Settle. Executed or failed on chain: settle at the landed
//     transaction's own effects, measured from its `meta.preBalances`,
//     `postBalances` and token balances (SOL and wrapped SOL out, fees with the
//     priority fee, rent; each mint's out for the per-mint caps), never from a
//     later re-read of the wallet, so a transfer landing beside it neither counts
//     as its spend nor hides one.
//     Expired or refused in preflight: release. Expired means provably never
//     landed for every kind: a transaction that uses a durable nonce (whose
//     signed bytes would outlive its blockhash) is never signed. Unknown (RPC
//     trouble): keep
//     reserved and keep asking the chain in the background until it shows the
//     transaction or is past its last valid block height; a restarted console
//     does the same for what the previous one left in flight before accepting
//     writes, and answers `proposal_status` for earlier proposals from its
//     database.
//
// Outcomes are typed — executed (verified), failed, expired (provably never
// landed), rejected (refused in preflight), unknown, and executed with
// unexpected effects — and nothing is called
// executed that the chain did not confirm.
//
// # Tools
//
//   - `get_balance`: read; `address?` (default: the console's wallet)
//   - `get_token_balances`: read; `owner?`
//   - `get_quote`: read; `input_mint`, `output_mint`, `amount`, `slippage_bps`
//     → in, expected out, minimum out, price impact, route
//   - `get_token_info`: read; `mint` → decimals, supply, authorities,
//     Token-2022 extensions, name/symbol (sanitised, flagged)
//   - `get_spend_status`: read; — caps, spent, reserved, remaining, paused;
//     per mint: its caps, spent and reserved in base units; `safety`: key and
//     state owner and modes, admitted users, the console's terminals, warnings
//   - `get_transaction`: read; `signature`
//   - `proposal_status`: read; `proposal_id`, `wait_seconds?` (≤ 45;
//     long-polls for the decision)
//   - `transfer_sol`: write; `to`, `lamports` (integer or digit string),
//     `confirm?`
//   - `swap`: write; `input_mint`, `output_mint`, `amount`, `slippage_bps`,
//     `confirm?` (needs `--swap-api`)
//   - `transfer_token`: write; `mint`, `to` (the owner's address), `amount`
//     (base units), `confirm?`; SPL Token and Token-2022 with
//     `TransferChecked` at the mint's decimals; creates the recipient's
//     associated token account when missing (rent shown and counted in the SOL
//     caps); a Token-2022 transfer fee is shown with the net received;
//     non-transferable mints and transfer hooks are refused, a permanent
//     delegate and other risky extensions flagged
//   - `sign_and_send_transaction`: write; `transaction` (a base64 wire
//     transaction built elsewhere, legacy or v0, the wallet's signature slot
//     empty), `label?` (your words: shown to the human as untrusted, never
//     used for a decision), `confirm?`; approved by what its exact bytes do
//     (see Signing transactions built elsewhere)
//   - `solana_action`: write; `url` (an Action URL, `solana-action:` URL or
//     blink), `input?` (the action's parameters by name; `input.link` picks
//     one of several choices by position), `confirm?`; the console fetches the
//     action per the Solana Actions spec and proposes the transaction its
//     server built, judged by its simulated effects like any transaction built
//     elsewhere; the origin needs `--allow-action-origin`, `X-Blockchain-Ids`
//     must name the console's cluster; the server's words are shown as
//     untrusted text (see Solana Actions)
//   - `x402_fetch`: write; `url`, `method?`, `headers?`, `body?`,
//     `max_amount?` (base units), `confirm?`; the console makes the request,
//     only to an origin on `--allow-x402-origin`; no 402: the response as a
//     read; a 402: the x402 `exact` payment on the console's own cluster is
//     proposed (see Paying x402 APIs)
//
// Every tool states `readOnlyHint`; write tools are `destructiveHint`. Every
// tool declares an `outputSchema`, and answers with `structuredContent`, the
// same JSON serialised in a text block, and a text a person reads first; the
// bridge checks each result against its schema before the model sees it. A
// policy denial is an ordinary result `{status: "denied", rule, reason,
// retryable}`; malformed arguments are tool errors naming the argument.
//
// # Standing grants
//
// An agent working through a run of identical spends (the runbook's ten 0.05 SOL
// top-ups of a savings wallet) would have you press `a` ten times, and an
// operator asked ten times learns to press without reading. Instead:
//
//   - `A` on a pending proposal opens a small form, prefilled: 9 more calls
//     like it, a total ceiling of 9 × this proposal's measured spend (fees
//     included, never more than the session cap leaves after it), for 10
//     minutes. Digits edit, Tab moves, Enter approves this proposal and makes
//     the grant, Esc cancels. On mainnet or an unknown network Enter is
//     followed by `y`. `A` waits out the same grace period as `a`.
//   - What it covers: proposals from the *same agent process* (the kernel's
//     uid, pid and process start time for each message, SCM_CREDENTIALS, and
//     the bridge's per-process secret — never the name the agent gives; a
//     forked child, a process handed the connection and the program after
//     `execve` are not it), the same tool and counterparty (the recipient of `transfer_sol`,
//     mint
//     and recipient of `transfer_token`, the mint pair of `swap`), each at
//     most the
//     granted amount, within the count, the ceiling and the expiry. Such a
//     proposal
//     is approved at once, through the same path as your `a`: the agent still gets
//     a proposal first and its token from `proposal_status`; the log says
//     "APPROVED … by grant #N", and the audit trail's decision row names the grant
//     (`grant_made` and `grant_ended` rows record its terms and its end).
//     Every cap
//     and policy rule still judges every call: a grant never lifts a cap.
//   - What it does not cover waits for you, and the detail pane (and the
//     agent's `proposal_status`) says why ("grant #1 does not cover it: it is for
//     …"). A raw transaction tool would never be covered.
//   - Watching and stopping: a GRANTS line under the header shows each grant's
//     agent, counterparty, used/count, spent/ceiling and time left; `l` lists them
//     and Enter ends the chosen one; `x` ends every grant with every token; `p`
//     (pause) ends them too. A grant also ends when it expires, when its calls are
//     used up, and when its agent's process exits (a pidfd). Only calls that
//     landed use a grant's count and ceiling: a covered call that ended before
//     landing gives its call back. Every transaction solgate builds carries a
//     memo naming its proposal (swaps, built by the API, wait for a fresh
//     blockhash instead), so identical covered spends are different
//     transactions and each lands. Grants live in memory
//     only:
//     a restarted console has none.
//   - The agent sees its own grants in `get_spend_status` (`grants`), so it can
//     plan.
//   - `--no-grants` (`SOLGATE_NO_GRANTS`, `no_grants = true`) turns the feature
//     off: `A` only says so.
//
// Tests: `TestRunbookTrialUnderAGrant` (cmd/solgate, tmux, the real binaries and
// ledger: ten transfers on one `A`+Enter, the eleventh denied by the session cap,
// exactly 0.5 SOL at savings, the wallet down by that plus the fees, and no grant
// after a restart), `TestGrantCoversOnlyItsProcessRecipientAmountAndTime`,
// `TestGrantEndsOnRevokePauseAndDisconnect`, `TestGrantsLastCallIsTakenOnce`,
// `TestGrantLastCallAndCeilingAreTakenOnce` and
// `TestGrantOnTokenTransferCoversItsMintAndRecipientOnly`,
// `TestGrantOnSwapCoversItsPairOnly` (mcpbridge/authority,
// real bridges and ledger), and `TestGrantKeysAgainstTheHub` (tui).
//
// # Signing transactions built elsewhere
//
// An SDK, a launchpad's API or another MCP server often hands the assistant a
// transaction to sign. `sign_and_send_transaction` takes it (base64, legacy or
// v0, lookup tables allowed) and solgate judges the exact bytes by what they do
// in simulation, never by the builder's or the agent's description:
//
//   - The wallet pays and signs only its own slot. The wallet must be the fee
//     payer; every other required signature (a new mint's keypair, a co-signing
//     server) must already be there and valid. A durable nonce is refused.
//   - Programs are deny-by-default at the top level. System, SPL Token,
//     Token-2022, Associated Token Account, Compute Budget and Memo are allowed;
//     anything else needs the operator's `--allow-program ID[=LABEL]`
//     (repeatable; `SOLGATE_ALLOW_PROGRAM`, `allow_program` in the TOML file).
//     Programs called inside are listed from the simulation, with their labels.
//   - Caps apply to the effects. SOL out (wrapped SOL, fees and rent
//     included) meets the SOL caps; each mint out its own `--max-token-per-*`
//     caps, and a mint with none is refused unless
//     `--allow-uncapped-token-transfers`. A delegate, an owner or authority
//     change, a freeze or a close paying anyone but the wallet is refused.
//   - The console shows the effects: what leaves and arrives per asset, the
//     fees, the rent, the programs, the signers and the expiry; the label is the
//     agent's words, marked untrusted.
//   - Lifetime and fees. When the wallet is the only signer, solgate moves an
//     old blockhash forward at execution (and, if the transaction carries no
//     compute budget, applies its own fee policy). When others signed, the
//     blockhash is theirs: the preview shows its expiry and the proposal is
//     refused once it has passed. A compute-unit price in the transaction is kept
//     and must stay within `--max-priority-fee-lamports`.
//   - The approval binds the message (apart from its blockhash) and its
//     effects. At execution the bytes are simulated again and refused, with
//     nothing signed, if they would now do worse (more out, less in, a new
//     change); after landing, the landed effects are verified against the
//     approved ones.
//
// For example:
//
//	# admit the address lookup table program, labelled, besides the defaults
//	solgate console --allow-program AddressLookupTab1e1111111111111111111111111=lookup-tables
//	# several, in the TOML file
//	# allow_program = ["AddressLookupTab1e1111111111111111111111111=lookup-tables", "<PROGRAM_ID>=my staking program"]
//
// The tests build every such transaction with `@solana/kit` as an SDK would
// (`localnet/outside.mjs`): a memo with a transfer, a v0 transfer through a
// lookup table, a new mint co-signed by its keypair, a wrapped-SOL payment
// (accepted); an approval to a delegate, a change of owner, a close to a
// stranger, a durable nonce, an unknown program, a foreign fee payer, a missing
// co-signature and an expired co-signed blockhash (refused, each with its
// reason).
//
// # Solana Actions and blinks
//
// `solana_action{url, input?, confirm?}` runs a Solana Action
// (https://solana.com/docs/advanced/actions)
// (a blink) without letting the action's server, or the model, decide anything:
//
//   - The console fetches, not the bridge. It resolves the URL (a
//     `solana-action:` URL, a blink's `?action=solana-action:…`, or a website URL
//     mapped by its origin's `actions.json` rules), GETs the metadata, chooses the
//     linked action (`input` fills its `{name}` templates, encoded so a value
//     cannot
//     add a path segment or a query parameter; a missing required parameter is
//     refused by name; `input.link` picks one of several choices by position,
//     never
//     by the server's label), and POSTs `{account}` for the transaction.
//   - Deny by default by origin. Every origin involved (the website, the API,
//     the POST target) must be listed with `--allow-action-origin ORIGIN`
//     (repeatable; `https://host[:port]`, plain `http://` only on loopback),
//     and it
//     is asked *before* any request to that origin. Redirects to another
//     origin are
//     not followed.
//   - The right cluster. `X-Blockchain-Ids` must name the console's cluster
//     (CAIP-2: `solana:` and the genesis hash's first 32 characters, e.g.
//     `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` for mainnet); a server that sends
//     none means mainnet (sRFC 31). A newer spec than 2.4 (`X-Action-Version`) is
//     refused. Answers are size- and time-bounded.
//   - Judged by effects. The server's bytes take the path of
//     `sign_and_send_transaction`: decoded, checked (the wallet pays the fee,
//     allowed programs, no durable nonce), simulated, and measured by the effects
//     engine. The preview is that kind's effects view (what leaves and arrives,
//     fees, rent, programs, signers, expiry) plus the origin and every account
//     that receives SOL; the caps apply to what the bytes do. The
//     server is not asked again: the approved bytes (their blockhash refreshed
//     when
//     only the wallet signs) are what execute, and the landed effects are verified
//     against the approved ones. Never covered by a standing grant.
//   - Untrusted words. Title, description, button label and the server's
//     `message` are sanitised, flagged when they read like instructions, shown as
//     the action's words, marked untrusted, and never used for a decision: an
//     action titled
//     "Tip 0.001 SOL" whose transaction also sends 0.2 SOL shows the 0.2 SOL going
//     to its receiver, and the session cap stops it; one that also empties a
//     token account is refused unless that mint has a cap it fits in.
//
// For example:
//
//	solgate console --allow-action-origin https://actions.example.com --max-sol-per-tx 0.05
//	# the ledger serves two actions for trying it (localnet/actions.mjs):
//	solgate console --allow-action-origin http://127.0.0.1:8899   # then solana_action url=http://127.0.0.1:8899/api/actions/tip
//
// # Paying x402 APIs
//
// An API that wants paying per call answers `402 Payment Required` with an
// x402 (https://www.x402.org) offer: for example 0.001 USDC to the merchant's
// address, the network fee paid by the merchant's *facilitator*. `x402_fetch`
// lets the assistant use such an API while you keep the key and the bound:
//
//	solgate console --rpc https://api.devnet.solana.com \
//	  --allow-x402-origin https://api.example.com \
//	  --max-token-per-tx 4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU=0.01 \
//	  --max-token-per-session 4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU=1
//
// In detail:
//
//   - Origins are deny-by-default. `--allow-x402-origin ORIGIN` (repeatable;
//     `allow_x402_origin` in the config file, `SOLGATE_ALLOW_X402_ORIGIN`)
//     lists the
//     origins (`https://host[:port]`, no path) the console may contact and pay.
//     Plain `http://` only to `127.0.0.1`/`localhost`. An origin not on the list
//     is refused before any request is made. The console never follows a
//     redirect.
//   - The asset needs a per-mint cap: `--max-token-per-tx`, `-per-session`,
//     `-per-day` `MINT=AMOUNT`, or the `--allow-uncapped-token-transfers` opt-in
//     (then the preview says "no cap applies"). The SOL caps do not apply: the
//     wallet pays no SOL.
//   - No 402: the answer comes back at once as a read: the status, a few safe
//     headers (content type, length, cache, dates) and the body as untrusted text,
//     sanitised and cut to 8000 characters. Nothing is proposed.
//   - A 402: solgate reads the offer (x402 v2 from the `PAYMENT-REQUIRED`
//     header, v1 from the body), takes only the `exact` scheme on its own cluster
//     (CAIP-2 `solana:` + the first 32 characters of the genesis hash, e.g.
//     `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` on mainnet) and refuses anything
//     else, listing what was offered. It builds the payment as the scheme says
//     (a v0 message unless the offer's `extra.transactionVersions` asks for
//     legacy; compute-unit limit and price, one `TransferChecked` of the amount
//     to `payTo`'s token account, a memo — the server's, or a random nonce —
//     with the facilitator as fee payer; the offer's `extra.recentBlockhash`
//     when the cluster says it is still valid; its `extensions` echoed) and judges it by its simulated effects: the only
//     thing that may leave the wallet is exactly the amount of the asset. No SOL,
//     no fee, no other instruction naming the wallet. An offer naming the wallet
//     as fee payer, or asking for wrapped SOL, is refused before anything is
//     built. `max_amount` bounds what the assistant accepts: a higher price is
//     refused without a proposal.
//   - `payTo` is the counterparty. By default it is shown and the origin is
//     the gate (an API's merchant address is rarely known in advance).
//     `--x402-pin-pay-to` (`x402_pin_pay_to`, `SOLGATE_X402_PIN_PAY_TO`) holds
//     every payment's `payTo` to `--allow-recipient` as well: a `payTo` not on it
//     is refused with its address and the flag named, nothing built or signed.
//   - The proposal shows the origin, the resource and its description (as
//     untrusted text), the amount in the token's units, `payTo`, the facilitator,
//     the memo and the per-mint caps it counts against.
//   - After `a` the console asks the server again and holds the new offer to
//     the approved one: a server that asks more on the retry is refused, nothing
//     signed. It then signs as the token owner only (a partial signature), sends
//     the payment in `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1) to that origin
//     only (the signed bytes never go to the assistant), and returns the paid
//     response with the `PAYMENT-RESPONSE` settlement.
//   - Settlement: the amount is reserved at signing, and before signing the
//     console stores what identifies the payment on chain: its exact message,
//     the wallet's token account it pays from, its last valid block height and
//     the slot to search from. Only the chain settles or releases it, never
//     the server's word: the console (or, after a restart, the next console's
//     reconciliation) searches that token account's history
//     (`getSignaturesForAddress`) for a transaction with the exact message,
//     under whatever signature it landed. Found: settled from the landed
//     transaction ("landed"). Released only when the chain is past the last
//     valid block height and a search made after reading that height does not
//     find it ("never landed"; there is no durable nonce, so expiry proves it
//     never can land). An RPC failure leaves it reserved and it is asked again.
//     The facilitator's signature from `PAYMENT-RESPONSE` is used only to find
//     the payment at once when it verifies over the exact message.
//   - Grants made on an x402 proposal (`A`) cover later calls to the same
//     origin, `payTo` and asset, each at most the granted amount, within the
//     grant's count and time. The form's SOL ceiling is 0 for them (an x402
//     payment
//     spends no SOL): the form, the grants line and the list (`l`) show the bound
//     in the asset's units, e.g. `10 calls × at most 0.001 USDC`, and the per-mint
//     caps bound the total.
//
// Limits, today: an x402 reservation left in flight by a solgate from before
// the payment record (schema 10) has no message to search for and is still
// judged by its stored signature. A payer token account with more than
// 20,000 transactions since the payment was signed leaves it unknown (kept
// reserved) rather than searched further.
//
// `make localnet` (`node localnet/server.mjs --paid-api`) serves a paid API
// beside the ledger (built with the official
// `@x402/express` and `@x402/svm` packages, its facilitator settling on the
// ledger): the ready line's `x402.url` with `/paid` (0.001 of a USDC-like mint),
// `/free`, `/v1/paid` (only when the ledger impersonates devnet, `--network
// devnet`: v1 names only the public clusters) and hostile variants.
//
// # Tests
//
// These tests start their own localnet processes and assert the outside world:
// balances read back from the ledger, rows read back from the database.
//
//   - Fault matrix (`mcpbridge/authority/faults_test.go`): dropped sends, 503
//     bursts
//     and outages, blockhash expiry mid-flight, simulation failure, an RPC slower
//     than the tool timeout, the console killed with `kill -9` and restarted, and
//     `solgate mcp` killed mid-call. After each, the books are audited from the
//     ledger and the reopened database: no false success, settled totals equal the
//     chain's outflow, every signature accounted for, the audit chain intact.
//     `make test` runs 2 transfers per fault; `make faults` runs 20.
//   - Adversarial tokens (`mcpbridge/authority/adversarial_test.go`): mutated
//     arguments, replays, expired and foreign tokens, random strings and
//     concurrent
//     double use — 1,000 attempts in `make test`,
//     `SOLGATE_ADVERSARIAL_ATTEMPTS=10000` for the full run; exactly the
//     legitimate
//     executions land.
//   - Hostile action servers (`mcpbridge/authority/solanaactions/`, real HTTP
//     on loopback): an origin not allowed is never contacted, nor a POST target or
//     an `actions.json` mapping on another origin; redirects to another origin,
//     oversized, trickling and hanging answers, another cluster's
//     `X-Blockchain-Ids`, a newer spec, message and post actions are refused;
//     escapes and instruction-like words in titles, labels and messages are
//     sanitised and flagged; template values cannot add a path segment or a query
//     parameter; every parser is fuzzed with a server's answers. Through the real
//     binary (`cmd/solgate/actions_e2e_test.go`): localnet's honest tip executes
//     after `a` with exactly its previewed effects, the over-reaching action's
//     extra 0.2 SOL is read off the console and capped; a draining one is held to
//     the token caps (`mcpbridge/authority/solanaaction_e2e_test.go`, through the
//     real `solgate mcp`).
package authority
