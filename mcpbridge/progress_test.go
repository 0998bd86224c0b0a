package mcpbridge

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// statusConsole holds each call until the test releases it, telling held
// when one arrived, then answers proposal_status's "pending".
func statusConsole(t *testing.T, held chan<- struct{}, release <-chan struct{}) string {
	t.Helper()
	pending := answerWith(t, false, "still pending", `{"status":"pending","proposal_id":"p_1"}`)
	return fakeConsole(t, func(wire.CallRequest) []byte {
		held <- struct{}{}
		<-release
		return pending
	}, 0)
}

// A client that sends a progressToken with a waiting proposal_status hears
// notifications/progress with that token before the answer; one that sends
// none hears nothing but the answer.
func TestProgressWhileProposalStatusWaits(t *testing.T) {
	held, release := make(chan struct{}, 1), make(chan struct{})
	p := startBridge(t, statusConsole(t, held, release))
	// The bridge's lines, read as they come; a missing line fails the
	// test after a bound rather than hang it.
	lines := make(chan string, 16)
	go func() {
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the bridge's output ended")
			}
			return line
		case <-time.After(30 * time.Second):
			t.Fatal("no line from the bridge within 30 s")
		}
		return ""
	}

	p.send(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"proposal_status","arguments":{"proposal_id":"p_1","wait_seconds":20},"_meta":{"progressToken":"tok-1"}}}`)
	<-held
	line := next()
	var note struct {
		Method string `json:"method"`
		Params struct {
			ProgressToken any     `json:"progressToken"`
			Progress      float64 `json:"progress"`
			Total         float64 `json:"total"`
			Message       string  `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(line), &note); err != nil || note.Method != "notifications/progress" {
		t.Fatalf("the first line after a call with a progress token is not a progress notification: %v\n%s", err, line)
	}
	if note.Params.ProgressToken != "tok-1" || note.Params.Total != 20 || !strings.Contains(note.Params.Message, "waiting for the operator in the solgate console") {
		t.Errorf("progress notification %+v", note.Params)
	}
	release <- struct{}{}
	for {
		line = next()
		if strings.Contains(line, `"id":8`) {
			break // the answer; a second report may come before it
		}
		if !strings.Contains(line, "notifications/progress") {
			t.Fatalf("unexpected line before the answer: %s", line)
		}
	}

	// No token: the answer is the next line.
	p.send(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"proposal_status","arguments":{"proposal_id":"p_1","wait_seconds":20}}}`)
	<-held
	release <- struct{}{}
	if line = next(); !strings.Contains(line, `"id":9`) || strings.Contains(line, "notifications/progress") {
		t.Fatalf("a call without a progress token was sent something else first: %s", line)
	}
}
