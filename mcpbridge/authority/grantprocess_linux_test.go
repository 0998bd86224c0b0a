package authority_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// A grant covers one running process, judged on each call by the kernel's
// word for that call's sender. The granted process is covered (the
// control); a child it forks, writing on the granted process's own
// connection with its secret, is not; nor is another process handed a
// connection over SCM_RIGHTS; nor the program the process execs into (same
// pid, same start time, its own connection). The grant ends within a second
// of the process's exit, by the kernel's notice, not at the next call.
func TestAGrantCoversItsProcessAlone(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, nil)
	events, cancel := w.authority.Subscribe(256)
	defer cancel()

	// A client that sends no process secret cannot be granted anything:
	// a grant on it would follow its pid into whatever it execs.
	anon := dialRaw(t, w.socket)
	unnamed := anon.propose(t, "", w.allowed.String(), 1_000_011)
	if _, _, err := w.authority.ApproveWithGrant(unnamed, "operator", approval.GrantTerms{Count: 2, Ceiling: 100_000_000, For: time.Minute}); err == nil ||
		!strings.Contains(err.Error(), "cannot vouch for one agent process") {
		t.Fatalf("a grant on a call without a process secret: %v", err)
	}
	if p, _ := w.authority.Proposal(unnamed); p.Status != approval.StatusPending {
		t.Fatalf("the refused grant changed the proposal: %s", p.Status)
	}

	cmd := exec.Command(self, "-test.run=^TestHelperGrantee$", "-test.v")
	cmd.Env = helperEnv("SOLGATE_TEST_HELPER_SOCKET="+w.socket, "SOLGATE_TEST_HELPER_MODE=grantee:"+w.allowed.String())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	// next reads the helper's next "STEP id" line.
	next := func(step string) string {
		t.Helper()
		for lines.Scan() {
			if rest, ok := strings.CutPrefix(lines.Text(), step+" "); ok {
				return rest
			}
			t.Logf("grantee: %s", lines.Text())
		}
		t.Fatalf("the grantee ended before %s", step)
		return ""
	}
	decidedBy := func(id string) string {
		p, ok := w.authority.Proposal(id)
		if !ok {
			t.Fatalf("no proposal %q", id)
		}
		return p.DecidedBy
	}

	first := next("PROPOSED")
	if _, g, err := w.authority.ApproveWithGrant(first, "operator", approval.GrantTerms{Count: 20, Ceiling: 500_000_000, For: time.Minute}); err != nil {
		t.Fatalf("grant: %v", err)
	} else if g.Peer == "" {
		t.Fatalf("grant %+v names no process", g)
	}
	fmt.Fprintln(stdin, "granted")

	if id := next("SELF"); decidedBy(id) != "grant #1" {
		t.Fatalf("the granted process's own next call was not covered (decided by %q): the control fails", decidedBy(id))
	}
	if id := next("FORKED"); decidedBy(id) != "" {
		t.Errorf("a forked child writing on the granted process's connection, with its secret, was covered: decided by %q", decidedBy(id))
	}
	if id := next("SELF-AGAIN"); decidedBy(id) != "grant #1" {
		t.Fatalf("the granted process on a fresh connection after the fork was not covered (decided by %q)", decidedBy(id))
	}
	if id := next("HANDED"); decidedBy(id) != "" {
		t.Errorf("a process handed the granted process's connection over SCM_RIGHTS, with its secret, was covered: decided by %q", decidedBy(id))
	}
	if id := next("EXECED"); decidedBy(id) != "" {
		t.Errorf("the program the granted process exec'd into was covered: decided by %q", decidedBy(id))
	}
	if gs := w.authority.Grants(); len(gs) != 1 {
		t.Fatalf("the grant did not outlive the attempts while its process runs: %+v", gs)
	}

	// Exit: the grant ends by the kernel's notice within a second.
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the grantee: %v", err)
	}
	exited := time.Now()
	// The grant's end, as the hub holds it (its announcement follows the
	// audit row's commit, which a loaded disk may delay).
	testkit.Eventually(t, 30*time.Second, "the grant's end after its process exited", func() bool { return len(w.authority.Grants()) == 0 }, nil)
	if took := time.Since(exited); took > time.Second {
		t.Fatalf("the grant ended %s after its process exited, want within 1s", took)
	} else {
		t.Logf("the grant ended %s after its process exited", took)
	}
	waitGrantEvent(t, events, "ended: its agent process")
}

