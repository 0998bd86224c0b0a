package authority_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/mcpbridge/wire"
)

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	raw, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(to, 0o755); err != nil {
		t.Fatal(err)
	}
}

// Issue 19's flood, on real processes of real uids: thirty agent processes
// of one user (a fork gets no fresh allowance) proposing four each, and
// holding long-polls open on what they got queued, leave at most twenty
// pending; a bridge of another user is answered within a second while they
// do; and the audit trail grows by one row per user and minute, not one per
// denial.
func TestFloodOfOneUserLeavesAnotherServed(t *testing.T) {
	helper := helperForOtherUsers(t)
	const flooder, honest = 64102, 64103
	const procs, each = 30, 4
	w := newWorldListen(t, nil, host.ListenConfig{Admission: host.Admission{UIDs: []uint32{flooder, honest}}})
	// The world's socket lives in a root-only temporary directory: let the
	// two users through to the socket's own directory, which Listen guards.
	if err := os.Chmod(filepath.Dir(filepath.Dir(w.socket)), 0o711); err != nil {
		t.Fatal(err)
	}
	auditBefore := auditRows(t, w)

	start := func(uid uint32, mode string) (*exec.Cmd, *bufio.Scanner) {
		cmd := exec.Command(helper, "-test.run=^TestHelperFloodAsOtherUser$", "-test.v")
		cmd.Env = append(os.Environ(), "SOLGATE_TEST_HELPER_SOCKET="+w.socket, "SOLGATE_TEST_HELPER_MODE="+mode)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = cmd.Stdout
		stdin, _ := cmd.StdinPipe() // the flooders hold on until it closes
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
		return cmd, bufio.NewScanner(out)
	}
	// Each flooder says "proposed" once its four calls were answered, then
	// holds its queued proposals' long-polls open.
	answered := make(chan string, procs)
	for i := 0; i < procs; i++ {
		_, out := start(flooder, fmt.Sprintf("flood:%s:%d", w.allowed, 1_000_000+i*10))
		go func() {
			for out.Scan() {
				if line := out.Text(); strings.HasPrefix(line, "HELPER: proposed") {
					answered <- line
				}
			}
		}()
	}
	var pendingAnswers, deniedAnswers, refusedAnswers int
	for i := 0; i < procs; i++ {
		select {
		case line := <-answered:
			var p, d, r int
			if n, _ := fmt.Sscanf(line, "HELPER: proposed pending=%d denied=%d refused=%d", &p, &d, &r); n != 3 || p+d+r != each {
				t.Fatalf("flooder: %q", line)
			}
			pendingAnswers, deniedAnswers, refusedAnswers = pendingAnswers+p, deniedAnswers+d, refusedAnswers+r
		case <-time.After(60 * time.Second):
			t.Fatalf("only %d of %d flooders were answered", i, procs)
		}
	}
	pending := 0
	for _, p := range w.authority.Proposals() {
		if p.Status == approval.StatusPending {
			pending++
		}
	}
	t.Logf("%d processes × %d proposals of uid %d: %d pending in the hub; answers: %d pending, %d denied, %d connections refused (429)",
		procs, each, flooder, pending, pendingAnswers, deniedAnswers, refusedAnswers)
	if pending > authority.DefaultMaxPendingPerUID || pendingAnswers > authority.DefaultMaxPendingPerUID || pending == 0 {
		t.Fatalf("%d pending (%d answered pending), want at most %d and some", pending, pendingAnswers, authority.DefaultMaxPendingPerUID)
	}

	// The flooders still hold their long-polls: another user's real bridge
	// (solgate mcp, started as that uid) is answered within a second, each
	// time.
	bin := filepath.Join(filepath.Dir(helper), "solgate")
	copyExecutable(t, solgateBinary(t), bin)
	c, _ := testkit.StartMCPClient(t, "honest", []string{"HOME=" + filepath.Dir(helper)}, "setpriv",
		fmt.Sprintf("--reuid=%d", honest), fmt.Sprintf("--regid=%d", honest), "--clear-groups", bin, "mcp", "--socket", w.socket)
	a := &testkit.Agent{C: c}
	var worst time.Duration
	for i := 0; i < 3; i++ {
		began := time.Now()
		ans, err := a.Try("transfer_sol", map[string]any{"to": w.allowed.String(), "lamports": 7_000_000 + i}, 10*time.Second)
		took := time.Since(began)
		if err != nil || ans.Status() != "pending_approval" {
			t.Fatalf("the honest user's proposal %d after %s: %+v %v", i, took, ans, err)
		}
		worst = max(worst, took)
	}
	t.Logf("uid %d's bridge during the flood: 3 proposals, slowest answered in %s", honest, worst)
	if worst >= time.Second {
		t.Fatalf("the honest user's bridge took %s, want under 1s", worst)
	}

	// The audit: the flood's ~100 denials are one row per user and minute
	// (written when the minute ends, or when the hub closes), beside the
	// proposals that were queued.
	w.stop()
	after := auditRows(t, w)
	kinds := map[string]int{}
	denied := 0
	for _, e := range after[len(auditBefore):] {
		kinds[e.Kind]++
		if e.Kind == "flood_denied" {
			var body struct {
				Peer   string `json:"peer"`
				Denied int    `json:"denied"`
			}
			json.Unmarshal([]byte(e.Body), &body)
			if body.Peer != fmt.Sprintf("uid %d", flooder) {
				t.Errorf("flood row for %q, want uid %d", body.Peer, flooder)
			}
			denied += body.Denied
		}
	}
	t.Logf("audit rows added: %v; flood denials tallied: %d", kinds, denied)
	if kinds["flood_denied"] < 1 || kinds["flood_denied"] > 2 || denied != deniedAnswers {
		t.Fatalf("flood rows %d tallying %d denials; want 1 or 2 rows (the minutes the flood spanned) tallying the %d denials the flooders got", kinds["flood_denied"], denied, deniedAnswers)
	}
	if len(after)-len(auditBefore) > 2*authority.DefaultMaxPendingPerUID+3*2+2 {
		t.Fatalf("the audit grew by %d rows for %d proposals: %v", len(after)-len(auditBefore), procs*each, kinds)
	}
}

