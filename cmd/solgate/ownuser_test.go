package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// The supported deployment of issue 11, on real processes with real uids:
// the console runs as uid A (its own account, owning the key and the state),
// the agent's bridge as uid B. Spare uids with no account are enough:
// setpriv switches to them, and the kernel checks nothing else.
const (
	uidConsole = 64101 // A
	uidAgent   = 64102 // B, admitted with --allow-uid
	uidOther   = 64103 // C, never admitted
)

// ownUserWorld is a ledger (run as root: it is test scaffolding), a copy of
// solgate every uid can run, and A's home with A's funded key.
type ownUserWorld struct {
	ledger    *localnet.Ledger
	chain     *rpc.Client
	root      string // 0755: every uid can reach what is inside
	bin       string
	home      string // A's, 0700
	keyFile   string
	recipient solana.PublicKey
	server    string // our own tmux server (-L)
}

func requireRootAndTools(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("requires root: the test runs the console and the bridges as other uids through setpriv")
	}
	for _, tool := range []string{"setpriv", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("requires %s on PATH (.ci/run installs it): %v", tool, err)
		}
	}
}

func startOwnUserWorld(t *testing.T) *ownUserWorld {
	t.Helper()
	requireRootAndTools(t)
	root := testkit.SocketDir(t)
	must(t, os.Chmod(root, 0o755))
	w := &ownUserWorld{root: root, bin: filepath.Join(root, "solgate"), home: filepath.Join(root, "a")}
	copyExecutable(t, solgateBinary(t), w.bin)
	must(t, os.Mkdir(w.home, 0o700))
	must(t, os.Chown(w.home, uidConsole, uidConsole))
	// The bridges reach the socket through a directory A owns.
	run := filepath.Join(root, "run")
	must(t, os.Mkdir(run, 0o755))
	must(t, os.Chown(run, uidConsole, uidConsole))

	w.ledger, w.chain = testkit.StartLedger(t, localnet.Options{})
	key := testkit.FundedWallet(t, w.ledger, 10*solana.LAMPORTS_PER_SOL)
	w.recipient = testkit.NewWallet(t).Pub
	w.keyFile = filepath.Join(w.home, "id.json")
	testkit.WriteKeyfile(t, key.Key, w.keyFile)
	must(t, os.Chown(w.keyFile, uidConsole, uidConsole))

	w.server = fmt.Sprintf("sgown-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", w.server, "kill-server").Run() })
	// An anchor window keeps the server up for the whole test: without it,
	// a console that exits closes the last window and the server with it,
	// racing the next console's new-window ("server exited unexpectedly").
	if out, err := exec.Command("tmux", "-L", w.server, "new-session", "-d", "-s", "own", "-n", "anchor", "-x", "140", "-y", "40", "sleep 86400").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	return w
}

func (w *ownUserWorld) socket(name string) string {
	return filepath.Join(w.root, "run", name, "console.sock")
}

// ownConsole is one console in a tmux window of the world's server.
type ownConsole struct {
	w      *ownUserWorld
	window string
	socket string
	errLog string
}

