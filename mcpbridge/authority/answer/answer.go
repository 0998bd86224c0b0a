// Package answer writes what the model reads of its write calls: the
// proposal and its preview, the caps, a denial, a refusal, the status of a
// proposal and the outcome of its execution. Every text is built from the
// proposal as the core holds it, never from the model's own words. No
// answer contains a token except proposal_status's under token delivery
// "agent".
package answer

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/mcpbridge/wire"
	"github.com/solgate/solgate/policy"
)

// Refused answers a confirmed call whose token did not hold. Like a
// denial it is an ordinary result (status "refused"), so that the model
// reads the reason as an answer, not as a failure of the tool; the call as
// made can never succeed, and the answer says so.
func Refused(reason string) wire.CallResult {
	return wire.CallResult{
		Text:       "REFUSED — nothing was signed or sent. " + reason,
		Structured: map[string]any{"status": "refused", "reason": reason},
	}
}

// Denial answers a call the policy refused: an ordinary result the model
// reads, saying whether retrying could ever succeed.
func Denial(d policy.Decision) wire.CallResult {
	retry := "Retrying with the same arguments will not succeed in this session."
	if d.Retryable {
		retry = "This may succeed later, once the condition above changes."
	}
	return wire.CallResult{
		Text: fmt.Sprintf("DENIED by policy (rule %s) — nothing was signed or sent.\n%s\n%s", d.Rule, d.Reason, retry),
		Structured: map[string]any{
			"status": "denied", "rule": d.Rule, "reason": d.Reason, "retryable": d.Retryable,
		},
	}
}

// UnknownProposal answers an id this console does not know, or that
// belongs to another user (who must not learn that it exists).
func UnknownProposal(id string) wire.CallResult {
	return wire.CallResult{
		Text:       fmt.Sprintf("Proposal %s is unknown to this console (it may have been made before a restart). Propose again.", id),
		Structured: map[string]any{"status": "unknown", "proposal_id": id},
	}
}

func networkLine(n executor.Network) string {
	switch {
	case n.IsMainnet():
		return "🔴 MAINNET — real funds"
	case n.Guarded():
		return "🔴 UNKNOWN NETWORK — an unrecognised cluster, treated as real funds"
	}
	return n.Label() + " (test network; no real funds)"
}

// Caps is the caps and the spend so far, written without fmt, as every
// proposal's answer writes it (TestCapsTextAsFmt holds it to the fmt
// spelling).
func Caps(v approval.SpendSummary) string {
	s := "Caps: per transfer " + executor.FormatSOL(v.PerTx) + " SOL · session " + executor.FormatSOL(v.Spent+v.Reserved) +
		" of " + executor.FormatSOL(v.PerSession) + " SOL used (" + executor.FormatSOL(v.Reserved) + " SOL reserved, " +
		executor.FormatSOL(v.Remaining) + " SOL remaining)"
	if v.PerDay > 0 {
		s += " · 24 h " + executor.FormatSOL(v.DaySpent+v.DayReserved) + " of " + executor.FormatSOL(v.PerDay) + " SOL used"
	}
	for _, t := range v.Tokens {
		s += "\n" + TokenSpendLine(t)
	}
	if v.Paused {
		s += " · WRITES PAUSED by the operator"
	}
	return s
}

// TokenSpendLine is one mint's caps and spend, in base units, for the
// model and the console's spend panel.
func TokenSpendLine(t approval.TokenSpend) string {
	caps := func(label, c string) string {
		if c == "" {
			return ""
		}
		return " · " + label + " " + c
	}
	s := fmt.Sprintf("Token %s: %d spent, %d reserved this session (base units)", t.Mint, t.Spent, t.Reserved)
	s += caps("cap per tx", t.PerTx) + caps("per session", t.PerSession) + caps("per 24 h", t.PerDay)
	if t.PerTx == "" && t.PerSession == "" && t.PerDay == "" {
		s += " · no cap"
	}
	return s
}

// Preview is the proposal as the human and the audit trail see it.
// Preview and Pending write without fmt, as every proposal's
// answer does (TestProposalTextsAsFmt holds them to the fmt spelling).
func Preview(p *writekind.Proposal, n executor.Network) string {
	var b strings.Builder
	b.Grow(1024)
	writePreview(&b, p, n)
	return b.String()
}

