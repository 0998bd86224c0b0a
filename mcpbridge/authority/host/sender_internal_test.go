package host

import (
	"fmt"
	"strings"
	"testing"
)

// A process's identity holds its bridge's secret only as a digest: two
// calls with the same secret are one process, another secret is another,
// and the identity printed whole (as a grant is, in a test's failure or a
// debugging line) does not carry the secret.
func TestProcessIDKeepsNoSecretInTheClear(t *testing.T) {
	pc := &PeerConn{cred: PeerCred{UID: 1500, PID: 4242, Start: 99}}
	pc.senders.note(sender{uid: 1500, pid: 4242}, true)
	const secret = "5f1c0ffee5ec2e7d00d1e5ba5eba11ad"
	a, b, other := ProcessOf(pc, secret), ProcessOf(pc, secret), ProcessOf(pc, "another-secret")
	if !a.Valid() || a != b || a == other {
		t.Fatalf("identities: %v (valid %v) and %v should be equal, and differ from %v", a, a.Valid(), b, other)
	}
	for _, verb := range []string{"%v", "%+v", "%#v"} {
		if s := fmt.Sprintf(verb, struct{ proc ProcessID }{a}); strings.Contains(s, secret) {
			t.Errorf("%s of a process identity carries its secret: %s", verb, s)
		}
	}
	if none := ProcessOf(pc, ""); none.Valid() {
		t.Errorf("a call without a secret is vouched for as one process: %v", none)
	}
}
