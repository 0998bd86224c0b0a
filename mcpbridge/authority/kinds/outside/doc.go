// Package outside holds the write kinds that sign bytes built outside
// solgate: sign_and_send_transaction (signsend.go: the agent's own
// transaction), x402_fetch (x402kind.go, x402args.go: a payment an HTTP
// server asks for) and solana_action (solanaaction.go, actionargs.go: the
// transaction a Solana Action's server returns). Each is judged by the
// effects of its exact bytes, like every kind, and registers itself with
// the approval core in an init function. Package kinds imports this one,
// so one import wires every kind in; see its documentation for the part of
// the core a kind uses.
package outside
