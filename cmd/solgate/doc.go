// Command solgate lets an AI assistant propose Solana spends that only a human
// can approve. README.md at the repository's root is the first hour with it,
// SECURITY.md its security model; package mcpbridge/authority documents the
// design. This package holds flags, config and the wiring of the subcommands
// only.
//
// # Commands
//
//   - `solgate console`: the authority and its TUI. `--rpc`, `--keypair`
//     (default `~/.config/solana/id.json`), `--socket`, `--state`, `--swap-api
//     URL` (a Jupiter Swap API base, today `https://api.jup.ag`; without it
//     swaps are refused), `--swap-api-version 2|1` (2, the default:
//     `/swap/v2/build`; 1: `/swap/v1/quote` and `/swap/v1/swap`), the swap API key from `SOLGATE_SWAP_API_KEY` or
//     `--swap-api-key-file FILE` (sent as `x-api-key`; never a flag),
//     `--swap-program ID` (repeatable: aggregators besides Jupiter v6),
//     `--config FILE` (TOML), `--allow-uid UID` / `--allow-gid GID`
//     (repeatable: other users whose bridges may connect), `--check` (print
//     who can reach the key, state and terminal, ask the RPC which network it
//     serves, then exit; non-zero where the console would refuse to start),
//     `--approval-grace` (how long a just-selected proposal ignores `a`: 100ms
//     to 1s, default 800ms), and the policy flags below. When a proposal
//     starts waiting the console rings the bell (`--no-bell` silences it),
//     titles the window "(N) solgate — approval waiting", and runs
//     `--notify-command PROGRAM` if given (a program with fixed arguments,
//     never a shell line, checked before each run; with `SOLGATE_PROPOSAL_ID`,
//     `_TOOL`, `_AMOUNT`, `_RECIPIENT`, `_NETWORK`, `_FLAGS`, `_WAITING` set,
//     never a token; 10 s timeout). Each agent user (its uid, all its
//     processes together, not the name it gives) may have
//     `--max-pending-per-uid` (20) proposals waiting, make
//     `--proposals-per-minute-per-uid` (60) and hold
//     `--max-connections-per-uid` (64) connections; `--max-pending` (200) may
//     wait overall, and connections stop `--reserved-fds` (256) short of the
//     open-file limit; past that the answer is a retryable denial.
//     `--allow-shared-terminal` starts the console in a terminal an admitted
//     agent can reach (refused otherwise), with a red warning. Logs go to
//     `console.log` in the state directory, or `--log-file`. The console's Go
//     garbage collector runs at `GOGC=400` under a 128 MiB soft memory limit
//     (a quarter of its collection CPU, the same memory) unless `GOGC` or
//     `GOMEMLIMIT` is set
//   - `solgate keygen [-o FILE]`: a new keypair in the Solana CLI format, mode
//     0600; never replaces a file
//   - `solgate mcp`: the MCP stdio bridge. `--socket`. It runs on one P
//     (`GOMAXPROCS=1`) with its garbage collector at `GOGC=150` (no collection
//     in its first hundred calls, about 0.4 MB more memory) unless
//     `GOMAXPROCS`, `GOGC` or `GOMEMLIMIT` is set
//   - `solgate demo`: the guided demo (README.md, Watch it); `--prove` for the PROOF run only.
//     Runs from a solgate checkout (or with `SOLGATE_LOCALNET_DIR`): the test
//     ledger is not part of the binary
//   - `solgate prove --rpc URL --keypair FILE [--to ADDR] [--lamports N]`: one
//     transfer through the executor, then a PROOF block from the chain's
//     re-fetch; exits non-zero whenever the chain did not confirm it. Refuses
//     mainnet unless `--allow-mainnet`, and an unknown network off this
//     machine unless `--allow-unknown-network`.
//   - `solgate audit [--state DIR] [--config FILE] [--json]
//     [--accept-missing-head]`: prints the audit trail and verifies its hash
//     chain and the head recorded in `audit.head`; non-zero exit naming the
//     first altered or missing entry, or a trail with entries and no
//     `audit.head` (unless `--accept-missing-head`). It finds the state
//     directory as the console does: `--state`, `SOLGATE_STATE`, the
//     `--config`/`SOLGATE_CONFIG` file, then the default
//   - every command: refuses a `SOLGATE_*` variable that is not a setting, and
//     an unknown flag, naming the nearest one ("did you mean SOLGATE_SOCKET?")
//   - `solgate version [--json]` and `solgate --version`: the same line: the
//     version (the checkout's revision, `+dirty` for uncommitted changes, when
//     built with `make build`; the same string is the MCP `serverInfo`
//     version), the commit the binary was built from and its Go version;
//     `--json` adds the build settings and every dependency with version and
//     checksum (see SECURITY.md, Releases and verifying them)
//
// # Policy flags
//
// Policy flags: `--allow-recipient ADDR` (repeatable; none means every transfer
// is refused), `--allow-action-origin ORIGIN` (repeatable; none means every
// Solana Action is refused), `--max-sol-per-tx` (default 0.1),
// `--max-sol-per-session`
// (default 1), `--max-sol-per-day` (rolling 24 h, persisted; default off),
// `--allow-mainnet`, `--allow-unknown-network`, `--token-delivery agent|operator`
// (who receives approval tokens), and the swap settings
// `--allow-uncapped-token-swaps`, `--max-slippage-bps` (default 300),
// `--max-price-impact-pct`, `--allow-mint MINT`, `--deny-mint MINT` (these two
// apply to anything that moves a mint, swaps and token transfers alike). Token
// spends: `--max-token-per-tx MINT=AMOUNT`, `--max-token-per-session
// MINT=AMOUNT`, `--max-token-per-day MINT=AMOUNT` (repeatable; AMOUNT in base
// units, or with a decimal point in the mint's display units, resolved with the
// mint's decimals and refused rather than rounded), and
// `--allow-uncapped-token-transfers` (a token transfer of a mint with no cap is
// refused without it; with it the preview says "no cap applies"). Programs:
// `--allow-program ID[=LABEL]` (repeatable) admits a program a transaction built
// elsewhere may call at the top level, besides System, SPL Token, Token-2022,
// Associated Token Account, Compute Budget and Memo. A swap from a
// token with a per-mint cap is bounded by it too. Rules apply by what a
// proposal does, not by which tool made it: anything with a recipient must be
// allowlisted, anything that moves a mint goes through the mint lists, anything
// that spends one needs a cap or an opt-in.
//
// Priority fees, swaps' priority level and verification waits are described in
// package executor.
//
// # Settings
//
// Every console setting, policy or not, is one row of a table
// (`cmd/solgate/settings.go`) and has three spellings derived from its flag:
//
//   - flag: `--max-sol-per-tx 0.05`; `--allow-recipient A --allow-recipient B`
//   - variable: `SOLGATE_MAX_SOL_PER_TX=0.05`; `SOLGATE_ALLOW_RECIPIENT=A,B`
//   - `--config` TOML file: `max_sol_per_tx = 0.05`; `allow_recipient = ["A",
//     "B"]`
//
// Precedence: defaults, then the `--config` file (itself `--config` or
// `SOLGATE_CONFIG`), then `SOLGATE_*` variables, then flags; a list from one
// source replaces the list below it, and an empty variable counts as unset. SOL
// amounts are read as exact decimals (write more than 15 significant digits in
// TOML as a string). Earlier spellings still read: `SOLGATE_STATE_DIR` for
// `SOLGATE_STATE`, and the TOML keys `allow_recipients`, `allow_mints`,
// `deny_mints`. The console refuses to start on a bad value, an unknown TOML key,
// or an unknown `SOLGATE_*` variable, naming where it came from
// (`SOLGATE_DENY_MINT: "xyz" is not a mint address …`,
// `max_sol_per_tx in /etc/solgate/solgate.toml: …`). `solgate mcp`, `prove` and
// `audit` read their `--socket`, `--rpc`, `--keypair` and `--state` from the same
// rows. `NO_COLOR` is respected.
//
// # The state directory
//
// The state directory holds the spend ledger, the hash-chained audit trail and
// the log. A state directory belongs to one cluster: its spend ledger, daily cap
// and audit trail count one chain's money. When no source names `--state`, each
// cluster gets its own directory under the default one (`~/.local/state/solgate`,
// or `$XDG_STATE_HOME/solgate`), named by its genesis hash, so trying localnet and
// then devnet just works (`statedir.go`). A directory from before this layout
// (the database directly in the default directory) stays in use for the cluster
// it is pinned to. An explicit `--state` (or `SOLGATE_STATE`) is pinned to the
// first cluster it served: a console, and `console --check`, started on another
// cluster refuse it and name `--state` and `SOLGATE_STATE`. `solgate audit`
// reads every cluster's directory.
//
// # Layout
//
//   - `cmd/solgate`: flags, config and wiring of the subcommands
//   - `cmd/solgate-bench`: the benchmark program behind `make bench`
//   - `executor/`: keypair loading, network detection, build → simulate → sign
//     → send → confirm → verify; the effects engine (`effects.go`): what exact
//     bytes do to everything the wallet owns or controls; transactions built
//     elsewhere (`outside.go`): decoded, checked, measured, bound to the
//     approval and verified after landing
//   - `policy/`: deny-by-default rules, breaker, atomic spend reservation;
//     `policy/store`: SQLite state and hash-chained audit log
//   - `mcpbridge/`: the unprivileged bridge that `solgate mcp` runs, with no
//     key: MCP over stdio (`bridge.go`), the MCP tool declarations generated
//     from the inventory (`tools.go`, `outputs.go`), the socket client
//     (`client.go`: net/http's client over the console's socket, which also
//     carries the tool calls); `mcpbridge/wire`: the contract both sides
//     import (call request and result, the tool inventory, limits), which
//     imports nothing of either; `demoagent/`: the demo's scripted
//     assistant, a client like any other
//   - `mcpbridge/authority/`: the privileged side inside `solgate console`,
//     assembled in one place (`startup/`: identify the cluster, pin the state
//     to it, restore the spend ledger, reconcile, then the hub): the approval
//     core, with the proposal queue, the one propose skeleton and the one run
//     skeleton (`hub.go`, `propose.go`, `run.go`, `operator.go`,
//     `execute.go`), standing grants and the pending limits; `writekind/`: the
//     contract a kind is written against (a write kind is one registration:
//     parse, draft, prepare, facts, the console's lines, the approved bytes;
//     its landed-effects check and grant rule are required methods); the
//     kinds live in `kinds/`, a file each (`transfer.go`, `tokentransfer.go`,
//     `swap.go` + `swapview.go`, `reclaimrent.go`; in `kinds/outside/`,
//     `signsend.go`, `x402kind.go`, `solanaaction.go`), importing writekind,
//     never the core, and `cmd` wires them in with one import; `args/`:
//     argument parsing and normalisation, with fingerprints; `tokens/`: the
//     confirmation tokens; `answer/`: what the model reads; `chainreads/`: the
//     read tools that answer from the chain; the console draws every kind
//     through its lines (`writekind/lines.go`) and reaches the hub only
//     through `approval/`'s service (`consoleservice/`); `server/`: the
//     socket's HTTP routes; `host/`: admission and the machine's checks,
//     knowing nothing of the Hub (the socket with peer credentials and
//     limits, other users' admission, the terminal and who can reach it,
//     trusted files, the notify command, the log file); `untrusted/`:
//     sanitising text from outside for the console; `solanaactions/`: the
//     console's Solana Actions client (URL forms, `actions.json`, metadata,
//     links and parameters, the POST), which `kinds/outside/solanaaction.go`,
//     the `solana_action` kind, calls
//   - `tui/`: the Bubble Tea approval console; `renderer.go` draws it only
//     when what it shows changed (the first change at once, later ones at most
//     120 times a second), where Bubble Tea v1's own renderer woke 120 times a
//     second, so an idle console does not wake at all
//   - `localnet/`: the test/demo ledger: Solana JSON-RPC on loopback over
//     litesvm, with fault injection; `outside.mjs`: transactions built with
//     `@solana/kit` as an SDK builds them; `actions.mjs`: Solana Actions
//     served with `@solana/actions`, an honest one and two that take more than
//     they say; `testkit/`: the one kit tests share (ledger start, funded
//     wallets and keypair files, the real binary and an MCP client for it, a
//     tmux pane, one fake clock, waiting for a state), importing no solgate
//     package so that a test of any layer may use it
//   - `.ci/`: `run`: what CI runs; `vuln/`: the known-vulnerability gate
//     (tools pinned in its own go.mod, `baseline.json`); `release/`:
//     GoReleaser configuration and its pinned tools
//   - `.github/workflows/release.yml`: the tag-driven release with SLSA
//     provenance (not run here)
//
// # Tests
//
// `make test` is what CI runs (`.ci/run` runs every fuzz target briefly and the
// quick benchmark, then `make test`). Tests start their own localnet processes and
// assert the outside world: balances read back from the ledger, rows read back
// from the database, the real `solgate` binary driven as a subprocess through
// mcp-go's client, and the console and the demo driven in tmux. Among them:
//
//   - No sleeping for events: tests wait for what they need (a screen line
//     read through tmux, a hub event, a ledger state, the listener's connection
//     count); `time.Sleep` appears only where the passage of time is the behaviour
//     under test, and says so on its line. `make test-under-load` runs `make test`
//     5 times (`RUNS=N`) beside `stress -c 4` (or shell busy loops without it) and
//     stops at the first red run.
//
// The other families are described beside their code: the fault matrix,
// adversarial tokens and hostile action servers in package mcpbridge/authority;
// the effects engine against the ledger, the hostile swap API and fuzzing in
// package executor; the separation tests, as root with throwaway uids, in
// SECURITY.md.
package main