// startConsoleAs runs `solgate console` as uid in a new tmux window and waits
// for its screen.
func (w *ownUserWorld) startConsoleAs(t *testing.T, uid int, name string, flags ...string) *ownConsole {
	t.Helper()
	c := &ownConsole{w: w, window: name, socket: w.socket(name), errLog: filepath.Join(w.root, name+".stderr")}
	args := append([]string{"setpriv", fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", uid), "--clear-groups",
		"env", "HOME=" + w.home, "NO_COLOR=1",
		w.bin, "console", "--rpc", w.ledger.RPC(), "--keypair", w.keyFile, "--socket", c.socket,
		"--state", filepath.Join(w.home, "state-"+name), "--allow-recipient", w.recipient.String()}, flags...)
	command := "exec " + shellJoin(args) + " 2>" + shellQuote(c.errLog)
	tmuxArgs := []string{"-L", w.server, "new-window", "-d", "-t", "own:", "-n", name, command}
	if out, err := exec.Command("tmux", tmuxArgs...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	c.waitFor(t, 30*time.Second, "SOLGATE", "QUEUE")
	return c
}

func (c *ownConsole) pane() testkit.Pane {
	return testkit.Pane{Server: c.w.server, Target: "own:" + c.window, ErrLog: c.errLog}
}

func (c *ownConsole) screen() string { return c.pane().Screen() }

func (c *ownConsole) waitFor(t *testing.T, d time.Duration, wants ...string) string {
	t.Helper()
	return c.pane().WaitFor(t, d, wants...)
}

func (c *ownConsole) keys(t *testing.T, keys ...string) {
	t.Helper()
	c.pane().Keys(t, keys...)
}

func (c *ownConsole) pid(t *testing.T) int {
	t.Helper()
	return c.pane().PID(t)
}

// bridgeAs starts `solgate mcp --socket socket` as uid, initialised as an MCP
// client named name, the way Claude Code would start it for that user.
func (w *ownUserWorld) bridgeAs(t *testing.T, uid int, socket, name string) *mcpclient.Client {
	t.Helper()
	c, _ := testkit.StartMCPClient(t, name, []string{"HOME=" + w.root}, "setpriv",
		fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", uid), "--clear-groups", w.bin, "mcp", "--socket", socket)
	return c
}

func callTool(t *testing.T, c *mcpclient.Client, tool string, args map[string]any) wire.CallResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	return mcpbridge.ResultFromMCP(res)
}

// Console as A, agent as B admitted with --allow-uid: propose, approve with a
// key press in the console's terminal, execute, and the ledger shows the
// transfer. No same-user warning appears, since B is not A. A user nobody
// admitted (C) is told who it runs as and the flag; a bridge of A itself
// raises the same-user warning on the console's screen.
func TestOwnUserConsoleAdmitsOnlyNamedAgents(t *testing.T) {
	w := startOwnUserWorld(t)
	// The socket's directory prepared by the operator, as README's steps do;
	// the console adds an ACL admitting B.
	prepared := filepath.Dir(w.socket("main"))
	must(t, os.Mkdir(prepared, 0o700))
	must(t, os.Chown(prepared, uidConsole, uidConsole))
	// --check, as the operator would run it first: who owns what, who may connect.
	out, _ := exec.Command("setpriv", fmt.Sprintf("--reuid=%d", uidConsole), fmt.Sprintf("--regid=%d", uidConsole), "--clear-groups",
		w.bin, "console", "--check", "--keypair", w.keyFile, "--state", filepath.Join(w.home, "state-main"),
		"--socket", w.socket("main"), "--allow-uid", strconv.Itoa(uidAgent), "--rpc", w.ledger.RPC()).CombinedOutput()
	for _, want := range []string{
		"rpc " + w.ledger.RPC() + ": localnet/unknown (genesis " + w.ledger.GenesisHash() + ")",
		fmt.Sprintf("console runs as uid %d", uidConsole),
		fmt.Sprintf("key %s: owner uid %d, mode 0600", w.keyFile, uidConsole),
		"state dir " + filepath.Join(w.home, "state-main") + ": does not exist yet: the console creates it with mode 0700",
		fmt.Sprintf("bridges admitted: the console's own user (uid %d), uid %d", uidConsole, uidAgent),
		"process memory: not dumpable",
		"ok: the console would start",
	} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("--check lacks %q:\n%s", want, out)
		}
	}
	con := w.startConsoleAs(t, uidConsole, "main", "--allow-uid", strconv.Itoa(uidAgent))
	if fi, err := os.Stat(prepared); err != nil || fi.Mode().Perm() != 0o710 {
		t.Fatalf("socket directory: %v %v, want mode 0710 (an ACL's mask)", fi.Mode(), err)
	}

	agent := w.bridgeAs(t, uidAgent, con.socket, "agent-b")
	const amount = 40_000_000
	args := map[string]any{"to": w.recipient.String(), "lamports": amount}
	res := callTool(t, agent, "transfer_sol", args)
	id := res.Str("proposal_id")
	if res.Status() != "pending_approval" || id == "" {
		t.Fatalf("propose as uid %d: %+v", uidAgent, res)
	}
	con.waitFor(t, 30*time.Second, id, "agent-b 1.0")
	con.pane().WaitApprovable(t, 20*time.Second, id)
	con.keys(t, "a")
	res = callTool(t, agent, "proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	if res.Status() != "approved" || res.Str("confirm") == "" {
		t.Fatalf("after a: %+v\nscreen:\n%s", res, con.screen())
	}
	args["confirm"] = res.Str("confirm")
	if res = callTool(t, agent, "transfer_sol", args); res.Status() != "executed" {
		t.Fatalf("execute: %+v", res)
	}
	bal, err := w.chain.GetBalance(context.Background(), w.recipient, rpc.CommitmentConfirmed)
	if err != nil || bal.Value != amount {
		t.Fatalf("recipient holds %v (%v), want %d lamports", bal, err, amount)
	}
	screen := con.waitFor(t, 30*time.Second, "verified")
	if strings.Contains(screen, "agent runs as your user") {
		t.Fatalf("same-user warning for an agent of another uid:\n%s", screen)
	}

	// C is not admitted: every tool call gets one sentence naming C and the flag.
	other := w.bridgeAs(t, uidOther, con.socket, "agent-c")
	for _, tool := range []string{"get_balance", "transfer_sol"} {
		res := callTool(t, other, tool, map[string]any{"to": w.recipient.String(), "lamports": 1000})
		want := fmt.Sprintf("solgate mcp runs as uid %d, which the approval console at %s does not admit: its operator can start it with --allow-uid %d", uidOther, con.socket, uidOther)
		if !res.IsError || !strings.Contains(res.Text, want) {
			t.Fatalf("%s as a user nobody admitted: %+v\nwant %q", tool, res, want)
		}
	}

	// A bridge of A, the console's own user: the warning is on screen and stays.
	self := w.bridgeAs(t, uidConsole, con.socket, "agent-a")
	status := callTool(t, self, "get_spend_status", nil)
	if res := status; res.IsError {
		t.Fatalf("get_spend_status as the console's user: %+v", res)
	} else if !strings.Contains(res.Text, "WARNING: agent runs as your user") {
		t.Fatalf("get_spend_status does not carry the warning:\n%s", res.Text)
	}
	// The safety report describes the running console: the state directory
	// it created at start-up, not the situation before it.
	if want := fmt.Sprintf("state dir %s: owner uid %d, mode 0700", filepath.Join(w.home, "state-main"), uidConsole); !strings.Contains(status.Text, want) {
		t.Fatalf("get_spend_status lacks %q:\n%s", want, status.Text)
	}
	con.waitFor(t, 30*time.Second, "⚠ agent runs as your user: it can use the key without you")
	self.Close()
	// Once the console has seen the bridge go, the warning is still there.
	con.waitFor(t, 30*time.Second, "agent agent-a 1.0 disconnected", "⚠ agent runs as your user: it can use the key without you")
}

