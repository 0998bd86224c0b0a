// Package authority is the authority inside `solgate console`: it turns an agent's
// write call into a proposal, lets only a human's approval mint the token
// that executes it, and runs the execution through policy, spend reservation
// and the executor. Bridges reach it over a Unix socket (package server),
// the TUI through Subscribe and the operator methods (operator.go).
//
// This comment is solgate's design as the authority carries it out: the write
// path from proposal to settlement, the tokens, standing grants, the commit
// rule, and the tests that hold it. Each write kind's own design is in its
// package's documentation: transfers, token transfers, swaps and rent
// reclaims in package kinds; transactions built elsewhere, x402 payments and
// Solana Actions in kinds/outside; the chain read tools in chainreads. The
// security model and what holds per deployment are in SECURITY.md at the
// repository's root; the effects engine, fees and swaps are in package executor;
// settings in cmd/solgate.
//
// # Files
//
// This package is the approval core of the privileged side inside `solgate
// console`, which package startup assembles: the entry of every tool call
// (`call.go`: a write kind's skeleton or a read tool), the proposal queue,
// the one propose skeleton and the one run skeleton (`hub.go`,
// `propose.go`, `run.go`, `operator.go`, `execute.go`), the caller and what
// it owns (`caller.go`), standing grants (`grant.go`, `granting.go`,
// `grantledger.go`), the pending limits (`flood.go`), the spend summary
// (`spend.go`) and the read tools that answer from the hub's state
// (`reads.go`, `status.go`). It names no
// concrete kind. Its sub-packages, each below the core:
//   - `writekind/`: the contract a kind is written against: the registry (a
//     write kind is one registration: parse, draft, prepare, facts, the
//     console's lines, the approved bytes as an Execution, the one execution
//     adapter; and two pieces every kind must state, its landed-effects
//     check and its grant rule, with no default behind either: a kind
//     without one does not compile), the Env the core hands a kind's hooks,
//     the proposal a kind reads, token labels, and the lines the console
//     draws every kind through;
//   - `kinds/`: the write kinds, a file each, each registering through
//     writekind (the core names no concrete kind); `kinds/outside/`, the
//     kinds that sign bytes built elsewhere; `cmd` imports `kinds` once;
//   - `chainreads/`: the read tools that answer from the chain alone (a
//     balance, token accounts, a transaction, a quote, a mint) and the mint
//     labels the kinds read through their Env; the core's read table hands
//     those tools on to it;
//   - `approval/`: the approval service the console acts through and the
//     plain values it hands out; the TUI imports it, never the core;
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
//     the chain's verdict on a submission the hub follows;
//   - `flood/`: the per-user limit on how fast agents propose, and the
//     tally of what it refused;
//   - `fanout/`: the hub's events to every subscriber, in order, never
//     blocking the publisher;
//   - `answer/`: what the model reads of its calls (the preview, the
//     pending answer, the caps, denials, refusals, a proposal's status and
//     outcome, the spend status);
//   - `warnings/`: the session-long warnings about who can reach the
//     console.
//
// Above the core:
//   - `startup/`: assembling an authority in the one safe order (identify
//     the cluster, pin the state to it, restore the spend ledger,
//     reconcile, then the hub), and the settings of the process hosting it;
//   - `server/`: the socket's HTTP routes (a forwarded call, a bridge's
//     presence, the health check), which import nothing of the core and
//     reach the hub through an interface of their own; the hub keeps who is
//     present (`presence.go`);
//   - `consoleservice/`: the console adapter, which serves package
//     approval's service from the hub.
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
//     then builds the real transaction and simulates it in one round of RPCs
//     (package executor: the compute budget, the fee market, the batch). The
//     preview —
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
//   - `get_spend_status`: read; — caps, spent, reserved, remaining, paused;
//     per mint: its caps, spent and reserved in base units; `safety`: key and
//     state owner and modes, admitted users, the console's terminals, warnings
//   - `proposal_status`: read; `proposal_id`, `wait_seconds?` (≤ 45;
//     long-polls for the decision)
//
// The chain read tools (`get_balance`, `get_token_balances`, `get_quote`,
// `get_token_info`, `get_transaction`) are described in package chainreads,
// each write tool beside its kind: `transfer_sol`, `swap`, `transfer_token`
// and `reclaim_rent` in package kinds, `sign_and_send_transaction`,
// `solana_action` and `x402_fetch` in kinds/outside.
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
package authority
