package authority_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// Two admitted agent users, each a real process of its own uid: a proposal
// belongs to the user that made it. The second user's identical call is a
// proposal of its own, not the first's id; once the operator approved the
// first's, the second user asking for it by id hears exactly what an
// unknown id gets (no token), and the first's token presented by the second
// is refused as unknown and moves nothing. The console names both users by
// the kernel's word, though both bridges call themselves the same.
func TestAProposalBelongsToTheUserThatMadeIt(t *testing.T) {
	t.Parallel()
	const first, second = 64201, 64202
	w, helper := worldForUsers(t, first, second)
	args := fmt.Sprintf(`{"to":%q,"lamports":4200000}`, w.allowed)

	mine := callAs(t, helper, w.socket, first, "transfer_sol", args)
	idA := mine.Str("proposal_id")
	if mine.Status() != "pending_approval" || idA == "" {
		t.Fatalf("the first user's proposal: %+v", mine)
	}
	theirs := callAs(t, helper, w.socket, second, "transfer_sol", args)
	idB := theirs.Str("proposal_id")
	if theirs.Status() != "pending_approval" || idB == "" || idB == idA {
		t.Fatalf("the second user's identical call: %+v; it must be a proposal of its own, not %s", theirs, idA)
	}
	// The same user repeating itself still gets its own pending proposal.
	if again := callAs(t, helper, w.socket, first, "transfer_sol", args); again.Str("proposal_id") != idA {
		t.Fatalf("the first user repeating itself: %+v, want %s", again, idA)
	}

	// The queue names each by the kernel's uid, beside the same
	// self-described name.
	for id, uid := range map[string]int{idA: first, idB: second} {
		p, ok := w.authority.Proposal(id)
		// "uid N" for a uid without an account (as these are), "name (uid N)" otherwise.
		if !ok || (p.User != fmt.Sprintf("uid %d", uid) && !strings.HasSuffix(p.User, fmt.Sprintf("(uid %d)", uid))) || p.Client != "same-name 1.0" {
			t.Fatalf("proposal %s shows user %q, client %q; want uid %d beside the name", id, p.User, p.Client, uid)
		}
	}

	approved, err := w.authority.Approve(idA, "operator")
	if err != nil {
		t.Fatal(err)
	}
	status := fmt.Sprintf(`{"proposal_id":%q}`, idA)
	// The control: its owner collects the token this way.
	if own := callAs(t, helper, w.socket, first, "proposal_status", status); own.Status() != "approved" || own.Str("confirm") != approved.Token {
		t.Fatalf("the owner's proposal_status after approval: %+v", own)
	}
	stolen := callAs(t, helper, w.socket, second, "proposal_status", status)
	nobody := callAs(t, helper, w.socket, second, "proposal_status", `{"proposal_id":"p_neverMade1"}`)
	if stolen.Str("confirm") != "" || stolen.Status() != "unknown" || stolen.Text != unknownAnswer(idA) {
		t.Fatalf("the other user's proposal_status on %s: %+v; want exactly an unknown id's answer, like %+v", idA, stolen, nobody)
	}

	// A leaked token does not work for the other user either, and says
	// no more than a token nobody issued.
	withToken := fmt.Sprintf(`{"to":%q,"lamports":4200000,"confirm":%q}`, w.allowed, approved.Token)
	used := callAs(t, helper, w.socket, second, "transfer_sol", withToken)
	made := fmt.Sprintf(`{"to":%q,"lamports":4200000,"confirm":"111111111111"}`, w.allowed)
	unknown := callAs(t, helper, w.socket, second, "transfer_sol", made)
	if used.Status() == "executed" || used.Text != unknown.Text || used.IsError != unknown.IsError {
		t.Fatalf("the other user presenting the first's token: %+v; want what an unknown token gets: %+v", used, unknown)
	}
	if got := w.balance(t, w.allowed); got != 0 {
		t.Fatalf("the recipient holds %d lamports after the other user's attempt", got)
	}
}

// The retry breaker counts per user: five denials, each from a new process
// of one uid (as forks would be), pause that user, a sixth process of it
// included; another user is not paused.
func TestBreakerCountsPerUser(t *testing.T) {
	t.Parallel()
	const wall, other = 64211, 64212
	w, helper := worldForUsers(t, wall, other)
	events, cancel := w.authority.Subscribe(256)
	defer cancel()
	var last wire.CallResult
	for i := range 5 { // policy.DefaultBreakerDenials, each a process of its own
		last = callAs(t, helper, w.socket, wall, "transfer_sol", fmt.Sprintf(`{"to":%q,"lamports":%d}`, w.stranger, 1_000_000+i))
		if last.Status() != "denied" {
			t.Fatalf("denial %d: %+v", i, last)
		}
	}
	if last.Structured["retryable"] != false || !strings.Contains(last.Str("reason"), "paused") {
		t.Fatalf("five denials from five processes of one user did not trip the breaker: %+v", last)
	}
	// The console's log names the user by the kernel's word first.
	for denied := false; !denied; {
		select {
		case ev := <-events:
			denied = ev.Kind == approval.EventAutoDenied && strings.HasPrefix(ev.Message, fmt.Sprintf("uid %d · same-name 1.0 → ", wall))
		case <-time.After(30 * time.Second):
			t.Fatalf("no AUTO-DENIED line naming uid %d before the client's name", wall)
		}
	}
	ok := fmt.Sprintf(`{"to":%q,"lamports":2000000}`, w.allowed)
	if res := callAs(t, helper, w.socket, wall, "transfer_sol", ok); res.Status() != "denied" || res.Str("rule") != "retry_breaker" {
		t.Fatalf("a new process of the paused user: %+v", res)
	}
	if res := callAs(t, helper, w.socket, other, "transfer_sol", ok); res.Status() != "pending_approval" {
		t.Fatalf("another user after the first was paused: %+v", res)
	}
}