// TestHelperFloodAsOtherUser is one flooding process of
// TestFloodOfOneUserLeavesAnotherServed, started as another uid.
func TestHelperFloodAsOtherUser(t *testing.T) {
	path, mode := os.Getenv("SOLGATE_TEST_HELPER_SOCKET"), os.Getenv("SOLGATE_TEST_HELPER_MODE")
	kind, rest, _ := strings.Cut(mode, ":")
	if path == "" || kind != "flood" {
		t.Skip("requires the helper-process environment: started as another uid by TestFloodOfOneUserLeavesAnotherServed, which requires root")
	}
	to, base, _ := strings.Cut(rest, ":")
	var lamports int
	fmt.Sscan(base, &lamports)
	client := mcpbridge.NewUnixHTTPClient(path, time.Minute)
	call := func(name, tool, args string) (wire.CallResult, error) {
		return mcpbridge.PostCall(context.Background(), client, wire.CallRequest{
			Client: wire.ClientInfo{Name: name, Version: "1.0"}, Tool: tool, Arguments: json.RawMessage(args)})
	}
	answers := make(chan wire.CallResult, 4)
	for i := 0; i < 4; i++ {
		go func() {
			res, err := call(fmt.Sprintf("flood-%d", os.Getpid()), "transfer_sol", fmt.Sprintf(`{"to":%q,"lamports":%d}`, to, lamports+i))
			if err != nil {
				res = wire.CallResult{IsError: true, Text: err.Error()}
			}
			answers <- res
		}()
	}
	var queued []string
	denied, refused := 0, 0
	for i := 0; i < 4; i++ {
		res := <-answers
		switch res.Status() {
		case "pending_approval":
			queued = append(queued, res.Str("proposal_id"))
		case "denied":
			denied++
		default: // the connection itself was refused (429): too many of this user's
			refused++
		}
	}
	fmt.Printf("HELPER: proposed pending=%d denied=%d refused=%d\n", len(queued), denied, refused)
	// Hold long-polls on what was queued, as a waiting agent does, until
	// the test closes stdin.
	for _, id := range queued {
		go func() {
			for {
				call("flood", "proposal_status", fmt.Sprintf(`{"proposal_id":%q,"wait_seconds":30}`, id))
			}
		}()
	}
	io.Copy(io.Discard, os.Stdin)
}

func auditRows(t *testing.T, w *world) []storeAuditEntry {
	t.Helper()
	entries, err := w.store.Audit()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]storeAuditEntry, len(entries))
	for i, e := range entries {
		out[i] = storeAuditEntry{Kind: e.Kind, Body: string(e.Body)}
	}
	return out
}

type storeAuditEntry struct{ Kind, Body string }

// helperForOtherUsers copies this test binary where other uids can run it.
// Skips unless root.
func helperForOtherUsers(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("requires root to start processes as other uids")
	}
	dir := testkit.SocketDir(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(dir, "helper.test")
	copyExecutable(t, self, helper)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return helper
}
