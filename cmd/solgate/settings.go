package main

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/executor/x402"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/tui"
)

// Settings is everything `solgate console` runs with: where it connects,
// where it keeps its state, and the policy. It is filled from the table
// below by settingFlags.build (settings_sources.go); nothing else writes it.
type Settings struct {
	Config     string // the TOML file that was read; empty: none
	RPC        string
	Keypair    string
	Socket     string
	State      string
	SwapAPI    string // Jupiter Swap API base URL; empty: swaps refused
	SwapAPIKey string // secret: never printed (see String)
	// SwapAPIVersion is the swap API spoken: 2 (/swap/v2/build, Jupiter's
	// recommended path and the default) or 1 (/swap/v1/quote and /swap/v1/swap).
	SwapAPIVersion int
	// SwapAPIKeyFile holds the key (read by build); a secret is never a flag.
	SwapAPIKeyFile string
	SwapPrograms   []string // aggregator programs besides the built-in ones
	AllowUIDs      []uint32 // users whose bridges may connect
	AllowGIDs      []uint32 // groups whose bridges may connect
	NoColor        bool
	// AllowSharedTerminal starts the console although an admitted agent
	// can reach its terminal, with a red warning for the whole session.
	AllowSharedTerminal bool
	// Being noticed, and the log.
	NoBell bool
	// NoGrants turns standing grants (A) off: every write waits for a key.
	NoGrants      bool
	NotifyCommand string // a program and fixed arguments (no shell), per proposal that starts waiting; empty: none
	LogFile       string // empty: console.log in State
	// ApprovalGrace is how long a just-selected proposal ignores a.
	ApprovalGrace time.Duration
	// Flood control, per user (uid) and overall.
	MaxPendingPerUID   int
	MaxPending         int
	ProposalsPerMinute int
	MaxConnsPerUID     int
	ReservedFDs        int
	Policy             policy.Config
	Fees               executor.FeeSettings // every kind's priority fees
	VerifyWindow       time.Duration        // how long a confirmed transaction is looked for

	// AllowPrograms are programs sign_and_send_transaction admits at the
	// top level besides the default ones, with the operator's labels.
	AllowPrograms []executor.AllowedProgram

	// StateByCluster: no source named --state, so State is the base under
	// which each cluster has its own directory (statedir.go).
	StateByCluster bool
}

// defaultSettings is what the console runs with when no source says
// otherwise: a local validator, the Solana CLI keypair, XDG paths, and
// policy.DefaultConfig.
func defaultSettings() Settings {
	return Settings{
		RPC:     defaultRPC,
		Keypair: executor.DefaultKeypairPath(),
		Socket:  mcpbridge.DefaultSocketPath(),
		State:   defaultStateDir(),
		Policy:  policy.DefaultConfig(),
		Fees:    executor.DefaultFeeSettings(),

		VerifyWindow: executor.DefaultVerifyWindow,

		MaxPendingPerUID:   authority.DefaultMaxPendingPerUID,
		MaxPending:         authority.DefaultMaxPending,
		ProposalsPerMinute: authority.DefaultProposalsPerMinute,
		MaxConnsPerUID:     host.DefaultMaxConnsPerUID,
		ReservedFDs:        host.DefaultReservedFDs,
		ApprovalGrace:      tui.DefaultGrace,
		SwapAPIVersion:     executor.SwapAPIv2,
	}
}

// String keeps the swap API key out of anything that prints Settings with
// %v (a log line, an error, a test failure).
func (s Settings) String() string {
	type plain Settings // no methods: no recursion into String
	if s.SwapAPIKey != "" {
		s.SwapAPIKey = "[redacted]"
	}
	return fmt.Sprintf("%+v", plain(s))
}

// GoString does the same for %#v.
func (s Settings) GoString() string { return s.String() }

