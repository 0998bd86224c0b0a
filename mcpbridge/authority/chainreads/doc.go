// Package chainreads answers the read tools that need nothing but the
// chain: from the console's executor and RPC client, its swap API, its
// network and the policy's price-impact limit, never from the hub's
// proposals, grants or spend. The core's read table dispatches these tools
// to Tools and keeps the two that read its own state (get_spend_status,
// proposal_status). It also reads the mint labels the kinds see through
// their Env. It imports nothing of the core.
//
// # Tools
//
//   - `get_balance`: read; `address?` (default: the console's wallet)
//   - `get_token_balances`: read; `owner?`
//   - `get_quote`: read; `input_mint`, `output_mint`, `amount`, `slippage_bps`
//     → in, expected out, minimum out, price impact, route
//   - `get_token_info`: read; `mint` → decimals, supply, authorities,
//     Token-2022 extensions, name/symbol (sanitised, flagged)
//   - `get_transaction`: read; `signature`
package chainreads
