package executor

import "testing"

// A message is claimed once; another message, or the same one after its
// claim has aged past any blockhash's life, is new.
func TestMessageClaimedOnce(t *testing.T) {
	var c messageClaims
	if !c.claim([]byte("message one")) || c.claim([]byte("message one")) {
		t.Fatal("the same message was claimed twice, or not at all")
	}
	if !c.claim([]byte("message two")) {
		t.Fatal("another message was refused")
	}
	for k := range c.m {
		c.m[k] = c.m[k].Add(-claimedMessageAge)
	}
	if !c.claim([]byte("message one")) {
		t.Fatal("a claim older than any blockhash still holds")
	}
}