// setting is one row of the table: one key, every spelling of it, its parser
// and where it lands. The names follow one rule, derived from the flag:
//
//	flag --max-sol-per-tx   TOML max_sol_per_tx   variable SOLGATE_MAX_SOL_PER_TX
//
// A list is a repeated flag, a TOML array, or a comma-separated variable;
// whichever source sets it replaces the list of the sources below it.
type setting struct {
	name  string // the flag's name
	usage string // --help text; a `word` in back quotes names the value
	list  bool
	bool  bool     // a switch: --name alone means true
	toml  tomlKind // which TOML values spell it (of each item, for a list)
	// secret: the value never appears in an error, in --help or in a log.
	secret bool
	// noTOML: not a file key (--config cannot name itself).
	noTOML bool
	// oldTOML and oldEnv are earlier spellings that are still read.
	oldTOML []string
	oldEnv  []string
	// set parses the value (one text, or one per list item) into s; its
	// errors say what was wrong and what is accepted, without the source,
	// which the caller prefixes.
	set func(s *Settings, texts []string) error
	// show renders the value s holds, for --help's default.
	show func(s *Settings) string
}

// tomlKey is the row's key in the --config file.
func (r *setting) tomlKey() string { return strings.ReplaceAll(r.name, "-", "_") }

// envVar is the row's SOLGATE_* variable.
func (r *setting) envVar() string {
	return "SOLGATE_" + strings.ToUpper(strings.ReplaceAll(r.name, "-", "_"))
}