// TestHelperGrantee is the granted agent process of
// TestAGrantCoversItsProcessAlone, and, by mode, the processes that try
// to ride on its grant.
func TestHelperGrantee(t *testing.T) {
	// SOLGATE_TEST_HELPER_MODE is grantee:TO, forked, handed:TO:SECRET or
	// execed:TO.
	path := os.Getenv("SOLGATE_TEST_HELPER_SOCKET")
	mode, rest, _ := strings.Cut(os.Getenv("SOLGATE_TEST_HELPER_MODE"), ":")
	to, handedSecret, _ := strings.Cut(rest, ":")
	if path == "" || !slices.Contains([]string{"grantee", "forked", "handed", "execed"}, mode) {
		t.Skip("requires the helper-process environment: started by TestAGrantCoversItsProcessAlone")
	}
	switch mode {
	case "forked":
		// The granted process's child: it writes the call read from stdin
		// on the granted process's connection (fd 3), and exits.
		req, err := io.ReadAll(os.Stdin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.NewFile(3, "the granted connection").Write(req); err != nil {
			t.Fatal(err)
		}
		return
	case "handed":
		granteeHanded(t, to, handedSecret)
		return
	case "execed":
		// A new program in the same process: its own secret, its own
		// connection. It stays until the test lets it exit.
		c := dialRaw(t, path)
		fmt.Printf("EXECED %s\n", c.propose(t, newSecret(), to, 1_000_005))
		io.Copy(io.Discard, os.Stdin)
		return
	}
	secret := newSecret()
	c := dialRaw(t, path)
	fmt.Printf("PROPOSED %s\n", c.propose(t, secret, to, 1_000_010))
	in := bufio.NewScanner(os.Stdin)
	in.Scan() // the test granted it

	fmt.Printf("SELF %s\n", c.propose(t, secret, to, 1_000_009))

	// A child started now writes the next call on this connection (its
	// fd 3), with this process's secret (given on its stdin, as a fork's
	// copy of this memory would hold it); the answer comes back on the
	// same connection and is read here. The kernel stamps each message
	// with its writer's pid (SCM_CREDENTIALS), so to the console a child
	// that exec'd after its fork is the same sender as a bare fork: a
	// process other than the granted one.
	self, _ := os.Executable()
	conn, err := c.c.File() // a dup of the connection
	if err != nil {
		t.Fatal(err)
	}
	forked := exec.Command(self, "-test.run=^TestHelperGrantee$", "-test.v")
	forked.Env = helperEnv("SOLGATE_TEST_HELPER_MODE=forked")
	forked.Stdin = bytes.NewReader(callBytes(t, secret, to, 1_000_008))
	forked.ExtraFiles = []*os.File{conn}
	if out, err := forked.CombinedOutput(); err != nil {
		t.Fatalf("the forked child: %v\n%s", err, out)
	}
	conn.Close()
	fmt.Printf("FORKED %s\n", c.read(t))

	c2 := dialRaw(t, path)
	fmt.Printf("SELF-AGAIN %s\n", c2.propose(t, secret, to, 1_000_007))

	// Another process, handed a connection this process opened, with the
	// secret, over SCM_RIGHTS.
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	handed := exec.Command(self, "-test.run=^TestHelperGrantee$", "-test.v")
	handed.Env = helperEnv("SOLGATE_TEST_HELPER_MODE=handed:" + to + ":" + secret)
	handed.ExtraFiles = []*os.File{os.NewFile(uintptr(pair[1]), "pair")}
	out, _ := handed.StdoutPipe()
	if err := handed.Start(); err != nil {
		t.Fatal(err)
	}
	c3 := dialRaw(t, path)
	if err := syscall.Sendmsg(pair[0], []byte{0}, syscall.UnixRights(c3.fd(t)), nil, 0); err != nil {
		t.Fatal(err)
	}
	for sc := bufio.NewScanner(out); sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "HANDED ") {
			fmt.Println(sc.Text())
		}
	}
	if err := handed.Wait(); err != nil {
		t.Fatal(err)
	}

	// execve: the same pid and start time, a new program.
	os.Stdout.Sync()
	t.Fatal(syscall.Exec(self, []string{self, "-test.run=^TestHelperGrantee$", "-test.v"}, helperEnv("SOLGATE_TEST_HELPER_MODE=execed:"+to)))
}

// granteeHanded receives a connection over SCM_RIGHTS (on fd 3) and
// proposes on it with the granted process's secret.
func granteeHanded(t *testing.T, to, secret string) {
	buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := syscall.Recvmsg(3, buf, oob, 0)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		t.Fatalf("control messages %v %v", msgs, err)
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		t.Fatalf("rights %v %v", fds, err)
	}
	conn, err := net.FileConn(os.NewFile(uintptr(fds[0]), "handed"))
	if err != nil {
		t.Fatal(err)
	}
	c := &rawConn{c: conn.(*net.UnixConn), br: bufio.NewReader(conn)}
	fmt.Printf("HANDED %s\n", c.propose(t, secret, to, 1_000_006))
}

// helperEnv is this process's environment with the given variables set in
// place (execve's environment keeps the first of two equal names).
func helperEnv(set ...string) []string {
	env := os.Environ()
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, kv)
	}
	return env
}

func newSecret() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// rawConn is one connection to the console, written to by hand, so the
// test decides which connection (and which process) carries each call.
type rawConn struct {
	c  *net.UnixConn
	br *bufio.Reader
}

func dialRaw(t *testing.T, path string) *rawConn {
	t.Helper()
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	return &rawConn{c: c, br: bufio.NewReader(c)}
}

// fd is the connection's descriptor, for SCM_RIGHTS.
func (c *rawConn) fd(t *testing.T) int {
	t.Helper()
	f, err := c.c.File() // a dup, kept open for the life of the helper
	if err != nil {
		t.Fatal(err)
	}
	return int(f.Fd())
}

func callBytes(t *testing.T, secret, to string, lamports int) []byte {
	t.Helper()
	body, err := json.Marshal(wire.CallRequest{Client: wire.ClientInfo{Name: "grantee", Version: "1"}, Tool: "transfer_sol",
		Arguments: json.RawMessage(fmt.Sprintf(`{"to":%q,"lamports":%d}`, to, lamports)), Process: secret})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: solgate\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", wire.CallPath, len(body))
	b.Write(body)
	return b.Bytes()
}

// propose writes a transfer_sol call and returns the proposal id answered.
func (c *rawConn) propose(t *testing.T, secret, to string, lamports int) string {
	t.Helper()
	if _, err := c.c.Write(callBytes(t, secret, to, lamports)); err != nil {
		t.Fatal(err)
	}
	return c.read(t)
}

// read reads one answer and returns its proposal id.
func (c *rawConn) read(t *testing.T) string {
	t.Helper()
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res wire.CallResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatal(err)
	}
	if res.Status() != "pending_approval" {
		t.Fatalf("answer: %+v", res)
	}
	return res.Str("proposal_id")
}
