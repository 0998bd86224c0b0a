// Package outside holds the write kinds that sign bytes built outside
// solgate: sign_and_send_transaction (signsend.go: the agent's own
// transaction), x402_fetch (x402kind.go, x402args.go: a payment an HTTP
// server asks for) and solana_action (solanaaction.go, actionargs.go: the
// transaction a Solana Action's server returns). Each is judged by the
// effects of its exact bytes, like every kind, and registers itself with
// the approval core in an init function. Package kinds imports this one,
// so one import wires every kind in; see its documentation for the part of
// the core a kind uses.
//
// # Tools
//
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
package outside