// settings is the table: every console setting and policy key, declared
// once. The flags, the SOLGATE_* variables and the TOML file all read it.
var settings = []setting{
	withNoTOML(scalar("config", "read settings from this TOML `FILE` (keys: the flag names with underscores, e.g. max_sol_per_tx = 0.1)",
		tomlString, func(s *Settings) *string { return &s.Config }, parseFilePath("a TOML file path"), plainText)),

	// Where the console connects and keeps its state.
	scalar("rpc", "Solana JSON-RPC endpoint `URL`",
		tomlString, func(s *Settings) *string { return &s.RPC }, parseHTTPURL(false), plainText),
	scalar("keypair", "Solana CLI keypair `FILE` that signs and pays",
		tomlString, func(s *Settings) *string { return &s.Keypair }, parseFilePath("a keypair file path"), plainText),
	scalar("socket", "Unix socket `PATH` the bridges connect to",
		tomlString, func(s *Settings) *string { return &s.Socket }, parseFilePath("a socket path"), plainText),
	withOldEnv(scalar("state", "state `DIR`: spend ledger, audit trail, log",
		tomlString, func(s *Settings) *string { return &s.State }, parseFilePath("a directory path"), plainText), "SOLGATE_STATE_DIR"),
	scalar("swap-api", "Jupiter Swap API base `URL`; without it swaps are refused",
		tomlString, func(s *Settings) *string { return &s.SwapAPI }, parseHTTPURL(true), plainText),
	scalar("swap-api-version", "swap API `VERSION`: 2 (/swap/v2/build: the console compiles Jupiter's instructions itself, the wallet the only signer) or 1 (/swap/v1/quote and /swap/v1/swap)",
		tomlInt, func(s *Settings) *int { return &s.SwapAPIVersion }, parseSwapAPIVersion, strconv.Itoa),
	withSecret(scalar("swap-api-key", "`KEY` sent to the swap API as x-api-key: only as SOLGATE_SWAP_API_KEY or in the --config file, never as this flag (every user can read a flag in /proc/PID/cmdline); or see --swap-api-key-file",
		tomlString, func(s *Settings) *string { return &s.SwapAPIKey }, parseSecret, plainText)),
	scalar("swap-api-key-file", "read the swap API key from this `FILE` (yours, mode 0600)",
		tomlString, func(s *Settings) *string { return &s.SwapAPIKeyFile }, parseFilePath("a file path"), plainText),
	list("swap-program", "aggregator program `ID` judged by whole-wallet simulation, besides the built-in ones (repeatable)",
		tomlString, func(s *Settings) *[]string { return &s.SwapPrograms }, parseAddress("program id")),
	list("allow-program", "program `ID[=LABEL]` a transaction built elsewhere may call at the top level besides System, SPL Token, Token-2022, Associated Token Account, Compute Budget and Memo, shown with LABEL (repeatable)",
		tomlString, func(s *Settings) *[]executor.AllowedProgram { return &s.AllowPrograms }, parseAllowedProgram),
	list("allow-uid", "user `UID` whose bridges may connect to the socket (repeatable)",
		tomlInt, func(s *Settings) *[]uint32 { return &s.AllowUIDs }, parseID("user id")),
	list("allow-gid", "group `GID` whose members' bridges may connect to the socket (repeatable)",
		tomlInt, func(s *Settings) *[]uint32 { return &s.AllowGIDs }, parseID("group id")),
	switchRow("no-color", "no colours (also when NO_COLOR is set)", func(s *Settings) *bool { return &s.NoColor }),
	switchRow("allow-shared-terminal", "start even though an admitted agent user owns, or can read or write, this terminal (it could fake what you approve and read your keys); a red warning stays for the whole session",
		func(s *Settings) *bool { return &s.AllowSharedTerminal }),
	scalar("log-file", "write the log to this `FILE` instead of console.log in the state directory",
		tomlString, func(s *Settings) *string { return &s.LogFile }, parseFilePath("a log file path"), plainText),

	// Being noticed when a proposal starts waiting.
	switchRow("no-bell", "do not ring the terminal bell when a proposal starts waiting", func(s *Settings) *bool { return &s.NoBell }),
	switchRow("no-grants", "turn standing grants off: A cannot approve a run of similar spends, every write waits for a key", func(s *Settings) *bool { return &s.NoGrants }),
	scalar("notify-command", "run this `PROGRAM` (with fixed arguments, never through a shell) for every proposal that starts waiting; it gets SOLGATE_PROPOSAL_ID, _TOOL, _AMOUNT, _RECIPIENT, _NETWORK, _FLAGS, _WAITING, never a token",
		tomlString, func(s *Settings) *string { return &s.NotifyCommand }, parseFilePath("a program and fixed arguments, separated by spaces"), plainText),
	scalar("approval-grace", "a just-selected proposal ignores a for this long (`DURATION`, 100ms to 1s), so typing in flight cannot approve it",
		tomlString, func(s *Settings) *time.Duration { return &s.ApprovalGrace }, parseGrace, formatDuration),

	// Flood control, keyed on the agent's user (uid), whatever its processes.
	scalar("max-pending-per-uid", "proposals one agent user (all its processes) may have waiting for you (`N`); more are denied as retryable",
		tomlInt, func(s *Settings) *int { return &s.MaxPendingPerUID }, parseCount, strconv.Itoa),
	scalar("max-pending", "proposals all agents together may have waiting for you (`N`)",
		tomlInt, func(s *Settings) *int { return &s.MaxPending }, parseCount, strconv.Itoa),
	scalar("proposals-per-minute-per-uid", "proposals one agent user may make a minute (`N`), all at once at most",
		tomlInt, func(s *Settings) *int { return &s.ProposalsPerMinute }, parseCount, strconv.Itoa),
	scalar("max-connections-per-uid", "socket connections one agent user (all its processes) may hold open (`N`)",
		tomlInt, func(s *Settings) *int { return &s.MaxConnsPerUID }, parseCount, strconv.Itoa),
	scalar("reserved-fds", "file descriptors bridges' connections never take (`N`): all connections together stop at the open-file limit minus these",
		tomlInt, func(s *Settings) *int { return &s.ReservedFDs }, parseCount, strconv.Itoa),

	// Policy.
	withOldTOML(list("allow-recipient", "`ADDR` transfers may go to (repeatable; none = every transfer refused)",
		tomlString, func(s *Settings) *[]string { return &s.Policy.AllowRecipients }, parseAddress("Solana address")), "allow_recipients"),
	list("allow-action-origin", "`ORIGIN` (https://host[:port]; http:// on loopback only) whose Solana Actions solana_action may fetch and propose (repeatable; none = every action refused)",
		tomlString, func(s *Settings) *[]string { return &s.Policy.AllowedActionOrigins }, parseActionOrigin),
	scalar("max-sol-per-tx", "largest single spend, in `SOL` (fee included)",
		tomlDecimal, func(s *Settings) *uint64 { return &s.Policy.MaxLamportsPerTx }, parseSOL, policy.FormatSOL),
	scalar("max-sol-per-session", "total spend while this console runs, in `SOL`",
		tomlDecimal, func(s *Settings) *uint64 { return &s.Policy.MaxLamportsPerSession }, parseSOL, policy.FormatSOL),
	scalar("max-sol-per-day", "rolling 24-hour cap in `SOL`, kept across restarts (0 = off)",
		tomlDecimal, func(s *Settings) *uint64 { return &s.Policy.MaxLamportsPerDay }, parseSOL, policy.FormatSOL),
	switchRow("allow-mainnet", "allow writes on mainnet-beta (real funds)", func(s *Settings) *bool { return &s.Policy.AllowMainnet }),
	switchRow("allow-unknown-network", "allow writes on a cluster solgate does not recognise, reached over a non-loopback RPC (handled like mainnet)",
		func(s *Settings) *bool { return &s.Policy.AllowUnknownNetwork }),
	switchRow("allow-uncapped-token-swaps", "allow swaps whose input is not SOL, which no SOL cap bounds",
		func(s *Settings) *bool { return &s.Policy.AllowUncappedTokenSwaps }),
	switchRow("allow-uncapped-token-transfers", "allow token transfers of a mint with no --max-token-per-* cap",
		func(s *Settings) *bool { return &s.Policy.AllowUncappedTokenTransfers }),
	list("max-token-per-tx", "largest single spend of a mint, `MINT=AMOUNT` (AMOUNT in base units, or with a decimal point in the mint's display units; repeatable)",
		tomlString, func(s *Settings) *[]policy.TokenCap { return &s.Policy.MaxTokenPerTx }, parseTokenCap),
	list("max-token-per-session", "total spend of a mint while this console runs, `MINT=AMOUNT` (repeatable)",
		tomlString, func(s *Settings) *[]policy.TokenCap { return &s.Policy.MaxTokenPerSession }, parseTokenCap),
	list("max-token-per-day", "rolling 24-hour spend of a mint, kept across restarts, `MINT=AMOUNT` (repeatable)",
		tomlString, func(s *Settings) *[]policy.TokenCap { return &s.Policy.MaxTokenPerDay }, parseTokenCap),
	scalar("max-slippage-bps", "largest slippage a swap may ask for, in basis points (`BPS`, 300 = 3%)",
		tomlInt, func(s *Settings) *uint32 { return &s.Policy.MaxSlippageBps }, parseBps, formatUint32),
	scalar("max-price-impact-pct", "largest price impact a swap may have, in `PERCENT` (0 = off)",
		tomlDecimal, func(s *Settings) *uint32 { return &s.Policy.MaxPriceImpactBps }, parsePercent, policy.FormatPercentBps),
	withOldTOML(list("allow-mint", "`MINT` swaps and token transfers may use (repeatable; none = any mint not denied)",
		tomlString, func(s *Settings) *[]string { return &s.Policy.AllowMints }, parseAddress("mint address")), "allow_mints"),
	list("allow-x402-origin", "`ORIGIN` x402_fetch may pay, e.g. https://api.example.com (repeatable; none = every x402 payment refused; plain http only on loopback)",
		tomlString, func(s *Settings) *[]string { return &s.Policy.AllowedX402Origins }, parseX402Origin),
	switchRow("x402-pin-pay-to", "hold every x402 payment's payTo to --allow-recipient: a payTo not on it is refused (off: payTo is shown, the origin allowlist and per-mint caps bound the payment)",
		func(s *Settings) *bool { return &s.Policy.X402PinPayTo }),
	withOldTOML(list("deny-mint", "`MINT` swaps and token transfers may never use (repeatable)",
		tomlString, func(s *Settings) *[]string { return &s.Policy.DenyMints }, parseAddress("mint address")), "deny_mints"),
	switchRow("require-agent-sections", "refuse writes from an admitted user that has no [[agent]] section in the --config file (its own caps and allowlists)",
		func(s *Settings) *bool { return &s.Policy.RequireAgentSections }),
	scalar("token-delivery", "who receives approval tokens (`agent|operator`): the agent through proposal_status, or only the operator, on this screen",
		tomlString, func(s *Settings) *string { return &s.Policy.TokenDelivery }, parseDelivery, plainText),

	// Transfers' priority fees.
	scalar("priority-fee-percentile", "bid this `PERCENTILE` (1 to 100) of the recent non-zero priority fees for the accounts a transfer writes",
		tomlInt, func(s *Settings) *int { return &s.Fees.Percentile }, parsePercentile, strconv.Itoa),
	scalar("priority-fee-source", "where the fee market's price comes from (`auto|standard|helius|triton`): auto uses Helius' getPriorityFeeEstimate when the RPC answers it, else the standard getRecentPrioritizationFees (the accounts' and the global market's, the larger); Triton's percentile option only when named (a node that ignores the option looks the same)",
		tomlString, func(s *Settings) *string { return &s.Fees.Source }, parseFeeSource, plainText),
	scalar("max-priority-fee-lamports", "cap on any transaction's priority fee (unit price × limit; swaps ask the swap API for a priority level held to it), in `LAMPORTS`; above it the cap is used and the preview says so",
		tomlInt, func(s *Settings) *uint64 { return &s.Fees.MaxLamports }, parseLamports, formatUint64),
	scalar("verify-timeout", "how long a confirmed transaction is looked for with getTransaction before its outcome is unknown (`DURATION`, e.g. 30s); an unknown outcome keeps its reservation and is reconciled later",
		tomlString, func(s *Settings) *time.Duration { return &s.VerifyWindow }, parsePositiveDuration, formatDuration),
	fixedFeeRow(scalar("priority-fee-lamports", "fixed priority fee per transfer in `LAMPORTS` instead of the fee market (0 = no priority fee)",
		tomlInt, func(s *Settings) *uint64 { return &s.Fees.FixedLamports }, parseLamports, formatUint64)),
}

