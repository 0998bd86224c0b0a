// Package testkit is what solgate's tests share to start the world they
// test against: a local ledger with funded wallets and keypair files, the
// real solgate binary and an MCP client driving `solgate mcp` as an
// assistant would, a tmux pane read and typed into as a person would, one
// settable clock, and waiting for a state instead of sleeping.
//
// It sits beside the ledger it starts and imports no solgate package, so a
// test of any layer (policy, executor, the authority, the console, cmd) may
// use it without reaching up. It is imported by tests and by the benchmark
// program (cmd/solgate-bench), and never linked into solgate itself.
package testkit
