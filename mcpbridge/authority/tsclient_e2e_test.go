package authority_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// The official TypeScript MCP SDK client (@modelcontextprotocol/sdk, the
// client Claude Desktop, Cursor, VS Code and the MCP Inspector are built
// on), pinned in testdata/tsclient and installed there by `make
// tsclient-deps` (npm ci), drives the real `solgate mcp` here. It lists the
// tools first, as every real client does; from then on the SDK holds each
// answer to its tool's outputSchema and throws on a mismatch, which the
// mcp-go client the other tests use does not. A call that throws fails the
// test.

// tsAnswer is one call's outcome as the TypeScript client reported it.
type tsAnswer struct {
	Threw        string // the SDK's exception, "" when it returned a result
	IsError      bool
	Text         string // the text blocks, the structured JSON's copy left out
	Structured   map[string]any
	Progress     []map[string]any // notifications/progress delivered to this call
	WireProgress int              // progress notifications received so far, any token
}

func (a tsAnswer) status() string { s, _ := a.Structured["status"].(string); return s }
func (a tsAnswer) str(k string) string {
	s, _ := a.Structured[k].(string)
	return s
}

// tsEvent is one line the client writes (client.mjs).
type tsEvent struct {
	Event string `json:"event"`
	ID    int    `json:"id"`
	Tools []struct {
		Name            string `json:"name"`
		HasOutputSchema bool   `json:"hasOutputSchema"`
	} `json:"tools"`
	Progress map[string]any `json:"progress"`
	Result   struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
	} `json:"result"`
	Error        string `json:"error"`
	WireProgress int    `json:"wireProgress"`
}

// tsClient is the client.mjs process, serving `solgate mcp --socket`.
type tsClient struct {
	t      *testing.T
	in     io.WriteCloser
	events chan tsEvent
	held   map[int][]tsEvent // events read while waiting for another call
	next   int
	tools  []tsEvent
}

// tsClientDir holds client.mjs and its pinned package.
const tsClientDir = "testdata/tsclient"

func startTSClient(t *testing.T, socket string) *tsClient {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("requires node (Node.js 20+) on PATH for the TypeScript MCP client")
	}
	if _, err := os.Stat(filepath.Join(tsClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the TypeScript MCP client is not installed: run `make tsclient-deps` (npm ci in mcpbridge/authority/%s): %v", tsClientDir, err)
	}
	cmd := exec.Command("node", "client.mjs", testkit.Binary(t), "mcp", "--socket", socket)
	cmd.Dir = tsClientDir
	var stderrMu sync.Mutex
	var stderrBuf bytes.Buffer
	cmd.Stderr = &lockedBuffer{&stderrMu, &stderrBuf} // faults_test.go
	stderr := func() string {
		stderrMu.Lock()
		defer stderrMu.Unlock()
		return stderrBuf.String()
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &tsClient{t: t, in: in, events: make(chan tsEvent, 64), held: map[int][]tsEvent{}}
	go func() {
		defer close(c.events)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
		for sc.Scan() {
			var ev tsEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ev = tsEvent{Event: "garbled", Error: err.Error() + ": " + sc.Text()}
			}
			c.events <- ev
		}
	}()
	t.Cleanup(func() {
		in.Close() // the client ends its calls, closes the bridge and exits
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil && !t.Failed() {
				t.Errorf("the TypeScript client exited with %v:\n%s", err, stderr())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("the TypeScript client did not exit within 30 s of its input closing:\n%s", stderr())
		}
		if s := stderr(); t.Failed() && s != "" {
			t.Logf("TypeScript client's stderr:\n%s", s)
		}
	})
	ev := c.read()
	if ev.Event != "tools" {
		t.Fatalf("the client's first event is %q, want the tools it listed: %s\n%s", ev.Event, ev.Error, stderr())
	}
	for _, tool := range ev.Tools {
		c.tools = append(c.tools, tsEvent{Event: tool.Name})
		if !tool.HasOutputSchema {
			t.Errorf("tools/list: %s has no outputSchema", tool.Name)
		}
	}
	return c
}

// read is the client's next event; the bound fails a test whose client
// went silent rather than hang it.
func (c *tsClient) read() tsEvent {
	c.t.Helper()
	select {
	case ev, ok := <-c.events:
		if !ok {
			c.t.Fatal("the TypeScript client's output ended")
		}
		if ev.Event == "garbled" {
			c.t.Fatalf("the TypeScript client wrote a line that is not an event: %s", ev.Error)
		}
		return ev
	case <-time.After(150 * time.Second):
		c.t.Fatal("no event from the TypeScript client within 150 s")
	}
	return tsEvent{}
}