// fixedFeeRow: any source that gives a fixed fee switches the fee market
// off, and with no source there is no fixed fee to show as a default.
func fixedFeeRow(r setting) setting {
	set := r.set
	r.set = func(s *Settings, texts []string) error {
		if err := set(s, texts); err != nil {
			return err
		}
		s.Fees.Fixed = true
		return nil
	}
	r.show = func(*Settings) string { return "" }
	return r
}

// tomlKind is the TOML type that spells a value; a value of another type is
// refused before any parser sees it, so `allow_mainnet = "yes"` is an error
// rather than a guess.
type tomlKind int

const (
	tomlString  tomlKind = iota // a quoted string
	tomlBool                    // true or false
	tomlInt                     // a whole number
	tomlDecimal                 // a number, or a quoted decimal for exactness
)

func scalar[T any](name, usage string, kind tomlKind, field func(*Settings) *T, parse func(string) (T, error), format func(T) string) setting {
	return setting{
		name: name, usage: usage, toml: kind,
		set: func(s *Settings, texts []string) error {
			v, err := parse(texts[0])
			if err != nil {
				return err
			}
			*field(s) = v
			return nil
		},
		show: func(s *Settings) string { return format(*field(s)) },
	}
}

func list[T any](name, usage string, kind tomlKind, field func(*Settings) *[]T, parse func(string) (T, error)) setting {
	return setting{
		name: name, usage: usage, toml: kind, list: true,
		set: func(s *Settings, texts []string) error {
			out := make([]T, 0, len(texts))
			for _, text := range texts {
				v, err := parse(text)
				if err != nil {
					return err
				}
				out = append(out, v)
			}
			*field(s) = out
			return nil
		},
		// Every list defaults to empty, which pflag shows as no default.
		show: func(*Settings) string { return "" },
	}
}

