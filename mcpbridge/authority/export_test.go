package authority

import "github.com/solgate/solgate/mcpbridge/authority/host"

// SetBeforeDecisionWrite lets tests hold a decision's store write open, to
// see what the rest of the hub can do meanwhile.
func SetBeforeDecisionWrite(h *Hub, fn func(proposalID string)) { h.beforeDecisionWrite = fn }

// SetAfterConsume lets tests act between a confirmed call's taking its
// token and its marking the proposal executing.
func SetAfterConsume(h *Hub, fn func(proposalID string)) { h.afterConsume.Store(&fn) }

func SetBeforeGrantMade(h *Hub, fn func(proposalID string)) {
	if fn == nil {
		h.beforeGrantMade.Store(nil)
		return
	}
	h.beforeGrantMade.Store(&fn)
}

// MostConnsOfOnePeer is the largest number of connections one peer holds
// open on l: tests wait for it instead of guessing when the console has
// accepted or seen the close of a connection.
func MostConnsOfOnePeer(l *host.SocketListener) int { return l.MostConnsOfOnePeer() }

// FollowRounds is how many times the followers of unknown outcomes have
// asked the chain: a test that checks what a follower does not do waits
// for it to have looked, rather than for time to pass.
func FollowRounds(h *Hub) uint64 { return h.followRounds.Load() }
