package testkit

// Tests drive the real solgate binary the way a user or an MCP client would:
// the command is built once per test process, and MCP is spoken to
// `solgate mcp` with mcp-go's stdio client.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds ./cmd/solgate once per test process and returns its path.
// The file lives in the system temp dir under a name that says what it is.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "solgate-under-test-")
		if err != nil {
			buildErr = err
			return
		}
		binPath, buildErr = build(dir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// BuildBinary builds ./cmd/solgate afresh into dir, as Binary does once per
// process, and returns its path: for a test that must know when the build
// read the checkout.
func BuildBinary(t testing.TB, dir string) string {
	t.Helper()
	bin, err := build(dir)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func build(dir string) (string, error) {
	_, here, _, _ := runtime.Caller(0)
	bin := filepath.Join(dir, "solgate")
	// -buildvcs=true: the binary records the checkout's revision, as
	// `make build` does, whatever GOFLAGS the machine sets.
	cmd := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	cmd.Dir = filepath.Join(filepath.Dir(here), "..", "..", "cmd", "solgate")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/solgate: %v\n%s", err, out)
	}
	return bin, nil
}

// Agent is an MCP client driving a real `solgate mcp` subprocess, as an
// assistant would (or a bridge served inside the test process: AgentOver).
type Agent struct {
	t testing.TB
	C *mcpclient.Client
}

// StartAgent spawns `solgate mcp --socket socket`, initialises it with the
// given client name (the console shows it as "name 1.0") and closes it when
// the test ends.
func StartAgent(t testing.TB, socket, name string) *Agent {
	t.Helper()
	c, _ := StartMCPClient(t, name, nil, Binary(t), "mcp", "--socket", socket)
	return &Agent{t: t, C: c}
}

// StartMCPClient runs command with args as an MCP stdio server (env added to
// its environment), initialises it as a client called name (version 1.0),
// and closes it when the test ends.
func StartMCPClient(t testing.TB, name string, env []string, command string, args ...string) (*mcpclient.Client, *mcp.InitializeResult) {
	t.Helper()
	c, err := mcpclient.NewStdioMCPClient(command, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	res, err := initialize(c, name)
	if err != nil {
		t.Fatalf("initialize %s %v: %v", command, args, err)
	}
	return c, res
}

// AgentOver is an Agent of an MCP stdio server that runs inside the test
// process (a bridge served on pipes): it reads the server's output from
// answers and writes to its input, stdin, which closing the client closes.
// It initialises as a client called name (version 1.0), and closes the
// client when the test ends.
func AgentOver(t testing.TB, name string, answers io.Reader, stdin io.WriteCloser) *Agent {
	t.Helper()
	c := mcpclient.NewClient(transport.NewIO(answers, stdin, nil))
	t.Cleanup(func() { c.Close() })
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := initialize(c, name); err != nil {
		t.Fatalf("initialize the server on pipes: %v", err)
	}
	return &Agent{t: t, C: c}
}

// initialize is the MCP handshake as a client called name (version 1.0).
func initialize(c *mcpclient.Client, name string) (*mcp.InitializeResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1.0"}
	return c.Initialize(ctx, init)
}

// Answer is one tool result as the model sees it: the text, the structured
// content, and whether it is a tool error. It is read from the MCP result
// here rather than with the bridge's own decoder, so that a test of the
// bridge does not check the bridge against itself.
type Answer struct {
	IsError    bool
	Text       string
	Structured map[string]any
	// Serialized is the text block carrying the structured content as
	// JSON (the MCP spec's fallback for clients that read only text); it is
	// not part of Text.
	Serialized string
}

// Status is the structured "status" field ("" when absent).
func (a Answer) Status() string { s, _ := a.Structured["status"].(string); return s }

// Str is a structured field as a string ("" when absent).
func (a Answer) Str(key string) string {
	if v, ok := a.Structured[key]; ok && v != nil {
		return fmt.Sprint(v)
	}
	return ""
}

// AnswerOf reads an MCP tool result as the model sees it.
func AnswerOf(res *mcp.CallToolResult) Answer {
	out := Answer{IsError: res.IsError}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &out.Structured)
		// A last block that decodes to the same value as the structured
		// content is its serialisation, not more text.
		if n := len(texts); n > 1 {
			var last any
			if json.Unmarshal([]byte(texts[n-1]), &last) == nil && reflect.DeepEqual(last, any(out.Structured)) {
				out.Serialized, texts = texts[n-1], texts[:n-1]
			}
		}
	}
	out.Text = strings.Join(texts, "")
	return out
}

// Call calls a tool and fails the test on a protocol error (never on a tool
// error or a denial: those are answers).
func (a *Agent) Call(tool string, args map[string]any) Answer {
	a.t.Helper()
	ans, err := a.Try(tool, args, 60*time.Second)
	if err != nil {
		a.t.Fatalf("%s: protocol error: %v", tool, err)
	}
	return ans
}

// Try calls a tool and returns a protocol error instead of failing.
func (a *Agent) Try(tool string, args map[string]any, timeout time.Duration) (Answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := a.C.CallTool(ctx, req)
	if err != nil {
		return Answer{}, err
	}
	return AnswerOf(res), nil
}