func switchRow(name, usage string, field func(*Settings) *bool) setting {
	r := scalar(name, usage, tomlBool, field, parseBool, strconv.FormatBool)
	r.bool = true
	return r
}

func withSecret(r setting) setting {
	r.secret = true
	r.show = func(*Settings) string { return "" }
	return r
}

func withNoTOML(r setting) setting { r.noTOML = true; return r }

func withOldTOML(r setting, keys ...string) setting { r.oldTOML = keys; return r }

func withOldEnv(r setting, vars ...string) setting { r.oldEnv = vars; return r }

func plainText(s string) string { return s }

func formatUint32(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

func formatUint64(n uint64) string { return strconv.FormatUint(n, 10) }

// Parsers. Each says what was wrong and what would be accepted; the caller
// adds which source the value came from.

func parsePath(what string) func(string) (string, error) {
	return func(s string) (string, error) {
		if strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("empty; accepted: %s", what)
		}
		return s, nil
	}
}

// parseFilePath is parsePath for a file or directory: a leading ~ is the
// home of the user the console runs as (from the user database), not the
// caller's $HOME, which sudo may pass on: a console started through sudo as
// another user must not read the caller's files.
func parseFilePath(what string) func(string) (string, error) {
	return func(s string) (string, error) {
		s, err := parsePath(what)(s)
		if err != nil {
			return "", err
		}
		if s != "~" && !strings.HasPrefix(s, "~/") {
			return s, nil
		}
		home, err := consoleUserHome()
		if err != nil {
			return "", fmt.Errorf("%q: cannot find the home of the console's user to expand ~ (%v); accepted: an absolute path", s, err)
		}
		return filepath.Join(home, strings.TrimPrefix(s, "~")), nil
	}
}