// send starts a call; progress asks for progress (the SDK then sends a
// progressToken).
func (c *tsClient) send(tool string, args map[string]any, progress bool) int {
	c.t.Helper()
	c.next++
	line, err := json.Marshal(map[string]any{"id": c.next, "tool": tool, "args": args, "progress": progress})
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.t.Fatal(err)
	}
	return c.next
}

// nextOf is call id's next event.
func (c *tsClient) nextOf(id int) tsEvent {
	c.t.Helper()
	if evs := c.held[id]; len(evs) > 0 {
		c.held[id] = evs[1:]
		return evs[0]
	}
	for {
		ev := c.read()
		if ev.ID == id {
			return ev
		}
		c.held[ev.ID] = append(c.held[ev.ID], ev)
	}
}

// wait is call id's answer, with the progress it heard first.
func (c *tsClient) wait(id int) tsAnswer {
	c.t.Helper()
	var a tsAnswer
	for {
		ev := c.nextOf(id)
		switch ev.Event {
		case "progress":
			a.Progress = append(a.Progress, ev.Progress)
			continue
		case "threw":
			a.Threw = ev.Error
		case "result":
			a.IsError, a.Structured, a.WireProgress = ev.Result.IsError, ev.Result.StructuredContent, ev.WireProgress
			var texts []string
			for _, b := range ev.Result.Content {
				texts = append(texts, b.Text)
			}
			// The last block repeats the structured content as JSON.
			if a.Structured != nil && len(texts) > 1 {
				texts = texts[:len(texts)-1]
			}
			a.Text = strings.Join(texts, "")
		default:
			c.t.Fatalf("unexpected event %q for call %d", ev.Event, id)
		}
		return a
	}
}

func (c *tsClient) call(tool string, args map[string]any) tsAnswer {
	c.t.Helper()
	return c.wait(c.send(tool, args, false))
}

// reachedElsewhere are the outcomes this test does not drive through the
// TypeScript client, each with where one is reached. A status a tool
// declares that is neither reached here nor listed fails the test: a new
// tool or status must be covered.
var reachedElsewhere = map[string]string{
	// transfer_sol's slow execution below answers one of these two, as
	// the timing gives.
	"executing": "a confirmed call still running when its answer is due: TestSlowExecutionAnswersSubmittedThenExecuted, faults_test.go",
	"submitted": "sent, not yet confirmed: TestSlowExecutionAnswersSubmittedThenExecuted, faults_test.go, follow_test.go",
	"failed": "an execution that failed on chain or at its re-check: swap_hostile_e2e_test.go, faults_test.go " +
		"(proposal_status's failed is reached here)",
	"executed_with_unexpected_losses": "landed effects that differ from the approved ones: skeleton_test.go, in process",
}

