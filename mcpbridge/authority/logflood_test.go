package authority_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// Issue 33's log flood: connections over the per-user limit, each refused,
// used to write a line each (+14 MiB in 20 s). Now a flood of several
// thousand refusals spread over many summary intervals (the interval is
// 100 ms here instead of 10 s, so the 20 s flood's 2 intervals become 20 and
// more) grows the log by less than 100 KiB, and the summaries account for
// every refusal: the first line of a user plus the counts add up to at
// least every refusal a client was answered.
func TestRefusalFloodBarelyGrowsTheLog(t *testing.T) {
	const every = 100 * time.Millisecond
	const floodFor, atLeast = 2 * time.Second, 3000
	dir := t.TempDir()
	logPath := filepath.Join(dir, "console.log")
	logFile, err := host.OpenLog("--log-file", logPath, host.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(testkit.SocketDir(t), "s", "console.sock")
	ln, err := host.ListenConfig{MaxConnsPerUID: 2, Logger: slog.New(slog.NewTextHandler(logFile, nil)),
		RefusalSummaryEvery: every}.Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	srv := host.NewSocketHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	go srv.Serve(ln)
	t.Cleanup(func() { close(release); srv.Close() })

	// Two requests that never get answered hold the user's two slots.
	for i := 0; i < 2; i++ {
		c, err := net.Dial("unix", socket)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprint(c, "GET /hold HTTP/1.1\r\nHost: solgate\r\n\r\n")
	}
	testkit.Eventually(t, 20*time.Second, "both slots held", func() bool { return authority.MostConnsOfOnePeer(ln) == 2 }, nil)

	var refused sync.WaitGroup
	var mu sync.Mutex
	answered := 0
	start := time.Now()
	for g := 0; g < 8; g++ {
		refused.Add(1)
		go func() {
			defer refused.Done()
			for {
				mu.Lock()
				done := answered >= atLeast && time.Since(start) >= floodFor
				mu.Unlock()
				if done {
					return
				}
				c, err := net.Dial("unix", socket)
				if err != nil {
					continue
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: solgate\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					if resp.StatusCode == http.StatusTooManyRequests {
						mu.Lock()
						answered++
						mu.Unlock()
					}
				}
				c.Close()
			}
		}()
	}
	refused.Wait()
	ln.Close() // writes the last interval's counts
	if err := logFile.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	total := ln.Rejected()
	t.Logf("%d refusals over %s: the log grew to %d bytes", total, time.Since(start).Round(time.Millisecond), len(raw))
	if len(raw) >= 100<<10 {
		t.Fatalf("a flood of %d refusals grew the log by %d bytes, want < 100 KiB", total, len(raw))
	}
	// Every refusal is in the log: one first line, then the counts.
	firsts := strings.Count(string(raw), `msg="connection over the user limit refused" `)
	var counted uint64
	summaries := regexp.MustCompile(`msg="connection over the user limit refused \(summary\)" uid=\d+ refused=(\d+)`).FindAllStringSubmatch(string(raw), -1)
	for _, m := range summaries {
		n, _ := strconv.ParseUint(m[1], 10, 64)
		counted += n
	}
	// Every refusal a client was answered is in the log (noted before the
	// answer, flushed by Close after the last answer); connections still
	// on their way in at Close may be counted by the listener only.
	logged := uint64(firsts) + counted
	if logged < uint64(answered) || logged > total || len(summaries) < 2 {
		t.Fatalf("the log accounts for %d first lines + %d counted in %d summaries; clients were refused %d times, the listener counted %d:\n%s", firsts, counted, len(summaries), answered, total, raw)
	}
}