// Without --allow-uid the socket directory is 0700 and B never reaches it:
// the filesystem refuses, and the bridge still says who it is and the flag.
func TestOwnUserConsoleWithoutAdmissionRefusesClearly(t *testing.T) {
	w := startOwnUserWorld(t)
	con := w.startConsoleAs(t, uidConsole, "closed")
	agent := w.bridgeAs(t, uidAgent, con.socket, "agent-b")
	res := callTool(t, agent, "transfer_sol", map[string]any{"to": w.recipient.String(), "lamports": 1000})
	want := fmt.Sprintf("solgate mcp runs as uid %d, which the approval console at %s does not admit: its operator can start it with --allow-uid %d", uidAgent, con.socket, uidAgent)
	if !res.IsError || !strings.Contains(res.Text, want) {
		t.Fatalf("a bridge nobody admitted: %+v\nwant %q", res, want)
	}
	if strings.Contains(con.screen(), "agent-b") {
		t.Fatalf("the refused agent reached the console:\n%s", con.screen())
	}
}

// The console's terminal and its tmux server belong to root here (tmux runs
// as root); admitting root as an agent means the agent could type into it.
// The console refuses (TestConsoleRefusesATerminalTheAgentOwns); overridden,
// the header says so from the start.
func TestOwnUserConsoleWarnsWhenAnAgentOwnsItsTerminal(t *testing.T) {
	w := startOwnUserWorld(t)
	con := w.startConsoleAs(t, uidConsole, "typed", "--allow-uid", "0", "--allow-shared-terminal")
	con.waitFor(t, 30*time.Second, "⚠ --allow-shared-terminal: an admitted agent can read and type", "the agent can type into this console")
}