// Through the official TypeScript SDK client, after tools/list: every
// tool over every outcome class (success, policy denial, writes paused, the
// operator's denial, a refused token: made up, replayed, for other
// arguments, lapsed; every argument of every tool malformed; no console
// running) comes back as an answer, never as an SDK exception; a malformed
// argument is a tool error whose text names it; a refused token is an
// ordinary result saying so; and a waiting call with a progress token hears
// progress before its answer, one without hears none.
func TestTypeScriptSDKClientOverEveryOutcome(t *testing.T) {
	t.Parallel()
	free := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { _, _ = rw.Write([]byte("free")) }))
	t.Cleanup(free.Close)
	clock := testkit.NewClock(time.Now())
	w := outcomeWorld(t, func(o *authority.Options, l *localnet.Ledger) {
		o.Now = clock.Now
		o.Policy.AllowedX402Origins = append(o.Policy.AllowedX402Origins, free.URL)
		// Every write tool is denied here on purpose, more often than the
		// retry breaker allows one agent in a minute.
		o.Policy.BreakerDenials = 1000
	})
	c := startTSClient(t, w.socket)
	var listed []string
	for _, tool := range c.tools {
		listed = append(listed, tool.Event)
	}
	// mcp-go lists tools by name.
	if !slices.Equal(slices.Sorted(slices.Values(listed)), slices.Sorted(slices.Values(wire.ToolNames()))) {
		t.Errorf("tools/list gave %v, the inventory is %v", listed, wire.ToolNames())
	}

	covered := map[string]map[string]bool{}
	answer := func(tool string, a tsAnswer) tsAnswer {
		t.Helper()
		if a.Threw != "" {
			t.Errorf("%s: the TypeScript SDK threw: %s", tool, a.Threw)
			return a
		}
		if covered[tool] == nil {
			covered[tool] = map[string]bool{}
		}
		covered[tool][a.status()] = true
		return a
	}
	call := func(tool string, args map[string]any) tsAnswer {
		t.Helper()
		return answer(tool, c.call(tool, args))
	}
	want := func(tool string, a tsAnswer, status string) tsAnswer {
		t.Helper()
		if a.Threw == "" && (a.status() != status || a.IsError != (status == "error")) {
			t.Errorf("%s: status %q (isError %v), want %q: %s", tool, a.status(), a.IsError, status, a.Text)
		}
		return a
	}
	probes := readOnlyProbes(w)

	// Every argument of every tool malformed: a tool error naming it.
	for _, m := range malformedCalls(t, probes) {
		a := call(m.Tool, m.Args)
		if a.Threw == "" && (!a.IsError || !strings.Contains(a.Text, m.Arg)) {
			t.Errorf("%s with %s malformed: isError %v, the text does not name it: %s", m.Tool, m.Arg, a.IsError, a.Text)
		}
	}
	for _, name := range wire.ToolNames() {
		if !wire.IsWriteTool(name) && name != wire.ToolProposalStatus {
			want(name, call(name, probes[name]), "")
		}
	}
	want(wire.ToolProposalStatus, call(wire.ToolProposalStatus, probes[wire.ToolProposalStatus]), "unknown")
	want(wire.ToolX402Fetch, call(wire.ToolX402Fetch, map[string]any{"url": free.URL + "/r"}), "response")

	status := func(id string) tsAnswer {
		t.Helper()
		return call(wire.ToolProposalStatus, map[string]any{"proposal_id": id})
	}
	propose := func(tool string, args map[string]any) string {
		t.Helper()
		a := want(tool, call(tool, args), "pending_approval")
		return a.str("proposal_id")
	}
	approve := func(id string) string {
		t.Helper()
		if _, err := w.authority.Approve(id, "operator"); err != nil {
			t.Fatal(err)
		}
		return want(wire.ToolProposalStatus, status(id), "approved").str("confirm")
	}
	with := func(args map[string]any, k string, v any) map[string]any {
		out := maps.Clone(args)
		out[k] = v
		return out
	}
	for _, name := range wire.ToolNames() {
		if !wire.IsWriteTool(name) {
			continue
		}
		w.authority.SetPaused(true)
		want(name, call(name, probes[name]), "denied")
		w.authority.SetPaused(false)
		id := propose(name, probes[name])
		want(wire.ToolProposalStatus, status(id), "pending")
		want(name, call(name, with(probes[name], "confirm", "111111111111")), "refused")
		confirmed := with(probes[name], "confirm", approve(id))
		want(name, call(name, confirmed), "executed")
		replay := want(name, call(name, confirmed), "refused")
		if !strings.Contains(replay.Text, "REFUSED") {
			t.Errorf("%s: a replayed token's answer does not say it was refused: %s", name, replay.Text)
		}
		want(wire.ToolProposalStatus, status(id), "executed")
	}

	tr := func(lamports int) map[string]any {
		return map[string]any{"to": w.allowed.String(), "lamports": lamports}
	}
	// A policy denial: a recipient not on the allowlist.
	want(wire.ToolTransferSOL, call(wire.ToolTransferSOL, map[string]any{"to": w.stranger.String(), "lamports": 7_000}), "denied")
	// The operator's denial.
	id := propose(wire.ToolTransferSOL, tr(7_001))
	if _, err := w.authority.Deny(id, "operator", "not today"); err != nil {
		t.Fatal(err)
	}
	want(wire.ToolProposalStatus, status(id), "denied")
	// A token sent with other arguments: refused, and the proposal failed.
	id = propose(wire.ToolTransferSOL, tr(7_002))
	token := approve(id)
	want(wire.ToolTransferSOL, call(wire.ToolTransferSOL, with(tr(7_003), "confirm", token)), "refused")
	want(wire.ToolProposalStatus, status(id), "failed")
	// Writes paused between approval and execution: refused.
	id = propose(wire.ToolTransferSOL, tr(7_004))
	token = approve(id)
	w.authority.SetPaused(true)
	want(wire.ToolTransferSOL, call(wire.ToolTransferSOL, with(tr(7_004), "confirm", token)), "refused")
	w.authority.SetPaused(false)
	// A lapsed token: proposal_status says expired, the call is refused.
	id = propose(wire.ToolTransferSOL, tr(7_005))
	token = approve(id)
	clock.Advance(6 * time.Minute)
	want(wire.ToolProposalStatus, status(id), "expired")
	want(wire.ToolTransferSOL, call(wire.ToolTransferSOL, with(tr(7_005), "confirm", token)), "refused")

	// Progress: a waiting proposal_status with a token hears it before
	// the answer; the operator approves once the client has heard it.
	id = propose(wire.ToolTransferSOL, tr(7_006))
	waiting := c.send(wire.ToolProposalStatus, map[string]any{"proposal_id": id, "wait_seconds": 20}, true)
	if ev := c.nextOf(waiting); ev.Event != "progress" {
		t.Fatalf("proposal_status with a progress token and wait_seconds 20: first event %q, want progress", ev.Event)
	} else if msg, _ := ev.Progress["message"].(string); !strings.Contains(msg, "waiting for the operator in the solgate console") {
		t.Errorf("progress message %q", msg)
	}
	if _, err := w.authority.Approve(id, "operator"); err != nil {
		t.Fatal(err)
	}
	approved := want(wire.ToolProposalStatus, answer(wire.ToolProposalStatus, c.wait(waiting)), "approved")
	// A confirmed call with a token hears that it executes.
	run := c.send(wire.ToolTransferSOL, with(tr(7_006), "confirm", approved.str("confirm")), true)
	ran := want(wire.ToolTransferSOL, answer(wire.ToolTransferSOL, c.wait(run)), "executed")
	if len(ran.Progress) == 0 {
		t.Error("a confirmed call with a progress token heard no progress")
	}
	// Without a token: a wait that ends pending, and no progress at all.
	id = propose(wire.ToolTransferSOL, tr(7_007))
	before := want(wire.ToolProposalStatus, status(id), "pending").WireProgress
	quiet := want(wire.ToolProposalStatus, call(wire.ToolProposalStatus, map[string]any{"proposal_id": id, "wait_seconds": 1}), "pending")
	if len(quiet.Progress) != 0 || quiet.WireProgress != before {
		t.Errorf("proposal_status without a progress token: %d progress notifications delivered, %d on the wire", len(quiet.Progress), quiet.WireProgress-before)
	}

	// An execution slower than the console's execute wait (here 1 ms):
	// the confirmed call answers executing or submitted, and
	// proposal_status, waited on with progress, the outcome.
	slow := newWorld(t, func(o *authority.Options) { o.ExecuteWait = time.Millisecond })
	sc := startTSClient(t, slow.socket)
	args := map[string]any{"to": slow.allowed.String(), "lamports": 4_000_000}
	id = want(wire.ToolTransferSOL, answer(wire.ToolTransferSOL, sc.call(wire.ToolTransferSOL, args)), "pending_approval").str("proposal_id")
	p, err := slow.authority.Approve(id, "operator")
	if err != nil {
		t.Fatal(err)
	}
	first := answer(wire.ToolTransferSOL, sc.wait(sc.send(wire.ToolTransferSOL, with(args, "confirm", p.Token), true)))
	if first.status() != "executing" && first.status() != "submitted" {
		t.Errorf("a confirmed call slower than the execute wait: %q: %s", first.status(), first.Text)
	}
	for st := first.status(); st == "executing" || st == "submitted"; {
		a := answer(wire.ToolProposalStatus, sc.wait(sc.send(wire.ToolProposalStatus, map[string]any{"proposal_id": id, "wait_seconds": 10}, true)))
		if st = a.status(); st != "executed" && st != "executing" && st != "submitted" {
			t.Fatalf("the slow execution ended %q: %s", st, a.Text)
		}
	}

	// No console: every tool fails closed, as a tool error, never a throw.
	gone := startTSClient(t, filepath.Join(testkit.SocketDir(t), "none.sock"))
	for _, name := range wire.ToolNames() {
		a := gone.call(name, probes[name])
		if a.Threw != "" || !a.IsError || !strings.Contains(a.Text, "no approval console is running") {
			t.Errorf("%s without a console: threw %q, isError %v: %s", name, a.Threw, a.IsError, a.Text)
		}
	}

	// The table: every status of every tool, from the inventory, reached
	// here or named in reachedElsewhere.
	for _, name := range wire.ToolNames() {
		tool, _ := wire.LookupTool(name)
		if !wire.IsWriteTool(name) && name != wire.ToolProposalStatus && !covered[name][""] {
			t.Errorf("%s: its own answer was not reached through the TypeScript client", name)
		}
		for _, st := range wire.Statuses(tool) {
			if covered[name][st] {
				continue
			}
			if where, ok := reachedElsewhere[st]; ok {
				t.Logf("%s %s: not driven here; %s", name, st, where)
				continue
			}
			t.Errorf("%s: status %q is not reached through the TypeScript client: drive it here, or name where it is in reachedElsewhere", name, st)
		}
	}
}
