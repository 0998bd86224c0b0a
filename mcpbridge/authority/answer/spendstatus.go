package answer

import (
	"fmt"
	"strings"
	"time"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// SpendState is what get_spend_status reports, as the core read it for
// one caller.
type SpendState struct {
	// Own is the caller's budget: its agent section's, when Agent is set,
	// else the console's.
	Own   approval.SpendSummary
	Agent *policy.Agent
	// Total is the console's, shown to an agent only as the room it leaves,
	// so no agent learns another's spend.
	Total                       approval.SpendSummary
	AllowUncappedTokenTransfers bool
	// Grants are the caller's own live grants.
	Grants []approval.Grant
	// Safety is who can reach the key and the console (structured, and as
	// report lines), so an honest agent can tell its user when the setup
	// does not keep it out; Warnings are the console's persistent warnings.
	Safety   map[string]any
	Report   []string
	Warnings []string
}

// SpendStatus answers get_spend_status.
func SpendStatus(s SpendState) wire.CallResult {
	v := s.Own
	structured := map[string]any{
		"network":              string(v.Network),
		"max_lamports_per_tx":  fmt.Sprint(v.PerTx),
		"max_lamports_session": fmt.Sprint(v.PerSession),
		"spent_lamports":       fmt.Sprint(v.Spent),
		"reserved_lamports":    fmt.Sprint(v.Reserved),
		"remaining_lamports":   fmt.Sprint(v.Remaining),
		"paused":               v.Paused,
	}
	if v.PerDay > 0 {
		structured["max_lamports_per_day"] = fmt.Sprint(v.PerDay)
		structured["day_remaining_lamports"] = fmt.Sprint(v.DayRemaining)
	}
	tokens := make([]map[string]any, 0, len(v.Tokens))
	for _, t := range v.Tokens {
		tokens = append(tokens, map[string]any{
			"mint": t.Mint, "max_per_tx": t.PerTx, "max_per_session": t.PerSession, "max_per_day": t.PerDay,
			"spent": fmt.Sprint(t.Spent), "reserved": fmt.Sprint(t.Reserved),
			"day_spent": fmt.Sprint(t.DaySpent), "day_reserved": fmt.Sprint(t.DayReserved),
		})
	}
	structured["tokens"] = tokens
	text := Caps(v)
	if agent := s.Agent; agent != nil {
		structured["agent"] = map[string]any{"uid": agent.UID, "label": agent.Label}
		structured["total_remaining_lamports"] = fmt.Sprint(s.Total.Remaining)
		text = "Your budget, " + agent.Name() + ": " + text + "\nAll agents together have " + executor.FormatSOL(s.Total.Remaining) + " SOL of the console's session cap left."
		if s.Total.PerDay > 0 {
			structured["total_day_remaining_lamports"] = fmt.Sprint(s.Total.DayRemaining)
		}
	}
	structured["allow_uncapped_token_transfers"] = s.AllowUncappedTokenTransfers
	grants := grantsStructured(s.Grants)
	structured["grants"] = grants
	text += "\n" + grantsText(grants)
	if s.Safety != nil {
		structured["safety"] = s.Safety
		text += "\nSafety of this setup:\n  " + strings.Join(s.Report, "\n  ")
	} else {
		structured["safety"] = map[string]any{"warnings": append([]string{}, s.Warnings...)}
	}
	for _, w := range s.Warnings {
		text += "\nWARNING: " + w
	}
	return wire.CallResult{Text: text, Structured: structured}
}

// grantsStructured lists an agent process's live grants for the model.
func grantsStructured(gs []approval.Grant) []map[string]any {
	out := make([]map[string]any, 0, len(gs))
	for _, g := range gs {
		out = append(out, map[string]any{
			"grant": g.N, "tool": g.Tool, "counterparty": g.Counterparty, "max_amount": fmt.Sprint(g.MaxAmount),
			"calls_used": g.Used, "calls_granted": g.Count, "spent_lamports": fmt.Sprint(g.Spent),
			"ceiling_lamports": fmt.Sprint(g.Ceiling), "expires_at": g.ExpiresAt.UTC().Format(time.RFC3339),
		})
	}
	return out
}

// grantsText is get_spend_status's paragraph on the agent's grants.
func grantsText(gs []map[string]any) string {
	if len(gs) == 0 {
		return "Standing grants: none for you; every write waits for the human."
	}
	s := "Standing grants for you (a covered proposal is approved at once; every cap still applies):"
	for _, g := range gs {
		s += fmt.Sprintf("\n  grant #%v: %v to %v, each at most %v, %v/%v calls used, %v/%v lamports spent, until %v",
			g["grant"], g["tool"], g["counterparty"], g["max_amount"], g["calls_used"], g["calls_granted"],
			g["spent_lamports"], g["ceiling_lamports"], g["expires_at"])
	}
	return s
}