// A connection belongs to the user that opened it: another uid writing a
// call on it (a descriptor inherited or handed over) is refused, since
// admission judged only the user that connected.
func TestAConnectionWrittenByAnotherUserIsRefused(t *testing.T) {
	const stranger = 64221 // admitted by nothing
	w, helper := worldForUsers(t)
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: w.socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(helper, "-test.run=^TestHelperOneCall$", "-test.v")
	cmd.Env = append(os.Environ(), "SOLGATE_TEST_HELPER_SOCKET=fd:3", "SOLGATE_TEST_HELPER_MODE=call:get_spend_status:{}")
	cmd.ExtraFiles = []*os.File{f}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: stranger, Gid: stranger, Groups: []uint32{}}}
	out, _ := cmd.CombinedOutput()
	want := fmt.Sprintf("this connection was opened by uid %d but written to by uid %d", os.Geteuid(), stranger)
	if !strings.Contains(string(out), want) {
		t.Fatalf("uid %d writing on a connection root opened: want %q in the answer:\n%s", stranger, want, out)
	}
}

// worldForUsers is a world that admits uids, with this test binary where
// they can run it (root only: it starts processes as other uids).
func worldForUsers(t *testing.T, uids ...uint32) (*world, string) {
	t.Helper()
	return worldForUsersWith(t, nil, uids...)
}

// worldForUsersWith is worldForUsers with the hub's options tweaked.
func worldForUsersWith(t *testing.T, tweak func(*authority.Options), uids ...uint32) (*world, string) {
	t.Helper()
	helper := helperForOtherUsers(t)
	w := newWorldListen(t, tweak, host.ListenConfig{Admission: host.Admission{UIDs: uids}})
	// The world's socket lives in a root-only temporary directory: let
	// the users through to the socket's own directory, which Listen guards.
	if err := os.Chmod(filepath.Dir(filepath.Dir(w.socket)), 0o711); err != nil {
		t.Fatal(err)
	}
	return w, helper
}

// callAs makes one call from a new process running as uid (the
// TestHelperOneCall helper), and returns its answer.
func callAs(t *testing.T, helper, socket string, uid uint32, tool, args string) wire.CallResult {
	t.Helper()
	cmd := exec.Command(helper, "-test.run=^TestHelperOneCall$", "-test.v")
	cmd.Env = append(os.Environ(), "SOLGATE_TEST_HELPER_SOCKET="+socket, "SOLGATE_TEST_HELPER_MODE=call:"+tool+":"+args)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}}
	out, _ := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if raw, ok := strings.CutPrefix(line, "HELPER: "); ok {
			var res wire.CallResult
			if err := json.Unmarshal([]byte(raw), &res); err != nil {
				t.Fatalf("helper answer %q: %v", raw, err)
			}
			return res
		}
	}
	t.Fatalf("the helper as uid %d gave no answer:\n%s", uid, out)
	return wire.CallResult{}
}

// TestHelperOneCall is one agent process of another uid for the tests
// above: one call, its answer printed as JSON.
func TestHelperOneCall(t *testing.T) {
	path := os.Getenv("SOLGATE_TEST_HELPER_SOCKET")
	kind, call, _ := strings.Cut(os.Getenv("SOLGATE_TEST_HELPER_MODE"), ":")
	tool, args, _ := strings.Cut(call, ":")
	if path == "" || kind != "call" {
		t.Skip("requires the helper-process environment: started as another uid by the tests of ownership_test.go, which require root")
	}
	client := mcpbridge.NewUnixHTTPClient(path, time.Minute)
	if path == "fd:3" { // a connection someone else opened, inherited
		conn, err := net.FileConn(os.NewFile(3, "inherited"))
		if err != nil {
			t.Fatal(err)
		}
		client = &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) { return conn, nil }}}
	}
	res, err := mcpbridge.PostCall(context.Background(), client, wire.CallRequest{
		Client: wire.ClientInfo{Name: "same-name", Version: "1.0"}, Tool: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		res = wire.CallResult{IsError: true, Text: "transport: " + err.Error()}
	}
	raw, _ := json.Marshal(res)
	fmt.Printf("HELPER: %s\n", raw)
}