// PR_SET_DUMPABLE 0: another process of the console's own uid cannot read
// its memory, while it can read a process of that uid that did not opt out
// (the control, which shows the reader works on this machine).
func TestConsoleMemoryUnreadableBySameUser(t *testing.T) {
	w := startOwnUserWorld(t)
	con := w.startConsoleAs(t, uidConsole, "mem")
	reader := filepath.Join(w.root, "reader.test")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyExecutable(t, self, reader)

	control := exec.Command("setpriv", fmt.Sprintf("--reuid=%d", uidConsole), fmt.Sprintf("--regid=%d", uidConsole), "--clear-groups", "sleep", "60")
	must(t, control.Start())
	t.Cleanup(func() { control.Process.Kill(); control.Wait() })
	testkit.Eventually(t, 30*time.Second, "setpriv exec'ing sleep", func() bool {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", control.Process.Pid))
		return strings.TrimSpace(string(comm)) == "sleep"
	}, nil)

	read := func(pid int) string {
		cmd := exec.Command("setpriv", fmt.Sprintf("--reuid=%d", uidConsole), fmt.Sprintf("--regid=%d", uidConsole), "--clear-groups",
			reader, "-test.run=^TestHelperReadProcMem$", "-test.v")
		cmd.Env = append(os.Environ(), "SOLGATE_TEST_MEM_PID="+strconv.Itoa(pid))
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := read(control.Process.Pid); !strings.Contains(out, "MEM: read") {
		t.Fatalf("the reader cannot read even a dumpable process of the same uid here, so this machine cannot show the difference:\n%s", out)
	}
	out := read(con.pid(t))
	if !strings.Contains(out, "MEM: denied") {
		t.Fatalf("a process of the console's uid read its memory:\n%s", out)
	}
	t.Logf("reader against the console: %s", strings.TrimSpace(lastLine(out, "MEM:")))
}

// TestHelperReadProcMem is the reader process of
// TestConsoleMemoryUnreadableBySameUser: it reads 16 bytes of the first
// readable mapping of another process through /proc/<pid>/mem.
func TestHelperReadProcMem(t *testing.T) {
	pidText := os.Getenv("SOLGATE_TEST_MEM_PID")
	if pidText == "" {
		t.Skip("requires the helper-process environment: started as another uid by TestConsoleMemoryUnreadableBySameUser, which requires root")
	}
	verdict := func() string {
		maps, err := os.Open("/proc/" + pidText + "/maps")
		if err != nil {
			return "denied: " + err.Error()
		}
		defer maps.Close()
		var start uint64
		sc := bufio.NewScanner(maps)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) > 1 && strings.HasPrefix(f[1], "r") {
				start, _ = strconv.ParseUint(strings.SplitN(f[0], "-", 2)[0], 16, 64)
				break
			}
		}
		if start == 0 {
			return "denied: no readable mapping listed"
		}
		mem, err := os.Open("/proc/" + pidText + "/mem")
		if err != nil {
			return "denied: " + err.Error()
		}
		defer mem.Close()
		buf := make([]byte, 16)
		n, err := mem.ReadAt(buf, int64(start))
		if err != nil && err != io.EOF {
			return "denied: " + err.Error()
		}
		return fmt.Sprintf("read %d bytes at %#x", n, start)
	}()
	fmt.Printf("MEM: %s\n", verdict)
}

