package authority

// SetBeforeDecisionWrite lets tests hold a decision's store write open, to
// see what the rest of the hub can do meanwhile.
func SetBeforeDecisionWrite(h *Hub, fn func(proposalID string)) { h.beforeDecisionWrite = fn }
