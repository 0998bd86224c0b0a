// Package kinds holds solgate's write kinds, a file each: transfer_sol
// (transfer.go), transfer_token (tokentransfer.go), swap (swap.go and
// swapview.go), sign_and_send_transaction (signsend.go), x402_fetch
// (x402kind.go, x402args.go), solana_action (solanaaction.go,
// actionargs.go) and reclaim_rent (reclaimrent.go). Each registers itself
// with the approval core (authority.RegisterKind) in an init function;
// cmd/solgate wires them all in with one blank import.
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