// A key or a state directory others can read stops the console before it
// starts, naming the file and the fix.
func TestConsoleRefusesSharedKeyOrState(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "id.json")
	testkit.WriteKeyfile(t, testkit.NewWallet(t).Key, keyFile)
	state := filepath.Join(dir, "state")
	must(t, os.Mkdir(state, 0o700))

	must(t, os.Chmod(keyFile, 0o644))
	r := runSolgate(t, "console", "--keypair", keyFile, "--state", state, "--rpc", "http://127.0.0.1:9")
	if r.exit == 0 || !strings.Contains(r.stderr, keyFile+" is readable by other users (mode 0644)") || !strings.Contains(r.stderr, "chmod 600 "+keyFile) {
		t.Fatalf("world-readable key: exit %d\n%s", r.exit, r.stderr)
	}
	must(t, os.Chmod(keyFile, 0o600))
	must(t, os.Chmod(state, 0o750))
	r = runSolgate(t, "console", "--keypair", keyFile, "--state", state, "--rpc", "http://127.0.0.1:9")
	if r.exit == 0 || !strings.Contains(r.stderr, "state dir "+state+" has mode 0750") || !strings.Contains(r.stderr, "chmod 700 "+state) {
		t.Fatalf("group-readable state dir: exit %d\n%s", r.exit, r.stderr)
	}
	// --check reports the same before anything starts.
	r = runSolgate(t, "console", "--check", "--keypair", keyFile, "--state", state)
	if r.exit == 0 || !strings.Contains(r.stdout, "REFUSED: state dir "+state+" has mode 0750") || !strings.Contains(r.stdout, "key "+keyFile+": owner") {
		t.Fatalf("--check on a shared state dir: exit %d\n%s\n%s", r.exit, r.stdout, r.stderr)
	}

	if os.Geteuid() == 0 {
		must(t, os.Chmod(state, 0o700))
		must(t, os.Chown(keyFile, uidAgent, uidAgent))
		r = runSolgate(t, "console", "--keypair", keyFile, "--state", state, "--rpc", "http://127.0.0.1:9")
		if r.exit == 0 || !strings.Contains(r.stderr, fmt.Sprintf("%s belongs to uid %d", keyFile, uidAgent)) {
			t.Fatalf("a key another user owns: exit %d\n%s", r.exit, r.stderr)
		}
	}
}

func lastLine(out, prefix string) string {
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			line = l
		}
	}
	return line
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(to, data, 0o755))
	must(t, os.Chmod(to, 0o755))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// keygen writes a key the console accepts (read back with the loader the
// console uses, and its address printed), and never replaces a file.
func TestKeygenWritesAPrivateKeyOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "id.json")
	r := runSolgate(t, "keygen", "-o", path)
	if r.exit != 0 {
		t.Fatalf("keygen: %d\n%s", r.exit, r.stderr)
	}
	kp, err := executor.LoadKeypair(path)
	if err != nil {
		t.Fatalf("the console would refuse the new key: %v", err)
	}
	if !strings.Contains(r.stdout, "address "+kp.PublicKey().String()) {
		t.Fatalf("keygen printed another address:\n%s", r.stdout)
	}
	fi, _ := os.Stat(path)
	before, _ := os.ReadFile(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o", fi.Mode().Perm())
	}
	r = runSolgate(t, "keygen", "-o", path)
	after, _ := os.ReadFile(path)
	if r.exit == 0 || !strings.Contains(r.stderr, "already exists") || string(before) != string(after) {
		t.Fatalf("second keygen over the same file: exit %d\n%s", r.exit, r.stderr)
	}
}