func writePreview(b *strings.Builder, p *writekind.Proposal, n executor.Network) {
	for _, l := range p.Kind.PreviewLines(p) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, l := range writekind.ReceivesLines(p.Preview.Effects) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if eff := p.Preview.Effects; !eff.Wallet.IsZero() {
		// The one measure of value, per asset, from the exact bytes.
		b.WriteString("Effects (simulated, the measure the caps use): ")
		b.WriteString(eff.Summary())
		b.WriteByte('\n')
	}
	for _, ins := range p.Preview.Instructions {
		b.WriteString("Instruction: ")
		b.WriteString(ins.Name)
		b.WriteString(": ")
		b.WriteString(ins.Summary)
		b.WriteByte('\n')
	}
	b.WriteString("Network: ")
	b.WriteString(networkLine(n))
	if p.Preview.MessageSHA256 != "" {
		b.WriteString("\nMessage sha256: ")
		b.WriteString(p.Preview.MessageSHA256)
	}
	for _, f := range p.Flags {
		b.WriteString("\nWarning: ")
		b.WriteString(f.Text)
	}
}

// Pending answers a proposal waiting for the human: its preview (text, as
// recorded, when the proposal has one), the caps, and what to do next.
func Pending(p *writekind.Proposal, text string, v approval.SpendSummary, n executor.Network, repeated bool) wire.CallResult {
	var b strings.Builder
	b.Grow(2048)
	b.WriteString("CONFIRMATION REQUIRED — nothing has been signed or sent.\n")
	if repeated {
		b.WriteString("(This is the proposal already waiting for these exact arguments.)\n")
	}
	b.WriteString("Proposal: ")
	b.WriteString(p.ID)
	b.WriteString(" (from ")
	b.WriteString(p.Client)
	b.WriteString(")\n")
	if text != "" {
		b.WriteString(text)
	} else {
		writePreview(&b, p, n)
	}
	b.WriteByte('\n')
	b.WriteString(Caps(v))
	expires := p.ExpiresAt.UTC().Format(time.RFC3339)
	b.WriteString("\nNext: a human must approve this in the solgate console before ")
	b.WriteString(expires)
	b.WriteString(". Call proposal_status with proposal_id ")
	b.WriteString(strconv.Quote(p.ID))
	b.WriteString(" and wait_seconds up to 45 to learn the decision. Once approved, call ")
	b.WriteString(p.Tool)
	b.WriteString(" again with exactly the same arguments plus confirm set to the token proposal_status returns (if it returns none, ask the human for the token shown in their console).")
	st := map[string]any{
		"status": "pending_approval", "proposal_id": p.ID, "expires_at": expires,
		"spend_lamports": strconv.FormatUint(p.Spend, 10), "network": string(n), "flags": FlagTexts(p.Flags),
	}
	if eff := p.Preview.Effects; !eff.Wallet.IsZero() {
		st["effects"] = effectsStructured(eff)
	}
	p.Kind.Structured(p, st)
	return wire.CallResult{Text: b.String(), Structured: st}
}

// effectsStructured is the effects engine's measure for the model: integer
// strings in lamports and base units, mints by address.
func effectsStructured(e executor.Effects) map[string]any {
	mints := func(m map[solana.PublicKey]uint64) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			if v > 0 {
				out[executor.KeyString(k)] = strconv.FormatUint(v, 10)
			}
		}
		return out
	}
	changes := make([]string, 0, len(e.Changes))
	for _, c := range e.Changes {
		changes = append(changes, c.String())
	}
	return map[string]any{
		"sol_out_lamports": strconv.FormatUint(e.SOLOut(), 10), "sol_in_lamports": strconv.FormatUint(e.SOLIn(), 10),
		"network_fee_lamports": strconv.FormatUint(e.NetworkFee, 10), "priority_fee_lamports": strconv.FormatUint(e.PriorityFee, 10),
		"rent_paid_lamports": strconv.FormatUint(e.RentPaid, 10), "rent_refunded_lamports": strconv.FormatUint(e.RentRefunded, 10),
		"tokens_out": mints(e.TokensOut), "tokens_in": mints(e.TokensIn),
		"accounts_created": len(e.Created), "accounts_closed": len(e.Closed),
		"changes_of_control": changes, "durable_nonce": e.DurableNonce,
	}
}

