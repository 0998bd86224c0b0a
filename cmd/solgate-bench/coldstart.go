package main

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
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// The reference MCP server is installed by `make bench` from the lockfile in
// refserver/ (npm ci; no network at run time).
const (
	refPackage = "@modelcontextprotocol/server-everything"
	refEntry   = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)

// stdioServer is a command line that serves MCP on stdio.
type stdioServer struct {
	name string
	argv []string
	dir  string
}

// coldStart spawns the server, writes `initialize` at once and returns the
// time from just before the spawn to the moment the initialize answer's line
// has been read: what an MCP client waits before it can list tools.
func coldStart(ctx context.Context, s stdioServer) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	init, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{
			"protocolVersion": mcp.LATEST_PROTOCOL_VERSION,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "solgate-bench", "version": "1"},
		},
	})
	cmd := exec.CommandContext(ctx, s.argv[0], s.argv[1:]...)
	cmd.Dir = s.dir
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", s.name, err)
	}
	defer func() {
		// Closing stdin is how an MCP client ends a stdio server.
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	// The request sits in the pipe until the server reads it, as it does
	// when a client writes before the server is up.
	if _, err := stdin.Write(append(init, '\n')); err != nil {
		return 0, fmt.Errorf("%s: write initialize: %w", s.name, err)
	}
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0, fmt.Errorf("%s: no initialize answer: %w", s.name, err)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || string(msg.ID) != "1" {
			continue // a notification or a log line on stdout
		}
		took := time.Since(start)
		if len(msg.Result) == 0 {
			return 0, fmt.Errorf("%s: initialize failed: %s", s.name, strings.TrimSpace(string(line)))
		}
		return took, nil
	}
}

// referenceServer locates the installed reference server.
func referenceServer(refDir string) (stdioServer, string, error) {
	refDir, err := filepath.Abs(refDir)
	if err != nil {
		return stdioServer{}, "", err
	}
	entry := filepath.Join(refDir, refEntry)
	if _, err := os.Stat(entry); err != nil {
		return stdioServer{}, "", fmt.Errorf("reference MCP server not installed at %s: run `make bench` (it runs npm ci in %s)", entry, refDir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return stdioServer{}, "", fmt.Errorf("reference MCP server needs node on PATH: %w", err)
	}
	version := "?"
	if raw, err := os.ReadFile(filepath.Join(refDir, "node_modules", refPackage, "package.json")); err == nil {
		var pkg struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(raw, &pkg) == nil && pkg.Version != "" {
			version = pkg.Version
		}
	}
	return stdioServer{name: refPackage, argv: []string{node, entry, "stdio"}, dir: refDir}, refPackage + "@" + version, nil
}

// measureColdStart alternates solgate and the reference run by run, so that
// both see the same machine load, and compares their medians.
func measureColdStart(ctx context.Context, bin, socket, refDir string, runs int) []row {
	solgate := stdioServer{name: "solgate mcp", argv: []string{bin, "mcp", "--socket", socket}}
	ref, refName, refErr := referenceServer(refDir)

	// One untimed run each: the first exec of a binary pays for the page
	// cache, which no client start after the first one does.
	_, _ = coldStart(ctx, solgate)
	if refErr == nil {
		_, _ = coldStart(ctx, ref)
	}
	var ours, theirs []time.Duration
	for i := 0; i < runs; i++ {
		d, err := coldStart(ctx, solgate)
		if err != nil {
			return []row{errorRow("solgate mcp cold start → initialize", err)}
		}
		ours = append(ours, d)
		if refErr == nil {
			d, err := coldStart(ctx, ref)
			if err != nil {
				refErr = err
				continue
			}
			theirs = append(theirs, d)
		}
	}
	rows := []row{latencyRow("solgate mcp cold start → initialize", ours, nil,
		"spawn of the built binary to the initialize answer read on stdout; runs alternate with the reference")}
	if refErr != nil {
		rows = append(rows, errorRow("reference cold start (server-everything, node)", refErr),
			errorRow("cold start: reference ÷ solgate (medians)", refErr))
		return rows
	}
	rows = append(rows, latencyRow("reference cold start (server-everything, node)", theirs, nil,
		refName+" in stdio mode, installed from refserver/package-lock.json; same measurement"))
	ratio := ms(percentile(theirs, 50)) / ms(percentile(ours, 50))
	// Issue 35's goal: the bridge on mcp-go's StdioServer still starts at
	// least 20 times faster than the Node reference.
	rows = append(rows, singleRow("cold start: reference ÷ solgate (medians)", runs, "x", ratio,
		&goal{Stat: "value", Op: ">=", Limit: 20, Text: "≥ 20×"}, ""))
	return rows
}
