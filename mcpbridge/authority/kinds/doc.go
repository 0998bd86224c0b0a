// Package kinds holds solgate's write kinds, a file each. Here, the kinds
// whose bytes solgate builds itself: transfer_sol (transfer.go),
// transfer_token (tokentransfer.go), swap (swap.go and swapview.go) and
// reclaim_rent (reclaimrent.go). In kinds/outside, the kinds that sign
// bytes built elsewhere: sign_and_send_transaction, x402_fetch and
// solana_action. Each registers itself with the approval core
// (writekind.Register) in an init function; importing this package
// imports outside too, so cmd/solgate wires every kind in with one blank
// import.
//
// The dependency runs one way: kinds import the core, the core never names
// a kind. What a kind uses of the core is its contract (WriteKind, Kind,
// Env, Execution, Proposal, GrantOn/NeverGranted, Refusal/Refuse/Answered,
// and the Flag, DetailLine, LineBanner and Status values the console draws)
// and a few shared pieces of argument parsing and text: ArgErrorf,
// ParseAddress, ParseConfirm, ParseUint with UintRule (LamportsRule,
// BaseUnitsRule), CheckArgNames, DescribeValue, QuoteUntrusted,
// ParseSwapTerms, SwapTermsNormalized, QuoteArgs, Fingerprint,
// FingerprintOf, SOL, TokenLabel (and its Amount), IsSOL, PriceImpactBps,
// ImpactText, SumOrMax, InstructionLines and ChangeRow.
package kinds

// The kinds of outside bytes register themselves when imported.
import _ "github.com/solgate/solgate/mcpbridge/authority/kinds/outside"
