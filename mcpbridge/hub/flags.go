package hub

import "fmt"

// flagsLocked lists warnings for the operator about a proposed recipient and
// spend.
func (h *Hub) flagsLocked(to string, spend uint64) []string {
	flags := h.lookAlikeLocked(to)
	cfg := h.opts.Policy
	if cfg.MaxLamportsPerTx > 0 && spend*10 >= cfg.MaxLamportsPerTx*8 {
		flags = append(flags, "near the per-transfer cap")
	}
	s := h.opts.Spend.State()
	if used := s.SessionSpent + s.SessionReserved + spend; cfg.MaxLamportsPerSession > 0 && used*10 >= cfg.MaxLamportsPerSession*8 {
		flags = append(flags, "near the session cap")
	}
	return flags
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
		if k != to && lookAlike(k, to) {
			flags = append(flags, fmt.Sprintf("recipient %s looks like known address %s (possible address poisoning)", to, k))
		}
	}
	return flags
}

// lookAlike: same first four and last four characters.
func lookAlike(a, b string) bool {
	const n = 4
	if len(a) < 2*n || len(b) < 2*n {
		return false
	}
	return a[:n] == b[:n] && a[len(a)-n:] == b[len(b)-n:]
}