// consoleUserHome is the home directory of the effective user.
func consoleUserHome() (string, error) {
	u, err := user.LookupId(strconv.Itoa(os.Geteuid()))
	if err != nil {
		return "", err
	}
	if u.HomeDir == "" {
		return "", errors.New("no home directory in the user database")
	}
	return u.HomeDir, nil
}

// parseHTTPURL refuses anything but http(s)://host…. The URL itself is not
// repeated in the error: RPC and API URLs often carry an access key.
func parseHTTPURL(emptyMeansOff bool) func(string) (string, error) {
	return func(s string) (string, error) {
		if s == "" && emptyMeansOff {
			return "", nil
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", errors.New("not an http:// or https:// URL with a host; accepted: e.g. https://api.devnet.solana.com")
		}
		return s, nil
	}
}

// parseX402Origin reads an origin x402_fetch may pay: scheme and host
// (and port) only, https, or plain http to a loopback host; kept in the
// normalised form the kind compares against.
func parseX402Origin(s string) (string, error) {
	accepted := "accepted: an origin such as https://api.example.com (no path), or http://127.0.0.1:PORT for a local API"
	if err := x402.CheckURL(s); err != nil {
		return "", fmt.Errorf("%q: %v; %s", s, err, accepted)
	}
	if u, err := url.Parse(s); err != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", fmt.Errorf("%q has a path or query; %s", s, accepted)
	}
	return x402.Origin(s), nil
}

// parseSecret checks the API key's shape without ever quoting it.
func parseSecret(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty; accepted: the key as issued")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return "", errors.New("contains a space or control character (value not shown); accepted: the key as issued, printable, no spaces")
		}
	}
	return s, nil
}

func parseAddress(what string) func(string) (string, error) {
	return func(s string) (string, error) {
		if _, err := solana.PublicKeyFromBase58(s); err != nil {
			return "", fmt.Errorf("%q is not a %s (%v); accepted: a base58 public key of 32 bytes", s, what, err)
		}
		return s, nil
	}
}

// parseActionOrigin reads an origin in any spelling ("HTTPS://Example.com:443/")
// and keeps solgate's (policy.ParseOrigin). A path is refused rather than
// dropped: allowing https://host/api/tip would allow all of https://host.
func parseActionOrigin(s string) (string, error) {
	o, err := policy.ParseOrigin(s)
	if err != nil {
		return "", err
	}
	if u, _ := url.Parse(strings.TrimSpace(s)); u != nil && (strings.Trim(u.EscapedPath(), "/") != "" || u.RawQuery != "" || u.Fragment != "") {
		return "", fmt.Errorf("%q is a URL, not an origin: an origin is allowed whole, so give %s", s, o)
	}
	return o, nil
}

