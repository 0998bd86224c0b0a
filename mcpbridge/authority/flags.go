package authority

import (
	"fmt"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy"
)

// flagsLocked lists warnings for the operator about a proposed recipient and
// spend.
func (h *Hub) flagsLocked(to string, spend uint64) []approval.Flag {
	var flags []approval.Flag
	for _, w := range h.lookAlikeLocked(to) {
		flags = append(flags, approval.Flag{Kind: approval.FlagLookAlike, Text: w})
	}
	cfg := h.opts.Policy
	if cfg.MaxLamportsPerTx > 0 && atLeastFourFifths(spend, cfg.MaxLamportsPerTx) {
		flags = append(flags, approval.Flag{Kind: approval.FlagNearTxCap, Text: "near the per-transfer cap"})
	}
	s := h.opts.Spend.State()
	if used := writekind.SumOrMax(s.SessionSpent, s.SessionReserved, spend); cfg.MaxLamportsPerSession > 0 && atLeastFourFifths(used, cfg.MaxLamportsPerSession) {
		flags = append(flags, approval.Flag{Kind: approval.FlagNearSessionCap, Text: "near the session cap"})
	}
	return flags
}

// lookAlike is lookAlikeLocked for callers that do not hold h.mu.
func (h *Hub) lookAlike(to string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lookAlikeLocked(to)
}

// lookAlikeLocked warns when to resembles, without being, an address the
// console knows (its wallet, the allowlist, earlier recipients). Address
// poisoning works by sending dust from an address that shares the first and
// last characters of one the victim uses, hoping it gets copied later.
func (h *Hub) lookAlikeLocked(to string) []string {
	known := map[string]struct{}{h.opts.Executor.Wallet().String(): {}}
	for _, a := range h.opts.Policy.AllowRecipients {
		known[a] = struct{}{}
	}
	for a := range h.recipients {
		known[a] = struct{}{}
	}
	var flags []string
	for k := range known {
		if policy.LooksLike(k, to) {
			flags = append(flags, fmt.Sprintf("recipient %s looks like known address %s (possible address poisoning)", to, k))
		}
	}
	return flags
}

// atLeastFourFifths reports used >= 80% of limit without multiplying either
// (used*10 wraps near 2^64).
func atLeastFourFifths(used, limit uint64) bool {
	return used >= limit-limit/5
}
