package approval

import (
	"fmt"
	"time"

	"github.com/solgate/solgate/executor"
)

// Grant defaults, as the console's form offers them.
const (
	DefaultGrantCount = 9
	DefaultGrantFor   = 10 * time.Minute
	// MaxGrantCount and MaxGrantFor bound what a form may ask for: a grant
	// is a short run the human watches, not a standing order.
	MaxGrantCount = 100
	MaxGrantFor   = time.Hour
)

// GrantTerms are what the operator grants on top of one approval.
type GrantTerms struct {
	Count   int           // further calls covered
	Ceiling uint64        // lamports all covered calls may spend together, fees included
	For     time.Duration // how long the grant lives
}

// Grant is one standing grant, as the console lists it.
type Grant struct {
	N            int    // "grant #N"
	Peer         string // the agent process, as the kernel knows it (caller id)
	Client       string // the agent's self-given name: display only, never matched
	Tool         string
	Counterparty string
	MaxAmount    uint64 // per call, in the tool's units (lamports, base units)
	Amount       string // MaxAmount as the queue shows it ("0.05 SOL")
	Count, Used  int    // Used: calls that landed, and calls approved whose outcome is still open
	Ceiling      uint64 // lamports of measured spend, fees included
	Spent        uint64 // what landed calls spent, and what open ones may
	CreatedAt    time.Time
	ExpiresAt    time.Time
	From         string // the proposal whose approval made it
}

// Left is how many more calls the grant covers.
func (g Grant) Left() int { return g.Count - g.Used }

// Describe is one line for logs and the console: "grant #1 send_sol 0.05 SOL to 9Mu…: 3/9 calls, 0.15/0.45 SOL".
func (g Grant) Describe() string {
	return fmt.Sprintf("grant #%d %s %s to %s: %d/%d calls, %s/%s SOL", g.N, g.Tool, g.Amount, g.Counterparty,
		g.Used, g.Count, executor.FormatSOL(g.Spent), executor.FormatSOL(g.Ceiling))
}

// SpendSummary is the caps and the live spend, as shown to the agent and the operator.
type SpendSummary struct {
	Network                             executor.Network
	PerTx, PerSession, PerDay           uint64
	Spent, Reserved, Remaining          uint64
	DaySpent, DayReserved, DayRemaining uint64
	Paused                              bool
	// Tokens are the per-mint figures (base units) of every mint that has
	// a cap or was spent, sorted by mint.
	Tokens []TokenSpend
	// Agents are the budgets of the agents with an [[agent]] section, in
	// the config file's order, for the console (never sent to an agent).
	Agents []AgentSpend
}

// AgentSpend is one agent's own budget: its section's caps and its spend.
type AgentSpend struct {
	UID   uint32
	Label string
	SpendSummary
}

// TokenSpend is one mint's caps (as the operator wrote them; "" unset) and
// its spend in base units.
type TokenSpend struct {
	Mint                      string
	PerTx, PerSession, PerDay string
	Spent, Reserved           uint64
	DaySpent, DayReserved     uint64
}
