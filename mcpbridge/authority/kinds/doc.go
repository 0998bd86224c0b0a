// Package kinds holds solgate's write kinds, a file each. Here, the kinds
// whose bytes solgate builds itself: transfer_sol (transfer.go),
// transfer_token (tokentransfer.go), swap (swap.go and swapview.go) and
// reclaim_rent (reclaimrent.go). In kinds/outside, the kinds that sign
// bytes built elsewhere: sign_and_send_transaction, x402_fetch and
// solana_action. Each registers itself (writekind.Register) in an init
// function; importing this package imports outside too, so cmd/solgate
// wires every kind in with one blank import.
//
// The dependency runs one way: kinds import package writekind, the
// contract a kind is written against, and never the approval core, which
// names no kind. The contract is Registration, Kind, Env, Execution,
// Proposal, GrantOn/NeverGranted, Refusal/Refuse/Answered, the Flag,
// DetailLine, LineBanner and Status values the console draws (package
// approval), and a few shared pieces of argument parsing and text (package
// args: ArgErrorf, ParseAddress, ParseConfirm, ParseUint with UintRule,
// CheckArgNames, DescribeValue, QuoteUntrusted, ParseSwapTerms,
// SwapTermsNormalized, QuoteArgs, Fingerprint, FingerprintOf; package
// writekind: SOL, TokenLabel and its Amount, IsSOL, PriceImpactBps,
// ImpactText, SumOrMax, InstructionLines and ChangeRow).
//
// # Tools
//
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
package kinds

// The kinds of outside bytes register themselves when imported.
import _ "github.com/solgate/solgate/mcpbridge/authority/kinds/outside"