// Status answers proposal_status: the token only when deliverToken.
func Status(p *writekind.Proposal, deliverToken bool) wire.CallResult {
	st := map[string]any{"proposal_id": p.ID, "status": string(p.Status)}
	var text string
	switch p.Status {
	case approval.StatusPending:
		st["expires_at"] = p.ExpiresAt.UTC().Format(time.RFC3339)
		text = fmt.Sprintf("Proposal %s is still waiting for the human (expires %s). Call proposal_status again to keep waiting.", p.ID, p.ExpiresAt.UTC().Format(time.RFC3339))
		if p.GrantMiss != "" {
			// Only set when this agent process holds grants (see coveringLocked).
			st["grant_not_applied"] = p.GrantMiss
			text += " Your standing grant did not apply: " + p.GrantMiss + "."
		}
	case approval.StatusApproved:
		st["expires_at"] = p.TokenExpires.UTC().Format(time.RFC3339)
		if deliverToken {
			st["confirm"] = p.Token
			text = fmt.Sprintf("Proposal %s was APPROVED. Call %s again with exactly the same arguments plus confirm=%q before %s. The token works once, only for these arguments.",
				p.ID, p.Tool, p.Token, p.TokenExpires.UTC().Format(time.RFC3339))
		} else {
			text = fmt.Sprintf("Proposal %s was APPROVED. The confirmation token is shown only in the operator's console: ask the human for it, then call %s again with exactly the same arguments plus confirm=<token> before %s.",
				p.ID, p.Tool, p.TokenExpires.UTC().Format(time.RFC3339))
		}
	case approval.StatusDenied, approval.StatusExpired:
		st["reason"] = p.Reason
		text = fmt.Sprintf("Proposal %s was %s: %s. Nothing was signed or sent.", p.ID, strings.ToUpper(string(p.Status)), p.Reason)
	default:
		return Execution(p)
	}
	return wire.CallResult{Text: text, Structured: st}
}

// Execution reports an execution; "executed" only after the chain
// confirmed it and the re-fetch agreed.
func Execution(p *writekind.Proposal) wire.CallResult {
	st := map[string]any{"proposal_id": p.ID, "status": string(p.Status)}
	if p.Signature != "" {
		st["signature"] = p.Signature
	}
	switch p.Status {
	case approval.StatusExecuted:
		r := p.Result
		st["slot"], st["fee_lamports"], st["verified"] = r.Slot, fmt.Sprint(r.Fee), true
		return wire.CallResult{Structured: st, Text: p.Kind.Executed(p, st)}
	case approval.StatusLosses:
		st["reason"] = p.Reason
		if r := p.Result; r != nil {
			st["slot"], st["fee_lamports"], st["verified"] = r.Slot, fmt.Sprint(r.Fee), false
		}
		return wire.CallResult{Structured: st, Text: fmt.Sprintf(
			"EXECUTED WITH UNEXPECTED EFFECTS — the transaction landed (signature %s), but its effects, measured from the landed transaction itself, differ from the approved ones: %s. Do not retry; tell the operator.", p.Signature, p.Reason)}
	case approval.StatusExecuting, approval.StatusSubmitted:
		if p.Reason != "" {
			st["reason"] = p.Reason
		}
		msg := fmt.Sprintf("SUBMITTED, not yet confirmed — do not assume success. Proposal %s is still being followed on chain", p.ID)
		if p.Signature != "" {
			msg += " (signature " + p.Signature + ")"
		}
		return wire.CallResult{Structured: st, Text: msg + ". Call proposal_status with wait_seconds to learn the outcome."}
	default:
		st["reason"] = p.Reason
		if p.Result != nil {
			st["outcome"] = string(p.Result.Outcome)
			if p.Result.ChainErr != nil {
				st["chain_err"] = p.Result.ChainErr
			}
		}
		return wire.CallResult{Structured: st, Text: fmt.Sprintf("FAILED — not executed: %s", p.Reason)}
	}
}

// FlagTexts lists the flags' sentences, as the model reads them.
func FlagTexts(flags []approval.Flag) []string {
	out := make([]string, 0, len(flags))
	for _, f := range flags {
		out = append(out, f.Text)
	}
	return out
}