// parseID reads a uid or gid. 4294967295 is (uid_t)-1, which the kernel
// uses for "no id", never a real user.
func parseID(what string) func(string) (uint32, error) {
	return func(s string) (uint32, error) {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil || n == math.MaxUint32 {
			return 0, fmt.Errorf("%q is not a %s; accepted: a whole number from 0 to 4294967294", s, what)
		}
		return uint32(n), nil
	}
}

func parseBool(s string) (bool, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not accepted; want true or false", s)
}

func parseSOL(s string) (uint64, error) {
	l, err := policy.ParseSOL(s)
	if err != nil {
		return 0, fmt.Errorf("%v; accepted: a SOL amount such as 0.1", err)
	}
	return l, nil
}

func parseAllowedProgram(s string) (executor.AllowedProgram, error) {
	return executor.ParseAllowedProgram(s)
}

func parseTokenCap(s string) (policy.TokenCap, error) {
	c, err := policy.ParseTokenCap(s)
	if err != nil {
		return policy.TokenCap{}, fmt.Errorf("%v; accepted: MINT=AMOUNT, e.g. EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v=250000 (base units) or =0.25 (display units)", err)
	}
	return c, nil
}

func parsePercent(s string) (uint32, error) {
	bps, err := policy.ParsePercentBps(s)
	if err != nil {
		return 0, fmt.Errorf("%v; accepted: a percentage from 0 (off) to 100", err)
	}
	return bps, nil
}

func parseBps(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n > 10_000 {
		return 0, fmt.Errorf("%q is not accepted; want a whole number of basis points from 0 to 10000 (300 = 3%%)", s)
	}
	return uint32(n), nil
}

func parseSwapAPIVersion(s string) (int, error) {
	switch s {
	case "1":
		return executor.SwapAPIv1, nil
	case "2":
		return executor.SwapAPIv2, nil
	}
	return 0, fmt.Errorf("%q is not accepted; want 1 (/swap/v1/quote and /swap/v1/swap) or 2 (/swap/v2/build)", s)
}

func parsePercentile(s string) (int, error) {
	n, err := strconv.ParseUint(s, 10, 8)
	if err != nil || n < 1 || n > 100 {
		return 0, fmt.Errorf("%q is not accepted; want a whole percentile from 1 to 100", s)
	}
	return int(n), nil
}

func parseFeeSource(s string) (string, error) {
	switch s {
	case executor.FeeSourceAuto, executor.FeeSourceStandard, executor.FeeSourceHelius, executor.FeeSourceTriton:
		return s, nil
	}
	return "", fmt.Errorf("%q is not accepted; want auto, standard, helius or triton", s)
}

func parseLamports(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not accepted; want a whole number of lamports (1 SOL = 1000000000)", s)
	}
	return n, nil
}

func parseDelivery(s string) (string, error) {
	switch s {
	case policy.DeliveryAgent, policy.DeliveryOperator:
		return s, nil
	}
	return "", fmt.Errorf("%q is not a delivery mode; accepted: %q or %q", s, policy.DeliveryAgent, policy.DeliveryOperator)
}

// defaultStateDir follows the XDG base directory convention (a relative
// XDG_STATE_HOME is invalid by that spec and ignored).
func defaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "solgate")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".solgate-state"
	}
	return filepath.Join(home, ".local", "state", "solgate")
}

// parseCount reads a whole number of proposals, at least 1.
func parseCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1_000_000_000 {
		return 0, fmt.Errorf("%q is not accepted; want a whole number from 1 to 1000000000", s)
	}
	return n, nil
}

// parsePositiveDuration reads a Go duration greater than zero.
func parsePositiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not accepted; want a positive duration such as 2s or 500ms", s)
	}
	return d, nil
}

func formatDuration(d time.Duration) string { return d.String() }

// parseGrace bounds the approval grace period: under 100 ms it no longer
// stops a double tap, over a second (DESIGN.md's promise) the console feels
// broken.
func parseGrace(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 100*time.Millisecond || d > time.Second {
		return 0, fmt.Errorf("%q is not accepted; want a duration from 100ms to 1s, such as 800ms", s)
	}
	return d, nil
}
